//! The request walk: the sections a request meets in httpd's merge order, phase by phase
//! (Directory with the `.htaccess` files on the way, Files, Location, and the `<If>` sections
//! we do not evaluate), and their policies merged into a [`Resolved`].

use super::branches::{self, Branch, Chain, Decided};
use super::fs::{path_text, request_filename_in, FsView};
use super::items::body_items;
use super::patterns::{location_prefix, regex_matches, section_applies, section_match_vars, wildcard_match};
use super::symlinks::{self, SymlinkOptions};
use super::url::{normalize_url, pick_vhost, translate, unmerged_url, Connection, Server};
use super::Resolved;
use super::{section_pattern, SectionPattern};
use crate::ide::allow_override::InForce;
use crate::ide::catalogue::context::Overrides;
use crate::ide::config::index::{components, Built, ServerId};
use crate::ide::config::{self, Config, FileData, FileId, Node, NodeKind, SecId};
use crate::ide::policy::{self, fold_phase, merge_authn, AuthnConfig, AuthzConfig, Item, PolicyCtx};
use apache_syntax::{TextRange, TextSize};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How the reason for an unknown outcome ends when an .htaccess file could not be read.
/// How the reason of an .htaccess `<If>` holding access rules ends: with its expression true the
/// request may be granted or refused (and asked for credentials, for the second).
pub(super) const HTACCESS_IF: &str = "; with it true, the request may be granted or refused";
pub(super) const HTACCESS_IF_AUTH: &str =
    "; with it true, the request may be granted, refused or asked for credentials";
pub(super) const UNREADABLE_HTACCESS: &str = "; httpd refuses the request (403, AH00529) if it cannot read it either";

/// How the reason for an unknown outcome ends when an .htaccess file holds a line httpd may not
/// know (the modules loaded are not all known here).
pub(super) const MAYBE_INVALID_HTACCESS: &str = "; if httpd does not know it, every request gets 500";

/// One section of a phase: a section of the configuration, or an .htaccess file
/// read for this request together with the AllowOverride in force for it.
#[derive(Debug, Clone)]
pub(super) enum Contribution {
    Section(SecId),
    /// The file, the AllowOverride and AllowOverrideList in force for it, the file loaded
    /// under the server, and its policy when built ([`FsView::htaccess_built`]).
    Htaccess(Arc<FileData>, Overrides, Arc<Config>, Arc<HtaccessSlot>),
    /// A `<Files>`/`<FilesMatch>` section of an .htaccess file (in the Files phase): the file,
    /// the file loaded, and the section's index among its top-level nodes (`<IfModule>`
    /// bodies httpd reads are spliced in there).
    HtaccessFiles(Arc<FileData>, Arc<Config>, usize),
    /// An `<If>`-family section of an .htaccess file whose branch applies (in an If phase): the
    /// file, the file loaded, and the section's id in that file's own index.
    HtaccessIf(Arc<FileData>, Arc<Config>, SecId),
}

/// Where an applied section is written ([`Resolved::applied`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A section of the configuration: its file and range.
    Node(FileId, TextRange),
    /// An .htaccess file's top level.
    Htaccess,
    /// A section of an .htaccess file: its range in that file.
    HtaccessSection(TextRange),
}

/// The `<Files>`/`<FilesMatch>` sections among an .htaccess file's top-level nodes.
fn htaccess_files_sections(frag: &Config) -> impl Iterator<Item = (usize, &Node)> {
    frag.nodes.iter().enumerate().filter(|(_, n)| n.is_section() && (n.is("Files") || n.is("FilesMatch")))
}

/// What is found of an .htaccess file under some AllowOverride when a merge first needs it.
#[derive(Debug, Default)]
pub(super) struct HtaccessSlot {
    /// Its policy, body, first error, and the reasons its outcome may be unknown (see
    /// [`htaccess`]).
    pub built: std::sync::OnceLock<HtaccessBuilt>,
    /// The words of its lines httpd's handlers refuse ([`htaccess_walk_error`]).
    pub refusals: Arc<Refusals>,
}

/// An .htaccess file's policy, body, first error, and the reasons its outcome may be unknown.
pub(super) type HtaccessBuilt = (Arc<Built>, Vec<Item>, Option<String>, Vec<String>);

/// The lines of an .htaccess file httpd's handlers refuse, found when a handler check first
/// needs them ([`crate::ide::diagnostics::htaccess_refusals::of`]): where each line starts, and
/// httpd's words.
pub(super) type Refusals = std::sync::OnceLock<Vec<(TextSize, String)>>;

/// An applied section: what it is, its policy, and (for an .htaccess file, which has no
/// node to re-read) its body.
pub(super) type Applied = (Contribution, Arc<Built>, Option<Vec<Item>>);

/// A symbolic link the directory walk refuses (403): its path, and the AH code httpd logs.
pub(super) type SymlinkRefusal = (PathBuf, &'static str);

/// The sections that apply to a request, in merge order, grouped by phase; and the symbolic
/// link the walk refuses (it stops there: 403). `familiar`: the filename whose walk a subrequest
/// for a regular file of its directory reuses ([`walk_request_as`]): its Directory phase is that
/// walk's, and only the file itself is checked for a link
/// ([`symlinks::refuses_in_parent_directory`]). What else it finds on its way goes to `found`.
#[allow(clippy::too_many_arguments)]
fn walk(
    cfg: &Config,
    fs: &FsView,
    server: &Server,
    mut options: SymlinkOptions,
    familiar: Option<&Path>,
    (url, regex_url): (&str, &str),
    (fs_path, whole_exists): (&Path, bool),
    decided: Option<&Decided>,
    found: &mut Found,
) -> (Vec<Vec<Contribution>>, Option<SymlinkRefusal>) {
    let Found {
        unknown,
        conditional,
        startup,
        index_conditions,
        chains,
        other_chains: others,
        presumed_there,
        match_vars,
    } = found;
    let ix = cfg.index();
    let file_text = path_text(fs_path);
    // The directory phase is walked on the reused directory's name when there is one: its
    // sections (a regex matched against `…/dir/`, no wildcard reaching the file) are what httpd
    // merges, the file's `<Files>` and the URL's `<Location>` sections coming on top.
    let path = familiar.map_or_else(|| file_text.clone(), path_text);
    // A reused walk that is no directory's is a missing name's (FallbackResource runs only for
    // one): httpd's walk stopped at it, whatever a view takes an unknown last component to be.
    let familiar_missing = familiar.is_some_and(|f| !fs.is_dir(f));
    let comps = components(&path);
    // How far the walk goes: the deepest existing directory, plus a final component that is a
    // file or does not exist. `fs_path` ([`request_filename_in`]) ends there, every component
    // before its last one a directory.
    let depth = comps.len();
    let mut dir_phase: Vec<Contribution> = Vec::new();
    // AccessFileName: the vhost's, else the main server's, else httpd's default.
    static DEFAULT_ACCESS_FILE: std::sync::LazyLock<[String; 1]> =
        std::sync::LazyLock::new(|| [".htaccess".to_string()]);
    let names: &[String] = server
        .vhost
        .and_then(|v| v.access_file_name.as_deref())
        .or(server.main.access_file_name.as_deref())
        .unwrap_or(&DEFAULT_ACCESS_FILE[..]);
    // The AllowOverride and AllowOverrideList merged so far: none until a section on the way
    // sets them (httpd's OR_UNSET). This is `allow_override::in_force` done one component at a
    // time (the same merge, `InForce::merge`): the walk reads each directory's .htaccess file
    // and decides its symbolic links between two components, so it cannot ask for the whole
    // path at once.
    let mut in_force = InForce::default();
    // The directory at depth k: "/" then "/a", "/a/b", … grown one component at a time.
    let mut prefix = String::with_capacity(path.len() + 1);
    prefix.push('/');
    // <Directory> sections by component count, then in order (the main server's, then the vhost's).
    for k in 0..=depth {
        if k > 0 {
            if k > 1 {
                prefix.push('/');
            }
            prefix.push_str(comps[k - 1]);
        }
        // On a deployed tree, the last component when it is not a directory: httpd's walk stats
        // it and stops (a missing one, a file) before merging the sections of its depth, unless
        // it skipped that stat (`whole_exists`, links followed without a question). The path
        // from a missing component on is path info.
        // ([`FsView::last_missing`] takes a last component that is no directory to be missing.)
        let stops_before = (fs.stats_last() || familiar_missing)
            && k > 0
            && k == depth
            && !(whole_exists && options.follows_all())
            && !fs.is_dir(Path::new(&prefix));
        // Elsewhere such a component is taken to be there: whether its sections apply then
        // depends on it ([`Resolved::presumes_last_there`]).
        let last_unknown = !fs.stats_last() && !familiar_missing && k > 0 && k == depth;
        for scope in server.scopes().filter(|_| !stops_before) {
            for id in scope.dirs_at(k, &prefix, |pat, text| wildcard_match(pat, text, true)) {
                if last_unknown && !*presumed_there && !fs.is_dir(Path::new(&prefix)) {
                    *presumed_there = true;
                }
                in_force.merge(ix, id);
                if let Some(o) = SymlinkOptions::of_section(&ix.node(cfg, id).children) {
                    options.merge(&o);
                }
                dir_phase.push(Contribution::Section(id));
            }
        }
        // The .htaccess of the directory at this depth (only real directories: those above the
        // last component are), read when AllowOverride or AllowOverrideList grants something
        // (`server/request.c: ap_directory_walk`). With no AllowOverride on the way at all, httpd
        // reads it too, and grants nothing in it (`OR_UNSET|OR_NONE` is not 0).
        let overrides = in_force
            .reads_htaccess(ix)
            .then(|| {
                htaccess_overrides(
                    cfg,
                    in_force.allow_override(ix),
                    in_force.allow_override_list(ix).unwrap_or_default(),
                )
            })
            .filter(Overrides::reads_htaccess);
        if let Some(overrides) = overrides.filter(|_| k < depth || fs.is_dir(Path::new(&prefix))) {
            for name in names {
                let p = Path::new(&prefix).join(name);
                match fs.read(&p) {
                    Ok(Some(fd)) => {
                        // The file as httpd runs it: without what `Nonfatal=…` has it skip.
                        let frag = crate::ide::nonfatal::executed(&fs.fragment(&fd, cfg), &overrides);
                        if let Some(o) = SymlinkOptions::of_section(&frag.nodes) {
                            options.merge(&o);
                        }
                        let slot = fs.htaccess_built(&fd, cfg, &overrides);
                        dir_phase.push(Contribution::Htaccess(fd, overrides, frag, slot));
                        break;
                    }
                    Ok(None) => {}
                    // httpd stops here with 403 when it cannot read the file (AH00529); whether
                    // it can, running as its own user, is not known from here.
                    Err(e) => {
                        unknown.push(format!("{} cannot be read here ({e}){UNREADABLE_HTACCESS}", p.display()));
                        break;
                    }
                }
            }
        }
        // The next component, under the options merged so far.
        let last = k + 1 == depth;
        if k < depth && (last || !options.follows_all()) {
            let next = if k == 0 { format!("/{}", comps[0]) } else { format!("{prefix}/{}", comps[k]) };
            if symlinks::refuses(fs, &options, Path::new(&next), last) {
                return (vec![dir_phase, Vec::new(), Vec::new()], Some((PathBuf::from(next), "AH00037")));
            }
        }
    }
    // Regex Directory sections against the full filename, sorted as httpd sorts them: by the
    // number of `/` in their expression, then in configuration order (the main server's before
    // the virtual host's). Stable sort: the matches are gathered in that configuration order.
    let regex_from = dir_phase.len();
    let mut slashes = Vec::new();
    for scope in server.scopes() {
        for (id, re, n) in &scope.dir_regex {
            match re.as_deref().map(|r| regex_matches(r, &path, false)) {
                Some(Some(true)) => {
                    match_vars.extend(section_match_vars(ix.node(cfg, *id), &path));
                    dir_phase.push(Contribution::Section(*id));
                    slashes.push(*n);
                }
                Some(None) => {
                    let d = ix.node(cfg, *id);
                    unknown.push(format!(
                        "cannot evaluate the regular expression of <{}> at line {}",
                        d.name(),
                        cfg.line(&d.loc)
                    ))
                }
                _ => {}
            }
        }
    }
    if slashes.windows(2).any(|w| w[0] > w[1]) {
        let mut ranked: Vec<(usize, Contribution)> = slashes.into_iter().zip(dir_phase.drain(regex_from..)).collect();
        ranked.sort_by_key(|(n, _)| *n);
        dir_phase.extend(ranked.into_iter().map(|(_, c)| c));
    }
    // A reused walk checks only the file itself for a link, under the options of the whole
    // Directory phase (`ap_directory_walk`'s familiar path: AH00032).
    if familiar.is_some() {
        for c in &dir_phase[regex_from..] {
            if let Contribution::Section(id) = c {
                if let Some(o) = SymlinkOptions::of_section(&ix.node(cfg, *id).children) {
                    options.merge(&o);
                }
            }
        }
        if symlinks::refuses_in_parent_directory(fs, &options, fs_path) {
            return (vec![dir_phase, Vec::new(), Vec::new()], Some((fs_path.to_path_buf(), "AH00032")));
        }
    }
    // Files: server level, then nested in the matched Directory sections and .htaccess files,
    // in merge order (`merge_core_dir_configs` appends each one's `sec_file`).
    let mut files_candidates: Vec<Contribution> =
        server.scopes().flat_map(|s| s.files.iter().map(|id| Contribution::Section(*id))).collect();
    for c in &dir_phase {
        match c {
            Contribution::Section(id) => {
                files_candidates.extend(ix.files_in(*id).iter().map(|f| Contribution::Section(*f)))
            }
            Contribution::Htaccess(fd, _, frag, _) => files_candidates.extend(
                htaccess_files_sections(frag).map(|(i, _)| Contribution::HtaccessFiles(fd.clone(), frag.clone(), i)),
            ),
            Contribution::HtaccessFiles(..) | Contribution::HtaccessIf(..) => {}
        }
    }
    // The basename of `r->filename` ([`request_filename`]); a directory requested with its
    // trailing slash is `…/dir/`: basename "".
    let base = if file_text.ends_with('/') { "" } else { components(&file_text).last().copied().unwrap_or("") };
    let mut files_phase = Vec::new();
    for c in files_candidates {
        let (f, in_cfg) = match &c {
            Contribution::Section(id) => (ix.node(cfg, *id), cfg),
            Contribution::HtaccessFiles(_, frag, i) => (&frag.nodes[*i], &**frag),
            Contribution::Htaccess(..) | Contribution::HtaccessIf(..) => continue,
        };
        match section_applies(f, base, |name, base| name == base) {
            Some(true) => {
                match_vars.extend(section_match_vars(f, base));
                files_phase.push(c)
            }
            Some(false) => {}
            None => unknown.push(regex_not_evaluated(in_cfg, f)),
        }
    }
    // Location: main server's then the vhost's, in config order, against the URL: a prefix or
    // wildcard with its slashes merged, a regex as the request's path stands (`ap_location_walk`;
    // under `MergeSlashes Off` runs of `/` stay in it).
    let mut loc_phase = Vec::new();
    // (The Location walk runs first, before the Directory walk: the names its regexes set come
    // first, and a later walk's value of a name replaces theirs.)
    let mut loc_vars = Vec::new();
    for id in server.scopes().flat_map(|s| s.locations.iter().copied()) {
        let n = ix.node(cfg, id);
        let text = match section_pattern(n) {
            Some(SectionPattern::Regex(_)) if regex_url != url => regex_url,
            _ => url,
        };
        match section_applies(n, text, location_prefix) {
            Some(true) => {
                loc_vars.extend(section_match_vars(n, text));
                loc_phase.push(Contribution::Section(id))
            }
            Some(false) => {}
            None => unknown.push(regex_not_evaluated(cfg, n)),
        }
    }
    let later = std::mem::replace(match_vars, loc_vars);
    match_vars.extend(later);
    // <If> sections anywhere on the way: the walk does not evaluate ap_expr (its caller does,
    // [`branches::condition`], and tells it the branches through [`Decided`]). (The index gathers them
    // for each section: the walk only looks them up; an expression is parsed only when there is
    // one on the way.) Each section's (and each server level's) list is read as chains
    // ([`branches::chains`]); those whose branches hold what the answer reads are kept, for a
    // caller to walk each combination of their branches ([`Decided`]).
    // The lists of `<If>`-family sections: the server levels', then those of the sections that
    // apply and of the .htaccess files read, in merge order (`merge_core_dir_configs` appends each
    // one's `sec_if`); an .htaccess file's sections are those of its own index.
    let is_if = |n: &Node| n.is_section() && matches!(n.known(), "If" | "ElseIf" | "Else");
    let mut if_lists: Vec<(IfSource, &[SecId])> = server.scopes().map(|s| (None, &s.ifs[..])).collect();
    for c in dir_phase.iter().chain(&files_phase).chain(&loc_phase) {
        match c {
            Contribution::Section(id) => if_lists.push((None, ix.ifs_in(*id))),
            Contribution::Htaccess(fd, _, frag, _) if frag.nodes.iter().any(is_if) => {
                if_lists.push((Some((fd, frag)), &frag.index().main.ifs[..]))
            }
            Contribution::HtaccessFiles(fd, frag, i) if frag.nodes[*i].children.iter().any(is_if) => {
                if let Some(id) = frag.index().id(&frag.nodes[*i]) {
                    if_lists.push((Some((fd, frag)), frag.index().ifs_in(id)));
                }
            }
            _ => {}
        }
    }
    if_lists.retain(|(_, l)| !l.is_empty());
    for (src, list) in &if_lists {
        every_chain(cfg, *src, list, startup, (chains, others));
    }
    // httpd's If walk (`server/request.c: ap_if_walk_sub`) goes level by level: it merges the
    // branches taken among the sections of the level together, then onto the request's
    // configuration, then walks the `<If>` sections nested in those branches (allowed since
    // 2.4.26; merging the branches appended their lists in order) as the next level, until a
    // level takes none. Each level is one phase here.
    let mut if_phases: Vec<Vec<Contribution>> = Vec::new();
    // The .htaccess `<If>` sections holding access rules whose branches are untold.
    let mut htaccess_untold = Vec::new();
    let mut level = if_lists;
    while !level.is_empty() {
        let mut if_phase = Vec::new();
        let mut next: Vec<(IfSource, &[SecId])> = Vec::new();
        for (src, list) in level {
            let c = src.map_or(cfg, |(_, frag)| &**frag);
            for chain in branches::chains(c, list) {
                for id in chain {
                    let b = branch_of(src, id);
                    match decided.filter(|d| d.considered.contains(&b)) {
                        // Merged after the Location phase, as httpd's If walk does.
                        Some(d) => {
                            if d.applying.contains(&b) {
                                if_phase.push(match src {
                                    None => Contribution::Section(id),
                                    Some((fd, frag)) => Contribution::HtaccessIf(fd.clone(), frag.clone(), id),
                                });
                                next.extend(Some((src, c.index().ifs_in(id))).filter(|(_, l)| !l.is_empty()));
                            }
                        }
                        None if src.is_some() => {
                            let n = c.index().node(c, id);
                            if branches::holds_access(n) {
                                htaccess_untold.push((c, n));
                            }
                        }
                        None => {
                            let s = ix.node(cfg, id);
                            if ix.holds_access(id) {
                                conditional.push(id);
                                unknown.push(if_not_evaluated(cfg, s));
                            }
                            // mod_dir's list may come from it ([`Walked::index_conditions`]).
                            if index_conditions.is_empty() && s.walk().skip(1).any(|c| c.is("DirectoryIndex")) {
                                index_conditions.push(format!(
                                    "<{}> at {}:{}",
                                    s.name(),
                                    cfg.file(s.loc.file).path.display(),
                                    cfg.line(&s.loc)
                                ));
                            }
                        }
                    }
                }
            }
        }
        level = next;
        if !if_phase.is_empty() {
            if_phases.push(if_phase);
        }
    }
    for (frag, n) in htaccess_untold {
        // Walked with its branches untold: the statuses it may lead to are said possible.
        let asks_credentials = n.walk().any(|d| {
            d.is("Require")
                && d.args().any(|a| {
                    ["valid-user", "user", "group", "file-owner", "file-group"]
                        .iter()
                        .any(|w| a.eq_ignore_ascii_case(w))
                })
        });
        let marker = if asks_credentials { HTACCESS_IF_AUTH } else { HTACCESS_IF };
        unknown.push(format!("{}{marker}", if_not_evaluated(frag, n)));
    }
    let mut phases = vec![dir_phase, files_phase, loc_phase];
    phases.extend(if_phases);
    (phases, None)
}

/// The chains of `<If>`-family sections `list` (one section's, or one server level's), and those
/// nested in their sections at any depth, each before the ones nested in it: the chains holding
/// what the answer reads go to `chains`, whatever the branches taken (a caller walks each
/// combination of their branches; [`branches::combinations`] takes a nested chain's branches only
/// with the branch enclosing it), the others to `others` (whether they apply still tells whether
/// a subrequest's configuration is its main request's). httpd parses every condition at startup:
/// those it cannot parse go to `startup`.
fn every_chain(
    cfg: &Config,
    src: IfSource,
    list: &[SecId],
    startup: &mut Vec<policy::ConfigError>,
    (chains, others): (&mut Vec<Chain>, &mut Vec<Chain>),
) {
    let c = src.map_or(cfg, |(_, frag)| &**frag);
    let ix = c.index();
    for chain in branches::chains(c, list) {
        for &id in chain.iter().filter(|_| src.is_none()) {
            if let Some(m) = ix.condition_refusal(c, id) {
                startup.push(policy::ConfigError::new(&super::ploc(c, &ix.node(c, id).loc), m.to_string()));
            }
        }
        let nested: Vec<&[SecId]> = chain.iter().map(|&id| ix.ifs_in(id)).filter(|l| !l.is_empty()).collect();
        let chain_relevant = chain.iter().any(|&id| branches::relevant(c, id));
        let branches = chain.into_iter().map(|id| branch_of(src, id)).collect();
        if chain_relevant {
            chains.push(branches);
        } else {
            others.push(branches);
        }
        for list in nested {
            every_chain(cfg, src, list, startup, (&mut *chains, &mut *others));
        }
    }
}

/// Where a list of `<If>`-family sections is written: the configuration (None), or an .htaccess
/// file read for the request (the file, and the file loaded).
type IfSource<'a> = Option<(&'a Arc<FileData>, &'a Arc<Config>)>;

/// Section `id` of `src` as a [`Branch`].
fn branch_of(src: IfSource, id: SecId) -> Branch {
    match src {
        None => Branch::Section(id),
        Some((fd, frag)) => Branch::Htaccess(fd.path.clone(), frag.clone(), id),
    }
}

/// Why the outcome is unknown: `<If>` section `s` of `cfg` holds access rules.
/// Why a section whose regex is not evaluated leaves the answer unknown: httpd's PCRE2 refuses
/// it, or gave up on this text (a match limit).
fn regex_not_evaluated(cfg: &Config, s: &Node) -> String {
    format!(
        "cannot evaluate the regular expression of <{} {}> at {}:{}",
        s.name(),
        s.args().collect::<Vec<_>>().join(" "),
        cfg.file(s.loc.file).path.display(),
        cfg.line(&s.loc)
    )
}

fn if_not_evaluated(cfg: &Config, s: &Node) -> String {
    format!(
        "<{}> at {}:{} holds access rules, and its expression is not evaluated",
        s.name(),
        cfg.file(s.loc.file).path.display(),
        cfg.line(&s.loc)
    )
}

/// What an .htaccess file is granted under `AllowOverride allow` and `AllowOverrideList list`.
/// httpd keeps only the listed directives it knows (`server/core.c: set_override_list`
/// discards the others with AH00116).
fn htaccess_overrides(cfg: &Config, allow: Option<&[String]>, list: &[String]) -> Overrides {
    let known: Vec<String> =
        list.iter().filter(|n| n.eq_ignore_ascii_case("None") || known_directive(cfg, n)).cloned().collect();
    Overrides::parse(allow, Some(&known))
}

/// Whether httpd, with the modules `cfg` loads, knows directive `name`.
fn known_directive(cfg: &Config, name: &str) -> bool {
    crate::ide::catalogue::directive(name).is_some_and(|d| {
        d.status != crate::ide::catalogue::Status::Removed && d.modules().any(|m| m == "core" || cfg.module_loaded(m))
    })
}

/// The first error `server/config.c: ap_walk_config` meets in an .htaccess file, executing its
/// lines in file order (a section before its body) once `ap_build_config` has read the whole
/// file: a directive httpd does not know (no module loaded defines it: "Invalid command"), one
/// its AllowOverride/AllowOverrideList forbids (`invoke_cmd`, `ap_check_cmd_context`, the rules
/// of [`crate::ide::catalogue::context`]), a section header its handler refuses (no argument,
/// no `>`). httpd answers 500 and logs `"<file>: <message>"`. Each as (offset, rank among the
/// errors of one line, message). Violations `AllowOverride Nonfatal=…` lets pass are skipped.
/// Directives that only may be unknown (the modules loaded are not all known) are added to
/// `uncertain`. `refusals`: the words of the lines the other checks refuse, once found (for the
/// same file, configuration and AllowOverride).
fn htaccess_walk_error(
    fd: &FileData,
    frag: &Config,
    overrides: &Overrides,
    refusals: &Refusals,
    ctx: &PolicyCtx,
    uncertain: &mut Vec<String>,
) -> Option<(u32, u8, String)> {
    use crate::ide::catalogue::context::{Refusal, Scope};
    let path = fd.path.display();
    // With modules we cannot name (none loaded explicitly, or one the catalogue does not know),
    // a directive we do not know may still be httpd's.
    let certain =
        frag.modules_known && frag.modules.iter().all(|m| crate::ide::catalogue::module_by_identifier(m).is_some());
    let top = Scope::htaccess(Some(overrides));
    let mut stack: Vec<(&Node, Scope)> = frag.nodes.iter().rev().map(|n| (n, top.clone())).collect();
    while let Some((n, scope)) = stack.pop() {
        if n.canonical().is_empty() {
            continue;
        }
        let at = u32::from(n.loc.range.start());
        let d = n.directive().filter(|d| {
            d.status != crate::ide::catalogue::Status::Removed
                && d.modules().any(|m| m == "core" || frag.module_loaded(m))
        });
        let Some(d) = d else {
            if scope.skips_unknown() {
                continue; // logged (AH02296) and skipped
            }
            let name = if n.is_section() { format!("<{}", n.name()) } else { n.name().to_string() };
            if certain {
                return Some((at, 0, format!("{path}: Invalid command '{name}', perhaps misspelled or defined by a module not included in the server configuration")));
            }
            uncertain.push(format!(
                "{path}:{} has {name}, which httpd 2.4 and the modules loaded here do not define{MAYBE_INVALID_HTACCESS}",
                frag.line(&n.loc)
            ));
            continue;
        };
        let refused = scope.check(d);
        if let Some(r) = refused.as_ref().filter(|r| r.kind == Refusal::Request) {
            return Some((at, 0, format!("{path}: {}", r.message)));
        }
        // A line `AllowOverride Nonfatal=Override` lets httpd skip (logged): its handler never
        // runs, so nothing it would refuse counts (the skipped line's node keeps no words).
        if refused.is_some() && !n.is_section() {
            continue;
        }
        if !n.is_section() {
            // The handler runs: `set_options` refuses a line it cannot read or an option the
            // AllowOverride in force does not list; an ap_expr it cannot parse fails its line.
            // An `Error` line stops the reading wherever it stands (check's `argument-value`).
            let refused = match d.name {
                "Options" => scope.check_options(n.args()).map(|r| r.message),
                "Error" => Some(crate::ide::diagnostics::error_directive::message(n.raw_args())),
                _ => crate::ide::diagnostics::expr_syntax::refusal(frag, n)
                    .or_else(|| crate::ide::diagnostics::regex_compile::refusal(frag, n, true)),
            };
            let refused = refused.or_else(|| {
                // The words of the lines `check` refuses besides (`argument-value`,
                // `argument-count`), from the file's own diagnostics, taken once a line is run.
                let words = refusals
                    .get_or_init(|| crate::ide::diagnostics::htaccess_refusals::of(frag, &ctx.extra_authn_providers));
                let line = n.loc.range;
                words.iter().find(|(at, _)| line.contains(*at)).map(|(_, m)| m.clone())
            });
            if let Some(m) = refused {
                return Some((at, 1, format!("{path}: {m}")));
            }
            continue;
        }
        // Its handler reads the header before the body (`dirsection`, `filesection`, …).
        let line = fd.line_of(n.loc.range.start());
        let header_error = |e: &&apache_syntax::SyntaxError| {
            e.is_error && walk_time_error(&e.message) && fd.line_of(e.range.start()) == line
        };
        if let Some(e) = fd.parse.errors.iter().find(header_error) {
            return Some((at, 1, format!("{path}: {}", e.message)));
        }
        // `<If>`/`<ElseIf>` parse their condition before reading the body.
        if let Some(m) = crate::ide::diagnostics::expr_syntax::refusal(frag, n) {
            return Some((at, 1, format!("{path}: {m}")));
        }
        // A regex section compiles its pattern as it reads the header (AH00526-style alert
        // "Regex could not be compiled").
        if let Some(m) = crate::ide::diagnostics::regex_compile::refusal(frag, n, true) {
            return Some((at, 1, format!("{path}: {m}")));
        }
        if let Some(inner) = scope.enter(n.name()) {
            stack.extend(n.children.iter().rev().map(|c| (c, inner.clone())));
        }
    }
    None
}

/// Whether a syntax error of a section header is found by the section's handler as httpd
/// executes the line ([`htaccess_walk_error`]), not while it reads the file's structure.
fn walk_time_error(message: &str) -> bool {
    message.starts_with('<')
        && !message.starts_with("</")
        && (message.ends_with("requires additional arguments")
            || message.ends_with("doesn't take additional arguments")
            || message.ends_with("does not take an argument")
            || message.ends_with("missing closing '>'")
            || message.ends_with("arguments not (yet) supported."))
}

/// The first error `server/config.c: ap_build_config` meets reading an .htaccess file's
/// structure, before any line runs: a line too long for its buffer, a closer without its
/// section, of another section, without its `>`, or sections left open at the end (all of them, innermost first, each with its file
/// and line). The bodies of `<IfModule>` sections httpd skips are read for nesting too.
fn htaccess_build_error(fd: &FileData, frag: &Config) -> Option<String> {
    let path = fd.path.display();
    // (Not those inside the body of a false conditional section, which httpd reads only for
    // how sections open and close: the loader tells what stops it there.)
    let errors = fd.parse.errors.iter().filter(|e| e.is_error && !frag.skipped_error(0, e));
    let structural = |m: &str| m.starts_with("</") || m.starts_with("Expected </");
    // (And the closers of true conditional sections with words after them, and the bodies of
    // false ones, which only the loader, knowing the conditions, tells.)
    let closer = frag.problems.iter().filter(|p| p.file == 0);
    let closer = closer.filter_map(|p| Some((p.range.start(), config::read_refusal(p)?)));
    let parsed = errors.clone().filter(|e| structural(&e.message)).map(|e| (e.range.start(), e.message.as_str()));
    // A line too long for httpd's buffer stops the reading where it stands.
    let long = crate::ide::diagnostics::htaccess_line_length::first_too_long(&fd.text);
    if let Some((_, message)) = parsed.chain(long).chain(closer).min_by_key(|(at, _)| *at) {
        return Some(format!("{path}: {message}"));
    }
    let unclosed: Vec<String> = errors
        .filter(|e| e.message.ends_with("was not closed."))
        .map(|e| format!("{path}:{}: {}", fd.line_of(e.range.start()), e.message))
        .collect();
    (!unclosed.is_empty()).then(|| format!("{path}: {}", unclosed.join("\n")))
}

/// What [`walk`] finds on its way besides the sections merged: [`Walked`]'s fields of the same
/// names.
#[derive(Default)]
struct Found {
    unknown: Vec<String>,
    conditional: Vec<SecId>,
    startup: Vec<policy::ConfigError>,
    index_conditions: Vec<String>,
    chains: Vec<Chain>,
    other_chains: Vec<Chain>,
    presumed_there: bool,
    /// The variables the regex sections' named groups set ([`section_match_vars`]), in the
    /// order httpd sets them.
    match_vars: Vec<(String, String)>,
}

/// One request's walk: the sections it meets, in merge order, before their policies are
/// merged ([`Walked::merge`]). A batch that needs only which section's Order/Allow/Deny is in
/// effect asks [`Walked::before_merge`] and merges only when that does not tell.
#[derive(Clone)]
pub struct Walked {
    vhost: Option<u32>,
    url: String,
    filesystem_path: PathBuf,
    phases: Vec<Vec<Contribution>>,
    unknown: Vec<String>,
    /// The `<If>`/`<ElseIf>`/`<Else>` sections on the way that hold access rules, in the order
    /// httpd's If walk merges them (after the Location phase), each unknown (in `unknown`).
    conditional: Vec<SecId>,
    /// An `<If>`-family section on the way holding a DirectoryIndex (where), whose expression is
    /// not evaluated: which index mod_dir serves then is not known.
    index_conditions: Vec<String>,
    /// A symbolic link the directory walk refuses (403).
    symlink: Option<SymlinkRefusal>,
    /// The `<If>` chains on the way whose branches hold what the answer reads, decided or not.
    chains: Vec<Chain>,
    /// The other `<If>` chains on the way.
    other_chains: Vec<Chain>,
    /// Startup errors of the `<If>` sections on the way (their conditions), which no section's
    /// policy holds.
    startup: Vec<policy::ConfigError>,
    /// [`Resolved::presumes_last_there`].
    presumed_there: bool,
    /// [`Found::match_vars`].
    match_vars: Vec<(String, String)>,
}

/// What a walk tells of mod_access_compat's layer without merging the sections' policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BeforeMerge {
    /// No request gets an answer from the access checks ([`Resolved::answered_before_access_checks`]:
    /// something on the path is out of reach, or a section has startup errors).
    AnsweredBeforeAccessChecks,
    /// The Order/Allow/Deny in effect are this section's ([`Resolved::compat_source`]), and the
    /// access checks answer.
    CompatFrom(SecId),
    /// Only the merge tells: an .htaccess file is on the way, or no section sets Order/Allow/Deny.
    Merge,
}

/// The walk of [`resolve`](super::resolve).
pub fn walk_request(cfg: &Config, fs: &FsView, path: &str, host: Option<&str>, local: Option<(IpAddr, u16)>) -> Walked {
    walk_request_as(cfg, fs, path, host, local.into(), None, None)
}

/// [`walk_request`]; `main_walk`: for a subrequest, the filename its main request walked
/// (`r->main`'s, up to a missing component). httpd copies the main request's walk cache into the
/// subrequest, and reuses its Directory phase when the subrequest's file is a regular file, with
/// no path info, of the directory that cache names: the walked filename itself when it is a
/// directory, else the directory holding it, a missing name's too (`ap_directory_walk`:
/// `entry_dir` equals `cache->cached`);
/// `decided`: the `<If>` branches taken as applying or not (the others are untold).
pub(super) fn walk_request_as(
    cfg: &Config,
    fs: &FsView,
    path: &str,
    host: Option<&str>,
    local: Connection,
    main_walk: Option<&Path>,
    decided: Option<&Decided>,
) -> Walked {
    let ix = cfg.index();
    let mut found = Found::default();
    let vhost = pick_vhost(ix, host, local, &mut found.unknown);
    let server = Server { main: &ix.main, vhost: vhost.map(|v| &ix.vhosts[v as usize].scope) };
    let url = normalize_url(path);
    // The path as the regexes of `<LocationMatch>` and `AliasMatch` see it (`r->uri`).
    let unmerged = if server.merge_slashes() { None } else { Some(unmerged_url(path)) };
    let regex_url = unmerged.as_deref().unwrap_or(&url);
    let translated = translate(&server, cfg, (&url, regex_url), &mut found.unknown);
    let filesystem_path = request_filename_in(fs, &translated);
    // The directory httpd's cache names: the main walk's filename when that is a directory, else
    // the one holding it (`cache->cached`); the Directory phase reused is the main walk's own.
    let familiar = main_walk.filter(|walked| {
        let cached = if walked.is_dir() { Some(*walked) } else { walked.parent() };
        filesystem_path.parent().is_some_and(|p| Some(p) == cached)
            && path_text(&translated) == path_text(&filesystem_path)
            && filesystem_path.is_file()
    });
    // httpd's walk skips the lstat() of each component when the whole path exists (and links are
    // followed without a question): the last component is then walked as a directory. (A reused
    // walk is the main request's, on its own name.)
    let whole_exists = fs.is_deployed() && std::fs::metadata(familiar.unwrap_or(&translated)).is_ok();
    // The options the walk starts from: the main server's, merged with the virtual host's.
    let options = symlinks::server_options(cfg, vhost.map_or(ServerId::Main, ServerId::Vhost));
    let (phases, symlink) = walk(
        cfg,
        fs,
        &server,
        options,
        familiar,
        (&url, regex_url),
        (&filesystem_path, whole_exists),
        decided,
        &mut found,
    );
    let Found { unknown, conditional, startup, index_conditions, chains, other_chains, presumed_there, match_vars } =
        found;
    Walked {
        vhost,
        url,
        filesystem_path,
        phases,
        unknown,
        conditional,
        symlink,
        chains,
        other_chains,
        startup,
        index_conditions,
        presumed_there,
        match_vars,
    }
}

impl Walked {
    /// The first `<If>`-family section on the way holding a DirectoryIndex (where it is written),
    /// if any.
    pub fn index_condition(&self) -> Option<&str> {
        self.index_conditions.first().map(String::as_str)
    }

    /// The `<If>` chains on the way whose branches hold what the request's answer reads
    /// (access rules, a directive of the handler, mod_dir, mod_setenvif, ErrorDocument…).
    pub fn chains(&self) -> &[Chain] {
        &self.chains
    }

    /// The other `<If>` chains on the way, which hold nothing the answer reads: whether they
    /// apply still tells whether a subrequest's configuration is its main request's.
    pub fn other_chains(&self) -> &[Chain] {
        &self.other_chains
    }

    /// Whether section `id` is merged on this walk (an `<If>` whose expression the walk could
    /// not tell counts: it may be).
    pub fn applies(&self, id: SecId) -> bool {
        self.conditional.contains(&id)
            || self.phases.iter().flatten().any(|c| matches!(c, Contribution::Section(s) if *s == id))
    }

    /// What the walk tells of mod_access_compat's layer from each section's
    /// [`crate::ide::config::index::PolicyOutline`] alone: what [`Walked::merge`] would put in
    /// [`Resolved::compat_source`] and [`Resolved::answered_before_access_checks`], when that
    /// does not take an .htaccess file's policy.
    pub fn before_merge(&self, cfg: &Config) -> BeforeMerge {
        if !self.unknown.is_empty() || self.symlink.is_some() || !self.startup.is_empty() {
            return BeforeMerge::AnsweredBeforeAccessChecks;
        }
        let ix = cfg.index();
        let mut source = None;
        for c in self.phases.iter().flatten() {
            let Contribution::Section(id) = c else { return BeforeMerge::Merge };
            let outline = ix.outline(cfg, *id);
            if outline.has_errors {
                return BeforeMerge::AnsweredBeforeAccessChecks;
            }
            if outline.sets_compat {
                source = Some(*id);
            }
        }
        source.map_or(BeforeMerge::Merge, BeforeMerge::CompatFrom)
    }

    /// Merges the sections' policies, phase by phase, as httpd does.
    pub fn merge(self, cfg: &Config) -> Resolved {
        let ix = cfg.index();
        let Walked {
            vhost,
            url,
            filesystem_path,
            phases,
            mut unknown,
            conditional: _,
            symlink,
            chains: _,
            other_chains: _,
            startup,
            index_conditions: _,
            presumed_there,
            match_vars,
        } = self;
        let mut applied = Vec::new();
        let mut errors = startup;
        let mut compat_built: Option<Arc<Built>> = None;
        let mut compat_source = None;
        let mut authz: Option<AuthzConfig> = None;
        let mut authn = AuthnConfig::default();
        let mut forbidden_override: Option<String> = None;
        let mut phase_ends = Vec::with_capacity(phases.len());
        for phase in phases {
            let start = applied.len();
            for c in phase {
                let (built, items) = match &c {
                    Contribution::Section(id) => (ix.built(cfg, *id), None),
                    Contribution::Htaccess(fd, overrides, frag, slot) => {
                        let (built, items, first_error, uncertain) = slot.built.get_or_init(|| {
                            let mut uncertain = Vec::new();
                            let (built, items, first_error) =
                                htaccess(fd, frag, overrides, &slot.refusals, &ix.ctx, &mut uncertain);
                            (built, items, first_error, uncertain)
                        });
                        unknown.extend(uncertain.iter().cloned());
                        if forbidden_override.is_none() {
                            forbidden_override = first_error.clone();
                        }
                        (built.clone(), Some(items.clone()))
                    }
                    // (Their errors are the file's: found when the file is read, above.)
                    Contribution::HtaccessFiles(_, frag, i) => htaccess_section(frag, &frag.nodes[*i], &ix.ctx),
                    Contribution::HtaccessIf(_, frag, id) => {
                        htaccess_section(frag, frag.index().node(frag, *id), &ix.ctx)
                    }
                };
                let p = &built.policy;
                if matches!(c, Contribution::Section(_)) {
                    errors.extend(p.errors.iter().cloned());
                }
                if p.compat.is_some() {
                    compat_built = Some(built.clone());
                    compat_source = match c {
                        Contribution::Section(id) => Some(id),
                        Contribution::Htaccess(..) | Contribution::HtaccessFiles(..) | Contribution::HtaccessIf(..) => {
                            None
                        }
                    };
                }
                if let Some(n) = &p.authn {
                    authn = merge_authn(&authn, n);
                }
                applied.push((c, built, items));
            }
            authz = fold_phase(authz.as_ref(), applied[start..].iter().map(|(_, b, _)| b.policy.authz.as_ref()));
            phase_ends.push(applied.len());
        }
        Resolved {
            vhost,
            url,
            filesystem_path,
            applied,
            phase_ends,
            compat_built,
            compat_source,
            authz,
            authn,
            errors,
            unknown,
            forbidden_override,
            symlink,
            presumed_there,
            match_vars,
        }
    }
}

/// The policy and body of section `n` of .htaccess file `frag` (a `<Files>` section, an `<If>`
/// branch).
fn htaccess_section(frag: &Config, n: &Node, ctx: &PolicyCtx) -> (Arc<Built>, Option<Vec<Item>>) {
    let items = body_items(frag, n);
    let mut sctx = ctx.clone();
    sctx.htaccess = true;
    let (policy, compat_errors, authz_errors) = policy::section_from_items_with_layer_errors(&items, &sctx);
    (Arc::new(Built { policy, compat_errors, authz_errors }), Some(items))
}

/// An .htaccess file's body and policy, and the first error httpd meets in it (in its top
/// level or in its `<Files>` sections: httpd reads the whole file before any section applies).
fn htaccess(
    fd: &Arc<FileData>,
    frag: &Config,
    overrides: &Overrides,
    refusals: &Refusals,
    ctx: &PolicyCtx,
    uncertain: &mut Vec<String>,
) -> (Arc<Built>, Vec<Item>, Option<String>) {
    let mut sctx = ctx.clone();
    sctx.htaccess = true;
    let build_error = htaccess_build_error(fd, frag).or_else(|| {
        crate::ide::nonfatal::refused_conditional(fd, frag, overrides)
            .map(|(_, m)| format!("{}: {m}", fd.path.display()))
    });
    let violation = htaccess_walk_error(fd, frag, overrides, refusals, ctx, uncertain);
    let loc = config::Loc { file: 0, range: TextRange::default(), focus: TextRange::default() };
    let top = Node::new(NodeKind::Section, ".htaccess", [""; 0], "", loc, frag.nodes.clone());
    let items = body_items(frag, &top);
    // All layers plus the <Limit> blocks' own errors (TRACE, unknown methods…).
    let (policy, compat_errors, authz_errors) = policy::section_from_items_with_layer_errors(&items, &sctx);
    let section_errors: Vec<policy::ConfigError> = htaccess_files_sections(frag)
        .flat_map(|(_, n)| policy::section_from_items(&body_items(frag, n), &sctx).errors)
        .collect();
    // An .htaccess is read per request (server/config.c: ap_parse_htaccess): its
    // first error, a forbidden directive or a bad argument, is a 500 at request
    // time with "<file>: <message>" logged, not a startup error. "First" in the
    // order httpd meets them: the override check of a line comes before the line
    // runs; a Require container's own verdicts ("contains no authorization
    // directives", "has no effect in") come after its body (add_authz_section).
    // An error reading the file's structure comes first: no line has run yet.
    let first_error = violation
        .map(|(offset, rank, m)| (fd.line_of(offset.into()), rank, offset, m))
        .into_iter()
        .chain(policy.errors.iter().chain(&section_errors).map(|e| {
            let at_close = e.message.starts_with("<Require")
                && (e.message.ends_with("directive contains no authorization directives")
                    || e.message.contains("directive has no effect in"));
            // (The range's end is exclusive: the next line may start there.)
            let offset = if at_close { e.loc.range.1.saturating_sub(1) } else { e.loc.range.0 };
            (fd.line_of(offset.into()), 2, offset, format!("{}: {}", fd.path.display(), e.message))
        }))
        .min_by_key(|(line, rank, offset, _)| (*line, *rank, *offset))
        .map(|(_, _, _, m)| m);
    let first_error = build_error.or(first_error);
    (Arc::new(Built { policy, compat_errors, authz_errors }), items, first_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::access::resolve;
    use expect_test::expect;

    /// What a GET of `url` from 127.0.0.1 gets under `<Directory ROOT/www>` with `dir_lines`
    /// (mod_headers not loaded) and `www/.htaccess` holding `htaccess`: the status, and the
    /// .htaccess error or why the status is unknown, with the temporary directory as ROOT.
    fn htaccess_outcome(dir_lines: &str, htaccess: &str, url: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www")).unwrap();
        let main = dir.path().join("httpd.conf");
        std::fs::write(&main, format!("LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\n{dir_lines}</Directory>\n")).unwrap();
        std::fs::write(dir.path().join("www/.htaccess"), htaccess).unwrap();
        let cfg = config::load(&main, &config::RealFs);
        let r = resolve(&cfg, &FsView::fresh(), url, None, None);
        let req = policy::Request::new("GET", "127.0.0.1".parse().unwrap(), "127.0.0.1".parse().unwrap());
        let o = r.outcome(&cfg, &req);
        let why = r.htaccess_error().map(str::to_string).or(o.reason_unknown).unwrap_or_default();
        format!("{:?} {:?}: {}", o.status, o.possible_statuses, why).replace(&d, "ROOT")
    }

    /// A subrequest for a regular file of the directory its main request walked reuses that
    /// walk's Directory phase (a regex matching `…/a/`, no wildcard reaching the file); a file
    /// elsewhere, or path info after it, is walked afresh.
    #[test]
    fn a_file_of_the_main_requests_directory_keeps_its_directory_sections() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        for f in ["www/a/index.html", "www/a/sub/index.html"] {
            std::fs::create_dir_all(dir.path().join(f).parent().unwrap()).unwrap();
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
        let main = dir.path().join("httpd.conf");
        std::fs::write(&main, format!("LoadModule authz_core_module m\nDocumentRoot {d}/www\n<Directory ~ \"/a/$\">\n  Require all denied\n</Directory>\n<Directory {d}/www/a/*>\n  Require all granted\n</Directory>\n<Files index.html>\n  Require all granted\n</Files>\n")).unwrap();
        let cfg = config::load(&main, &config::RealFs);
        let fs = FsView::fresh();
        let kinds = |url: &str, main_walk: Option<&str>| {
            let parent = main_walk.map(|p| PathBuf::from(format!("{d}/www{p}")));
            let w = walk_request_as(&cfg, &fs, url, None, Connection::Unknown, parent.as_deref(), None);
            let secs = w.merge(&cfg).sections(&cfg);
            secs.iter().map(|s| format!("{} {}", s.kind, s.args.join(" ").replace(&d, "ROOT"))).collect::<Vec<_>>()
        };
        let reused = ["Directory ~ /a/$", "Files index.html"];
        assert_eq!(kinds("/a/index.html", Some("/a/")), reused);
        assert_eq!(kinds("/a/index.html", None), ["Directory ROOT/www/a/*", "Files index.html"]);
        assert_eq!(kinds("/a/sub/index.html", Some("/a/")), ["Directory ROOT/www/a/*", "Files index.html"]);
        assert_eq!(kinds("/a/index.html/x", Some("/a/")), ["Directory ROOT/www/a/*", "Files index.html"]);
    }

    /// An untold walk of `<If>` sections holding access rules lists the statuses of the
    /// combinations of branches httpd may take: a condition known from the request leaves out the
    /// others, nested branches count, a condition on a header not given leaves every one.
    #[test]
    fn untold_if_branches_give_the_statuses_httpd_may_answer() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www")).unwrap();
        let main = dir.path().join("httpd.conf");
        let answer = |lines: &str, client: &str| {
            std::fs::write(&main, format!("LoadModule authz_core_module m\nLoadModule authz_host_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\nRequire all granted\n{lines}</Directory>\n")).unwrap();
            let cfg = config::load(&main, &config::RealFs);
            let request = policy::Request::new("GET", client.parse().unwrap(), "127.0.0.1".parse().unwrap());
            let e = super::super::effective(&cfg, &super::super::RequestSpec { path: "/".into(), host: None, request });
            format!("{:?} {:?}", e.outcome.status, e.outcome.possible_statuses)
        };
        let ten = "<If \"-R '10.0.0.0/8'\">\nRequire all denied\n</If>\n";
        assert_eq!(answer(ten, "127.0.0.1"), "None [200]");
        assert_eq!(answer(ten, "10.1.1.1"), "None [403]");
        let nested = "<If \"-R '127.0.0.0/8'\">\n<If \"-R '127.0.0.1'\">\nRequire all denied\n</If>\n</If>\n";
        assert_eq!(answer(nested, "127.0.0.1"), "None [403]");
        assert_eq!(answer(nested, "127.0.0.2"), "None [200]");
        let header = "<If \"%{HTTP:X-A} == 'y'\">\nRequire all denied\n</If>\n";
        assert_eq!(answer(header, "127.0.0.1"), "None [200, 403]");
    }

    #[test]
    fn htaccess_httpd_cannot_parse_answers_500_with_its_first_error() {
        let all = "  AllowOverride All\n  Require all granted\n";
        expect![[r#"Some(500) [500]: ROOT/www/.htaccess: Invalid command 'Header', perhaps misspelled or defined by a module not included in the server configuration"#]]
            .assert_eq(&htaccess_outcome(all, "Require all granted\nHeader set X y\n", "/"));
        expect![[r#"Some(500) [500]: ROOT/www/.htaccess: Invalid command '<Frob', perhaps misspelled or defined by a module not included in the server configuration"#]]
            .assert_eq(&htaccess_outcome(all, "<Frob x>\n</Frob>\n", "/"));
        // The structure is read before any line runs.
        expect![[r#"Some(500) [500]: ROOT/www/.htaccess: ROOT/www/.htaccess:2: <RequireAll> was not closed."#]]
            .assert_eq(&htaccess_outcome(all, "Frobnicate on\n<RequireAll>\n  Require all granted\n", "/"));
        expect![[r#"Some(500) [500]: ROOT/www/.htaccess: </Files> without matching <Files> section"#]]
            .assert_eq(&htaccess_outcome(all, "Frobnicate on\n</Files>\n", "/"));
        // Lines run in order: the header's own error before its body's.
        expect![[r#"Some(500) [500]: ROOT/www/.htaccess: <Files> directive requires additional arguments"#]]
            .assert_eq(&htaccess_outcome(all, "<Files>\n  Frobnicate on\n</Files>\n", "/"));
        // A section regex PCRE2 refuses fails its header (round 9a bug 3).
        expect!["Some(500) [500]: ROOT/www/.htaccess: Regex could not be compiled"].assert_eq(&htaccess_outcome(
            all,
            "<Files ~ *>\n  Require all denied\n</Files>\n",
            "/",
        ));
        expect!["Some(500) [500]: ROOT/www/.htaccess: Regex could not be compiled"].assert_eq(&htaccess_outcome(
            all,
            "<FilesMatch \"(\">\n</FilesMatch>\n",
            "/a.txt",
        ));
        let auth = "  AllowOverride AuthConfig\n  Require all granted\n";
        expect![[r#"Some(500) [500]: ROOT/www/.htaccess: Options not allowed here"#]].assert_eq(&htaccess_outcome(
            auth,
            "Options -Indexes\nFrobnicate on\n",
            "/",
        ));
        // Not run: a skipped <IfModule> body; skipped: unknown lines under Nonfatal=Unknown.
        expect!["Some(403) [403]: "].assert_eq(&htaccess_outcome(
            all,
            "<IfModule mod_headers.c>\n  Header set X y\n</IfModule>\nRequire all denied\n",
            "/",
        ));
        expect!["Some(403) [403]: "].assert_eq(&htaccess_outcome(
            "  AllowOverride All Nonfatal=Unknown\n",
            "Frobnicate on\nRequire all denied\n",
            "/",
        ));
        // An <If> condition httpd cannot parse, whatever the section holds; an Options line
        // set_options refuses, or naming an option AllowOverride Options=… does not list.
        expect![[
            r#"Some(500) [500]: ROOT/www/.htaccess: Cannot parse condition clause: syntax error, unexpected $end"#
        ]]
        .assert_eq(&htaccess_outcome(all, "<If \"%{REMOTE_ADDR} ==\">\n  Require all denied\n</If>\n", "/"));
        expect![[r#"Some(500) [500]: ROOT/www/.htaccess: Option FollowSymLinks not allowed here"#]].assert_eq(
            &htaccess_outcome("  AllowOverride Options=Indexes Nonfatal=All\n", "Options +FollowSymLinks\n", "/"),
        );
        expect![[
            r#"Some(500) [500]: ROOT/www/.htaccess: Either all Options must start with + or -, or no Option may."#
        ]]
        .assert_eq(&htaccess_outcome(all, "Options +Indexes FollowSymLinks\n", "/"));
        expect!["Some(200) [200]: "].assert_eq(&htaccess_outcome(
            "  AllowOverride Options=Indexes,FollowSymLinks\n  Require all granted\n",
            "Options -Indexes +FollowSymLinks\n",
            "/",
        ));
    }

    /// Under `Nonfatal=Override` a line the AllowOverride does not let in is skipped, a section
    /// with its body: the inherited rules decide, both ways (findings 11b §1, 11a bug 7).
    #[test]
    fn lines_nonfatal_skips_do_not_take_effect() {
        let denied = "  AllowOverride Limit Nonfatal=Override\n  Require all denied\n";
        expect!["Some(403) [403]: "].assert_eq(&htaccess_outcome(denied, "Require all granted\n", "/"));
        let granted = "  AllowOverride AuthConfig Nonfatal=Override\n  Require all granted\n";
        expect!["Some(200) [200]: "].assert_eq(&htaccess_outcome(
            granted,
            "Order deny,allow\nDeny from 127.0.0.1\n",
            "/",
        ));
        expect!["Some(200) [200]: "].assert_eq(&htaccess_outcome(
            "  AllowOverride Nonfatal=All\n  Require all granted\n",
            "<Files a.txt>\n  Require all denied\n</Files>\nFrobnicate on\nRequire all denied\n",
            "/a.txt",
        ));
        // A read-time conditional section no class lets in: refused while httpd reads the
        // file, the header skipped under Nonfatal=Override and then its closer unmatched.
        expect![[r#"Some(500) [500]: ROOT/www/.htaccess: </IfDefine> without matching <IfDefine> section"#]]
            .assert_eq(&htaccess_outcome("  AllowOverride Nonfatal=Override\n", "<IfDefine X>\n</IfDefine>\n", "/"));
        expect![[r#"Some(500) [500]: ROOT/www/.htaccess: <IfModule not allowed here"#]].assert_eq(&htaccess_outcome(
            "  AllowOverride Nonfatal=Unknown\n",
            "<IfModule mod_foo.c>\n</IfModule>\n",
            "/",
        ));
        // A skipped Deny still replaces the inherited Order/Deny (with the module's defaults).
        let compat = "  AllowOverride AuthConfig Nonfatal=Override\n  Require all granted\n  Order deny,allow\n  Deny from all\n";
        expect!["Some(200) [200]: "].assert_eq(&htaccess_outcome(compat, "Deny from 10.0.0.1\n", "/"));
        // Only the first line of the module in a configuration vector makes that configuration: a
        // skipped Deny after a Satisfy Any httpd ran leaves the Satisfy Any (findings 13 §J1),
        // before it the Satisfy Any still applies to the fresh defaults; a `<Files>` section has a
        // vector of its own, a `<Limit>` shares the one around it.
        let any = "  AllowOverride AuthConfig Nonfatal=Override\n  Require all denied\n";
        expect!["Some(200) [200]: "].assert_eq(&htaccess_outcome(any, "Satisfy Any\nDeny from 10.0.0.0/8\n", "/"));
        expect!["Some(200) [200]: "].assert_eq(&htaccess_outcome(any, "Deny from 10.0.0.0/8\nSatisfy Any\n", "/"));
        expect!["Some(200) [200]: "].assert_eq(&htaccess_outcome(
            any,
            "Satisfy Any\n<Limit GET>\n  Deny from 10.0.0.0/8\n</Limit>\n",
            "/",
        ));
        expect!["Some(403) [403]: "].assert_eq(&htaccess_outcome(
            any,
            "Satisfy Any\n<Files *>\n  Deny from 10.0.0.0/8\n</Files>\n",
            "/",
        ));
        // What is let in still applies; an unknown line inside <RequireAll> is no skip (that
        // body is walked with AuthConfig alone).
        expect!["Some(403) [403]: "].assert_eq(&htaccess_outcome(
            "  AllowOverride AuthConfig Nonfatal=All\n  Require all granted\n",
            "Options -Indexes\nRequire all denied\n",
            "/",
        ));
        expect![[r#"Some(500) [500]: ROOT/www/.htaccess: Invalid command 'Frobnicate', perhaps misspelled or defined by a module not included in the server configuration"#]].assert_eq(&htaccess_outcome(
            "  AllowOverride AuthConfig Nonfatal=All\n",
            "<RequireAll>\n  Frobnicate on\n  Require all granted\n</RequireAll>\n",
            "/",
        ));
    }

    /// A view that is not deployed takes a last component that is no directory to be there:
    /// a wildcard `<Directory …/*>` then applies to it, and the walk says it presumed so;
    /// [`FsView::last_missing`] walks it as httpd walks a missing file, without that section.
    #[test]
    fn a_last_component_taken_to_be_there_or_missing() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www/sub")).unwrap();
        let main = dir.path().join("httpd.conf");
        std::fs::write(&main, format!("LoadModule authz_core_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\n  Require all granted\n</Directory>\n<Directory {d}/www/*>\n  Require all denied\n</Directory>\n")).unwrap();
        let cfg = config::load(&main, &config::RealFs);
        let req = policy::Request::new("GET", "127.0.0.1".parse().unwrap(), "127.0.0.1".parse().unwrap());
        let there = FsView::cached();
        let gone = there.last_missing();
        let status = |fs: &FsView, url: &str| {
            let r = resolve(&cfg, fs, url, None, None);
            (r.outcome(&cfg, &req).status, r.presumes_last_there())
        };
        assert_eq!(status(&there, "/nope.txt"), (Some(403), true));
        assert_eq!(status(&gone, "/nope.txt"), (Some(200), false));
        assert_eq!(status(&there, "/api/v1/x.txt"), (Some(403), true));
        assert_eq!(status(&gone, "/api/v1/x.txt"), (Some(200), false));
        // A directory is walked into either way.
        assert_eq!(status(&there, "/sub/x.txt"), (Some(403), false));
        assert_eq!(status(&gone, "/sub/x.txt"), (Some(403), false));
    }

    /// A configuration letting .htaccess files override everything below `www`, which holds the
    /// directories `a` and `b` and, above them, the .htaccess file `htaccess`; the temporary
    /// directory (and its path).
    fn two_directories_below(htaccess: &str) -> (tempfile::TempDir, String, Config) {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www/a")).unwrap();
        std::fs::create_dir_all(dir.path().join("www/b")).unwrap();
        let main = dir.path().join("httpd.conf");
        std::fs::write(&main, format!("LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nLoadModule authn_core_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\n  AllowOverride All\n</Directory>\n")).unwrap();
        std::fs::write(dir.path().join("www/.htaccess"), htaccess).unwrap();
        let cfg = config::load(&main, &config::RealFs);
        (dir, d, cfg)
    }

    /// An .htaccess file past [`super::super::fs::KEEP_PARSED_FROM`] is parsed and built once
    /// for every walk of a cached view, which answer as a fresh view does.
    #[test]
    fn a_large_htaccess_is_parsed_and_built_once_per_cached_view() {
        // A blocklist: thousands of Deny lines, above both directories.
        let mut blocklist = String::from("Order allow,deny\nAllow from all\n");
        for i in 0..2000 {
            blocklist.push_str(&format!("Deny from 10.{}.{}.0/24\n", i / 250, i % 250));
        }
        blocklist.push_str("Deny from 127.0.0.2\n");
        assert!(blocklist.len() >= super::super::fs::KEEP_PARSED_FROM);
        let (_dir, _, cfg) = two_directories_below(&blocklist);
        let fs = FsView::cached();
        let frag = |w: &Walked| {
            w.phases.iter().flatten().find_map(|c| match c {
                Contribution::Htaccess(_, _, frag, slot) => Some((frag.clone(), slot.clone())),
                _ => None,
            })
        };
        let (a, b) = (walk_request(&cfg, &fs, "/a/", None, None), walk_request(&cfg, &fs, "/b/", None, None));
        let ((fa, sa), (fb, sb)) = (frag(&a).unwrap(), frag(&b).unwrap());
        assert!(Arc::ptr_eq(&fa, &fb) && Arc::ptr_eq(&sa, &sb), "parsed and built once for both walks");
        // The answers are those of a view that parses the file for each walk.
        let answers = |r: Resolved| {
            ["127.0.0.1", "127.0.0.2", "10.0.5.9"]
                .map(|ip| {
                    let req = policy::Request::new("GET", ip.parse().unwrap(), "127.0.0.1".parse().unwrap());
                    r.outcome(&cfg, &req).status
                })
                .to_vec()
        };
        let (ra, rb) = (a.merge(&cfg), b.merge(&cfg));
        assert!(sa.built.get().is_some(), "built by the first merge, for both");
        let (ra, rb) = (answers(ra), answers(rb));
        assert_eq!(ra, vec![Some(200), Some(403), Some(403)]);
        assert_eq!(ra, answers(resolve(&cfg, &FsView::fresh(), "/a/", None, None)));
        assert_eq!(rb, answers(resolve(&cfg, &FsView::fresh(), "/b/", None, None)));
    }

    /// A small .htaccess file is built for each walk, but the lines its handlers refuse are found
    /// once per cached view: every walk reading it shares them, and answers as a fresh view does.
    #[test]
    fn a_small_htaccess_refusals_are_found_once_per_cached_view() {
        let (_dir, d, cfg) = two_directories_below("Order allow,deny\nAllow from all\nAuthName a b\n");
        let fs = FsView::cached();
        let slot = |w: &Walked| {
            w.phases.iter().flatten().find_map(|c| match c {
                Contribution::Htaccess(_, _, _, slot) => Some(slot.clone()),
                _ => None,
            })
        };
        let (a, b) = (walk_request(&cfg, &fs, "/a/", None, None), walk_request(&cfg, &fs, "/b/", None, None));
        let (sa, sb) = (slot(&a).unwrap(), slot(&b).unwrap());
        assert!(!Arc::ptr_eq(&sa, &sb), "built by each walk");
        assert!(Arc::ptr_eq(&sa.refusals, &sb.refusals), "its refusals found once for both");
        let error = |r: Resolved| r.htaccess_error().map(|e| e.replace(&d, "ROOT"));
        let (ea, eb) = (error(a.merge(&cfg)), error(b.merge(&cfg)));
        assert_eq!(sa.refusals.get().map(Vec::len), Some(1), "found by the first merge");
        assert_eq!(ea.as_deref(), Some("ROOT/www/.htaccess: AuthName takes one argument"));
        assert_eq!(ea, eb);
        assert_eq!(ea, error(resolve(&cfg, &FsView::fresh(), "/a/", None, None)));
    }

    /// The walk stops at a symbolic link the Options of its directory do not let httpd follow:
    /// 403 with AH00037 naming the link, before any access check; an .htaccess file's Options
    /// count for its own directory.
    #[test]
    fn symbolic_link_refused_by_the_options_of_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        for sub in ["www/a", "www/b", "www/c", "target"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        std::fs::write(dir.path().join("target/t.html"), "x").unwrap();
        for sub in ["a", "b", "c"] {
            std::os::unix::fs::symlink(dir.path().join("target/t.html"), dir.path().join(format!("www/{sub}/t.html")))
                .unwrap();
        }
        std::fs::write(dir.path().join("www/c/.htaccess"), "Options +FollowSymLinks\n").unwrap();
        let main = dir.path().join("httpd.conf");
        std::fs::write(&main, format!("LoadModule authz_core_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\n  Require all granted\n  Options None\n  AllowOverride Options\n</Directory>\n<Directory {d}/www/b>\n  Options +FollowSymLinks\n</Directory>\n")).unwrap();
        let cfg = config::load(&main, &config::RealFs);
        let req = policy::Request::new("GET", "127.0.0.1".parse().unwrap(), "127.0.0.1".parse().unwrap());
        let outcome = |url: &str| {
            let o = resolve(&cfg, &FsView::fresh(), url, None, None).outcome(&cfg, &req);
            let log: Vec<String> = o.log.iter().map(|l| format!("{}: {}", l.ah_code, l.message)).collect();
            format!("{:?} {}", o.status, log.join("; ")).replace(&d, "ROOT")
        };
        expect!["Some(403) AH00037: Symbolic link not allowed or link target not accessible: ROOT/www/a/t.html"]
            .assert_eq(&outcome("/a/t.html"));
        expect!["Some(200) "].assert_eq(&outcome("/b/t.html"));
        expect!["Some(200) "].assert_eq(&outcome("/c/t.html"));
    }

    /// Without LoadModule lines the modules are not known: a line we do not know may be a
    /// module's, and the 500 is only possible.
    #[test]
    fn unknown_line_under_unknown_modules_may_be_a_500() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www")).unwrap();
        let main = dir.path().join("httpd.conf");
        std::fs::write(
            &main,
            format!("DocumentRoot {d}/www\n<Directory {d}/www>\n  AllowOverride All\n</Directory>\n"),
        )
        .unwrap();
        std::fs::write(dir.path().join("www/.htaccess"), "Frobnicate on\nRequire all denied\n").unwrap();
        let cfg = config::load(&main, &config::RealFs);
        let r = resolve(&cfg, &FsView::fresh(), "/", None, None);
        let req = policy::Request::new("GET", "127.0.0.1".parse().unwrap(), "127.0.0.1".parse().unwrap());
        let o = r.outcome(&cfg, &req);
        assert_eq!((o.status, o.possible_statuses), (None, vec![403, 500]));
        expect!["ROOT/www/.htaccess:1 has Frobnicate, which httpd 2.4 and the modules loaded here do not define; if httpd does not know it, every request gets 500"]
            .assert_eq(&o.reason_unknown.unwrap().replace(&d, "ROOT"));
    }

    #[test]
    fn allow_override_list_grants_its_directives_only() {
        let list = |l: &str| format!("  AllowOverride None\n  AllowOverrideList {l}\n  Require all granted\n");
        expect!["Some(403) [403]: "].assert_eq(&htaccess_outcome(&list("Require"), "Require ip 127.0.0.2\n", "/"));
        expect![[r#"Some(500) [500]: ROOT/www/.htaccess: Require not allowed here"#]].assert_eq(&htaccess_outcome(
            &list("Allow"),
            "Require ip 127.0.0.2\n",
            "/",
        ));
        // Directives httpd does not know are dropped from the list: nothing is granted.
        expect!["Some(200) [200]: "].assert_eq(&htaccess_outcome(&list("Header"), "Require ip 127.0.0.2\n", "/"));
        expect!["Some(200) [200]: "].assert_eq(&htaccess_outcome(&list("None"), "Require ip 127.0.0.2\n", "/"));
    }

    #[test]
    fn if_in_htaccess_with_access_rules_makes_the_outcome_unknown() {
        let all = "  AllowOverride All\n  Require all granted\n";
        expect!["None [200, 403]: <If> at ROOT/www/.htaccess:1 holds access rules, and its expression is not evaluated; with it true, the request may be granted or refused"]
        .assert_eq(&htaccess_outcome(all, "<If \"true\">\n  Require all denied\n</If>\n", "/"));
        expect!["None [200, 403]: <Else> at ROOT/www/.htaccess:5 holds access rules, and its expression is not evaluated; with it true, the request may be granted or refused"]
            .assert_eq(&htaccess_outcome(
                all,
                "<Files x>\n</Files>\n<If \"false\">\n</If>\n<Else>\n  Require all denied\n</Else>\n",
                "/",
            ));
        expect!["None [200, 403]: <If> at ROOT/www/.htaccess:2 holds access rules, and its expression is not evaluated; with it true, the request may be granted or refused"]
        .assert_eq(&htaccess_outcome(
            all,
            "<Files index.html>\n  <If \"true\">\n    Require all denied\n  </If>\n</Files>\n",
            "/index.html",
        ));
    }

    /// `<Files>` sections of an .htaccess file apply in the Files phase, after the directory's
    /// own lines, for files in its directory and below; its `<IfModule>` follow the server's
    /// modules (mod_status is not loaded here, though Debian enables it by default).
    #[test]
    fn files_sections_of_an_htaccess_file_apply_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www/sub")).unwrap();
        let main = dir.path().join("httpd.conf");
        std::fs::write(&main, format!("LoadModule authz_core_module m\nLoadModule access_compat_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\n  AllowOverride All\n</Directory>\n")).unwrap();
        std::fs::write(dir.path().join("www/.htaccess"), "Order allow,deny\nAllow from all\n<Files \"*.ini\">\n  Order allow,deny\n  Deny from all\n</Files>\n<IfModule mod_status.c>\n  <Files a.txt>\n    Order allow,deny\n  </Files>\n</IfModule>\n").unwrap();
        let cfg = config::load(&main, &config::RealFs);
        let fs = FsView::fresh();
        let status = |url: &str| {
            let r = resolve(&cfg, &fs, url, None, None);
            let req = policy::Request::new("GET", "127.0.0.1".parse().unwrap(), "127.0.0.1".parse().unwrap());
            let kinds: Vec<String> = r.sections(&cfg).iter().map(|s| s.kind.clone()).collect();
            (r.outcome(&cfg, &req).status, kinds.join(" "))
        };
        assert_eq!(status("/x.ini"), (Some(403), "Directory .htaccess Files".to_string()));
        assert_eq!(status("/sub/x.ini"), (Some(403), "Directory .htaccess Files".to_string()));
        assert_eq!(status("/x.html"), (Some(200), "Directory .htaccess".to_string()));
        assert_eq!(status("/a.txt"), (Some(200), "Directory .htaccess".to_string()));
    }
}

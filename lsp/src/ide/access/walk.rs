//! The request walk: the sections a request meets in httpd's merge order, phase by phase
//! (Directory with the `.htaccess` files on the way, Files, Location, and the `<If>` sections
//! we do not evaluate), and their policies merged into a [`Resolved`].

use super::fs::{path_text, request_filename_in, FsView};
use super::items::body_items;
use super::patterns::{location_prefix, regex_matches, section_applies, wildcard_match};
use super::url::{normalize_url, pick_vhost, translate, Server};
use super::Resolved;
use crate::ide::config::index::{components, Built};
use crate::ide::config::{self, Config, FileData, FileId, Node, NodeKind, SecId};
use crate::ide::policy::{self, fold_phase, merge_authn, AuthnConfig, AuthzConfig, CompatConfig, Item, PolicyCtx};
use apache_syntax::TextRange;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How the reason for an unknown outcome ends when an .htaccess file could not be read.
pub(super) const UNREADABLE_HTACCESS: &str = "; httpd refuses the request (403, AH00529) if it cannot read it either";

/// One section of a phase: a section of the configuration, or an .htaccess file
/// read for this request together with the AllowOverride in force for it.
#[derive(Debug, Clone)]
pub(super) enum Contribution {
    Section(SecId),
    /// The file, the AllowOverride in force for it, and the file loaded under the server.
    Htaccess(Arc<FileData>, Vec<String>, Arc<Config>),
    /// A `<Files>`/`<FilesMatch>` section of an .htaccess file (in the Files phase): the file,
    /// the file loaded, and the section's index among its top-level nodes (`<IfModule>`
    /// bodies httpd reads are spliced in there).
    HtaccessFiles(Arc<FileData>, Arc<Config>, usize),
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

/// An applied section: what it is, its policy, and (for an .htaccess file, which has no
/// node to re-read) its body.
pub(super) type Applied = (Contribution, Arc<Built>, Option<Vec<Item>>);

/// The sections that apply to a request, in merge order, grouped by phase.
fn walk(
    cfg: &Config,
    fs: &FsView,
    server: &Server,
    url: &str,
    fs_path: &Path,
    unknown: &mut Vec<String>,
    conditional: &mut Vec<SecId>,
) -> Vec<Vec<Contribution>> {
    let ix = cfg.index();
    let path = path_text(fs_path);
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
    const NONE: &[String] = &[];
    let mut allow_override: &[String] = NONE;
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
        for scope in server.scopes() {
            for id in scope.dirs_at(k, &prefix, |pat, text| wildcard_match(pat, text, true)) {
                if let Some(ao) = ix.allow_override(id) {
                    allow_override = ao;
                }
                dir_phase.push(Contribution::Section(id));
            }
        }
        // The .htaccess of the directory at this depth (only real directories: those above the
        // last component are). No AllowOverride yet means None.
        if !allow_override.iter().all(|a| a.eq_ignore_ascii_case("None"))
            && (k < depth || fs.is_dir(Path::new(&prefix)))
        {
            for name in names {
                let p = Path::new(&prefix).join(name);
                match fs.read(&p) {
                    Ok(Some(fd)) => {
                        let frag = Arc::new(config::load_fragment_under(fd.clone(), cfg));
                        dir_phase.push(Contribution::Htaccess(fd, allow_override.to_vec(), frag));
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
    let in_phase = |phase: &[Contribution]| -> Vec<SecId> {
        phase
            .iter()
            .filter_map(|c| match c {
                Contribution::Section(id) => Some(*id),
                Contribution::Htaccess(..) | Contribution::HtaccessFiles(..) => None,
            })
            .collect()
    };
    // Files: server level, then nested in the matched Directory sections and .htaccess files,
    // in merge order (`merge_core_dir_configs` appends each one's `sec_file`).
    let mut files_candidates: Vec<Contribution> =
        server.scopes().flat_map(|s| s.files.iter().map(|id| Contribution::Section(*id))).collect();
    for c in &dir_phase {
        match c {
            Contribution::Section(id) => {
                files_candidates.extend(ix.files_in(*id).iter().map(|f| Contribution::Section(*f)))
            }
            Contribution::Htaccess(fd, _, frag) => files_candidates.extend(
                htaccess_files_sections(frag).map(|(i, _)| Contribution::HtaccessFiles(fd.clone(), frag.clone(), i)),
            ),
            Contribution::HtaccessFiles(..) => {}
        }
    }
    // The basename of `r->filename` ([`request_filename`]); a directory requested with its
    // trailing slash is `…/dir/`: basename "".
    let base = if path.ends_with('/') { "" } else { comps.last().copied().unwrap_or("") };
    let mut files_phase = Vec::new();
    for c in files_candidates {
        let f = match &c {
            Contribution::Section(id) => ix.node(cfg, *id),
            Contribution::HtaccessFiles(_, frag, i) => &frag.nodes[*i],
            Contribution::Htaccess(..) => continue,
        };
        if section_applies(f, base, |name, base| name == base) {
            files_phase.push(c);
        }
    }
    // Location: main server's then the vhost's, in config order, against the URL.
    let mut loc_phase = Vec::new();
    for id in server.scopes().flat_map(|s| s.locations.iter().copied()) {
        if section_applies(ix.node(cfg, id), url, location_prefix) {
            loc_phase.push(Contribution::Section(id));
        }
    }
    // <If> sections anywhere on the way: we do not evaluate ap_expr.
    let mut if_sections: Vec<SecId> = server.scopes().flat_map(|s| s.ifs.iter().copied()).collect();
    for id in in_phase(&dir_phase).into_iter().chain(in_phase(&files_phase)).chain(in_phase(&loc_phase)) {
        if_sections.extend(ix.ifs_in(id).iter().copied());
    }
    for id in if_sections {
        if ix.holds_access(id) {
            conditional.push(id);
            let s = ix.node(cfg, id);
            unknown.push(format!(
                "<{}> at {}:{} holds access rules, and its expression is not evaluated",
                s.name(),
                cfg.file(s.loc.file).path.display(),
                cfg.line(&s.loc)
            ));
        }
    }
    vec![dir_phase, files_phase, loc_phase]
}

/// The first directive of an .htaccess file that its AllowOverride forbids
/// (httpd answers 500 and logs `"<file>: <name> not allowed here"`): its offset and that message.
/// The rules are `server/config.c: invoke_cmd`'s and `ap_check_cmd_context`'s
/// ([`crate::ide::catalogue::context`]), over the nodes in file order (a section
/// before its body); violations `AllowOverride Nonfatal=Override` lets pass are skipped.
fn htaccess_override_violation(frag: &Config, allow: &[String]) -> Option<(u32, String)> {
    use crate::ide::catalogue::context::{Overrides, Refusal, Scope};
    let path = frag.nodes.first().map(|n| frag.file(n.loc.file).path.display().to_string()).unwrap_or_default();
    let overrides = Overrides::parse(Some(allow), None);
    let top = Scope::htaccess(Some(&overrides));
    let mut stack: Vec<(&Node, Scope)> = frag.nodes.iter().rev().map(|n| (n, top.clone())).collect();
    while let Some((n, scope)) = stack.pop() {
        let Some(d) = n.directive() else { continue };
        if let Some(r) = scope.check(d).filter(|r| r.kind == Refusal::Request) {
            return Some((u32::from(n.loc.range.start()), format!("{path}: {}", r.message)));
        }
        if let Some(inner) = n.is_section().then(|| scope.enter(n.name())).flatten() {
            stack.extend(n.children.iter().rev().map(|c| (c, inner.clone())));
        }
    }
    None
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
    let ix = cfg.index();
    let mut unknown = Vec::new();
    let vhost = pick_vhost(ix, host, local, &mut unknown);
    let server = Server { main: &ix.main, vhost: vhost.map(|v| &ix.vhosts[v as usize].scope) };
    let url = normalize_url(path);
    let filesystem_path = request_filename_in(fs, &translate(&server, cfg, &url));
    let mut conditional = Vec::new();
    let phases = walk(cfg, fs, &server, &url, &filesystem_path, &mut unknown, &mut conditional);
    Walked { vhost, url, filesystem_path, phases, unknown, conditional }
}

impl Walked {
    /// The `<If>` sections holding access rules whose expressions this walk could not tell.
    pub fn conditional(&self) -> &[SecId] {
        &self.conditional
    }

    /// This walk as if exactly the sections `true_ones` (of [`Walked::conditional`]) had true
    /// expressions: they are merged after the Location phase, as httpd's If walk does.
    pub fn with_conditions_true(&self, true_ones: &[SecId]) -> Walked {
        let mut w = self.clone();
        w.phases.push(true_ones.iter().map(|id| Contribution::Section(*id)).collect());
        w
    }

    /// What the walk tells of mod_access_compat's layer from each section's
    /// [`crate::ide::config::index::PolicyOutline`] alone: what [`Walked::merge`] would put in
    /// [`Resolved::compat_source`] and [`Resolved::answered_before_access_checks`], when that
    /// does not take an .htaccess file's policy.
    pub fn before_merge(&self, cfg: &Config) -> BeforeMerge {
        if !self.unknown.is_empty() {
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
        let Walked { vhost, url, filesystem_path, phases, unknown, conditional: _ } = self;
        let mut applied = Vec::new();
        let mut errors = Vec::new();
        let mut compat: Option<CompatConfig> = None;
        let mut compat_source = None;
        let mut authz: Option<AuthzConfig> = None;
        let mut authn = AuthnConfig::default();
        let mut forbidden_override: Option<String> = None;
        for phase in phases {
            let start = applied.len();
            for c in phase {
                let (built, items) = match &c {
                    Contribution::Section(id) => (ix.built(cfg, *id), None),
                    Contribution::Htaccess(fd, allow, frag) => {
                        let (built, items, first_error) = htaccess(fd, frag, allow, &ix.ctx);
                        if forbidden_override.is_none() {
                            forbidden_override = first_error;
                        }
                        (built, Some(items))
                    }
                    Contribution::HtaccessFiles(_, frag, i) => {
                        // (Its errors are the file's: found when the file is read, above.)
                        let items = body_items(frag, &frag.nodes[*i]);
                        let mut sctx = ix.ctx.clone();
                        sctx.htaccess = true;
                        let (policy, compat_errors, authz_errors) =
                            policy::section_from_items_with_layer_errors(&items, &sctx);
                        (Arc::new(Built { policy, compat_errors, authz_errors }), Some(items))
                    }
                };
                let p = &built.policy;
                if matches!(c, Contribution::Section(_)) {
                    errors.extend(p.errors.iter().cloned());
                }
                if p.compat.is_some() {
                    compat = p.compat.clone();
                    compat_source = match c {
                        Contribution::Section(id) => Some(id),
                        Contribution::Htaccess(..) | Contribution::HtaccessFiles(..) => None,
                    };
                }
                if let Some(n) = &p.authn {
                    authn = merge_authn(&authn, n);
                }
                applied.push((c, built, items));
            }
            authz = fold_phase(authz.as_ref(), applied[start..].iter().map(|(_, b, _)| b.policy.authz.as_ref()));
        }
        Resolved {
            vhost,
            url,
            filesystem_path,
            applied,
            compat,
            compat_source,
            authz,
            authn,
            errors,
            unknown,
            forbidden_override,
        }
    }
}

/// An .htaccess file's body and policy, and the first error httpd meets in it (in its top
/// level or in its `<Files>` sections: httpd reads the whole file before any section applies).
fn htaccess(
    fd: &Arc<FileData>,
    frag: &Config,
    allow: &[String],
    ctx: &PolicyCtx,
) -> (Arc<Built>, Vec<Item>, Option<String>) {
    let mut sctx = ctx.clone();
    sctx.htaccess = true;
    let violation = htaccess_override_violation(frag, allow);
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
    let first_error = violation
        .map(|(offset, m)| (offset, 0, m))
        .into_iter()
        .chain(policy.errors.iter().chain(&section_errors).map(|e| {
            let at_close = e.message.starts_with("<Require")
                && (e.message.ends_with("directive contains no authorization directives")
                    || e.message.contains("directive has no effect in"));
            // (The range's end is exclusive: the next line may start there.)
            let offset = if at_close { e.loc.range.1.saturating_sub(1) } else { e.loc.range.0 };
            (offset, 1, format!("{}: {}", fd.path.display(), e.message))
        }))
        .min_by_key(|(offset, prio, _)| (*offset, *prio))
        .map(|(_, _, m)| m);
    (Arc::new(Built { policy, compat_errors, authz_errors }), items, first_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::access::resolve;

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

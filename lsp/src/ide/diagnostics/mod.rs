//! Diagnostics: every check in its own file, all over one loaded [`Config`].
//!
//! Codes are stable (they are listed in the README); messages say what httpd
//! will do, in its own words where it has them.

mod access_rules;
mod alias_overlap;
mod argument_values;
mod compat_guarded_require;
mod defeated_require;
pub mod deprecated_access;
mod deprecated_directive;
pub mod directive_context;
mod duplicate_listen;
mod else_without_if;
pub(crate) mod error_directive;
pub(crate) mod expr_syntax;
mod htaccess_conditionals;
pub(crate) mod htaccess_line_length;
pub(crate) mod htaccess_refusals;
mod htaccess_skipped;
mod limit_methods;
mod load_problems;
mod missing_auth_file;
mod options_syntax;
pub(crate) mod regex_compile;
mod removed_directive;
mod rewrite_flags;
mod startup_accounts;
mod startup_paths;
mod syntax_errors;
mod unknown_directive;

use super::config::{Config, FileId, Severity};
use apache_syntax::TextRange;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub file: FileId,
    pub range: TextRange,
    /// Shared as [`Diagnostic::message`] is.
    pub message: Arc<str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: FileId,
    pub range: TextRange,
    pub severity: Severity,
    pub code: &'static str,
    /// Shared by findings that say the same thing (`Messages`): a big configuration
    /// repeats its blocks, and a check's findings on them their words.
    pub message: Arc<str>,
    /// Rendered struck through by editors (old-style access directives).
    pub deprecated: bool,
    /// A thin vector (one pointer): most findings have none, and a big tree has a
    /// hundred thousand findings.
    pub related: thin_vec::ThinVec<Related>,
}

impl Diagnostic {
    pub fn new(
        file: FileId,
        range: TextRange,
        severity: Severity,
        code: &'static str,
        message: impl Into<Arc<str>>,
    ) -> Self {
        Diagnostic {
            file,
            range,
            severity,
            code,
            message: message.into(),
            deprecated: false,
            related: thin_vec::ThinVec::new(),
        }
    }
}

/// All diagnostics of the configuration, in file order.
pub fn all(cfg: &Config) -> Vec<Diagnostic> {
    in_order(cfg).collect()
}

/// [`all`] as an iterator: the checks run at once, then their findings come in file
/// order, each moved out as it is taken. A report written as they come never holds a
/// second, merged copy of them (tens of megabytes on a big tree).
pub fn in_order(cfg: &Config) -> impl Iterator<Item = Diagnostic> + use<> {
    in_order_with(cfg, |_| ()).map(|(d, ())| d)
}

/// [`in_order`], each finding with what `annotate` makes of it (a report's line and column):
/// made by the check's own worker as soon as its findings are sorted, beside the checks still
/// running, rather than one after the other as the findings are taken.
pub fn in_order_with<A: Send>(cfg: &Config, annotate: impl Fn(&Diagnostic) -> A + Sync) -> Merged<A> {
    use rayon::prelude::*;
    let checks = Checks::new();
    // The section index first, on both cores (its parts are built side by side): every check
    // but two small ones reads it, the nodes check at its first <Limit>, and a worker waiting
    // for another to build it could not help.
    checks.build_index(cfg);
    // An .htaccess file with lines httpd skips: the checks of what a block's lines do together
    // read it as httpd runs it.
    let as_run = htaccess_skipped::as_run(cfg);
    let found = (0..checks.list.len())
        .into_par_iter()
        .map(|i| checks.run(cfg, as_run.as_ref(), i, &annotate))
        .collect::<Vec<_>>();
    Merged::new(found)
}

/// [`in_order_with`] for a main configuration whose .htaccess files are still to be found:
/// `prepare` finds them (`check`'s scan) and `found` names those it gives the configuration
/// ([`Config::found_htaccess`], unless it has some already); the engine check, the one that
/// reads them and the longest, runs right after on the same worker, while the other checks
/// run on the other from the start (each worker helps the other once its own work is done).
/// Gives back what `prepare` made.
pub fn in_order_after<A: Send, P: Send>(
    cfg: &Config,
    prepare: impl FnOnce(&Config) -> P + Send,
    found: impl FnOnce(&P) -> Option<Arc<crate::ide::config::HtaccessFound>> + Send,
    annotate: impl Fn(&Config, &Diagnostic) -> A + Sync,
) -> (P, Merged<A>) {
    use rayon::prelude::*;
    let checks = Checks::new();
    // (As in `in_order_with`: the scan reads the index too.)
    checks.build_index(cfg);
    // (The checks that read it do not read the files found: taken before they are given.)
    let as_run = htaccess_skipped::as_run(cfg);
    let annotate = |d: &Diagnostic| annotate(cfg, d);
    let ((prepared, late), rest) = rayon::join(
        || {
            let prepared = prepare(cfg);
            if let Some(files) = found(&prepared) {
                cfg.found_htaccess(files);
            }
            (prepared, checks.run(cfg, as_run.as_ref(), checks.late, &annotate))
        },
        || {
            (0..checks.list.len())
                .into_par_iter()
                .filter(|&i| i != checks.late)
                .map(|i| checks.run(cfg, as_run.as_ref(), i, &annotate))
                .collect::<Vec<_>>()
        },
    );
    // Back in the checks' order: among findings that order alike, the earlier check's come first.
    let (mut late, mut rest) = (Some(late), rest.into_iter());
    let found: Vec<(Vec<Diagnostic>, Vec<A>)> = (0..checks.list.len())
        .map(|i| if i == checks.late { late.take() } else { rest.next() }.unwrap_or_default())
        .collect();
    (prepared, Merged::new(found))
}

/// The checks [`in_order_with`] runs, by name, and where the engine check (the one that reads
/// the .htaccess files found, [`in_order_after`]) is among them.
struct Checks {
    list: Vec<(&'static str, Check)>,
    late: usize,
    phases: bool,
}

impl Checks {
    fn new() -> Checks {
        const OTHERS: &[(&str, Check)] = &[
            ("syntax", |cfg, out| (0..cfg.files.len()).for_each(|file| syntax(cfg, file, out))),
            ("problems", problems),
            ("engine", engine),
        ];
        let list: Vec<(&str, Check)> = OTHERS.iter().chain(LOCAL).copied().collect();
        let late = list.iter().position(|(name, _)| *name == "engine").unwrap_or_default();
        Checks { list, late, phases: std::env::var_os("APACHE_LSP_PHASES").is_some() }
    }

    /// Check `i`'s findings, sorted, each with what `annotate` makes of it (`as_run`: the
    /// configuration as httpd runs it, for the checks that read blocks).
    fn run<A>(
        &self,
        cfg: &Config,
        as_run: Option<&Config>,
        i: usize,
        annotate: &(dyn Fn(&Diagnostic) -> A + Sync),
    ) -> (Vec<Diagnostic>, Vec<A>) {
        let (name, check) = self.list[i];
        let mut out = Vec::new();
        let t = std::time::Instant::now();
        check(if reads_blocks(name) { as_run.unwrap_or(cfg) } else { cfg }, &mut out);
        htaccess_skipped::retain_run(cfg, &mut out);
        // Most checks find in file order already: a stable sort would still take a
        // scratch copy of their findings (8 MB for 100 000) at the busiest moment.
        if !out.is_sorted_by(|a, b| order(a, b).is_le()) {
            out.sort_by(order);
        }
        if self.phases {
            eprintln!("check #{i:<2} {name:<16} {:>8.1} ms  {} findings", t.elapsed().as_secs_f64() * 1e3, out.len());
        }
        let notes: Vec<A> = out.iter().map(annotate).collect();
        (out, notes)
    }

    fn build_index(&self, cfg: &Config) {
        let t = std::time::Instant::now();
        cfg.index();
        if self.phases {
            eprintln!("index built          {:>8.1} ms", t.elapsed().as_secs_f64() * 1e3);
        }
    }
}

/// Sorted runs merged as `sort` would order and deduplicate their concatenation:
/// among findings that order alike the earlier run's come first (the sort is stable),
/// and a finding equal to the one before it is dropped. Each finding comes with its note
/// ([`in_order_with`]).
pub struct Merged<A> {
    parts: Vec<std::iter::Peekable<std::iter::Zip<std::vec::IntoIter<Diagnostic>, std::vec::IntoIter<A>>>>,
    /// The next finding to give, held until the ones after it equal to it are skipped.
    pending: Option<(Diagnostic, A)>,
}

impl<A> Merged<A> {
    fn new(runs: Vec<(Vec<Diagnostic>, Vec<A>)>) -> Merged<A> {
        Merged { parts: runs.into_iter().map(|(r, n)| r.into_iter().zip(n).peekable()).collect(), pending: None }
    }
    /// The least head of the runs, the earliest run's on a tie.
    fn take_least(&mut self) -> Option<(Diagnostic, A)> {
        let mut least: Option<(usize, &Diagnostic)> = None;
        for (i, part) in self.parts.iter_mut().enumerate() {
            if let Some((d, _)) = part.peek() {
                if least.is_none_or(|(_, l)| order(d, l).is_lt()) {
                    least = Some((i, d));
                }
            }
        }
        let i = least?.0;
        self.parts[i].next()
    }
}

impl<A> Iterator for Merged<A> {
    type Item = (Diagnostic, A);
    fn next(&mut self) -> Option<(Diagnostic, A)> {
        let current = match self.pending.take() {
            Some(d) => d,
            None => self.take_least()?,
        };
        loop {
            match self.take_least() {
                Some(d) if d.0 == current.0 => continue,
                next => {
                    self.pending = next;
                    return Some(current);
                }
            }
        }
    }
}

/// Interned messages: equal texts share one allocation ([`Diagnostic::message`]).
pub(crate) type Messages = crate::ide::shared_strings::SharedStrings;

// The checks, grouped by what their findings depend on, so that an edit can be
// re-checked without checking everything (`ide::incremental`). A new check goes in
// the group that describes it; when unsure, in `engine`.

/// One file's syntax.
pub(crate) fn syntax(cfg: &Config, file: FileId, out: &mut Vec<Diagnostic>) {
    let from = out.len();
    syntax_errors::check(cfg, file, out);
    htaccess_skipped::retain_run(cfg, out);
    htaccess_line_length::check(cfg, file, out);
    unread_errors_as_warnings(cfg, &mut out[from..]);
}

/// In an .htaccess file no server reads, what httpd would refuse costs nothing as the
/// configuration stands (`apache2 -t` and every request are unaffected): said as a warning
/// that names what reading it would cost, so that `check` does not fail on it.
fn unread_errors_as_warnings(cfg: &Config, found: &mut [Diagnostic]) {
    if cfg.top != crate::ide::config::TopLevel::Htaccess
        || !found.iter().any(|d| d.severity == Severity::Error)
        || !never_read(cfg)
    {
        return;
    }
    for d in found.iter_mut().filter(|d| d.severity == Severity::Error) {
        d.severity = Severity::Warning;
        let said = d.message.strip_prefix(consequence(cfg)).map_or(&*d.message, |rest| rest.trim_start_matches(": "));
        d.message = format!(
            "{said} (httpd never reads this file as the configuration stands, so this costs nothing now; were it read, every request it applies to would get 500)"
        )
        .into();
    }
}

/// What loading reported ([`Config::problems`]), and the findings that, like those, only
/// loading again changes: the ones on how sections follow each other (an edit of a section
/// header or closer loads the configuration again).
pub(crate) fn problems(cfg: &Config, out: &mut Vec<Diagnostic>) {
    load_problems::check(cfg, out);
    else_without_if::check(cfg, out);
    htaccess_skipped::retain_run(cfg, out);
}

/// Checks whose findings on a top-level node (a section with everything inside
/// it, or a directive) depend only on that node and on facts of the whole
/// configuration that only loading changes (modules, [`Config::top`], the policy
/// context); each finding lies inside the node it is about.
pub(crate) fn local(cfg: &Config, out: &mut Vec<Diagnostic>) {
    let as_run = htaccess_skipped::as_run(cfg);
    for (name, check) in LOCAL {
        check(if reads_blocks(name) { as_run.as_ref().unwrap_or(cfg) } else { cfg }, out);
    }
    htaccess_skipped::retain_run(cfg, out);
}

/// Whether check `name` reads what the lines of a block do together (and so reads an .htaccess
/// file as httpd runs it, [`htaccess_skipped::as_run`]), rather than each line on its own (which
/// says what httpd does with the lines it skips). (The engine's check walks requests, which read
/// every .htaccess file as httpd runs it already.)
fn reads_blocks(name: &str) -> bool {
    matches!(name, "deprecated-access" | "access-rules")
}

type Check = fn(&Config, &mut Vec<Diagnostic>);

/// The checks of [`local`].
const LOCAL: &[(&str, Check)] =
    &[("nodes", nodes), ("deprecated-access", deprecated_access::check), ("access-rules", access_rules::check)];

/// The checks that look at every node on its own (unknown-directive, removed-directive,
/// options-syntax, deprecated-directive, directive-context, require-in-compat-guard), in one walk: each node is looked
/// up in the catalogue once.
fn nodes(cfg: &Config, out: &mut Vec<Diagnostic>) {
    use directive_context::Walk;
    let known = unknown_directive::Known::new(cfg);
    let mut loaded = ModulesLoaded::new(cfg);
    let mut auth_files = missing_auth_file::Seen::default();
    let mut startup = startup_paths::Seen::default();
    let mut accounts = startup_accounts::Seen::default();
    // The context check reads each node in the scope its parents make, and skips what
    // httpd would not read that far (`None`).
    let mut context = Walk::start(cfg, out);
    // An .htaccess file httpd never reads: that is said, and nothing in it is claimed.
    if context.is_none() {
        return;
    }
    htaccess_skipped::check(cfg, out);
    htaccess_conditionals::check(cfg, out);
    let top = context.as_ref().map(|_| Walk::TOP);
    // Whether a node is read in a directory's context (an .htaccess file, or inside a
    // <Directory>, <Location> or <Files> section), for the regex check.
    let htaccess = cfg.top == crate::ide::config::TopLevel::Htaccess;
    // What httpd's handlers see as `cmd->path`, and the lines of the same configuration record
    // (argument_values). (The fifth: whether the node is inside a <Limit>/<LimitExcept>, whose
    // check covers it.)
    let top_place = argument_values::Place::top(cfg, htaccess);
    let guards = compat_guarded_require::Guards::new(cfg);
    let mut stack: Vec<(&crate::ide::config::Node, Option<usize>, bool, argument_values::Place, bool)> =
        cfg.nodes.iter().rev().map(|n| (n, top, htaccess, top_place, false)).collect();
    while let Some((node, at, in_path, place, in_limit)) = stack.pop() {
        let d = node.directive();
        known.node(cfg, node, d, &mut loaded, out);
        removed_directive::node(node, d, out);
        // Only where httpd reads the line (not inside a section it refuses).
        if at.is_some() {
            options_syntax::node(cfg, node, d, out);
            expr_syntax::node(cfg, node, d, out);
            deprecated_directive::node(cfg, node, d, &mut loaded, out);
            missing_auth_file::node(cfg, node, &mut auth_files, out);
        }
        let before = out.len();
        let inner = match (&mut context, at) {
            (Some(context), Some(at)) => context.node(cfg, node, d, at, &mut loaded, out),
            _ => None,
        };
        // Only where httpd reads the line and its context allows it (else that is the error).
        if at.is_some() && d.is_some() && !out[before..].iter().any(|f| f.code == "directive-context") {
            regex_compile::node(cfg, node, in_path, out);
            argument_values::node(cfg, node, in_path, place, &mut loaded, out);
            expr_syntax::string_node(cfg, node, in_path, out);
            if !in_limit && limit_methods::is_limit(node) {
                limit_methods::node(cfg, node, out);
            }
            compat_guarded_require::node(cfg, &guards, node, out);
            startup_paths::node(cfg, node, place, &mut startup, out);
            startup_accounts::node(cfg, node, &mut accounts, out);
        }
        let inner_limit = in_limit || limit_methods::is_limit(node);
        let inner_path = in_path
            || (node.is_section()
                && matches!(
                    node.known(),
                    "Directory" | "DirectoryMatch" | "Location" | "LocationMatch" | "Files" | "FilesMatch"
                ));
        let inner_place = place.inside(node);
        stack.extend(node.children.iter().rev().map(|c| (c, inner, inner_path, inner_place, inner_limit)));
    }
}

/// Whether `cfg` is an .htaccess file no server reads (each under an AllowOverride that grants
/// nothing for its directory, or only the main server, which answers no request, would): nothing in it takes effect, so no check but the one saying so
/// has anything to say.
pub(crate) fn never_read(cfg: &Config) -> bool {
    directive_context::read_by_no_server(cfg)
        || directive_context::overrides_read(cfg).is_some_and(|groups| groups.iter().all(|(_, o)| !o.reads_htaccess()))
}

/// Checks that evaluate requests across the whole configuration.
pub(crate) fn engine(cfg: &Config, out: &mut Vec<Diagnostic>) {
    defeated_require::check(cfg, out);
    // (Not about requests, but about every `Listen` line at once: `Listen` is among the
    // directives whose edit runs this group again, `incremental::read_by_engine`.)
    duplicate_listen::check(cfg, out);
    // (Likewise about every server-level alias at once: `Alias…`/`Script…` are read by the
    // engine group.)
    alias_overlap::check(cfg, out);
    htaccess_skipped::retain_run(cfg, out);
}

/// [`engine`]'s findings about some sections only: those on directives in their
/// bodies (a finding is about the section whose body holds it).
pub(crate) fn engine_for(cfg: &Config, sections: &[crate::ide::config::SecId], out: &mut Vec<Diagnostic>) {
    defeated_require::check_sections(cfg, sections, out);
    htaccess_skipped::retain_run(cfg, out);
}

/// Every section of the configuration with its [`SecId`](crate::ide::config::SecId),
/// depth first in file order, without visiting directives.
pub(crate) fn sections(cfg: &Config) -> impl Iterator<Item = (crate::ide::config::SecId, &crate::ide::config::Node)> {
    let mut stack: Vec<&crate::ide::config::Node> = cfg.nodes.iter().rev().filter(|n| n.is_section()).collect();
    let mut id = 0;
    std::iter::from_fn(move || {
        let n = stack.pop()?;
        stack.extend(n.children.iter().rev().filter(|c| c.is_section()));
        debug_assert!(std::ptr::eq(cfg.index().node(cfg, id), n), "sections are numbered as the index numbers them");
        id += 1;
        Some((id - 1, n))
    })
}

/// An .htaccess file's top level as the block it is (the body of its directory's section,
/// merged after that section), for the checks that look at sections' bodies; None for other
/// files. (An .htaccess file is small: its nodes are copied.)
pub(crate) fn htaccess_top(cfg: &Config) -> Option<crate::ide::config::Node> {
    use crate::ide::config::{Loc, Node, NodeKind, TopLevel};
    (cfg.top == TopLevel::Htaccess).then(|| {
        let loc = Loc { file: 0, range: TextRange::default(), focus: TextRange::default() };
        Node::new(NodeKind::Section, ".htaccess", [""; 0], "", loc, cfg.nodes.clone())
    })
}

/// What httpd does about an error in `cfg`'s files ([`Config::consequence`]).
pub(crate) fn consequence(cfg: &Config) -> &'static str {
    cfg.consequence()
}

/// A line httpd refuses as it reads it (`refusal`, in its words): an error on the line that
/// says first what that costs ([`consequence`]).
pub(super) fn refused_line(
    cfg: &Config,
    n: &crate::ide::config::Node,
    code: &'static str,
    refusal: &str,
) -> Diagnostic {
    Diagnostic::new(
        n.loc.file,
        cfg.trimmed(&n.loc),
        crate::ide::config::Severity::Error,
        code,
        format!("{}: {refusal}", consequence(cfg)),
    )
}

/// Whether the module(s) providing a directive are loaded (or it is the core's), asked
/// once per directive of the catalogue in a pass over every node.
pub(crate) struct ModulesLoaded<'c> {
    cfg: &'c Config,
    memo: rustc_hash::FxHashMap<*const crate::ide::catalogue::Directive, bool>,
}

impl<'c> ModulesLoaded<'c> {
    pub(crate) fn new(cfg: &'c Config) -> Self {
        ModulesLoaded { cfg, memo: Default::default() }
    }
    pub(crate) fn of(&mut self, d: &'static crate::ide::catalogue::Directive) -> bool {
        let cfg = self.cfg;
        *self.memo.entry(d).or_insert_with(|| d.modules().any(|m| m == "core" || cfg.modules.contains(m)))
    }
}

/// File order: by file, position and code (then message, so that the order never
/// depends on which check ran first), without duplicates.
pub(crate) fn sort(out: &mut Vec<Diagnostic>) {
    out.sort_by(order);
    out.dedup();
}

/// [`sort`] for borrowed diagnostics.
pub(crate) fn sort_refs(out: &mut Vec<&Diagnostic>) {
    out.sort_by(|a, b| order(a, b));
    out.dedup();
}

/// File order: by file, start, code, message, end.
fn order(a: &Diagnostic, b: &Diagnostic) -> std::cmp::Ordering {
    (a.file, a.range.start(), a.code, &a.message, a.range.end()).cmp(&(
        b.file,
        b.range.start(),
        b.code,
        &b.message,
        b.range.end(),
    ))
}

/// Diagnostics of one file of the configuration.
pub fn for_file(cfg: &Config, file: FileId) -> Vec<Diagnostic> {
    all(cfg).into_iter().filter(|d| d.file == file).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::ide::config::{load, FileSource};
    use std::path::Path;
    use std::sync::Arc;

    /// An in-memory file system for fixtures: `//- /path` starts a file.
    pub struct Fixture(pub Vec<(String, String)>);
    impl Fixture {
        pub fn parse(text: &str) -> Fixture {
            let mut files = Vec::new();
            for chunk in text.split("//- ").filter(|c| !c.trim().is_empty()) {
                let (path, body) = chunk.split_once('\n').unwrap_or((chunk, ""));
                files.push((path.trim().to_string(), body.to_string()));
            }
            Fixture(files)
        }
    }
    impl FileSource for Fixture {
        fn read(&self, path: &Path) -> std::io::Result<(Arc<str>, Option<usize>)> {
            self.0
                .iter()
                .find(|(p, _)| Path::new(p) == path)
                .map(|(_, t)| (Arc::from(t.as_str()), None))
                .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory"))
        }
        fn exists(&self, path: &Path) -> bool {
            self.0.iter().any(|(p, _)| Path::new(p) == path)
        }
        fn disk_paths(&self) -> bool {
            false
        }
    }

    /// Diagnostics of a fixture as `file:line: severity[code]: message` lines.
    /// The diagnostics of a fixture's first file, loaded as a main configuration, or as the
    /// .htaccess file it is when named so.
    pub fn render(fixture: &str) -> String {
        let fx = Fixture::parse(fixture);
        let path = Path::new(&fx.0[0].0);
        let cfg = if crate::ide::config::is_htaccess(path) {
            crate::ide::config::load_fragment(path, &fx)
        } else {
            load(path, &fx)
        };
        render_diagnostics(&cfg, &super::all(&cfg))
    }

    /// A big tree has a hundred thousand findings, all held until the report: their size
    /// is a budget (64 bytes).
    #[test]
    fn a_finding_stays_small() {
        assert!(std::mem::size_of::<super::Diagnostic>() <= 64, "{}", std::mem::size_of::<super::Diagnostic>());
    }

    /// Merging sorted runs gives what sorting and deduplicating their concatenation
    /// gives: ties in run order, equal neighbours once, unequal twins (same place, code
    /// and message, another severity) both kept where they fall; each with its own note.
    #[test]
    fn merged_runs_equal_the_sorted_concatenation() {
        use super::{sort, Diagnostic, Merged};
        use crate::ide::config::Severity::{Error, Warning};
        let d = |at: u32, code, message: &str, severity| {
            Diagnostic::new(0, apache_syntax::TextRange::empty(at.into()), severity, code, message)
        };
        let runs = [
            vec![d(1, "a", "x", Warning), d(5, "b", "y", Warning), d(9, "a", "x", Warning)],
            vec![d(1, "a", "x", Error), d(1, "a", "x", Warning), d(5, "b", "y", Warning)],
            vec![],
            vec![d(0, "c", "z", Error), d(5, "b", "y", Warning), d(9, "a", "w", Warning)],
        ];
        let mut sorted: Vec<Diagnostic> = runs.iter().flatten().cloned().collect();
        sort(&mut sorted);
        // Each finding keeps its own note: here, its run and place in it.
        let notes = |i: usize, r: &Vec<Diagnostic>| (0..r.len()).map(|j| (i, j)).collect::<Vec<_>>();
        let noted: Vec<_> = runs.iter().enumerate().map(|(i, r)| (r.clone(), notes(i, r))).collect();
        let merged: Vec<(Diagnostic, (usize, usize))> = Merged::new(noted).collect();
        for (d, (i, j)) in &merged {
            assert_eq!(&runs[*i][*j], d);
        }
        assert_eq!(merged.into_iter().map(|(d, _)| d).collect::<Vec<_>>(), sorted);
    }

    /// `check`'s order (the scan for .htaccess files beside the nodes check, its result taken
    /// into the configuration before the other checks: `in_order_after`) finds what the checks
    /// find when the files were set before them: here a refusal the precedence check finds only
    /// in an .htaccess file the scan found below a Require.
    #[test]
    fn checks_after_the_scan_see_what_it_found() {
        use crate::ide::config::HtaccessFound;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        std::fs::create_dir_all(dir.path().join("www/sub/deeper")).unwrap();
        std::fs::write(dir.path().join("www/sub/.htaccess"), "Satisfy Any\nAllow from all\n").unwrap();
        std::fs::write(dir.path().join("www/sub/deeper/.htaccess"), "Order deny,allow\nDeny from all\n").unwrap();
        let main = dir.path().join("httpd.conf");
        std::fs::write(
            &main,
            format!(
                "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\n\
DocumentRoot {d}/www\n<Directory {d}/www>\n AllowOverride All\n Order deny,allow\n Deny from all\n</Directory>\n\
<Directory {d}/www/sub>\n Require ip 127.0.0.1\n</Directory>\n"
            ),
        )
        .unwrap();
        let found = |cfg: &crate::ide::Config| {
            let paths: Vec<_> = crate::ide::htaccess_files::htaccess_files(cfg).into_iter().map(|f| f.path).collect();
            Arc::new(HtaccessFound { paths: paths.into(), open: Vec::new() })
        };
        let rendered = |cfg: &crate::ide::Config, merged: super::Merged<()>| {
            render_diagnostics(cfg, &merged.map(|(d, ())| d).collect::<Vec<_>>())
        };
        let cfg = load(&main, &crate::ide::config::RealFs);
        let (scanned, merged) =
            super::in_order_after(&cfg, |cfg| found(cfg), |found: &Arc<HtaccessFound>| Some(found.clone()), |_, _| ());
        assert_eq!(scanned.paths.len(), 2);
        let after = rendered(&cfg, merged);
        let mut before = load(&main, &crate::ide::config::RealFs);
        let without = rendered(&before, super::in_order_with(&before, |_| ()));
        before.set_htaccess_found(Some(found(&before)));
        assert_eq!(after, rendered(&before, super::in_order_with(&before, |_| ())));
        // (The finding names the refusal below only when the files are known.)
        assert!(after.contains("`Deny from all` refuses some"), "{after}");
        assert_ne!(after, without);
    }

    /// Diagnostics as `file:line: severity[code]: message` lines.
    pub fn render_diagnostics(cfg: &crate::ide::Config, diagnostics: &[super::Diagnostic]) -> String {
        diagnostics
            .iter()
            .map(|d| {
                let f = cfg.file(d.file);
                format!(
                    "{}:{}: {:?}[{}]: {}\n",
                    f.path.display(),
                    if d.severity == crate::ide::config::Severity::Error {
                        f.reported_line_of(d.range.start())
                    } else {
                        f.line_of(d.range.start())
                    },
                    d.severity,
                    d.code,
                    d.message
                )
            })
            .collect()
    }
}

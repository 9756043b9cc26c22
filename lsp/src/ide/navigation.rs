//! Shared by the navigation features (document links, go to definition,
//! references, highlights): what the cursor is on, and where the paths and
//! variables a configuration names lead.
//!
//! Paths resolve as httpd resolves them. `Include` targets are the files the
//! load really read ([`Config::included_from`]), so globs, directories,
//! ServerRoot and `${VAR}` are handled exactly once, by the loader; an Include
//! the load did not reach (inside a false `<IfModule>`, say) is resolved the same
//! way on the spot. Other path arguments are ServerRoot-relative
//! (`ap_server_root_relative`) after `${VAR}` substitution, except `Alias`
//! targets, which mod_alias keeps as written.
//!
//! Invariant: nothing here reads a file outside the configuration; whether a
//! file exists is asked of the [`FileSource`] (a password or log file is never
//! opened).

use crate::ide::config::{self, Config, FileData, FileId, FileSource};
use apache_syntax::ast::{self, AstNode};
use apache_syntax::{SyntaxKind, SyntaxNode, TextRange, TextSize};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a navigation leads.
#[derive(Debug, Clone)]
pub struct NavTarget {
    pub path: Arc<Path>,
    /// The target's text, when the ranges point into it (None: the whole file).
    pub file: Option<Arc<FileData>>,
    /// The whole target (a directive, a section, a line)…
    pub full_range: TextRange,
    /// …and the part to select in it (a name).
    pub focus_range: TextRange,
}

impl NavTarget {
    pub fn whole_file(path: &Path) -> NavTarget {
        NavTarget {
            path: Arc::from(path),
            file: None,
            full_range: TextRange::default(),
            focus_range: TextRange::default(),
        }
    }

    fn in_config(cfg: &Config, file: FileId, full_range: TextRange, focus_range: TextRange) -> NavTarget {
        let fd = cfg.files[file].clone();
        NavTarget { path: fd.path.clone(), file: Some(fd), full_range, focus_range }
    }
}

/// What a path argument names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathRole {
    /// `Include`/`IncludeOptional`: a file, a directory or a wildcard pattern of configuration files.
    Include,
    /// A file httpd reads or writes (a password file, a module, a certificate, a log).
    File,
    /// A directory (DocumentRoot, an Alias target, a `<Directory>` path).
    Directory,
}

#[derive(Debug, Clone, Copy)]
enum Which {
    Index(usize),
    Last,
    All,
}

/// Directives and sections whose arguments are paths. Logs that name a pipe or
/// syslog are skipped by [`is_path_value`].
const PATH_ARGS: &[(&str, Which, PathRole)] = &[
    ("Include", Which::Index(0), PathRole::Include),
    ("IncludeOptional", Which::Index(0), PathRole::Include),
    ("AuthUserFile", Which::Index(0), PathRole::File),
    ("AuthGroupFile", Which::Index(0), PathRole::File),
    ("AuthDBMUserFile", Which::Index(0), PathRole::File),
    ("AuthDBMGroupFile", Which::Index(0), PathRole::File),
    ("AuthDigestFile", Which::Index(0), PathRole::File),
    ("LoadModule", Which::Index(1), PathRole::File),
    ("LoadFile", Which::All, PathRole::File),
    ("TypesConfig", Which::Index(0), PathRole::File),
    ("MimeMagicFile", Which::Index(0), PathRole::File),
    ("ErrorLog", Which::Index(0), PathRole::File),
    ("CustomLog", Which::Index(0), PathRole::File),
    ("TransferLog", Which::Index(0), PathRole::File),
    ("ScriptLog", Which::Index(0), PathRole::File),
    ("SSLCertificateFile", Which::Index(0), PathRole::File),
    ("SSLCertificateKeyFile", Which::Index(0), PathRole::File),
    ("SSLCertificateChainFile", Which::Index(0), PathRole::File),
    ("SSLCACertificateFile", Which::Index(0), PathRole::File),
    ("SSLCARevocationFile", Which::Index(0), PathRole::File),
    ("SSLCADNRequestFile", Which::Index(0), PathRole::File),
    ("SSLProxyCACertificateFile", Which::Index(0), PathRole::File),
    ("SSLProxyMachineCertificateFile", Which::Index(0), PathRole::File),
    ("SSLSessionTicketKeyFile", Which::Index(0), PathRole::File),
    ("IfFile", Which::Index(0), PathRole::File),
    ("DocumentRoot", Which::Index(0), PathRole::Directory),
    ("Alias", Which::Last, PathRole::Directory),
    ("ScriptAlias", Which::Last, PathRole::Directory),
    ("Directory", Which::Index(0), PathRole::Directory),
];

/// A directive argument that names something on disk.
#[derive(Debug, Clone)]
pub struct PathArg {
    pub role: PathRole,
    pub directive: String,
    /// The file it is written in, and the directive's (or section's) range there.
    pub file: FileId,
    pub directive_range: TextRange,
    /// The argument as written, quotes excluded.
    pub range: TextRange,
    /// The argument's value with `${VAR}` substituted, before ServerRoot is applied.
    pub value: String,
}

/// What the cursor is on.
#[derive(Debug, Clone)]
pub enum Subject {
    /// A variable: inside `${NAME}`, or the name of `Define`, `UnDefine`, `<IfDefine>`.
    Variable {
        name: String,
        range: TextRange,
        /// Inside `${NAME}` (not a Define, UnDefine or `<IfDefine>` name).
        substituted: bool,
    },
    Path(PathArg),
}

/// How a variable's name occurs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OccurrenceKind {
    Define,
    Undefine,
    IfDefine,
    Use,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    pub file: FileId,
    /// The name itself (inside `${…}` for a use).
    pub range: TextRange,
    /// The directive or section header it stands in.
    pub item_range: TextRange,
    pub kind: OccurrenceKind,
}

fn is_path_value(directive: &str, value: &str) -> bool {
    let log = ["ErrorLog", "CustomLog", "TransferLog", "ScriptLog"].iter().any(|d| d.eq_ignore_ascii_case(directive));
    !value.is_empty() && !(log && (value.starts_with('|') || value.starts_with("syslog")))
}

/// The range of an argument without its quotes.
fn unquoted_range(a: &ast::Argument) -> TextRange {
    let r = a.range();
    let raw = a.syntax().text().to_string();
    let Some(q) = raw.chars().next().filter(|c| a.is_quoted() && (*c == '"' || *c == '\'')) else { return r };
    // An unterminated quote keeps its last character.
    let end = if raw.len() >= 2 && raw.ends_with(q) { r.end() - TextSize::from(1) } else { r.end() };
    TextRange::new(r.start() + TextSize::from(1), end)
}

/// `${VAR}` substituted as the loader does: Define'd values, matched without regard to case.
fn expand(cfg: &Config, text: &str) -> String {
    let mut out = String::new();
    let mut last = 0;
    for r in ast::var_refs(text) {
        out.push_str(&text[last..r.start]);
        match cfg.defines.iter().find(|(k, _)| k.eq_ignore_ascii_case(&r.name)).and_then(|(_, v)| v.clone()) {
            Some(v) => out.push_str(&v),
            None => out.push_str(&text[r.start..r.end]),
        }
        last = r.end;
    }
    out.push_str(&text[last..]);
    out
}

/// The name and arguments of a directive or section header node.
fn name_and_args(node: &SyntaxNode) -> Option<(String, Vec<ast::Argument>, TextRange)> {
    if let Some(d) = ast::Directive::cast(node.clone()) {
        return Some((d.name()?.text(), d.args().collect(), d.syntax().text_range()));
    }
    let h = ast::SectionHeader::cast(node.clone())?;
    let range = h.syntax().parent().map(|p| p.text_range()).unwrap_or(h.syntax().text_range());
    Some((h.name()?.text(), h.args().collect(), range))
}

/// The path arguments of one directive or section header.
fn path_args_of(cfg: &Config, file: FileId, node: &SyntaxNode) -> Vec<PathArg> {
    let Some((name, args, directive_range)) = name_and_args(node) else { return vec![] };
    let Some(&(_, which, role)) = PATH_ARGS.iter().find(|(d, _, _)| d.eq_ignore_ascii_case(&name)) else {
        return vec![];
    };
    if role == PathRole::Directory && name.eq_ignore_ascii_case("Directory") && args.len() > 1 {
        return vec![]; // `<Directory ~ regex>`
    }
    let picked: Vec<&ast::Argument> = match which {
        Which::Index(i) => args.get(i).into_iter().collect(),
        Which::Last => args.last().into_iter().collect(),
        Which::All => args.iter().collect(),
    };
    picked
        .into_iter()
        .filter_map(|a| {
            let value = expand(cfg, &a.value());
            is_path_value(&name, &value).then(|| PathArg {
                role,
                directive: name.clone(),
                file,
                directive_range,
                range: unquoted_range(a),
                value,
            })
        })
        .collect()
}

/// Every path argument written in `file`, inactive sections included.
pub fn path_args(cfg: &Config, file: FileId) -> Vec<PathArg> {
    let root = cfg.file(file).parse.syntax_node();
    root.descendants()
        .filter(|n| matches!(n.kind(), SyntaxKind::DIRECTIVE | SyntaxKind::SECTION_HEADER))
        .flat_map(|n| path_args_of(cfg, file, &n))
        .collect()
}

/// The absolute path a path argument names: ServerRoot-relative unless it is an Alias target.
pub fn absolute_path(cfg: &Config, arg: &PathArg) -> PathBuf {
    let p = Path::new(&arg.value);
    let alias = arg.directive.eq_ignore_ascii_case("Alias") || arg.directive.eq_ignore_ascii_case("ScriptAlias");
    if p.is_absolute() || alias {
        p.to_path_buf()
    } else {
        cfg.server_root.join(p)
    }
}

/// The files an Include argument leads to, in the order httpd reads them.
pub fn include_targets(cfg: &Config, arg: &PathArg, fs: &dyn FileSource) -> Vec<PathBuf> {
    let mut seen = HashSet::new();
    let read: Vec<PathBuf> = cfg
        .included_from
        .iter()
        .filter(|(_, parent, range)| *parent == arg.file && *range == arg.directive_range)
        .map(|(child, _, _)| cfg.file(*child).path.to_path_buf())
        .filter(|p| seen.insert(p.clone()))
        .collect();
    if !read.is_empty() {
        return read;
    }
    // Not read by this load (a false conditional, a cycle, an unreadable match): resolve it now.
    config::resolve_include(&absolute_path(cfg, arg), true)
        .map(|paths| paths.into_iter().filter(|p| fs.exists(p)).collect())
        .unwrap_or_default()
}

/// The `${NAME}` references written inside a node's text, with their absolute ranges.
fn var_refs_in(node: &SyntaxNode) -> Vec<(String, TextRange)> {
    let text = node.text().to_string();
    let base = node.text_range().start();
    ast::var_refs(&text)
        .into_iter()
        .filter(|r| !r.name.is_empty() && !r.name.contains(|c: char| c.is_whitespace() || c == '\\'))
        .map(|r| {
            let at = |o: usize| base + TextSize::from(o as u32);
            (r.name, TextRange::new(at(r.start + 2), at(r.end - 1)))
        })
        .collect()
}

/// Every occurrence of variable names in `file`: (name, occurrence).
fn occurrences_in(cfg: &Config, file: FileId) -> Vec<(String, Occurrence)> {
    let root = cfg.file(file).parse.syntax_node();
    let mut out = Vec::new();
    for node in root.descendants().filter(|n| matches!(n.kind(), SyntaxKind::DIRECTIVE | SyntaxKind::SECTION_HEADER)) {
        let Some((name, args, item_range)) = name_and_args(&node) else { continue };
        let item_range = if node.kind() == SyntaxKind::SECTION_HEADER { node.text_range() } else { item_range };
        let kind = match name.to_ascii_lowercase().as_str() {
            "define" => Some(OccurrenceKind::Define),
            "undefine" => Some(OccurrenceKind::Undefine),
            "ifdefine" => Some(OccurrenceKind::IfDefine),
            _ => None,
        };
        if let (Some(kind), Some(a)) = (kind, args.first()) {
            let value = a.value();
            let range = unquoted_range(a);
            let (v, range) = match value.strip_prefix('!') {
                Some(rest) if kind == OccurrenceKind::IfDefine => {
                    (rest.to_string(), TextRange::new(range.start() + TextSize::from(1), range.end()))
                }
                _ => (value, range),
            };
            if !v.is_empty() && !v.contains("${") {
                out.push((v, Occurrence { file, range, item_range, kind }));
            }
        }
        for child in node.children().filter(|c| matches!(c.kind(), SyntaxKind::NAME | SyntaxKind::ARGUMENT)) {
            for (name, range) in var_refs_in(&child) {
                out.push((name, Occurrence { file, range, item_range, kind: OccurrenceKind::Use }));
            }
        }
    }
    out
}

/// Whether an occurrence names the variable `name`: `${…}` and Define match without
/// regard to case (httpd keeps them in an APR table); `<IfDefine>` compares exactly.
fn same_variable(kind: OccurrenceKind, written: &str, name: &str) -> bool {
    match kind {
        OccurrenceKind::IfDefine => written == name,
        _ => written.eq_ignore_ascii_case(name),
    }
}

/// Every occurrence of the variable `name` in the configuration's files, in file order.
pub fn variable_occurrences(cfg: &Config, name: &str) -> Vec<Occurrence> {
    (0..cfg.files.len())
        .flat_map(|f| occurrences_in(cfg, f))
        .filter(|(n, o)| same_variable(o.kind, n, name))
        .map(|(_, o)| o)
        .collect()
}

/// The `Define`s of a variable: those the load applied if there are any, else every one written.
pub fn variable_definitions(cfg: &Config, name: &str) -> Vec<NavTarget> {
    let defines: Vec<Occurrence> =
        variable_occurrences(cfg, name).into_iter().filter(|o| o.kind == OccurrenceKind::Define).collect();
    let applied: HashSet<(FileId, TextRange)> =
        cfg.walk().filter(|n| n.is("Define")).map(|n| (n.loc.file, n.loc.range)).collect();
    let active: Vec<&Occurrence> = defines.iter().filter(|o| applied.contains(&(o.file, o.item_range))).collect();
    let chosen: Vec<&Occurrence> = if active.is_empty() { defines.iter().collect() } else { active };
    chosen
        .into_iter()
        .map(|o| {
            let full = trim_line_break(cfg, o.file, o.item_range);
            NavTarget::in_config(cfg, o.file, full, o.range)
        })
        .collect()
}

/// The `Define` in force for a `${name}` used at `offset` of `file`: httpd substitutes the value
/// of the last `Define` or `UnDefine` of the name read before that line, in load order, and
/// nothing if that was an `UnDefine` or there was none (an empty list). `None` when the line is
/// not one the load applied (a fragment, a false conditional): it cannot be told.
pub fn define_in_force(cfg: &Config, file: FileId, offset: TextSize, name: &str) -> Option<Vec<NavTarget>> {
    let mut last: Option<&crate::ide::config::Node> = None;
    let mut reached = false;
    for n in cfg.walk() {
        // The line of the use: a directive, or a section's header (its body comes after it).
        let here = n.loc.file == file
            && n.loc.range.contains_inclusive(offset)
            && (!n.is_section() || n.loc.focus.contains_inclusive(offset));
        if here {
            reached = true;
            break;
        }
        if (n.is("Define") || n.is("UnDefine")) && n.args().next().is_some_and(|v| v.eq_ignore_ascii_case(name)) {
            last = Some(n);
        }
    }
    if !reached {
        return None;
    }
    let Some(define) = last.filter(|n| n.is("Define")) else { return Some(vec![]) };
    let occurrence = variable_occurrences(cfg, name)
        .into_iter()
        .find(|o| o.kind == OccurrenceKind::Define && o.file == define.loc.file && o.item_range == define.loc.range)?;
    let full = trim_line_break(cfg, occurrence.file, occurrence.item_range);
    Some(vec![NavTarget::in_config(cfg, occurrence.file, full, occurrence.range)])
}

/// A directive's range without its line break (what an editor should highlight).
fn trim_line_break(cfg: &Config, file: FileId, range: TextRange) -> TextRange {
    let text = &cfg.file(file).text[range];
    let trimmed = text.trim_end_matches(['\n', '\r']).trim_start();
    let start = range.start() + TextSize::from((text.len() - text.trim_start().len()) as u32);
    TextRange::at(start, TextSize::from(trimmed.len() as u32))
}

/// Where Debian's apache2ctl takes the variables it exports before starting httpd:
/// `export NAME=value` lines in `envvars` beside the main configuration.
pub fn envvars_definition(cfg: &Config, name: &str, fs: &dyn FileSource) -> Option<NavTarget> {
    let path = cfg.server_root.join("envvars");
    let (text, bad) = fs.read(&path).ok()?;
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let body = t.strip_prefix("export").filter(|r| r.starts_with([' ', '\t'])).map(str::trim_start).unwrap_or(t);
        if let Some(rest) = body.strip_prefix(name) {
            if rest.starts_with('=') {
                let name_at = offset + (line.len() - body.len());
                let fd = Arc::new(FileData::new(Arc::from(path.as_path()), text.clone(), bad));
                let at = |o: usize| TextSize::from(o as u32);
                let full = TextRange::new(at(offset + (line.len() - t.len())), at(offset + line.trim_end().len()));
                return Some(NavTarget {
                    path: Arc::from(path.as_path()),
                    file: Some(fd),
                    full_range: full,
                    focus_range: TextRange::new(at(name_at), at(name_at + name.len())),
                });
            }
        }
        offset += line.len();
    }
    None
}

/// The section a `<Directory>` target is configured by: every `<Directory>` whose path
/// is the same directory (trailing slashes aside), in configuration order.
pub fn directory_sections(cfg: &Config, dir: &Path) -> Vec<NavTarget> {
    let want = dir.to_string_lossy().trim_end_matches('/').to_string();
    cfg.walk()
        .filter(|n| n.is_section() && n.is("Directory") && n.args().len() == 1)
        .filter(|n| {
            let p = Path::new(n.arg(0).unwrap_or_default());
            let p = if p.is_absolute() { p.to_path_buf() } else { cfg.server_root.join(p) };
            p.to_string_lossy().trim_end_matches('/') == want
        })
        .map(|n| {
            NavTarget::in_config(cfg, n.loc.file, cfg.trimmed(&n.loc), trim_line_break(cfg, n.loc.file, n.loc.focus))
        })
        .collect()
}

/// What the cursor at `offset` of `file` is on, if anything navigable.
pub fn subject_at(cfg: &Config, file: FileId, offset: TextSize) -> Option<Subject> {
    let root = cfg.file(file).parse.syntax_node();
    let covers = |r: TextRange| r.contains_inclusive(offset);
    // The innermost directive or section header holding the cursor.
    let token = root.token_at_offset(offset).right_biased().or_else(|| root.token_at_offset(offset).left_biased())?;
    let item = token
        .parent_ancestors()
        .find(|n| matches!(n.kind(), SyntaxKind::DIRECTIVE | SyntaxKind::SECTION_HEADER | SyntaxKind::SECTION))?;
    let item = if item.kind() == SyntaxKind::SECTION {
        // On the closer or the body's blanks: only the header is navigable.
        item.children().find(|c| c.kind() == SyntaxKind::SECTION_HEADER && covers(c.text_range()))?
    } else {
        item
    };
    let occurrence = occurrences_in_node(cfg, file, &item);
    if let Some((name, o)) = occurrence.into_iter().find(|(_, o)| covers(o.range)) {
        return Some(Subject::Variable { name, range: o.range, substituted: o.kind == OccurrenceKind::Use });
    }
    path_args_of(cfg, file, &item).into_iter().find(|a| covers(a.range)).map(Subject::Path)
}

fn occurrences_in_node(cfg: &Config, file: FileId, node: &SyntaxNode) -> Vec<(String, Occurrence)> {
    // Reuse the file scan, restricted to this item.
    let r = node.text_range();
    occurrences_in(cfg, file).into_iter().filter(|(_, o)| r.contains_range(o.range)).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ide::config::load;
    use crate::ide::diagnostics::tests::Fixture;

    /// A loaded fixture and the cursor: `//- /path` starts a file, `█` marks the cursor
    /// (in any file; it cannot clash with `$` in regexes or `${VAR}`). The first file is
    /// the main configuration.
    pub struct Loaded {
        pub fx: Fixture,
        pub cfg: Config,
        pub file: FileId,
        pub offset: TextSize,
    }

    pub fn load_fixture(text: &str) -> Loaded {
        let mut fx = Fixture::parse(text);
        let mut cursor = None;
        for (path, body) in &mut fx.0 {
            if let Some(at) = body.find('█') {
                body.replace_range(at..at + '█'.len_utf8(), "");
                cursor = Some((path.clone(), TextSize::from(at as u32)));
            }
        }
        let cfg = load(Path::new(&fx.0[0].0), &fx);
        let (file, offset) = match cursor {
            Some((p, o)) => (cfg.file_id(Path::new(&p)).expect("the cursor's file is part of the configuration"), o),
            None => (0, TextSize::from(0)),
        };
        Loaded { fx, cfg, file, offset }
    }

    /// `path:line:col: text` of a target, or just the path for a whole file.
    pub fn render_target(t: &NavTarget) -> String {
        match &t.file {
            Some(fd) if !t.full_range.is_empty() || !t.focus_range.is_empty() => {
                let lc = fd.line_index.line_col(t.focus_range.start(), apache_syntax::Encoding::Utf8);
                let full = &fd.text[t.full_range];
                let first = full.lines().next().unwrap_or("");
                let more = if first.len() < full.len() { " …" } else { "" };
                format!(
                    "{}:{}:{}: {first}{more} [{}]",
                    t.path.display(),
                    lc.line + 1,
                    lc.col + 1,
                    &fd.text[t.focus_range]
                )
            }
            _ => t.path.display().to_string(),
        }
    }

    #[test]
    fn cursor_on_a_variable_inside_an_argument() {
        let l = load_fixture("//- /srv/httpd.conf\nDefine ROOT /srv/www\nDocumentRoot \"${RO█OT}/html\"\n");
        match subject_at(&l.cfg, l.file, l.offset) {
            Some(Subject::Variable { name, range, .. }) => {
                assert_eq!(name, "ROOT");
                assert_eq!(&l.cfg.file(0).text[range], "ROOT");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn cursor_on_a_path_argument_gets_its_expanded_value() {
        let l = load_fixture("//- /srv/httpd.conf\nDefine ROOT /srv/www\nDocumentRoot \"${ROOT}/ht█ml\"\n");
        match subject_at(&l.cfg, l.file, l.offset) {
            Some(Subject::Path(a)) => {
                assert_eq!(a.value, "/srv/www/html");
                assert_eq!(a.role, PathRole::Directory);
                assert_eq!(&l.cfg.file(0).text[a.range], "${ROOT}/html");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_offset_of_hostile_text_is_answered_without_panic() {
        let texts = [
            "AuthUserFile \"é\nInclude \"${\nDefine\nDefine \"\"\n<IfDefine !>\n</IfDefine>\n${}${é}${a\\\nb}\n",
            "<Directory \"${X}é\n  AuthGroupFile 'ü\n\0\u{7f}\u{feff}Include ${X}/*.conf ${Y\n</Directory>\n",
            "Define X \"a b\"\nDocumentRoot ${X}\nAlias\nAlias /a\nScriptAlias /b \"\"\n<Directory>\n</Directory>\n",
        ];
        for text in texts {
            let l = load_fixture(&format!("//- /srv/httpd.conf\n{text}"));
            let fs = &l.fx;
            for o in 0..=text.len() {
                let at = TextSize::from(o as u32);
                let _ = crate::ide::goto_definition::goto_definition(&l.cfg, 0, at, fs);
                let _ = crate::ide::references::references(&l.cfg, 0, at, true);
                let _ = crate::ide::document_highlight::document_highlight(&l.cfg, 0, at);
            }
            for link in crate::ide::document_links::document_links(&l.cfg, 0, fs) {
                assert!(
                    text.is_char_boundary(link.range.start().into()) && text.is_char_boundary(link.range.end().into())
                );
            }
            for a in path_args(&l.cfg, 0) {
                let _ = &text[a.range];
            }
        }
    }

    #[test]
    fn pipes_and_syslog_are_not_paths() {
        let l = load_fixture(
            "//- /srv/httpd.conf\nErrorLog syslog:local1\nCustomLog \"|/usr/bin/rotatelogs x\" common\nCustomLog logs/access.log common\n",
        );
        let v: Vec<String> = path_args(&l.cfg, 0).iter().map(|a| a.value.clone()).collect();
        assert_eq!(v, vec!["logs/access.log"]);
    }
}

//! The server's view of a whole configuration, as httpd reads it.
//!
//! Starting from a main file, this follows `Include`/`IncludeOptional` (globs,
//! directories, ServerRoot-relative paths), applies `Define`/`UnDefine` and
//! `${VAR}` expansion, and resolves the read-time conditionals (`<IfModule>`,
//! `<IfDefine>`, `<IfVersion>`, `<IfFile>`, `<IfDirective>`, `<IfSection>`) the
//! way `server/config.c: ap_build_config` does, producing one expanded tree of
//! [`Node`]s in which every node remembers the file and range it came from.
//!
//! Invariants: no panics on any input; every file is read at most once per
//! load; include recursion is bounded (depth 128, as httpd) and cycles are
//! reported instead of followed; nothing is executed and nothing but files the
//! configuration names is read.

mod envvars;
pub mod index;
mod loader;
pub mod module_lines;
pub(crate) mod modules;
mod node_text;

pub use index::{Index, SecId, ServerId};
#[cfg(test)]
pub(crate) use loader::LOADER_DIRECTIVES;
pub use loader::{
    decode, file_kind, load, load_for_batch, load_fragment, load_fragment_from, load_fragment_under, load_in_context,
    read_regular, resolve_include, FileSource, IncludeError, RealFs, Text,
};
pub(crate) use loader::{read_refusal, standalone_directive};
pub use modules::{ModuleSet, HTTPD_VERSION};
pub use node_text::{Args, NodeText};

use crate::ide::catalogue::DirectiveId;
use apache_syntax::{LineIndex, LocalChange, Parse, TextRange, TextSize};
use std::path::Path;
use std::sync::Arc;
use thin_vec::ThinVec;

/// Index of a file in [`Config::files`].
pub type FileId = usize;

/// One file of the configuration.
#[derive(Debug)]
pub struct FileData {
    pub path: Arc<Path>,
    pub text: Arc<str>,
    /// The syntax tree and its errors. In a configuration from
    /// [`loader::load_for_batch`] the tree is empty (the errors stay).
    pub parse: Parse,
    pub line_index: LineIndex,
    /// Byte offset of the first invalid UTF-8 sequence, when the file is not UTF-8
    /// (the text then holds replacement characters and must never be written back).
    pub not_utf8: Option<usize>,
}

impl FileData {
    pub fn new(path: Arc<Path>, text: Arc<str>, not_utf8: Option<usize>) -> FileData {
        let parse = apache_syntax::parse(&text);
        let line_index = LineIndex::new(&text);
        FileData { path, text, parse, line_index, not_utf8 }
    }
    /// The file after an edit: the bytes of `delete` (offsets of the current text)
    /// replaced by `insert_len` bytes, giving `new_text`. The tree is reparsed
    /// incrementally and the line index updated in place; the change is `Some` when
    /// only blank, comment and directive lines were re-read ([`LocalChange`]).
    pub fn edited(
        &self,
        new_text: Arc<str>,
        delete: TextRange,
        insert_len: TextSize,
    ) -> (FileData, Option<LocalChange>) {
        let r = self.parse.reparse(&new_text, delete, insert_len);
        let mut line_index = self.line_index.clone();
        line_index.apply_edit(&new_text, delete, insert_len);
        let fd = FileData { path: self.path.clone(), text: new_text, parse: r.parse, line_index, not_utf8: None };
        (fd, r.local)
    }
    /// 1-based line of an offset.
    pub fn line_of(&self, offset: apache_syntax::TextSize) -> u32 {
        self.line_index.line(offset) + 1
    }
    /// The 1-based line httpd names in an error about the logical line holding `offset`: the
    /// last physical line of a line continued with backslashes (its reader has read them all).
    pub fn reported_line_of(&self, offset: apache_syntax::TextSize) -> u32 {
        self.line_of(self.reported_line_start(offset))
    }
    /// Where the physical line [`FileData::reported_line_of`] names starts.
    pub fn reported_line_start(&self, offset: apache_syntax::TextSize) -> apache_syntax::TextSize {
        TextSize::from(apache_syntax::reported_line_start(&self.text, usize::from(offset)) as u32)
    }
}

/// Where a node was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Loc {
    pub file: FileId,
    /// The whole directive or section (header to closer).
    pub range: TextRange,
    /// The name's range (the directive name, or the section header).
    pub focus: TextRange,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Directive,
    Section,
}

/// A node's name or one of its words: up to 24 bytes are kept inline (most
/// configuration words are short), longer ones on the heap; derefs to `&str`.
pub type Word = compact_str::CompactString;

/// A directive or section after conditionals, includes and `${VAR}` were applied.
///
/// A big configuration holds close to a million of them for as long as it is loaded:
/// the name and words share one block ([`NodeText`]) and the body is a thin vector (one
/// pointer; its length and capacity live in its block, and an empty body has none).
#[derive(Debug, Clone)]
pub struct Node {
    pub kind: NodeKind,
    /// The name as written (after variable expansion), the rest of the line after
    /// it (for RAW_ARGS directives), and its arguments as httpd's tokenizer returns them.
    text: NodeText,
    pub loc: Loc,
    /// Body of a section (Include'd files spliced in, conditionals resolved). A thin
    /// vector: one pointer, which most nodes (directives, with no body) leave empty.
    pub children: ThinVec<Node>,
    /// The catalogue's entry for `name`, looked up once when the node is made
    /// ([`Node::new`]); None for a name the catalogue does not know.
    pub directive_id: Option<DirectiveId>,
}

impl Node {
    /// A node, its name looked up in the catalogue.
    pub fn new<S: AsRef<str>>(
        kind: NodeKind,
        name: &str,
        args: impl IntoIterator<Item = S>,
        raw_args: &str,
        loc: Loc,
        children: impl Into<ThinVec<Node>>,
    ) -> Node {
        let directive_id = crate::ide::catalogue::directive_id(name);
        Node { kind, text: NodeText::new(name, raw_args, args), loc, children: children.into(), directive_id }
    }
    /// [`Node::new`] with the words httpd's tokenizer makes of `raw_args` ([`NodeText::of_line`]).
    pub fn of_line(kind: NodeKind, name: &str, raw_args: &str, loc: Loc, children: impl Into<ThinVec<Node>>) -> Node {
        Node::of_line_in(kind, name, raw_args, loc, children, None)
    }
    /// [`Node::of_line`], its text shared with equal ones in `shared` ([`NodeText::of_line_in`]).
    pub(crate) fn of_line_in(
        kind: NodeKind,
        name: &str,
        raw_args: &str,
        loc: Loc,
        children: impl Into<ThinVec<Node>>,
        shared: Option<&mut crate::ide::shared_strings::SharedStrings>,
    ) -> Node {
        let directive_id = crate::ide::catalogue::directive_id(name);
        Node { kind, text: NodeText::of_line_in(name, raw_args, shared), loc, children: children.into(), directive_id }
    }
    /// The name as written (after variable expansion), e.g. `Require`, `Directory`.
    pub fn name(&self) -> &str {
        self.text.name()
    }
    /// Arguments as httpd's tokenizer returns them.
    pub fn args(&self) -> Args<'_> {
        self.text.args()
    }
    /// The rest of the line after the name, for RAW_ARGS directives.
    pub fn raw_args(&self) -> &str {
        self.text.raw_args()
    }
    /// Which text block this node's name and words are ([`NodeText::identity`]): nodes of a
    /// loaded configuration with equal identities read the same.
    pub(crate) fn text_identity(&self) -> usize {
        self.text.identity()
    }
    /// The catalogue's entry for this node's name (`Require`, `Directory`), if it knows it.
    pub fn directive(&self) -> Option<&'static crate::ide::catalogue::Directive> {
        self.directive_id.map(DirectiveId::get)
    }
    /// Argument `i`, if there is one.
    pub fn arg(&self, i: usize) -> Option<&str> {
        self.args().get(i)
    }
    /// The arguments as owned strings.
    pub fn arg_strings(&self) -> Vec<String> {
        self.args().to_vec()
    }
    /// The name as the catalogue spells it when it knows it, else as written: equal to
    /// [`Node::name`] but for ASCII case, and read without touching the node's words
    /// (checks compare the names of every node).
    pub fn canonical(&self) -> &str {
        match self.known() {
            "" => self.name(),
            known => known,
        }
    }
    /// The name as the catalogue spells it, or "" when it does not know it: for matching
    /// against the catalogue's spellings (`match n.known() { "DocumentRoot" => … }`), which
    /// compares names as httpd does, case aside, without a lowercased copy.
    pub fn known(&self) -> &'static str {
        self.directive_id.map_or("", |id| id.get().name)
    }
    pub fn is(&self, name: &str) -> bool {
        self.canonical().eq_ignore_ascii_case(name)
    }
    pub fn is_section(&self) -> bool {
        self.kind == NodeKind::Section
    }
    /// Depth-first iteration over this node and everything below it (iterative).
    pub fn walk(&self) -> impl Iterator<Item = &Node> {
        let mut stack = vec![self];
        std::iter::from_fn(move || {
            let n = stack.pop()?;
            stack.extend(n.children.iter().rev());
            Some(n)
        })
    }
}

/// The directives of one configuration level (a section's body, a server's top level) as httpd
/// applies them: `nodes`' own lines and those their `<Limit>`/`<LimitExcept>` blocks hold, in
/// order. Such a block confines only the access-control lines in it (Order, Allow, Deny,
/// Satisfy, Require: they record its methods, `core.c: ap_limit_section`) to those methods;
/// every other line in it (SetEnvIf, Options, DirectoryIndex…) is the level's own, whatever
/// the method.
pub fn level_directives(nodes: &[Node]) -> impl Iterator<Item = &Node> {
    let mut stack: Vec<&Node> = nodes.iter().rev().collect();
    std::iter::from_fn(move || loop {
        let n = stack.pop()?;
        match n.kind {
            NodeKind::Directive => return Some(n),
            NodeKind::Section if matches!(n.known(), "Limit" | "LimitExcept") => stack.extend(n.children.iter().rev()),
            NodeKind::Section => {}
        }
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

/// A problem found while loading (include failures, cycles, unknown variables…).
#[derive(Debug, Clone)]
pub struct Problem {
    pub file: FileId,
    pub range: TextRange,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
}

/// How the top level of the first file is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TopLevel {
    /// A main configuration: its top level is the main server.
    #[default]
    Main,
    /// A fragment analysed on its own: included at the top level or inside a
    /// `<VirtualHost>`, which cannot be told from the file.
    Fragment,
    /// An .htaccess file; the AllowOverride in force for its directory comes
    /// from [`Config::enclosing`] when the server configuration is known.
    Htaccess,
}

/// The `AllowOverride` and `AllowOverrideList` in force for an .htaccess file's
/// directory, as the server configuration sets them for some of its servers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HtaccessOverrides {
    /// The arguments of the AllowOverride in force; `None` for httpd's default (`None`).
    pub allow_override: Option<Vec<String>>,
    pub allow_override_list: Option<Vec<String>>,
    /// Where the AllowOverride in force is written: file and 1-based line.
    pub set_at: Option<(std::path::PathBuf, u32)>,
    /// The servers (of those reading the file) under which these are in force.
    pub servers: Vec<ServerId>,
}

/// Whether a file analysed on its own is an .htaccess file: only by httpd's
/// default name. Files merely named after one (`nagios.htaccess`,
/// `htaccess.sample`, `.htaccess.server.conf`) are usually server configuration
/// snippets; a server configuration's own `AccessFileName` is recognised when the
/// file is loaded under it ([`load_in_context`]).
pub fn is_htaccess(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n.eq_ignore_ascii_case(".htaccess"))
}

/// The .htaccess files found below the directories a main configuration serves
/// ([`Config::htaccess_found`]), with the text the editor holds of those open in it.
#[derive(Debug, Default)]
pub struct HtaccessFound {
    /// Their paths (under the names the scan found them: a symbolic link's path, not its target's).
    pub paths: Arc<[std::path::PathBuf]>,
    /// The editor's text of those it has open, read instead of the disk (possibly files the
    /// disk does not hold yet); none for `check`.
    pub open: Vec<(std::path::PathBuf, Arc<str>)>,
}

impl HtaccessFound {
    /// Every path: those found, then those only the editor holds.
    pub fn all_paths(&self) -> impl Iterator<Item = &Path> {
        let extra = self.open.iter().map(|(p, _)| p).filter(|p| !self.paths.contains(p));
        self.paths.iter().chain(extra).map(std::path::PathBuf::as_path)
    }

    /// The editor's text of `path`, when it has the file open.
    pub fn open_text(&self, path: &Path) -> Option<&Arc<str>> {
        self.open.iter().find(|(p, _)| p == path).map(|(_, t)| t)
    }

    /// The directories whose .htaccess text differs between `old` and these files, when both
    /// come from the same scan and only the editor's texts changed (opened, edited, closed).
    pub fn dirs_changed_from(&self, old: &HtaccessFound) -> Vec<String> {
        let mut paths: Vec<&Path> = old.open.iter().chain(&self.open).map(|(p, _)| p.as_path()).collect();
        paths.sort_unstable();
        paths.dedup();
        paths
            .into_iter()
            .filter(|p| match (old.open_text(p), self.open_text(p)) {
                (Some(a), Some(b)) => !Arc::ptr_eq(a, b) && a != b,
                _ => true,
            })
            .filter_map(|p| p.parent().map(|d| d.to_string_lossy().into_owned()))
            .collect()
    }

    /// The view of the file system the access walk reads them through: the editor's text over
    /// the disk's, cached.
    pub fn fs_view(&self) -> crate::ide::access::FsView {
        use crate::ide::access::{FsOverlay, FsView};
        if self.open.is_empty() {
            return FsView::cached();
        }
        let files = self.open.iter().cloned().collect();
        FsView::overlaid(FsOverlay { dirs: Default::default(), files })
    }
}

/// The loaded configuration.
#[derive(Debug, Default)]
pub struct Config {
    /// How the first file's top level is read.
    pub top: TopLevel,
    pub files: Vec<Arc<FileData>>,
    /// The main server's top-level nodes.
    pub nodes: Vec<Node>,
    pub problems: Vec<Problem>,
    pub modules: ModuleSet,
    /// Whether the set of loaded modules comes from LoadModule lines (true) or is assumed.
    pub modules_known: bool,
    pub defines: std::collections::HashMap<String, Option<String>>,
    /// The variables httpd's environment is known to hold (Debian's `envvars` beside the main
    /// file): Some(value) where its value is known (`envvars`).
    pub environment: std::collections::HashMap<String, Option<String>>,
    pub server_root: std::path::PathBuf,
    /// Whether the paths the files name are this machine's ([`FileSource::disk_paths`]).
    pub disk_paths: bool,
    /// Bodies of conditional sections whose condition is false.
    pub inactive: Vec<(FileId, TextRange)>,
    /// Bodies of `<IfModule mod_access_compat.c>` (or `access_compat_module`) sections read
    /// because the module is loaded: what they hold applies only while it is.
    pub compat_guarded: Vec<(FileId, TextRange)>,
    /// Which file included which: (child, parent, range of the Include directive).
    pub included_from: Vec<(FileId, FileId, TextRange)>,
    /// For an .htaccess file loaded with [`load_in_context`]: the server
    /// configuration it is read under.
    pub enclosing: Option<Arc<Config>>,
    /// For an .htaccess file loaded under a server configuration: the servers whose requests
    /// read it, when the caller found them ([`crate::ide::allow_override::Readers`]); else they
    /// are found from [`Config::enclosing`] when asked.
    pub htaccess_servers: Option<Arc<[ServerId]>>,
    /// For a main configuration checked with the .htaccess files below the directories it
    /// serves ([`crate::ide::htaccess_files`]), when the caller found them first (`check`, the
    /// editor's workspace index). The precedence check asks at their directories whether their
    /// rules re-open access. Given once ([`Config::found_htaccess`], beside the checks that do
    /// not read it) or replaced ([`Config::set_htaccess_found`]).
    htaccess_found: std::sync::OnceLock<Arc<HtaccessFound>>,
    /// Built on first use: nodes never change after loading (incremental analysis,
    /// which edits them in place, starts a new index with [`Config::nodes_changed`]).
    index: std::sync::OnceLock<Index>,
    file_ids: std::sync::OnceLock<std::collections::HashMap<Arc<Path>, FileId>>,
    /// The files by their canonical paths ([`Config::file_by_canonical_path`]), made when first
    /// asked (a system call per file).
    canonical_ids: std::sync::OnceLock<std::collections::HashMap<std::path::PathBuf, FileId>>,
}

/// A copy of the configuration without its index (built again on first use).
impl Clone for Config {
    fn clone(&self) -> Config {
        Config {
            top: self.top.clone(),
            files: self.files.clone(),
            nodes: self.nodes.clone(),
            problems: self.problems.clone(),
            modules: self.modules.clone(),
            modules_known: self.modules_known,
            defines: self.defines.clone(),
            environment: self.environment.clone(),
            server_root: self.server_root.clone(),
            disk_paths: self.disk_paths,
            inactive: self.inactive.clone(),
            compat_guarded: self.compat_guarded.clone(),
            included_from: self.included_from.clone(),
            enclosing: self.enclosing.clone(),
            htaccess_servers: self.htaccess_servers.clone(),
            htaccess_found: self.htaccess_found.clone(),
            index: std::sync::OnceLock::new(),
            file_ids: self.file_ids.clone(),
            canonical_ids: self.canonical_ids.clone(),
        }
    }
}

impl Config {
    /// The .htaccess files found below the directories this main configuration serves, when
    /// the caller gave them.
    pub fn htaccess_found(&self) -> Option<&Arc<HtaccessFound>> {
        self.htaccess_found.get()
    }
    /// Gives (or takes back, `None`) the .htaccess files found.
    pub fn set_htaccess_found(&mut self, found: Option<Arc<HtaccessFound>>) {
        self.htaccess_found = found.map(std::sync::OnceLock::from).unwrap_or_default();
    }
    /// Gives the .htaccess files found through a shared reference, while checks that do not
    /// read them run (`check`'s scan: [`crate::ide::diagnostics::in_order_after`]). Only once:
    /// false (and the files already given kept) when the configuration has some.
    pub fn found_htaccess(&self, found: Arc<HtaccessFound>) -> bool {
        self.htaccess_found.set(found).is_ok()
    }
    /// After nodes were changed in place (incremental analysis): the index is built
    /// again on next use. The files' paths must not have changed.
    pub(crate) fn nodes_changed(&mut self) {
        self.index = std::sync::OnceLock::new();
    }
    /// After directives were replaced in place without changing the index's
    /// structure (see [`Index::directives_edited`] for the conditions): the index
    /// is kept, less what depends on directives' contents or positions. Else as
    /// [`Config::nodes_changed`].
    pub(crate) fn directives_edited(&mut self, lines_moved: bool) {
        let kept = self.index.get_mut().is_some_and(|ix| ix.directives_edited(lines_moved));
        if !kept {
            self.nodes_changed();
        }
    }
    /// A partial view of this configuration (incremental analysis checks one
    /// top-level node at a time): `nodes` with this configuration's files, modules
    /// and settings, and the policy context `ctx` of the whole configuration, which
    /// the view's own nodes could not give.
    pub(crate) fn view(&self, nodes: Vec<Node>, ctx: crate::ide::policy::PolicyCtx) -> Config {
        let view = Config {
            top: self.top.clone(),
            files: self.files.clone(),
            nodes,
            modules: self.modules.clone(),
            modules_known: self.modules_known,
            defines: self.defines.clone(),
            environment: self.environment.clone(),
            server_root: self.server_root.clone(),
            disk_paths: self.disk_paths,
            enclosing: self.enclosing.clone(),
            htaccess_servers: self.htaccess_servers.clone(),
            htaccess_found: self.htaccess_found.clone(),
            file_ids: self.file_ids.clone(),
            canonical_ids: self.canonical_ids.clone(),
            ..Config::default()
        };
        let mut index = Index::build(&view);
        index.ctx = ctx;
        let _ = view.index.set(index);
        view
    }
    /// What httpd does about an error in these files: a server configuration stops it at
    /// startup; an .htaccess file is read for each request, which then gets 500.
    pub fn consequence(&self) -> &'static str {
        if self.top == TopLevel::Htaccess {
            "httpd answers 500 Internal Server Error to every request this .htaccess file applies to"
        } else {
            module_lines::WILL_NOT_START
        }
    }

    /// Whether httpd runs with module `id` (`setenvif_module`); without any LoadModule line
    /// (a fragment), Debian's default modules are assumed.
    pub fn module_loaded(&self, id: &str) -> bool {
        self.modules.contains(id) || (!self.modules_known && ModuleSet::debian_default().contains(id))
    }
    pub fn file_id(&self, path: &Path) -> Option<FileId> {
        self.file_ids.get_or_init(|| index::file_ids(self)).get(path).copied()
    }
    /// The file whose canonical path (symbolic links resolved) is `canonical`: the files are
    /// resolved once, when first asked, not at each question (a big tree has ten thousand).
    pub fn file_by_canonical_path(&self, canonical: &Path) -> Option<FileId> {
        self.canonical_ids
            .get_or_init(|| {
                let mut ids = std::collections::HashMap::new();
                for (i, f) in self.files.iter().enumerate() {
                    if let Ok(c) = std::fs::canonicalize(&f.path) {
                        ids.entry(c).or_insert(i);
                    }
                }
                ids
            })
            .get(canonical)
            .copied()
    }
    /// The configuration's index (virtual hosts, sections by kind, section policies),
    /// built on first use.
    pub fn index(&self) -> &Index {
        self.index.get_or_init(|| Index::build(self))
    }
    pub fn file(&self, id: FileId) -> &FileData {
        &self.files[id]
    }
    /// 1-based line where a node starts (found in its file's line index, not kept in every
    /// node: close to a million of them on a big tree).
    pub fn line(&self, loc: &Loc) -> u32 {
        self.file(loc.file).line_of(loc.range.start())
    }
    /// Every node of the main server and its sections, depth first.
    pub fn walk(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().flat_map(|n| n.walk())
    }
    /// A node's range from its name to the end of its text, without leading blanks
    /// or the final line break: what diagnostics underline.
    pub fn trimmed(&self, loc: &Loc) -> TextRange {
        let text = &self.file(loc.file).text;
        let start = loc.focus.start().min(loc.range.end());
        let slice = &text[usize::from(start)..usize::from(loc.range.end())];
        let end = start + apache_syntax::TextSize::from(slice.trim_end().len() as u32);
        TextRange::new(start, end)
    }

    pub fn is_inactive(&self, file: FileId, offset: apache_syntax::TextSize) -> bool {
        self.inactive.iter().any(|(f, r)| *f == file && r.contains(offset))
    }

    /// Whether parse error `e` of `file` lies inside the body of a conditional section httpd
    /// skips (its condition false): skipping, httpd looks at each line's first word only, for
    /// the sections that open and close there (`ap_soak_end_container`), not at their
    /// arguments, their `>` nor at how the parser paired them. The loader reads such a body as
    /// httpd does and reports what stops httpd there on the section's own line, where httpd
    /// names it. So is the parser's error on the closer's own line (what it says of the sections
    /// left open there, or of the closer). (A line too long for httpd's reader is still one, and
    /// the parser's notes on NUL bytes and deep nesting stand.)
    pub fn skipped_error(&self, file: FileId, e: &apache_syntax::SyntaxError) -> bool {
        let m = &e.message;
        let kept =
            m.starts_with("Line too long") || m.starts_with("a NUL byte") || m.starts_with("sections are nested");
        let text = &self.file(file).text;
        let closer_line = |body: &TextRange| {
            let at = apache_syntax::reported_line_start(text, usize::from(body.end()));
            e.range.start() == TextSize::from(at as u32)
        };
        !kept && self.inactive.iter().any(|(f, body)| *f == file && (body.contains_range(e.range) || closer_line(body)))
    }
}

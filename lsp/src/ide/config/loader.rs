//! Reading a configuration tree: includes, defines, conditionals.

use super::modules::{ModuleSet, HTTPD_VERSION};
use super::{Config, FileData, FileId, Loc, Node, NodeKind, Problem, Severity, TopLevel};
use crate::ide::shared_strings::SharedStrings;
use apache_syntax::ast::{self, AstNode};
use apache_syntax::{words, TextRange};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thin_vec::ThinVec;

/// httpd's `AP_MAX_INCLUDE_DEPTH`.
const MAX_INCLUDE_DEPTH: usize = 128;
/// httpd's `AP_MAX_FNMATCH_DIR_DEPTH`: how deep an Include of a directory recurses.
const MAX_DIR_DEPTH: usize = 128;
/// A bound on the number of files one load reads, so a hostile glob cannot exhaust memory.
const MAX_FILES: usize = 200_000;
/// Bounds on what one load expands. A file included several times is expanded each
/// time (as httpd does), so includes that fan out (a file including another twice,
/// which includes a third twice…) could otherwise grow exponentially.
/// Real trees repeat a few snippets per virtual host: tens of thousands of repeats.
const MAX_EXPANDED_BYTES: usize = 256 << 20;
const MAX_REPEATS: usize = if cfg!(test) { 2_000 } else { 100_000 };

/// Where file contents come from: the disk, or an editor's unsaved buffers over it.
pub trait FileSource: Sync {
    /// The file's text, and the offset of its first invalid UTF-8 byte if any.
    fn read(&self, path: &Path) -> std::io::Result<Text>;
    /// [`FileSource::read`], with the file's identity on disk (device and inode) when
    /// reading it found that out anyway; None leaves the loader to ask the disk itself.
    fn read_identified(&self, path: &Path) -> (std::io::Result<Text>, Option<Identity>) {
        (self.read(path), None)
    }
    /// Whether a regular file is there, without reading it (a log or key file may be
    /// huge or unreadable to us; navigation only needs to know it exists).
    fn exists(&self, path: &Path) -> bool {
        path.is_file()
    }
    /// The file already parsed, when the source keeps parses (an editor's open
    /// documents, edited incrementally): the loader then uses it rather than parse
    /// `text` again. Only a parse of exactly `text` under exactly `path` may be returned.
    fn parsed(&self, _path: &Path, _text: &Arc<str>) -> Option<Arc<FileData>> {
        None
    }
    /// The text this source holds for `path` in place of the disk's (an editor's open document),
    /// if any. The loader never reads files httpd reads per request (.htaccess files); what reads
    /// them itself (migrate's proof) takes them from here before the disk.
    fn own_text(&self, _path: &Path) -> Option<Arc<str>> {
        None
    }

    /// The files an `Include` (or with `optional`, an `IncludeOptional`) of `full` (absolute,
    /// maybe a wildcard or a directory) names, in httpd's order. By default the file system
    /// answers.
    fn resolve_include(&self, full: &Path, optional: bool) -> Result<Vec<PathBuf>, IncludeError> {
        resolve_include(full, optional)
    }
    /// Whether the paths the configuration names (log directories, certificates, modules,
    /// document roots) are this machine's, so that the checks httpd makes on them as it starts
    /// may be made ([`Config::disk_paths`]). In-memory fixtures say no.
    fn disk_paths(&self) -> bool {
        true
    }
}

/// Reads from the file system.
pub struct RealFs;

impl FileSource for RealFs {
    fn read(&self, path: &Path) -> std::io::Result<Text> {
        let bytes = read_regular(path)?;
        Ok(decode(bytes))
    }
    fn read_identified(&self, path: &Path) -> (std::io::Result<Text>, Option<Identity>) {
        match read_regular_identified(path) {
            Ok((bytes, identity)) => (Ok(decode(bytes)), Some(identity)),
            Err(e) => (Err(e), None),
        }
    }
}

/// The bytes of a regular file. Anything else (a FIFO, a device, a directory) is
/// refused before it is opened, as `ap_pcfg_openfile` refuses it (AH00554), so that
/// reading can never block or never end; `/dev/null` is allowed, as there.
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    read_regular_identified(path).map(|(bytes, _)| bytes)
}

/// [`read_regular`], with the file's identity from the same stat.
fn read_regular_identified(path: &Path) -> std::io::Result<(Vec<u8>, Identity)> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() && path != Path::new("/dev/null") {
        let what = file_kind(&meta);
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("not a regular file ({what}); httpd refuses it (AH00554)"),
        ));
    }
    // Opened once and read into a buffer of the size just found (`fs::read` would ask
    // the open file for its size again): ten thousand files make the calls count.
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(usize::try_from(meta.len()).unwrap_or(usize::MAX))?;
    std::io::Read::read_to_end(&mut std::io::Read::take(&file, u64::MAX), &mut bytes)?;
    Ok((bytes, identity_of(&meta)))
}

/// What kind of file system object this is, for messages.
pub fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a file"
    }
}

/// Why an `Include` names no file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IncludeError {
    /// Nothing matches: an error for `Include`, silence for `IncludeOptional`.
    NoMatch(String),
    /// An error for both (an unreadable directory, a directory recursion).
    Failed(String),
}

/// Text of a file's bytes; invalid UTF-8 is replaced and its first offset reported.
pub fn decode(bytes: Vec<u8>) -> (Arc<str>, Option<usize>) {
    match String::from_utf8(bytes) {
        Ok(s) => (Arc::from(s), None),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            (Arc::from(String::from_utf8_lossy(e.as_bytes()).into_owned()), Some(at))
        }
    }
}

struct Loader<'a> {
    fs: &'a dyn FileSource,
    cfg: Config,
    /// Files currently being read, innermost last (for cycle detection).
    stack: Vec<FileId>,
    loaded: HashMap<PathBuf, FileId>,
    /// Whether files keep their syntax trees once their nodes are built.
    keep_trees: bool,
    /// Files whose tree was dropped (read again if the file is included again).
    dropped: std::collections::HashSet<FileId>,
    /// Batch loads without trees: files are parsed by [`apache_syntax::parse_flat`] (same
    /// nodes and errors, no rowan tree), and their flat parse waits here until their nodes
    /// are built.
    flat: Option<HashMap<FileId, apache_syntax::FlatParse>>,
    /// Bytes of text expanded so far (a file counts each time it is included), and
    /// how many inclusions were of a file already read.
    expanded: usize,
    repeats: usize,
    over_limit: bool,
    /// Canonical paths of files, computed when a cycle is looked for.
    real: HashMap<FileId, PathBuf>,
    /// Device and inode of files being read, by id ([`file_identity`], cached).
    identity: HashMap<FileId, Option<Identity>>,
    /// What the LoadModule lines read so far have loaded.
    module_lines: super::module_lines::ModuleLines,
    /// How many `<Macro>` bodies (mod_macro loaded) the lines being read are in: httpd keeps
    /// such a body for `Use`, and runs none of its LoadModule lines where it stands.
    macro_bodies: usize,
    /// The node texts made so far, each once: equal lines share one ([`Node::of_line_in`]).
    texts: PooledTexts,
    /// Whether a ServerRoot line was read (a fragment checked alone otherwise has its folder
    /// for ServerRoot, a guess).
    server_root_said: bool,
}

/// A loader's [`SharedStrings`], taken from its load's pool and given back when the loader
/// is done: the worker loaders of a parallel run come and go with the pieces rayon splits the
/// work into, and each would otherwise start with none (and keep its own copy of every line).
struct PooledTexts {
    texts: SharedStrings,
    pool: Arc<std::sync::Mutex<Vec<SharedStrings>>>,
}

impl PooledTexts {
    fn from(pool: Arc<std::sync::Mutex<Vec<SharedStrings>>>) -> PooledTexts {
        let texts = pool.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default();
        PooledTexts { texts, pool }
    }
}

impl Drop for PooledTexts {
    fn drop(&mut self) {
        let texts = std::mem::take(&mut self.texts);
        self.pool.lock().unwrap_or_else(|e| e.into_inner()).push(texts);
    }
}

/// The code of an unclosed conditional section whose condition is false (the parser's warning on
/// it then gives way: `diagnostics::syntax_errors`).
pub(crate) const UNCLOSED_FALSE: &str = "syntax";

/// What the loader adds to httpd's words on the closer of a true conditional section with words
/// after it ([`true_closer_refusal`]).
const TRUE_CLOSER_WHY: &str =
    ": httpd ends the body of a true conditional section only at a line that is exactly its closer, nothing after it";

/// What the loader adds to httpd's words where its skipping reader, in the body of a false
/// conditional section, stops httpd ([`read_refusal`]).
const SKIPPED_WHY: &str = ": httpd skips the body of this conditional section, its condition false here, reading only how the sections in it open and close, and names this line";

/// What the loader says of a false conditional section left open, before httpd's words.
const UNCLOSED_WHY: &str =
    ", and its condition is false here: httpd looks for its closer to the end of the configuration";

/// httpd's words, when `p` is the loader's error on the closer of a true conditional section
/// with words after it (in an .htaccess file, a 500 as httpd reads it).
fn true_closer_refusal(p: &Problem) -> Option<&str> {
    (p.code == UNCLOSED_FALSE && p.severity == Severity::Error).then(|| p.message.strip_suffix(TRUE_CLOSER_WHY))?
}

/// httpd's words, when `p` is the loader's error on what httpd refuses as it reads a file's
/// structure: the closer of a true conditional section with words after it
/// ([`true_closer_refusal`]), or the body of a false one its skipping reader stops in (a closer
/// of another name, the end of the file). In an .htaccess file, a 500 as httpd reads it.
pub(crate) fn read_refusal(p: &Problem) -> Option<&str> {
    if p.code != UNCLOSED_FALSE || p.severity != Severity::Error {
        return None;
    }
    let unclosed = p.message.rsplit_once(" (").and_then(|(head, m)| head.ends_with(UNCLOSED_WHY).then_some(m));
    true_closer_refusal(p)
        .or_else(|| p.message.strip_suffix(SKIPPED_WHY))
        .or_else(|| unclosed.and_then(|m| m.strip_suffix(')')))
}

/// The conditional sections, as httpd names them.
const CONDITIONAL_SECTIONS: &[&str] = &["IfModule", "IfDefine", "IfVersion", "IfFile", "IfDirective", "IfSection"];

/// Loads the configuration whose main file is `main`.
pub fn load(main: &Path, fs: &dyn FileSource) -> Config {
    load_main(main, fs, true)
}

/// [`load`] (`main`) or [`load_fragment`], for one-shot batch work such as `check`: files
/// are parsed with [`apache_syntax::parse_flat`] (the same nodes and errors as the tree
/// parser, without a rowan tree), and each flat parse is dropped once the file's nodes are
/// built; text, line index and parse errors stay, `parse.green` is an empty tree. With
/// `APACHE_LSP_TREE_PARSE` set, files are parsed into trees, each dropped once its nodes are
/// built (the path tests compare the flat one with).
pub fn load_for_batch(path: &Path, fs: &dyn FileSource, main: bool) -> Config {
    if main {
        load_main(path, fs, false)
    } else {
        load_fragment_with(path, fs, false)
    }
}

fn load_main(main: &Path, fs: &dyn FileSource, keep_trees: bool) -> Config {
    // Debian's apache2ctl sources `envvars` beside the main file before starting httpd.
    let environment = absolute(main)
        .parent()
        .and_then(|dir| fs.read(&dir.join("envvars")).ok())
        .map(|(text, _)| super::envvars::read(&text))
        .unwrap_or_default();
    let seed = Config { modules: ModuleSet::builtin(), modules_known: true, environment, ..Config::default() };
    let mut cfg = load_seeded_at(main, fs, seed, keep_trees);
    // A configuration that loads no module at all is a fragment: assume Debian's defaults.
    if !cfg.walk().any(|n| n.is("LoadModule")) {
        cfg.modules_known = false;
        // Whether an unclosed conditional is false is then a guess.
        for p in cfg.problems.iter_mut().filter(|p| p.code == UNCLOSED_FALSE) {
            p.severity = Severity::Warning;
        }
    }
    cfg
}

/// Loads a single file that is not a main configuration (a fragment or an
/// .htaccess file): conditionals are judged against Debian's default modules.
pub fn load_fragment(path: &Path, fs: &dyn FileSource) -> Config {
    load_fragment_with(path, fs, true)
}

fn load_fragment_with(path: &Path, fs: &dyn FileSource, keep_trees: bool) -> Config {
    // (Known while reading: LoadModule lines are checked in a main configuration only.)
    let top = if super::is_htaccess(path) { TopLevel::Htaccess } else { TopLevel::Fragment };
    let seed = Config { modules: ModuleSet::debian_default(), modules_known: false, top, ..Config::default() };
    load_seeded_at(path, fs, seed, keep_trees)
}

/// Loads an .htaccess file (or another per-directory fragment) as httpd reads it
/// under `enclosing`: with that server's modules, `Define`s and ServerRoot, and
/// with [`Config::enclosing`] set so features can ask the server configuration.
pub fn load_in_context(path: &Path, fs: &dyn FileSource, enclosing: Arc<Config>) -> Config {
    let seed = Config {
        modules: enclosing.modules.clone(),
        modules_known: enclosing.modules_known,
        defines: enclosing.defines.clone(),
        environment: enclosing.environment.clone(),
        server_root: enclosing.server_root.clone(),
        enclosing: Some(enclosing),
        top: TopLevel::Htaccess,
        ..Config::default()
    };
    load_seeded(path, fs, seed, true)
}

/// [`load_seeded`], ServerRoot taken as the file's directory until a ServerRoot line says.
fn load_seeded_at(path: &Path, fs: &dyn FileSource, seed: Config, keep_trees: bool) -> Config {
    let server_root = absolute(path).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/"));
    load_seeded(path, fs, Config { server_root, ..seed }, keep_trees)
}

fn load_seeded(path: &Path, fs: &dyn FileSource, seed: Config, keep_trees: bool) -> Config {
    let path = absolute(path);
    let mut l = Loader {
        fs,
        cfg: seed,
        stack: Vec::new(),
        loaded: HashMap::new(),
        keep_trees,
        dropped: Default::default(),
        flat: (!keep_trees && std::env::var_os(TREE_PARSE_VAR).is_none()).then(HashMap::new),
        expanded: 0,
        repeats: 0,
        over_limit: false,
        real: HashMap::new(),
        identity: HashMap::new(),
        module_lines: Default::default(),
        macro_bodies: 0,
        texts: PooledTexts::from(Arc::default()),
        server_root_said: false,
    };
    l.cfg.disk_paths = fs.disk_paths();
    match l.read_file(&path) {
        Ok(id) => l.cfg.nodes = exact(l.file_nodes(id)),
        Err(e) => {
            // Keep an empty file so callers can still report against the path.
            l.cfg.files.push(Arc::new(FileData::new(Arc::from(path.as_path()), Arc::from(""), None)));
            l.cfg.problems.push(Problem {
                file: 0,
                range: TextRange::default(),
                severity: Severity::Error,
                code: "include-missing",
                message: format!("cannot read {}: {e}", path.display()),
            });
        }
    }
    l.cfg
}

/// Set (to anything), batch loads parse with the rowan tree parser instead of the flat one:
/// for tests that compare the two (the report must not change), not for users.
pub const TREE_PARSE_VAR: &str = "APACHE_LSP_TREE_PARSE";

/// A file read from `fs`, parsed (or its parse as the source keeps it).
fn parse_file(fs: &dyn FileSource, path: &Path, text: Arc<str>, not_utf8: Option<usize>) -> Arc<FileData> {
    match fs.parsed(path, &text) {
        Some(fd) if not_utf8.is_none() && *fd.path == *path && fd.text == text => fd,
        _ => Arc::new(FileData::new(Arc::from(path), text, not_utf8)),
    }
}

/// A file read for a parallel run: its data, and its flat parse when one was asked for.
type ReadFile = (Arc<FileData>, Option<apache_syntax::FlatParse>);

/// A file of an Include, read, with what [`Loader::parallel_run`] asks of it.
struct Fresh {
    /// Its data, or why it could not be read.
    read: std::io::Result<ReadFile>,
    /// Whether it leaves the loader as it was (no directive the loader acts on).
    quiet: bool,
    /// Its identity on disk ([`file_identity`]), kept only for a quiet file.
    identity: Option<Identity>,
}

/// A file's text as read ([`FileSource::read`]), and the offset of its first byte that is
/// not UTF-8, if any.
pub type Text = (Arc<str>, Option<usize>);

/// Which file is on disk at a path: its device and inode ([`file_identity`]).
type Identity = (u64, u64);

/// [`parse_file`], or with `flat` the file's flat parse beside data whose tree stays empty.
fn file_data(fs: &dyn FileSource, path: &Path, text: Arc<str>, not_utf8: Option<usize>, flat: bool) -> ReadFile {
    if !flat {
        return (parse_file(fs, path, text, not_utf8), None);
    }
    let parsed = apache_syntax::parse_flat(&text);
    let parse = apache_syntax::Parse { green: empty_tree(), errors: parsed.errors.clone() };
    let line_index = apache_syntax::LineIndex::new(&text);
    (Arc::new(FileData { path: Arc::from(path), text, parse, line_index, not_utf8 }), Some(parsed))
}

/// Where a section's body comes from: the tree, or a flat parse (node `usize` of it).
enum Body<'a> {
    Tree(&'a ast::Section),
    Flat(&'a apache_syntax::FlatParse, &'a str, usize),
}

/// The tree of an empty file, shared by every file whose tree was dropped.
fn empty_tree() -> apache_syntax::GreenNode {
    static EMPTY: std::sync::OnceLock<apache_syntax::GreenNode> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| apache_syntax::parse("").green).clone()
}

/// A fragment from text already read (an .htaccess file read per request), its conditionals
/// judged against Debian's default modules.
pub fn load_fragment_from(fd: Arc<FileData>) -> Config {
    load_fragment_seeded(fd, None)
}

/// An .htaccess file read per request by the server `server` configures: its `<IfModule>`,
/// `<IfDefine>` and `<IfFile>` judged by that server's modules, Defines and ServerRoot (as
/// httpd does when it reads the file), not by Debian's defaults.
pub fn load_fragment_under(fd: Arc<FileData>, server: &Config) -> Config {
    load_fragment_seeded(fd, Some(server))
}

fn load_fragment_seeded(fd: Arc<FileData>, server: Option<&Config>) -> Config {
    struct One(Arc<FileData>);
    impl FileSource for One {
        fn read(&self, path: &Path) -> std::io::Result<(Arc<str>, Option<usize>)> {
            if path == &*self.0.path {
                Ok((self.0.text.clone(), self.0.not_utf8))
            } else {
                RealFs.read(path)
            }
        }
        fn parsed(&self, path: &Path, text: &Arc<str>) -> Option<Arc<FileData>> {
            (path == &*self.0.path && Arc::ptr_eq(text, &self.0.text)).then(|| self.0.clone())
        }
    }
    let path = fd.path.to_path_buf();
    match server {
        None => load_fragment(&path, &One(fd)),
        Some(server) => {
            // As [`Config::has_module`] reads them: a server whose modules are not known
            // (no LoadModule at all) is taken to have Debian's defaults too.
            let mut modules = server.modules.clone();
            if !server.modules_known {
                for id in super::modules::DEBIAN_DEFAULT {
                    modules.insert(id);
                }
            }
            let seed = Config {
                modules,
                modules_known: server.modules_known,
                defines: server.defines.clone(),
                environment: server.environment.clone(),
                server_root: server.server_root.clone(),
                top: TopLevel::Htaccess,
                ..Config::default()
            };
            let mut cfg = load_seeded(&path, &One(fd), seed, true);
            cfg.top = TopLevel::Htaccess;
            cfg
        }
    }
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_path_buf())
    }
}

impl Loader<'_> {
    fn read_file(&mut self, path: &Path) -> std::io::Result<FileId> {
        let (text, not_utf8) = self.fs.read(path)?;
        Ok(self.add_file(path, text, not_utf8))
    }

    fn add_file(&mut self, path: &Path, text: Arc<str>, not_utf8: Option<usize>) -> FileId {
        let (fd, flat) = file_data(self.fs, path, text, not_utf8, self.flat.is_some());
        let id = self.add_parsed(fd);
        if let (Some(map), Some(flat)) = (self.flat.as_mut(), flat) {
            map.insert(id, flat);
        }
        id
    }

    fn add_parsed(&mut self, fd: Arc<FileData>) -> FileId {
        let id = self.cfg.files.len();
        let path = fd.path.to_path_buf();
        if let Some(at) = fd.not_utf8 {
            self.cfg.problems.push(Problem {
                file: id,
                range: TextRange::empty(apache_syntax::TextSize::from(0)),
                severity: Severity::Warning,
                code: "not-utf8",
                message: format!("this file is not valid UTF-8 (first bad byte at offset {at}); it is shown with replacement characters; `migrate` rewrites only blocks whose lines are valid UTF-8, and keeps every other line's bytes as they are"),
            });
        }
        self.cfg.files.push(fd);
        self.loaded.insert(path, id);
        id
    }

    /// The expanded nodes of a whole file.
    fn file_nodes(&mut self, id: FileId) -> ThinVec<Node> {
        self.expanded += self.cfg.files[id].text.len();
        self.stack.push(id);
        if self.flat.is_some() {
            // Batch: the flat parse, read once and dropped once the nodes are built (parsed
            // again if the file is included again).
            let text = self.cfg.files[id].text.clone();
            let flat = self.flat.as_mut().and_then(|m| m.remove(&id));
            let flat = flat.unwrap_or_else(|| apache_syntax::parse_flat(&text));
            let mut out = ThinVec::new();
            self.flat_items(id, &flat, &text, 0, &mut out);
            self.stack.pop();
            return out;
        }
        let fd = &self.cfg.files[id];
        let root = if self.dropped.contains(&id) { apache_syntax::parse(&fd.text).tree() } else { fd.parse.tree() };
        let mut out = ThinVec::new();
        self.items(id, root.items(), &mut out);
        self.stack.pop();
        if !self.keep_trees && !self.dropped.contains(&id) {
            drop(root);
            if let Some(fd) = Arc::get_mut(&mut self.cfg.files[id]) {
                fd.parse.green = empty_tree();
                self.dropped.insert(id);
            }
        }
        out
    }

    fn items(&mut self, file: FileId, items: impl Iterator<Item = ast::Item>, out: &mut ThinVec<Node>) {
        for item in items {
            match item {
                ast::Item::Directive(d) => self.directive(file, &d, out),
                ast::Item::Section(s) => self.section(file, &s, out),
                ast::Item::Comment(_) | ast::Item::Error(_) => {}
            }
        }
    }

    /// [`Self::items`] over the children of node `parent` of a flat parse.
    fn flat_items(
        &mut self,
        file: FileId,
        flat: &apache_syntax::FlatParse,
        src: &str,
        parent: usize,
        out: &mut ThinVec<Node>,
    ) {
        use apache_syntax::SyntaxKind::{DIRECTIVE, NAME, SECTION, SECTION_CLOSER, SECTION_HEADER};
        for c in flat.children(parent) {
            match flat.kind(c) {
                DIRECTIVE => {
                    let range = flat.range(c);
                    let focus = flat.child(c, NAME).map(|n| flat.range(n)).unwrap_or(range);
                    let logical = logical_text(src, range, || flat.directive_logical_text(src, c));
                    self.directive_at(file, range, focus, &logical, out);
                }
                SECTION => {
                    let range = flat.range(c);
                    let header = flat.child(c, SECTION_HEADER);
                    let focus = header.map(|h| flat.range(h)).unwrap_or(range);
                    let name_raw =
                        header.and_then(|h| flat.child(h, NAME)).map(|n| flat.name_text(src, n)).unwrap_or_default();
                    let raw_args = header.map(|h| flat.header_raw_args(src, h)).unwrap_or_default();
                    let closer = flat.child(c, SECTION_CLOSER).map(|x| flat.range(x).start());
                    self.section_at(file, range, focus, &name_raw, &raw_args, closer, Body::Flat(flat, src, c), out);
                }
                _ => {}
            }
        }
    }

    fn problem(&mut self, file: FileId, range: TextRange, severity: Severity, code: &'static str, message: String) {
        self.cfg.problems.push(Problem { file, range, severity, code, message });
    }

    /// `LoadModule id so` at `loc`, as mod_so reads it (`load_module`): what httpd says of the
    /// line ([`super::module_lines`]).
    fn load_module(&mut self, loc: Loc, id: &str, so: &str) {
        let main = self.cfg.top == TopLevel::Main;
        for said in self.module_lines.line(id, so, main) {
            let range = match said.from_name {
                // (The file is among the configuration's: LoadModule is never read in a parallel run.)
                true if loc.file < self.cfg.files.len() => self.cfg.trimmed(&loc),
                _ => loc.range,
            };
            self.problem(loc.file, range, said.severity, said.code, said.message);
        }
        self.cfg.modules.insert(id);
    }

    /// Expands `${VAR}` in a logical line the way `ap_resolve_env` does: Define'd
    /// values first, then the environment httpd would see (we only know Debian's
    /// envvars convention, so unknown names stay verbatim and are reported).
    fn expand<'t>(&mut self, file: FileId, range: TextRange, text: &'t str) -> Cow<'t, str> {
        if !apache_syntax::ast::has_var_ref(text) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for r in apache_syntax::ast::var_refs(text) {
            out.push_str(&text[last..r.start]);
            let value =
                self.cfg.defines.iter().find(|(k, _)| k.eq_ignore_ascii_case(&r.name)).and_then(|(_, v)| v.clone());
            // Then the environment (ap_resolve_env: getenv, names compared exactly).
            let value = value.map(Some).or_else(|| self.cfg.environment.get(&*r.name).cloned());
            match value {
                Some(Some(v)) => out.push_str(&v),
                // Set by the environment to what only the shell knows: left as written.
                Some(None) => out.push_str(&text[r.start..r.end]),
                None => {
                    out.push_str(&text[r.start..r.end]);
                    if !r.name.contains(':') {
                        self.problem(
                            file,
                            range,
                            Severity::Hint,
                            "undefined-variable",
                            format!("${{{}}} is not defined by a Define before this line; httpd takes it from its environment, or leaves it verbatim (AH00111)", r.name),
                        );
                    }
                }
            }
            last = r.end;
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }

    /// Every directive but those in [`LOADER_DIRECTIVES`] becomes one plain node;
    /// those (and `${VAR}` references) change what the loader reads after them.
    fn directive(&mut self, file: FileId, d: &ast::Directive, out: &mut ThinVec<Node>) {
        let range = d.syntax().text_range();
        let focus = d.name().map(|n| n.range()).unwrap_or(range);
        let text = self.cfg.files[file].text.clone();
        let logical = logical_text(&text, range, || d.logical_text());
        self.directive_at(file, range, focus, &logical, out)
    }

    /// A directive at `range` (its name at `focus`) whose logical line is `logical`.
    fn directive_at(
        &mut self,
        file: FileId,
        range: TextRange,
        focus: TextRange,
        logical: &str,
        out: &mut ThinVec<Node>,
    ) {
        let expanded = self.expand(file, range, logical);
        let (name, raw_args) = split_name(&expanded);
        let loc = Loc { file, range, focus };
        let acts = LOADER_DIRECTIVES.iter().position(|l| name.eq_ignore_ascii_case(l)).map(|i| LOADER_DIRECTIVES[i]);
        if acts.is_none() {
            out.push(Node::of_line_in(
                NodeKind::Directive,
                &name,
                raw_args,
                loc,
                ThinVec::new(),
                Some(&mut self.texts.texts),
            ));
            return;
        }
        let args: Vec<Cow<'_, str>> = words(raw_args).collect();
        match acts {
            Some("define") => {
                if let Some(k) = args.first() {
                    if k.contains(':') {
                        self.problem(
                            file,
                            range,
                            Severity::Error,
                            "define",
                            "Variable name must not contain ':'".into(),
                        );
                    } else {
                        self.cfg.defines.insert(k.to_string(), args.get(1).map(|v| v.to_string()));
                    }
                }
            }
            Some("undefine") => {
                if let Some(k) = args.first() {
                    self.cfg.defines.remove(&**k);
                }
            }
            Some("serverroot") => {
                // A line of other than one word is refused ("ServerRoot takes one argument",
                // reported with the other argument counts): httpd keeps the server root it had.
                if let [r] = &args[..] {
                    self.server_root_said = true;
                    self.cfg.server_root = PathBuf::from(&**r);
                }
            }
            Some("loadmodule") => {
                if let (Some(id), 0) = (args.first(), self.macro_bodies) {
                    self.load_module(loc, id, args.get(1).map_or("", |so| so));
                }
            }
            Some(lname @ ("include" | "includeoptional")) => {
                let pattern = args.first().cloned();
                out.push(Node::new(NodeKind::Directive, &name, &args, raw_args, loc, vec![]));
                let optional = lname == "includeoptional";
                if let Some(pattern) = pattern {
                    self.include(file, range, &pattern, optional, out);
                } else {
                    self.problem(
                        file,
                        range,
                        Severity::Error,
                        "include",
                        format!("{name} requires a file or wildcard"),
                    );
                }
                return;
            }
            _ => {}
        }
        out.push(Node::new(NodeKind::Directive, &name, &args, raw_args, loc, vec![]));
    }

    fn section(&mut self, file: FileId, s: &ast::Section, out: &mut ThinVec<Node>) {
        let range = s.syntax().text_range();
        let header = s.header();
        let focus = header.as_ref().map(|h| h.syntax().text_range()).unwrap_or(range);
        let name_raw = s.name_text();
        let raw_args_text = header.as_ref().map(|h| h.raw_args()).unwrap_or_default();
        let closer = s.closer().map(|c| c.syntax().text_range().start());
        self.section_at(file, range, focus, &name_raw, &raw_args_text, closer, Body::Tree(s), out)
    }

    /// A section at `range` (its header at `focus`), whose closer starts at `closer`.
    #[allow(clippy::too_many_arguments)]
    fn section_at(
        &mut self,
        file: FileId,
        range: TextRange,
        focus: TextRange,
        name_raw: &str,
        raw_args_text: &str,
        closer: Option<apache_syntax::TextSize>,
        body: Body<'_>,
        out: &mut ThinVec<Node>,
    ) {
        let raw = self.expand(file, focus, raw_args_text);
        let name = self.expand(file, focus, name_raw);
        if let Some(cond) = self.condition(&name, &raw) {
            match cond {
                Some(true) => {
                    // (A guard of mod_access_compat's: its body is remembered, see
                    // `Config::compat_guarded`.)
                    if name.eq_ignore_ascii_case("ifmodule")
                        && matches!(words(&raw).next().as_deref(), Some("mod_access_compat.c" | "access_compat_module"))
                    {
                        let body_end = closer.unwrap_or(range.end());
                        if focus.end() <= body_end {
                            self.cfg.compat_guarded.push((file, TextRange::new(focus.end(), body_end)));
                        }
                    }
                    self.body_items(file, &body, out);
                    self.closer_of_true_conditional(file, &name, &body);
                }
                Some(false) => {
                    let body_start = focus.end();
                    let body_end = closer.unwrap_or(range.end());
                    // (A file read in a parallel run is not among the configuration's files yet.)
                    let tree_text;
                    let text: &str = match body {
                        Body::Flat(_, src, _) => src,
                        Body::Tree(_) => {
                            tree_text = self.cfg.files[file].text.clone();
                            &tree_text
                        }
                    };
                    self.skipped_body(file, text, focus, &name, closer);
                    if body_start <= body_end {
                        self.cfg.inactive.push((file, TextRange::new(body_start, body_end)));
                    }
                }
                // Not known whether httpd reads the body: it is not read here (nothing in it
                // is claimed to stop httpd), nor shown as skipped. A version regex PCRE2
                // refuses stops httpd on this line.
                None => {
                    if name.eq_ignore_ascii_case("ifversion") && if_version_refuses(&raw) {
                        let message = format!("{}: Unable to compile regular expression", self.cfg.consequence());
                        self.problem(file, focus, Severity::Error, "regex-syntax", message);
                    }
                }
            }
            return;
        }
        let loc = Loc { file, range, focus };
        // Gathered straight into the node's body, a block of the guessed size made exact after
        // (nodes live as long as the configuration; a vector moved into it was copied).
        let guess = match body {
            Body::Flat(flat, _, i) => {
                use apache_syntax::SyntaxKind::{DIRECTIVE, SECTION};
                flat.children(i).filter(|&c| matches!(flat.kind(c), DIRECTIVE | SECTION)).count()
            }
            Body::Tree(_) => 0,
        };
        let mut children = ThinVec::with_capacity(guess);
        let macro_body = usize::from(name.eq_ignore_ascii_case("Macro") && self.module_loaded("macro_module"));
        self.macro_bodies += macro_body;
        self.body_items(file, &body, &mut children);
        self.macro_bodies -= macro_body;
        // The guess misses when an Include or a conditional section is spliced in: then moved
        // into a block of their length (shrinking in place may keep the old block).
        if children.capacity() != children.len() {
            let mut exact = ThinVec::with_capacity(children.len());
            exact.extend(children.drain(..));
            children = exact;
        }
        out.push(Node::of_line_in(NodeKind::Section, &name, &raw, loc, children, Some(&mut self.texts.texts)));
    }

    /// The body of the conditional section `name` whose condition is false (its header at
    /// `focus`, its closer as parsed at `closer`), read as httpd skips it
    /// ([`apache_syntax::soak`]): where that reading stops httpd, httpd names the section's own
    /// line, in the words of the skipping reader. Where it ends the body on another line than the
    /// parsed closer, the lines between are not read as httpd reads them: a warning says so.
    /// (Where the modules are only assumed, `load_main` makes the error a warning again.)
    fn skipped_body(
        &mut self,
        file: FileId,
        text: &str,
        focus: TextRange,
        name: &str,
        closer: Option<apache_syntax::TextSize>,
    ) {
        let canonical = CONDITIONAL_SECTIONS.iter().find(|c| c.eq_ignore_ascii_case(name));
        let shown = canonical.copied().unwrap_or(name);
        // The body starts on the line after the header (which ends with its newline).
        let from = usize::from(focus.end());
        let from = match text.as_bytes().get(..from) {
            Some(b) if b.is_empty() || b.ends_with(b"\n") => from,
            _ => memchr::memchr(b'\n', &text.as_bytes()[from.min(text.len())..]).map_or(text.len(), |i| from + i + 1),
        };
        match apache_syntax::soak(text, from, shown) {
            apache_syntax::Soaked::Refused { message, .. } => {
                let message = if message == format!("Expected </{shown}> before end of configuration") {
                    format!("<{shown}> was not closed{UNCLOSED_WHY} ({message})")
                } else {
                    format!("{message}{SKIPPED_WHY}")
                };
                self.problem(file, focus, Severity::Error, UNCLOSED_FALSE, message);
            }
            apache_syntax::Soaked::Closed { closer: ends } if closer != Some(ends.start()) => {
                let line = text[ends].trim();
                let (order, after) = match closer {
                    Some(c) if c < ends.start() => ("later", "the lines before it, after the closer, are skipped too"),
                    _ => ("earlier", "the lines after it are read as configuration"),
                };
                self.problem(
                    file,
                    focus,
                    Severity::Warning,
                    UNCLOSED_FALSE,
                    format!("httpd, skipping the body of this section (its condition false here), ends it {order}, at `{line}`: {after}, which this tool does not model"),
                );
            }
            apache_syntax::Soaked::Closed { .. } => {}
        }
    }

    /// httpd reads the body of a true conditional section (`ap_build_cont_config`) up to a
    /// line that is exactly its closer, `</IfModule>` in any case, blanks around it: a closer
    /// with words after it (`</IfModule> # end`) or without its `>` is read as a line of the
    /// body, a closer with no section open there, and refused in the words of
    /// `ap_build_config_sub`. (A false one is skipped by its closer's first word alone.)
    fn closer_of_true_conditional(&mut self, file: FileId, name: &str, body: &Body<'_>) {
        use apache_syntax::SyntaxKind::SECTION_CLOSER;
        let (range, text) = match *body {
            Body::Tree(s) => match s.closer() {
                Some(c) => (c.syntax().text_range(), c.logical_text()),
                None => return,
            },
            Body::Flat(flat, src, i) => match flat.child(i, SECTION_CLOSER) {
                Some(c) => (flat.range(c), flat.closer_logical_text(src, c)),
                None => return,
            },
        };
        let exact = text.len() == name.len() + 3
            && text.starts_with("</")
            && text.ends_with('>')
            && text.get(2..text.len() - 1).is_some_and(|n| n.eq_ignore_ascii_case(name));
        if exact {
            return;
        }
        let word = text.split(|c: char| c.is_ascii() && apache_syntax::is_space(c as u8)).next().unwrap_or("");
        let opened = word.get(2..).unwrap_or("");
        // (Under the same code as an unclosed false one: a guess too where modules are assumed.)
        self.problem(
            file,
            range,
            Severity::Error,
            UNCLOSED_FALSE,
            format!("{word} without matching <{opened} section{TRUE_CLOSER_WHY}"),
        );
    }

    fn body_items(&mut self, file: FileId, body: &Body<'_>, out: &mut ThinVec<Node>) {
        match *body {
            Body::Tree(s) => self.items(file, s.items(), out),
            Body::Flat(flat, src, i) => self.flat_items(file, flat, src, i, out),
        }
    }

    /// Truth of a read-time conditional section (`Some(None)` when it is not known here), or
    /// None for other sections.
    fn condition(&self, name: &str, raw_args: &str) -> Option<Option<bool>> {
        const CONDITIONALS: [&str; 6] = ["ifmodule", "ifdefine", "iffile", "ifdirective", "ifsection", "ifversion"];
        let lname = CONDITIONALS.iter().find(|c| name.eq_ignore_ascii_case(c))?;
        let args: Vec<Cow<'_, str>> = words(raw_args).collect();
        let arg = args.first().map(|a| &**a).unwrap_or("");
        let (neg, a) = match arg.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, arg),
        };
        let v = match *lname {
            "ifmodule" => self.cfg.modules.matches_ifmodule(a),
            "ifdefine" => self.cfg.defines.contains_key(a),
            "iffile" => {
                let p = Path::new(a);
                let p = if p.is_absolute() { p.to_path_buf() } else { self.cfg.server_root.join(p) };
                p.exists()
            }
            "ifdirective" => crate::ide::catalogue::directive(a).is_some_and(|d| self.module_loaded(d.module)),
            "ifsection" => {
                crate::ide::catalogue::directive(a).is_some_and(|d| d.is_section && self.module_loaded(d.module))
            }
            "ifversion" => return Some(if_version(&args)),
            _ => return None,
        };
        Some(Some(v != neg))
    }

    fn module_loaded(&self, module: &str) -> bool {
        module.split_whitespace().any(|m| self.cfg.modules.contains(m) || m == "core")
    }

    /// A relative Include of a fragment checked alone that is not under the fragment's folder:
    /// httpd looks under a ServerRoot not known here, so it is no error (said as information).
    fn root_unknown(&mut self, file: FileId, range: TextRange, guess: &Path) {
        let msg = format!(
            "not read: a relative path is under the ServerRoot of the main configuration including this file, unknown for a file checked alone (not at {})",
            guess.display()
        );
        self.problem(file, range, Severity::Information, "include-missing", msg);
    }

    fn include(&mut self, file: FileId, range: TextRange, pattern: &str, optional: bool, out: &mut ThinVec<Node>) {
        let p = Path::new(pattern);
        let full = if p.is_absolute() { p.to_path_buf() } else { self.cfg.server_root.join(p) };
        // A fragment checked alone: httpd reads a relative path under the ServerRoot of the
        // main configuration including it, unknown here (its folder is only a guess).
        let guessed = !p.is_absolute() && self.cfg.top == TopLevel::Fragment && !self.server_root_said;
        let paths = match self.fs.resolve_include(&full, optional) {
            Ok(paths) => paths,
            Err(_) if guessed => {
                self.root_unknown(file, range, &full);
                return;
            }
            Err(IncludeError::NoMatch(msg)) => {
                if !optional {
                    self.problem(file, range, Severity::Error, "include-missing", msg);
                }
                return;
            }
            Err(IncludeError::Failed(msg)) => {
                self.problem(file, range, Severity::Error, "include-missing", msg);
                return;
            }
        };
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            self.problem(
                file,
                range,
                Severity::Error,
                "include-depth",
                format!("Includes nested more than {MAX_INCLUDE_DEPTH} deep; httpd stops here"),
            );
            return;
        }
        // Read and parse the new files in parallel, then splice them in order; a chunk at a
        // time, so that trees are dropped (batch loads) before the next chunk is parsed.
        for chunk in paths.chunks(256) {
            let fresh: Vec<&PathBuf> = chunk.iter().filter(|p| !self.loaded.contains_key(*p)).collect();
            let fs = self.fs;
            let flat = self.flat.is_some();
            use rayon::prelude::*;
            // Beside each file, read in the same pass, what `parallel_run` asks of it: whether
            // it leaves the loader as it was (a scan of its flat parse) and, if so, its
            // identity on disk (a stat, for cycles).
            let read: Vec<(PathBuf, Fresh)> = fresh
                .par_iter()
                .map(|p| {
                    let (read, identity) = fs.read_identified(p);
                    let read = read.map(|(text, bad)| file_data(fs, p, text, bad, flat));
                    let quiet = matches!(&read, Ok((fd, Some(flat))) if fd.not_utf8.is_none() && changes_nothing(flat, &fd.text));
                    let identity = if quiet { identity.or_else(|| file_identity(p)) } else { None };
                    ((*p).clone(), Fresh { read, quiet, identity })
                })
                .collect();
            let mut texts: HashMap<PathBuf, Fresh> = read.into_iter().collect();
            let mut at = 0;
            while at < chunk.len() {
                // Files that change nothing the loader reads are built in parallel.
                let run = self.parallel_run(&chunk[at..], &mut texts, file, range, out);
                if run > 0 {
                    at += run;
                    continue;
                }
                let path = &chunk[at];
                at += 1;
                if self.cfg.files.len() >= MAX_FILES {
                    self.problem(
                        file,
                        range,
                        Severity::Error,
                        "include-limit",
                        format!("more than {MAX_FILES} configuration files; the rest is not read"),
                    );
                    return;
                }
                if self.expanded >= MAX_EXPANDED_BYTES || self.repeats >= MAX_REPEATS {
                    if std::mem::replace(&mut self.over_limit, true) {
                        return; // said once
                    }
                    self.problem(
                        file,
                        range,
                        Severity::Error,
                        "include-limit",
                        format!(
                            "the configuration expands to more than {} MiB of text or {MAX_REPEATS} repeated inclusions (files included again and again); the rest is not read",
                            MAX_EXPANDED_BYTES >> 20
                        ),
                    );
                    return;
                }
                let known = self.loaded.get(path).copied();
                let id = match known {
                    Some(id) => id,
                    None => match texts.remove(path).map(|f| f.read) {
                        Some(Ok((fd, flat))) => {
                            let id = self.add_parsed(fd);
                            if let (Some(map), Some(flat)) = (self.flat.as_mut(), flat) {
                                map.insert(id, flat);
                            }
                            id
                        }
                        Some(Err(e)) if guessed && e.kind() == std::io::ErrorKind::NotFound => {
                            self.root_unknown(file, range, path);
                            continue;
                        }
                        Some(Err(e)) => {
                            // IncludeOptional is silent only about files that are not there.
                            if !optional || e.kind() != std::io::ErrorKind::NotFound {
                                self.problem(
                                    file,
                                    range,
                                    Severity::Error,
                                    "include-missing",
                                    format!("Could not open configuration file {}: {e}", path.display()),
                                );
                            }
                            continue;
                        }
                        None => continue,
                    },
                };
                if self.being_read(id) {
                    let chain: Vec<String> =
                        self.stack.iter().map(|&f| self.cfg.files[f].path.display().to_string()).collect();
                    self.problem(
                        file,
                        range,
                        Severity::Error,
                        "include-cycle",
                        format!(
                            "Include cycle: {} → {}; httpd would recurse until its include depth limit",
                            chain.join(" → "),
                            path.display()
                        ),
                    );
                    continue;
                }
                // A file included a second time is read again by httpd; so do we (same parse).
                self.repeats += usize::from(known.is_some());
                self.cfg.included_from.push((id, file, range));
                let nodes = self.file_nodes(id);
                out.extend(nodes);
            }
        }
    }

    /// Builds, in parallel, the nodes of the longest run of files at the start of `paths`
    /// (files of one Include, read and flat-parsed in `texts`) that the sequential loop
    /// would read one after the other without any of them changing what the others see:
    /// new, valid UTF-8 files without any directive the loader acts on
    /// ([`LOADER_DIRECTIVES`], or a name that `${VAR}` or quotes could turn into one), not
    /// part of a cycle and within the limits. Their nodes, problems and inactive ranges are
    /// spliced in file order, so the result is the sequential one. Returns how many files
    /// it took (0 when fewer than two qualify: the caller reads the next file itself).
    fn parallel_run(
        &mut self,
        paths: &[PathBuf],
        texts: &mut HashMap<PathBuf, Fresh>,
        file: FileId,
        range: TextRange,
        out: &mut ThinVec<Node>,
    ) -> usize {
        if self.flat.is_none() || rayon::current_num_threads() < 2 {
            return 0;
        }
        let mut expanded = self.expanded;
        let mut n = 0;
        let mut seen = std::collections::HashSet::new();
        for path in paths {
            let ok = self.cfg.files.len() + n < MAX_FILES
                && expanded < MAX_EXPANDED_BYTES
                && self.repeats < MAX_REPEATS
                && !self.loaded.contains_key(path)
                && seen.insert(path)
                && match texts.get(path) {
                    Some(Fresh { quiet: true, identity, .. }) => !self.cycles_back(path, *identity),
                    _ => false,
                };
            if !ok {
                break;
            }
            if let Some(Fresh { read: Ok((fd, _)), .. }) = texts.get(path) {
                expanded += fd.text.len();
            }
            n += 1;
        }
        if n < 2 {
            return 0;
        }
        #[cfg(test)]
        PARALLEL_FILES.with(|c| c.set(c.get() + n));
        let mut work = Vec::with_capacity(n);
        for path in &paths[..n] {
            let Some(Fresh { read: Ok((fd, Some(flat))), .. }) = texts.remove(path) else {
                unreachable!("checked above")
            };
            let text = fd.text.clone();
            let id = self.add_parsed(fd);
            work.push((id, text, flat));
        }
        type Built = (ThinVec<Node>, Vec<Problem>, Vec<(FileId, TextRange)>, Vec<(FileId, TextRange)>);
        // File by file, a worker loader per piece of the work rayon splits off: files differ in
        // size, and halves fixed in advance left one core idle while the other finished.
        let built: Vec<Built> = {
            use rayon::prelude::*;
            let me = &*self;
            work.par_iter()
                .map_init(
                    || me.worker(),
                    |w, (id, text, flat)| {
                        let mut nodes = ThinVec::new();
                        w.flat_items(*id, flat, text, 0, &mut nodes);
                        let guarded = std::mem::take(&mut w.cfg.compat_guarded);
                        (nodes, std::mem::take(&mut w.cfg.problems), std::mem::take(&mut w.cfg.inactive), guarded)
                    },
                )
                .collect()
        };
        for ((id, text, _), (nodes, problems, inactive, guarded)) in work.iter().zip(built) {
            self.cfg.included_from.push((*id, file, range));
            self.expanded += text.len();
            self.cfg.problems.extend(problems);
            self.cfg.inactive.extend(inactive);
            self.cfg.compat_guarded.extend(guarded);
            out.extend(nodes);
        }
        n
    }

    /// A loader that builds nodes with this one's defines, modules and server root, and
    /// reads its files, without changing it.
    fn worker(&self) -> Loader<'_> {
        Loader {
            fs: self.fs,
            cfg: Config {
                modules: self.cfg.modules.clone(),
                modules_known: self.cfg.modules_known,
                defines: self.cfg.defines.clone(),
                environment: self.cfg.environment.clone(),
                server_root: self.cfg.server_root.clone(),
                ..Config::default()
            },
            stack: self.stack.clone(),
            loaded: HashMap::new(),
            keep_trees: false,
            dropped: Default::default(),
            flat: Some(HashMap::new()),
            expanded: self.expanded,
            repeats: self.repeats,
            over_limit: self.over_limit,
            real: HashMap::new(),
            identity: HashMap::new(),
            module_lines: Default::default(),
            macro_bodies: self.macro_bodies,
            texts: PooledTexts::from(self.texts.pool.clone()),
            server_root_said: self.server_root_said,
        }
    }

    /// Whether a file not read yet at `path`, whose identity on disk was asked beforehand,
    /// is one of those being read under another name ([`Self::being_read`] before it is
    /// added).
    fn cycles_back(&mut self, path: &Path, identity: Option<Identity>) -> bool {
        self.on_stack(identity, |_| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    }

    /// Whether the file of identity `identity` (the file's device and inode, from one stat)
    /// is one of those being read: first by that identity, then, only when it cannot rule
    /// the file out, by its canonical path (`real`).
    fn on_stack(&mut self, identity: Option<Identity>, real: impl FnOnce(&mut Self) -> PathBuf) -> bool {
        if self.none_on_stack_is(identity) {
            return false;
        }
        let me = real(self);
        let stack = self.stack.clone();
        stack.into_iter().any(|f| self.real_path(f) == me)
    }

    /// Whether the file of identity `me` is known to be none of those being read: each has
    /// an identity on disk and none is `me` (then no canonical path can be theirs either, and
    /// a stat spares the several system calls of resolving one: ten thousand included files).
    fn none_on_stack_is(&mut self, me: Option<Identity>) -> bool {
        let Some(me) = me else { return false };
        let stack = self.stack.clone();
        stack.into_iter().all(|f| {
            let path = &self.cfg.files[f].path;
            let theirs = *self.identity.entry(f).or_insert_with(|| file_identity(path));
            theirs.is_some_and(|t| t != me)
        })
    }

    /// Whether the file is one of those being read, under this name or another
    /// (a symbolic link, `dir/../`): including it again would never end.
    fn being_read(&mut self, id: FileId) -> bool {
        if self.stack.contains(&id) {
            return true;
        }
        let path = self.cfg.files[id].path.clone();
        self.on_stack(file_identity(&path), |l| l.real_path(id))
    }

    fn real_path(&mut self, id: FileId) -> PathBuf {
        let path = &self.cfg.files[id].path;
        self.real
            .entry(id)
            .or_insert_with(|| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
            .clone()
    }
}

/// Which file is at `path` on disk: its device and inode (None when it cannot be stat'ed).
fn file_identity(path: &Path) -> Option<Identity> {
    std::fs::metadata(path).ok().map(|m| identity_of(&m))
}

/// The device and inode a stat found.
fn identity_of(meta: &std::fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// The top level's nodes in a block of exactly their length (section bodies are made exact
/// where they are built).
fn exact(v: ThinVec<Node>) -> Vec<Node> {
    // Moved into a new block of their length: the loader's vector may have room to spare.
    let mut out = Vec::with_capacity(v.len());
    out.extend(v);
    out
}

/// The directives [`Loader`] acts on while reading (lowercase): they change the
/// defines, modules, server root or files of everything read after them.
pub(crate) const LOADER_DIRECTIVES: &[&str] =
    &["define", "undefine", "serverroot", "loadmodule", "include", "includeoptional"];

#[cfg(test)]
thread_local! {
    /// How many files this thread's loads built in parallel runs.
    static PARALLEL_FILES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether reading a file's nodes leaves the loader's state as it was: none of its
/// directives is one of [`LOADER_DIRECTIVES`], or could become one (a name with `${`,
/// quotes, escapes or a continuation is taken to be one).
fn changes_nothing(flat: &apache_syntax::FlatParse, src: &str) -> bool {
    use apache_syntax::SyntaxKind::{DIRECTIVE, NAME};
    (0..flat.nodes.len()).filter(|&i| flat.nodes[i].kind == DIRECTIVE).all(|i| {
        let Some(name) = flat.child(i, NAME) else { return false };
        let r = flat.range(name);
        let Some(word) = src.get(usize::from(r.start())..usize::from(r.end())) else { return false };
        !word.contains(['$', '"', '\'', '\\', '\n', '\r', '\0'])
            && !LOADER_DIRECTIVES.iter().any(|l| word.eq_ignore_ascii_case(l))
    })
}

/// The node the loader makes of a directive that is not one of
/// [`LOADER_DIRECTIVES`] and has no `${VAR}` reference, made without loading
/// anything (incremental re-analysis uses it for directives edited in place);
/// None for the others, whose effect reaches past their own node.
pub(crate) fn standalone_directive(fd: &FileData, file: FileId, d: &ast::Directive) -> Option<Node> {
    let range = d.syntax().text_range();
    let logical = logical_text(&fd.text, range, || d.logical_text());
    if apache_syntax::ast::has_var_ref(&logical) {
        return None;
    }
    let (name, raw_args) = split_name(&logical);
    if LOADER_DIRECTIVES.iter().any(|l| name.eq_ignore_ascii_case(l)) {
        return None;
    }
    let focus = d.name().map(|n| n.range()).unwrap_or(range);
    let loc = Loc { file, range, focus };
    Some(Node::of_line(NodeKind::Directive, &name, raw_args, loc, vec![]))
}

/// The files an Include names, in the order httpd reads them (`server/config.c:
/// ap_process_fnmatch_configs`, `server/util.c: ap_dir_fnmatch`): a path without wildcards is
/// the file, or every file below the directory; otherwise the path is matched a component at
/// a time from the root, as httpd does:
/// * a wildcard component is matched against the names in its directory (a leading `.` only by
///   a `.` written), in byte order; where components follow, only directories count (a
///   symbolic link to one does not: httpd takes the entry's own type);
/// * a plain component after a wildcard one is taken as it is, so that `sites/*/site.conf`
///   names `site.conf` in each directory matched, there or not (reading it then fails, an
///   error for `Include`);
/// * a wildcard matching nothing, or a directory that cannot be opened, is an error, except
///   for `IncludeOptional` (`optional`), where a directory that is not there and a wildcard
///   matching nothing just add nothing.
pub fn resolve_include(full: &Path, optional: bool) -> Result<Vec<PathBuf>, IncludeError> {
    let s = full.to_string_lossy();
    let mut files = Vec::new();
    if !crate::ide::fnmatch::is_wildcard(&s) {
        if full.is_dir() {
            collect_dir(full, &mut files, &mut Vec::new())?;
            return Ok(files);
        }
        // Whether it can be read is the file source's business (it may be an unsaved buffer).
        return Ok(vec![full.to_path_buf()]);
    }
    let rest = s.strip_prefix('/').unwrap_or(&s);
    let parts: Vec<&str> = rest.split('/').collect();
    // An empty component (`a//b`) adds nothing to the path; a last one (`conf/*/`) keeps the
    // component before it to directories.
    let last = parts.len() - 1;
    let comps: Vec<&str> =
        parts.iter().enumerate().filter(|&(i, c)| !c.is_empty() || i == last).map(|(_, c)| *c).collect();
    let mut walk = IncludeWalk { full, optional, out: &mut files };
    walk.components(Path::new("/"), &comps)?;
    Ok(files)
}

/// [`resolve_include`]'s walk over the components of a wildcard path.
struct IncludeWalk<'a> {
    full: &'a Path,
    optional: bool,
    out: &'a mut Vec<PathBuf>,
}

impl IncludeWalk<'_> {
    /// `ap_dir_fnmatch`: the files `comps` name below `path`.
    fn components(&mut self, path: &Path, comps: &[&str]) -> Result<(), IncludeError> {
        let Some((&first, rest)) = comps.split_first() else { return Ok(()) };
        if !crate::ide::fnmatch::is_wildcard(first) {
            let p = path.join(first);
            return if rest.is_empty() { self.named(&p, None) } else { self.components(&p, rest) };
        }
        let entries = match std::fs::read_dir(path) {
            Ok(rd) => rd,
            Err(e) if self.optional && e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(IncludeError::Failed(format!("Could not open directory {}: {e}", path.display()))),
        };
        let mut matched: Vec<(PathBuf, Option<std::fs::FileType>)> = entries
            .filter_map(Result::ok)
            .filter(|e| crate::ide::fnmatch::fnmatch(first, &e.file_name().to_string_lossy(), false, true))
            .map(|e| (e.path(), e.file_type().ok()))
            .filter(|(_, t)| rest.is_empty() || t.is_some_and(|t| t.is_dir()))
            .collect();
        if matched.is_empty() {
            if self.optional {
                return Ok(());
            }
            return Err(IncludeError::NoMatch(format!(
                "No matches for the wildcard '{first}' in '{}', failing",
                path.display()
            )));
        }
        matched.sort_by(|a, b| a.0.as_os_str().as_encoded_bytes().cmp(b.0.as_os_str().as_encoded_bytes()));
        for (p, kind) in matched {
            if rest.is_empty() {
                self.named(&p, kind)?;
            } else {
                self.components(&p, rest)?;
            }
            if self.out.len() > MAX_FILES {
                return Err(too_many_files(self.full));
            }
        }
        Ok(())
    }

    /// `ap_dir_nofnmatch`: a path reached, its entry's type if a directory listing told it:
    /// every file below a directory (a link to one followed), else the path itself.
    fn named(&mut self, p: &Path, kind: Option<std::fs::FileType>) -> Result<(), IncludeError> {
        let is_dir = match kind {
            Some(t) if !t.is_symlink() => t.is_dir(),
            _ => p.is_dir(),
        };
        if is_dir {
            return collect_dir(p, self.out, &mut Vec::new());
        }
        self.out.push(p.to_path_buf());
        Ok(())
    }
}

fn too_many_files(full: &Path) -> IncludeError {
    IncludeError::Failed(format!("{} names more than {MAX_FILES} files; none is read", full.display()))
}

/// Every file below a directory, sorted by name at each level (dotfiles included),
/// as `ap_dir_nofnmatch` recurses: depth first, following symbolic links, and
/// stopping at the first error. A link back to a directory being walked is such an
/// error (httpd would go round until the path holds too many links, ELOOP), so a
/// loop costs one level, and [`MAX_DIR_DEPTH`] bounds honest depth as httpd does.
fn collect_dir(dir: &Path, out: &mut Vec<PathBuf>, walking: &mut Vec<PathBuf>) -> Result<(), IncludeError> {
    if walking.len() >= MAX_DIR_DEPTH {
        return Err(IncludeError::Failed(format!(
            "Directory '{}' exceeds the maximum include directory nesting level of {MAX_DIR_DEPTH}",
            dir.display()
        )));
    }
    let real = std::fs::canonicalize(dir)
        .map_err(|e| IncludeError::Failed(format!("Could not open directory {}: {e}", dir.display())))?;
    if let Some(outer) = walking.iter().find(|w| **w == real) {
        return Err(IncludeError::Failed(format!(
            "Directory '{}' is '{}' again (a symbolic link loop): httpd would recurse into it until the path has too many symbolic links",
            dir.display(),
            outer.display()
        )));
    }
    let rd = std::fs::read_dir(dir)
        .map_err(|e| IncludeError::Failed(format!("Could not open directory {}: {e}", dir.display())))?;
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
    walking.push(real);
    for e in entries {
        if e.is_dir() {
            collect_dir(&e, out, walking)?;
        } else {
            out.push(e);
        }
        if out.len() > MAX_FILES {
            return Err(too_many_files(dir));
        }
    }
    walking.pop();
    Ok(())
}

/// A directive's logical line: straight from the file's text when it is one physical line,
/// else what `continued` gives (the parser's logical text, continuations removed).
fn logical_text<'t>(text: &'t str, range: TextRange, continued: impl FnOnce() -> String) -> Cow<'t, str> {
    let Some(line) = text.get(usize::from(range.start())..usize::from(range.end())) else {
        return Cow::Owned(continued());
    };
    let body = line.strip_suffix('\n').unwrap_or(line);
    // Several physical lines, or a NUL (httpd ignores the rest of its line), or a continuation
    // that meets the end of the file (httpd drops its backslash): ask the parser.
    let continued_at_end = body.len() < line.len() && body.strip_suffix('\r').unwrap_or(body).ends_with('\\');
    if continued_at_end || memchr::memchr2(b'\n', 0, body.as_bytes()).is_some() {
        return Cow::Owned(continued());
    }
    Cow::Borrowed(apache_syntax::ast::trim_blanks(line))
}

/// A logical line's name (unquoted) and the rest of the line, trimmed.
fn split_name(line: &str) -> (Cow<'_, str>, &str) {
    apache_syntax::first_word(line).map_or((Cow::Borrowed(""), ""), |(name, rest)| (name, rest.trim()))
}

/// `<IfVersion [[!]op] version>` against [`HTTPD_VERSION`] (`mod_version.c`): `=`/`==`,
/// `<`, `<=`, `>`, `>=` compare versions; `~ re` and `[=|==] /re/` match the regex against
/// "2.4.71" (`match_version`: major.minor.patch and the empty add-string of a release).
/// None when the truth is not known here: a regex that PCRE2 refuses (then httpd does not
/// start, and what the block holds is beside the point).
fn if_version(args: &[Cow<'_, str>]) -> Option<bool> {
    let Some((neg, op, ver, regex)) = if_version_words(args) else { return Some(false) };
    let result = if let Some(re) = regex {
        version_regex_matches(re)?
    } else {
        let parse = |s: &str| -> (u32, u32, u32) {
            let mut it = s.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
            (it.next().unwrap_or(0), it.next().unwrap_or(0), it.next().unwrap_or(0))
        };
        // Missing components are 0: `= 2.4` does not match 2.4.71 (CONFIRMED ver02).
        let want = parse(ver);
        let have = HTTPD_VERSION;
        match op {
            "=" | "==" => have == want,
            ">" => have > want,
            ">=" => have >= want,
            "<" => have < want,
            "<=" => have <= want,
            _ => false,
        }
    };
    Some(result != neg)
}

/// An `<IfVersion>` opener's words as mod_version reads them: whether it is negated, the
/// operator, the version word and, for the regex forms (`~ re`, `[=|==] /re/`), the regex.
/// None where the section is read as false without a regex (no words; a `/re` without its
/// closing `/`: "Missing delimiting / of regular expression.").
#[allow(clippy::type_complexity)]
fn if_version_words<'a>(args: &'a [Cow<'_, str>]) -> Option<(bool, &'a str, &'a str, Option<&'a str>)> {
    let (op, ver) = match args {
        [v] => ("=", &**v),
        [op, v, ..] => (&**op, &**v),
        [] => return None,
    };
    let (neg, op) = match op.strip_prefix('!') {
        Some(o) if !o.is_empty() => (true, o),
        _ => (false, op),
    };
    let regex = match op {
        "~" => Some(ver),
        "=" | "==" if ver.starts_with('/') => Some(ver.strip_prefix('/').and_then(|v| v.strip_suffix('/'))?),
        _ => None,
    };
    Some((neg, op, ver, regex))
}

/// Whether the regex of an `<IfVersion>` opener (raw arguments `raw_args`) is one PCRE2 surely refuses:
/// mod_version compiles it as it reads the line, and httpd stops there ("Unable to compile
/// regular expression").
fn if_version_refuses(raw_args: &str) -> bool {
    let args: Vec<Cow<'_, str>> = words(raw_args).collect();
    if args.len() > 2 {
        return false; // "<IfVersion> takes one or two arguments" first
    }
    let regex = if_version_words(&args).and_then(|(_, _, _, re)| re);
    regex.is_some_and(crate::ide::policy::pcre::pcre_refuses)
}

/// Whether httpd's PCRE2 finds `re` in the version string (mod_version compiles it with
/// `ap_pregcomp`); None when it does not compile.
fn version_regex_matches(re: &str) -> Option<bool> {
    let cur = format!("{}.{}.{}", HTTPD_VERSION.0, HTTPD_VERSION.1, HTTPD_VERSION.2);
    crate::ide::access::compile_regex(re, false)?.is_match(cur.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Mem(Vec<(&'static str, &'static str)>);
    impl FileSource for Mem {
        fn read(&self, path: &Path) -> std::io::Result<(Arc<str>, Option<usize>)> {
            self.0
                .iter()
                .find(|(p, _)| Path::new(p) == path)
                .map(|(_, t)| (Arc::from(*t), None))
                .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
        }
        fn disk_paths(&self) -> bool {
            false
        }
    }

    proptest::proptest! {
        /// [`split_name`] reads one word with the lexer; it was a scan of its own, kept here as
        /// the reference: the same name and rest for any line.
        #[test]
        fn split_name_is_the_name_scan(line in "[ \t\"'\\\\a-zé]{0,24}") {
            let b = line.as_bytes();
            let mut start = 0;
            while start < b.len() && apache_syntax::is_space(b[start]) {
                start += 1;
            }
            let name = apache_syntax::words(&line[start..]).next().unwrap_or_default();
            let mut j = start;
            if j < b.len() && (b[j] == b'"' || b[j] == b'\'') {
                let q = b[j];
                j += 1;
                while j < b.len() && b[j] != q {
                    j += if b[j] == b'\\' && j + 1 < b.len() { 2 } else { 1 };
                }
                j = (j + 1).min(b.len());
            } else {
                while j < b.len() && !apache_syntax::is_space(b[j]) {
                    j += 1;
                }
            }
            proptest::prop_assert_eq!(split_name(&line), (name, line[j..].trim()));
        }
    }

    fn names(cfg: &Config) -> Vec<String> {
        cfg.walk().map(|n| format!("{} {}", n.name(), n.args().join(" "))).collect()
    }

    #[test]
    fn conditionals_follow_loaded_modules_and_defines() {
        let fs = Mem(vec![(
            "/etc/httpd/httpd.conf",
            "LoadModule authz_core_module m.so\n<IfModule mod_authz_core.c>\nA 1\n</IfModule>\n<IfModule !mod_authz_core.c>\nB 2\n</IfModule>\n<IfModule mod_authz_core>\nC 3\n</IfModule>\nDefine X \"v w\"\n<IfDefine X>\nD ${X}\n</IfDefine>\n<IfVersion >= 2.4>\nE\n</IfVersion>\n<IfVersion 2.4>\nF\n</IfVersion>\n",
        )]);
        let cfg = load(Path::new("/etc/httpd/httpd.conf"), &fs);
        assert_eq!(names(&cfg), vec!["LoadModule authz_core_module m.so", "A 1", "Define X v w", "D v w", "E "]);
        assert_eq!(cfg.inactive.len(), 3);
    }

    /// Debian's `envvars` beside the main file sets `${APACHE_…}`: a plain value is expanded, a
    /// value only the shell knows is left as written, and neither is said to be undefined.
    #[test]
    fn variables_debians_envvars_sets_are_not_undefined() {
        let fs = Mem(vec![
            (
                "/etc/apache2/apache2.conf",
                "LoadModule authz_core_module m.so\nUser ${APACHE_RUN_USER}\nErrorLog ${APACHE_LOG_DIR}/error.log\nServerAdmin ${NOPE}\n",
            ),
            (
                "/etc/apache2/envvars",
                "if [ x ]; then\n\tSUFFIX=-a\nelse\n\tSUFFIX=\nfi\nexport APACHE_RUN_USER=www-data\nexport APACHE_LOG_DIR=/var/log/apache2$SUFFIX\n",
            ),
        ]);
        let cfg = load(Path::new("/etc/apache2/apache2.conf"), &fs);
        assert_eq!(
            names(&cfg),
            vec![
                "LoadModule authz_core_module m.so",
                "User www-data",
                "ErrorLog ${APACHE_LOG_DIR}/error.log",
                "ServerAdmin ${NOPE}"
            ]
        );
        let said: Vec<&str> = cfg.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].starts_with("${NOPE} is not defined"), "{said:?}");
    }

    /// mod_version's regex forms match the regex against "2.4.71": a false one is skipped like
    /// a false comparison (PCRE2 reads lookahead, back references and `\<` as httpd does); one
    /// PCRE2 refuses is neither read nor skipped.
    #[test]
    fn ifversion_regex_forms_match_the_version_string() {
        let cases = [
            "~ ^2\\.2",
            "~ ^2\\.4",
            "/^2\\.6/",
            "= /^2\\.4\\.71$/",
            "== /4/",
            "!~ ^2\\.2",
            "~ ^2\\.4\\.7$",
            "~ \"^2[.]4\"",
            "~ ^(2)\\.\\1",
            "~ (?=2)",
            "~ ^(2",
            "~ \\<2",
        ];
        let text: String =
            cases.iter().enumerate().map(|(i, c)| format!("<IfVersion {c}>\nL{i} {c}\n</IfVersion>\n")).collect();
        let fs = Mem(vec![("/etc/httpd/httpd.conf", Box::leak(text.into_boxed_str()))]);
        let cfg = load(Path::new("/etc/httpd/httpd.conf"), &fs);
        expect_test::expect![[r#"
            (
                [
                    "L1 ~ ^2\\.4",
                    "L3 = /^2\\.4\\.71$/",
                    "L4 == /4/",
                    "L5 !~ ^2\\.2",
                    "L7 ~ ^2[.]4",
                    "L9 ~ (?=2)",
                ],
                5,
            )
        "#]]
        .assert_debug_eq(&(names(&cfg), cfg.inactive.len()));
    }

    #[test]
    fn include_cycle_is_reported_not_followed() {
        let fs = Mem(vec![("/c/a.conf", "Include /c/b.conf\n"), ("/c/b.conf", "Include /c/a.conf\nX\n")]);
        let cfg = load(Path::new("/c/a.conf"), &fs);
        assert!(cfg.problems.iter().any(|p| p.code == "include-cycle"), "{:?}", cfg.problems);
        assert_eq!(cfg.files.len(), 2);
    }

    #[test]
    fn includes_that_fan_out_stop_at_the_expansion_bound() {
        // f0 includes f1 twice, f1 includes f2 twice, …: 2^40 expansions unbounded.
        let names: Vec<String> = (0..=40).map(|i| format!("/d/f{i}.conf")).collect();
        let texts: Vec<String> = (0..=40)
            .map(|i| {
                if i == 40 {
                    "X\n".to_string()
                } else {
                    format!("Include /d/f{}.conf\nInclude /d/f{}.conf\n", i + 1, i + 1)
                }
            })
            .collect();
        let files: Vec<(&'static str, &'static str)> =
            names.iter().zip(&texts).map(|(n, t)| (&*n.clone().leak(), &*t.clone().leak())).collect();
        let cfg = load(Path::new("/d/f0.conf"), &Mem(files));
        assert_eq!(cfg.files.len(), 41);
        let limits: Vec<_> = cfg.problems.iter().filter(|p| p.code == "include-limit").collect();
        assert_eq!(limits.len(), 1, "{:?}", cfg.problems);
        assert!(limits[0].message.contains("included again and again"), "{}", limits[0].message);
        assert!(cfg.walk().filter(|n| n.is("X")).count() <= MAX_REPEATS + 1);
    }

    /// Everything a load gives but the syntax trees, for comparing two loads.
    fn summary(cfg: &Config) -> String {
        let files: Vec<_> = cfg.files.iter().map(|f| (f.path.display().to_string(), f.parse.errors.clone())).collect();
        let mut defines: Vec<_> = cfg.defines.iter().collect();
        defines.sort();
        format!(
            "{files:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{defines:?}\n{:?}\n{}",
            cfg.nodes, cfg.problems, cfg.inactive, cfg.included_from, cfg.modules, cfg.modules_known
        )
    }

    /// A batch load of `main` in a pool of `threads` threads, and how many files it built
    /// in parallel runs.
    fn batch_load(main: &Path, threads: usize) -> (Config, usize) {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let before = PARALLEL_FILES.with(|c| c.get());
            let cfg = load_for_batch(main, &RealFs, true);
            (cfg, PARALLEL_FILES.with(|c| c.get()) - before)
        })
    }

    /// Writes `files` (path relative to a new directory, text) and loads `main.conf` in
    /// batch with four threads, with one, and with the tree loader: all three must agree.
    /// Returns the parallel load and how many files it built in parallel.
    fn parallel_matches_sequential(files: &[(&str, &str)]) -> (Config, usize) {
        let dir = tempfile::tempdir().unwrap();
        for (p, t) in files {
            let path = dir.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, t.replace("ROOT", &dir.path().display().to_string())).unwrap();
        }
        let main = dir.path().join("main.conf");
        let (par, n) = batch_load(&main, 4);
        let (seq, n1) = batch_load(&main, 1);
        assert_eq!(n1, 0, "one thread never builds in parallel");
        assert_eq!(summary(&par), summary(&seq));
        let tree = load(&main, &RealFs);
        assert_eq!(summary(&par), summary(&tree));
        (par, n)
    }

    /// Files 00..39 of a glob, `special` replacing some of them.
    fn glob_files(special: &[(usize, impl AsRef<str>)]) -> Vec<(String, String)> {
        (0..40)
            .map(|i| {
                let text = special.iter().find(|(j, _)| *j == i).map(|(_, t)| t.as_ref().to_string());
                (format!("conf.d/{i:02}.conf"), text.unwrap_or_else(|| format!("<Directory /d{i}>\nRequire ip 10.0.0.{i} ${{X}}\n</Directory>\n<IfDefine X>\nInDef {i}\n</IfDefine>\n<IfModule headers_module>\nHeader set A {i}\n</IfModule>\n")))
            })
            .collect()
    }

    fn run(main: &str, files: Vec<(String, String)>) -> (Config, usize) {
        let mut all: Vec<(&str, &str)> = vec![("main.conf", main)];
        all.extend(files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
        parallel_matches_sequential(&all)
    }

    const MAIN: &str = "LoadModule authz_core_module m.so\nInclude ROOT/conf.d/*.conf\nAfter ${X}\n";

    /// Equal lines keep one text, in files built one after the other and in parallel runs
    /// (whose worker loaders come and go: they take the load's texts from its pool, so a line
    /// is held at most once per loader alive at a time).
    #[test]
    fn equal_lines_share_one_text() {
        let files: Vec<(usize, String)> =
            (0..40).map(|i| (i, format!("<Directory /d{i}>\nOptions None\n</Directory>\nServerName s{i}\n"))).collect();
        let (cfg, n) = run(MAIN, glob_files(&files));
        assert!(n >= 30, "{n} files built in parallel");
        let copies = |name: &str| {
            let nodes: Vec<&Node> = cfg.walk().filter(|n| n.is(name)).collect();
            assert_eq!(nodes.len(), 40, "{name}");
            nodes.iter().map(|n| n.text.block().as_ptr()).collect::<std::collections::HashSet<_>>().len()
        };
        assert!(copies("Options") <= rayon::current_num_threads() + 1, "{}", copies("Options"));
        assert_eq!(copies("ServerName"), 40, "different lines keep their own texts");
    }

    #[test]
    fn a_define_in_one_file_of_a_glob_changes_how_the_later_ones_are_read() {
        let (cfg, n) = run(MAIN, glob_files(&[(17, "Define X seventeen\n")]));
        assert!(n >= 30, "{n} files built in parallel");
        let in_def = cfg.walk().filter(|n| n.is("InDef")).count();
        assert_eq!(in_def, 22, "files 18..39 see X");
        assert!(cfg.walk().any(|n| n.is("Require") && n.args().last().is_some_and(|a| a == "seventeen")));
        let undefined = cfg.problems.iter().filter(|p| p.code == "undefined-variable").count();
        assert_eq!(undefined, 17, "${{X}} in files 00..16 only: {:?}", cfg.problems);
        let (cfg, _) = run(MAIN, glob_files(&[(3, "Define X three\n"), (20, "UnDefine X\n")]));
        assert_eq!(cfg.walk().filter(|n| n.is("InDef")).count(), 16, "files 4..19 see X");
    }

    #[test]
    fn a_load_module_in_one_file_of_a_glob_enables_if_module_in_the_next() {
        let (cfg, n) = run(MAIN, glob_files(&[(9, "LoadModule headers_module mod_headers.so\n")]));
        assert!(n >= 30, "{n} files built in parallel");
        assert_eq!(cfg.walk().filter(|n| n.is("Header")).count(), 30, "files 10..39");
        // A name only `${VAR}` makes a LoadModule, and a quoted one, are read in order too.
        let (cfg, _) = run(
            "Define LM LoadModule\nInclude ROOT/conf.d/*.conf\n",
            glob_files(&[(5, "${LM} headers_module m.so\n"), (30, "\"UnDefine\" LM\n")]),
        );
        assert_eq!(cfg.walk().filter(|n| n.is("Header")).count(), 33, "files 6..39 but 30");
    }

    #[test]
    fn nested_includes_cycles_and_server_root_in_a_glob_are_read_in_order() {
        let (cfg, _) = run(
            MAIN,
            glob_files(&[
                (4, "Include ROOT/conf.d/*.conf\n"),
                (8, "Include ROOT/extra/one.conf\n"),
                (12, "ServerRoot ROOT/extra\n"),
                (13, "<IfFile one.conf>\nSeesExtra\n</IfFile>\n"),
                (25, "Include ROOT/main.conf\n"),
            ])
            .into_iter()
            .chain([("extra/one.conf".to_string(), "Define X one\nOne\n".to_string())])
            .collect(),
        );
        assert!(cfg.problems.iter().filter(|p| p.code == "include-cycle").count() >= 2, "{:?}", cfg.problems);
        assert!(cfg.walk().any(|n| n.is("SeesExtra")));
        assert!(cfg.walk().any(|n| n.is("One")));
    }

    #[test]
    fn runs_between_defines_are_built_in_parallel_each_from_what_was_read_with_the_file() {
        // Every third file defines the next value of X: the glob's chunk is built as many short
        // parallel runs, each asking the facts gathered when the chunk was read.
        let special: Vec<(usize, String)> = (2..40).step_by(3).map(|i| (i, format!("Define X v{i}\n"))).collect();
        let (cfg, n) = run(MAIN, glob_files(&special));
        // Runs of two files between Defines, and file 39 alone (a run of one is read in order).
        assert_eq!(n, 40 - special.len() - 1, "every file but the Defines and the last is in a parallel run");
        // Each Require sees the value of the Define just before its file (none before file 2).
        let seen: Vec<String> =
            cfg.walk().filter(|n| n.is("Require")).map(|n| n.args().last().unwrap_or_default().to_string()).collect();
        let expected: Vec<String> = (0..40)
            .filter(|i| i % 3 != 2)
            .map(|i| if i < 2 { "${X}".to_string() } else { format!("v{}", i - (i + 1) % 3) })
            .collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn a_symlink_to_a_file_being_read_is_a_cycle_in_a_parallel_run_too() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("conf.d")).unwrap();
        std::fs::write(d.join("main.conf"), format!("Include {}/conf.d/*.conf\n", d.display())).unwrap();
        std::fs::write(d.join("inner.conf"), format!("Include {}/conf.d/*.conf\nX\n", d.display())).unwrap();
        for i in 0..10 {
            std::fs::write(d.join(format!("conf.d/{i:02}.conf")), format!("Y {i}\n")).unwrap();
        }
        std::fs::remove_file(d.join("conf.d/05.conf")).unwrap();
        std::os::unix::fs::symlink(d.join("main.conf"), d.join("conf.d/05.conf")).unwrap();
        let main = d.join("main.conf");
        let (par, n) = batch_load(&main, 4);
        let (seq, _) = batch_load(&main, 1);
        assert!(n >= 5, "{n}");
        assert_eq!(summary(&par), summary(&seq));
        assert_eq!(par.problems.iter().filter(|p| p.code == "include-cycle").count(), 1, "{:?}", par.problems);
    }
}

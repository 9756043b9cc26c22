//! Catalogue of the directives and modules of httpd 2.4 and its bundled
//! modules, as data.
//!
//! The facts (names, modules, source files, syntax lines, contexts, override
//! classes, defaults, status) come from httpd's manual sources
//! (`docs/manual/mod/*.xml`, branch 2.4.x) and the argument kinds and
//! `req_override` masks from its command tables (`AP_INIT_*` in the C
//! sources). `scripts/gen_catalogue.py` extracts them into `directives.tsv`
//! and `modules.tsv`; the one-line descriptions are our own, kept in
//! `descriptions.tsv` and joined in by the script.
//!
//! Besides every directive the manual documents, the catalogue lists a few
//! names httpd 2.4 still knows: deprecated aliases (`MaxClients`,
//! `MaxRequestsPerChild`), names it rejects with an explanation (`Port`,
//! `SSLLog`, `FancyIndexing`, …, status [`Status::Removed`]), the
//! authoritative-switches removed in 2.4 (`AuthzUserAuthoritative`, …, also
//! [`Status::Removed`]), and `LuaHookPreTranslateName`, which the manual
//! spells `LuaHookPreTranslate`.
//!
//! Directives documented in `mpm_common` (and `HeartbeatStorage`, defined by
//! two modules) list every module that provides them in [`Directive::module`],
//! separated by spaces; see [`Directive::modules`].
//!
//! Debian's build is the ground truth where it differs from the sources: the script reads the
//! command tables compiled into `/usr/sbin/apache2` and its shared modules, whose
//! `req_override` masks win over the branch's (mod_remoteip's `RemoteIP*ProxyList`), and which
//! say which documented names this httpd defines at all ([`Directive::in_build`]).
//!
//! No IO: both tables are compiled in with `include_str!` and indexed lazily.

pub mod context;
pub(crate) mod options;
pub(crate) mod retired;
pub(crate) mod values;

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

const DIRECTIVES_TSV: &str = include_str!("directives.tsv");
const MODULES_TSV: &str = include_str!("modules.tsv");

/// Where a directive may appear (httpd's "Context" line), as a small bit set.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Contexts(u8);

impl Contexts {
    /// The main server configuration, outside any section.
    pub const SERVER: Contexts = Contexts(1);
    /// Inside `<VirtualHost>`.
    pub const VHOST: Contexts = Contexts(2);
    /// Inside `<Directory>`, `<Location>`, `<Files>`, `<If>` and their kin.
    pub const DIRECTORY: Contexts = Contexts(4);
    /// In `.htaccess` files (subject to `AllowOverride`).
    pub const HTACCESS: Contexts = Contexts(8);
    /// Inside `<Proxy>` / `<ProxyMatch>` ("proxy section" in the manual).
    pub const PROXY: Contexts = Contexts(16);

    const NAMES: [(Contexts, &'static str); 5] = [
        (Contexts::SERVER, "server config"),
        (Contexts::VHOST, "virtual host"),
        (Contexts::DIRECTORY, "directory"),
        (Contexts::HTACCESS, ".htaccess"),
        (Contexts::PROXY, "proxy section"),
    ];

    pub const fn empty() -> Contexts {
        Contexts(0)
    }
    pub const fn bits(self) -> u8 {
        self.0
    }
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Whether every context in `other` is in `self`.
    pub const fn contains(self, other: Contexts) -> bool {
        self.0 & other.0 == other.0
    }
    /// Whether `self` and `other` share a context.
    pub const fn intersects(self, other: Contexts) -> bool {
        self.0 & other.0 != 0
    }
    pub const fn union(self, other: Contexts) -> Contexts {
        Contexts(self.0 | other.0)
    }
    pub const fn server(self) -> bool {
        self.contains(Contexts::SERVER)
    }
    pub const fn vhost(self) -> bool {
        self.contains(Contexts::VHOST)
    }
    pub const fn directory(self) -> bool {
        self.contains(Contexts::DIRECTORY)
    }
    pub const fn htaccess(self) -> bool {
        self.contains(Contexts::HTACCESS)
    }
    pub const fn proxy(self) -> bool {
        self.contains(Contexts::PROXY)
    }
    /// The manual's names of the contexts in the set, in the manual's order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Contexts::NAMES.into_iter().filter(move |(c, _)| self.contains(*c)).map(|(_, n)| n)
    }
    /// Parses one of the manual's context names (`server config`, …).
    pub fn from_name(name: &str) -> Option<Contexts> {
        Contexts::NAMES.iter().find(|(_, n)| *n == name.trim()).map(|(c, _)| *c)
    }
    /// Parses a comma-separated list of context names; unknown names are ignored.
    fn parse_list(s: &str) -> Contexts {
        s.split(',').filter_map(Contexts::from_name).fold(Contexts::empty(), Contexts::union)
    }
}

impl std::ops::BitOr for Contexts {
    type Output = Contexts;
    fn bitor(self, rhs: Contexts) -> Contexts {
        self.union(rhs)
    }
}

impl std::ops::BitOrAssign for Contexts {
    fn bitor_assign(&mut self, rhs: Contexts) {
        *self = self.union(rhs);
    }
}

impl fmt::Debug for Contexts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

impl fmt::Display for Contexts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for n in self.names() {
            if !first {
                f.write_str(", ")?;
            }
            f.write_str(n)?;
            first = false;
        }
        Ok(())
    }
}

/// The status the manual gives a module (and so its directives), or
/// [`Status::Removed`] for directives httpd 2.4 no longer accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Core,
    Mpm,
    Base,
    Extension,
    Experimental,
    /// Gone from 2.4: either unknown to httpd, or rejected with an explanation.
    Removed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Core => "Core",
            Status::Mpm => "MPM",
            Status::Base => "Base",
            Status::Extension => "Extension",
            Status::Experimental => "Experimental",
            Status::Removed => "removed",
        }
    }
    fn parse(s: &str) -> Option<Status> {
        Some(match s {
            "Core" => Status::Core,
            "MPM" => Status::Mpm,
            "Base" => Status::Base,
            "Extension" => Status::Extension,
            "Experimental" => Status::Experimental,
            "removed" => Status::Removed,
            _ => return None,
        })
    }
}

/// How httpd splits a directive's arguments (`cmd_how` in `http_config.h`),
/// from the directive's `AP_INIT_*` command-table entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// The rest of the line, unsplit; the directive checks it itself.
    RawArgs,
    /// Any number of words, handed over as an argv array.
    TakeArgv,
    NoArgs,
    Take1,
    Take2,
    /// One or two words.
    Take12,
    Take3,
    /// Two or three words.
    Take23,
    /// One, two or three words.
    Take123,
    /// One or three words.
    Take13,
    /// One or more words, each handled alone.
    Iterate,
    /// A first word, then one or more words each handled with it.
    Iterate2,
    /// Exactly `On` or `Off`.
    Flag,
    /// No command-table entry was found (removed directives, manual-only names).
    Unknown,
}

impl ArgKind {
    /// httpd's own name of the kind (`TAKE1`, `RAW_ARGS`, …); `""` for `Unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            ArgKind::RawArgs => "RAW_ARGS",
            ArgKind::TakeArgv => "TAKE_ARGV",
            ArgKind::NoArgs => "NO_ARGS",
            ArgKind::Take1 => "TAKE1",
            ArgKind::Take2 => "TAKE2",
            ArgKind::Take12 => "TAKE12",
            ArgKind::Take3 => "TAKE3",
            ArgKind::Take23 => "TAKE23",
            ArgKind::Take123 => "TAKE123",
            ArgKind::Take13 => "TAKE13",
            ArgKind::Iterate => "ITERATE",
            ArgKind::Iterate2 => "ITERATE2",
            ArgKind::Flag => "FLAG",
            ArgKind::Unknown => "",
        }
    }
    /// Parses httpd's name of the kind; anything else is `Unknown`.
    pub fn parse(s: &str) -> ArgKind {
        match s {
            "RAW_ARGS" => ArgKind::RawArgs,
            "TAKE_ARGV" => ArgKind::TakeArgv,
            "NO_ARGS" => ArgKind::NoArgs,
            "TAKE1" => ArgKind::Take1,
            "TAKE2" => ArgKind::Take2,
            "TAKE12" => ArgKind::Take12,
            "TAKE3" => ArgKind::Take3,
            "TAKE23" => ArgKind::Take23,
            "TAKE123" => ArgKind::Take123,
            "TAKE13" => ArgKind::Take13,
            "ITERATE" => ArgKind::Iterate,
            "ITERATE2" => ArgKind::Iterate2,
            "FLAG" => ArgKind::Flag,
            _ => ArgKind::Unknown,
        }
    }
}

/// Checks an argument count the way httpd's `invoke_cmd` (`server/config.c`)
/// does, and returns httpd's complaint, *without* the directive name in front:
/// `"takes one argument"`, so that `format!("{name} {msg}")` reads as httpd's
/// message. httpd appends `", "` and the command table's usage string to most
/// of these; we leave that part out (it is httpd's prose, not a fact).
///
/// `None` when the count is acceptable or httpd does not check it (`RAW_ARGS`,
/// `TAKE_ARGV`, unknown kinds). For `FLAG` only the count is checked here; see
/// [`check_args`] for the value.
pub fn check_arg_count(kind: ArgKind, n: usize) -> Option<String> {
    let msg = match kind {
        // (`NO_ARGS` too: `apache2 -t` of httpd 2.4.71 accepts words after `SSLRequireSSL` and
        // `AuthnCacheEnable`, and ignores them; `refusals_vs_httpd` holds this.)
        ArgKind::RawArgs | ArgKind::TakeArgv | ArgKind::Unknown | ArgKind::NoArgs => return None,
        ArgKind::Take1 if n != 1 => "takes one argument",
        ArgKind::Take2 if n != 2 => "takes two arguments",
        ArgKind::Take12 if !(1..=2).contains(&n) => "takes 1-2 arguments",
        ArgKind::Take3 if n != 3 => "takes three arguments",
        ArgKind::Take23 if !(2..=3).contains(&n) => "takes two or three arguments",
        ArgKind::Take123 if !(1..=3).contains(&n) => "takes one, two or three arguments",
        ArgKind::Take13 if n != 1 && n != 3 => "takes one or three arguments",
        ArgKind::Iterate if n < 1 => "requires at least one argument",
        ArgKind::Iterate2 if n < 2 => "requires at least two arguments",
        // (`invoke_cmd` reads one word and ignores any after it.)
        ArgKind::Flag if n == 0 => "must be On or Off",
        _ => return None,
    };
    Some(msg.to_string())
}

/// [`check_arg_count`] on the words themselves, as `invoke_cmd` reads them: an empty word
/// (`""`) is no argument where a word must be (`KeepAliveTimeout ""` "takes one argument", as
/// does `ErrorDocument 404 ""`), while an optional one may be empty (`LogFormat x ""`), and an
/// `ITERATE` list ends at one (after the first word).
pub fn check_arg_words<'w>(kind: ArgKind, words: impl IntoIterator<Item = &'w str>) -> Option<String> {
    // The count, and which of the first three words are empty.
    let mut n = 0;
    let mut empty = [false; 3];
    for w in words {
        if n < 3 {
            empty[n] = w.is_empty();
        }
        n += 1;
    }
    let missing = |i: usize| i >= n || empty[i];
    // A word missing (or empty) where one must be, or words left after the last one read.
    let refused = match kind {
        ArgKind::Take1 => missing(0) || n > 1,
        ArgKind::Take2 => missing(0) || missing(1) || n > 2,
        ArgKind::Take12 => missing(0) || n > 2,
        ArgKind::Take3 => missing(0) || missing(1) || missing(2) || n > 3,
        ArgKind::Take23 => missing(0) || missing(1) || n > 3,
        ArgKind::Take123 => missing(0) || n > 3,
        // (A second word that is not empty needs a third.)
        ArgKind::Take13 => missing(0) || (n == 2 && !empty[1]) || n > 3,
        ArgKind::Iterate => missing(0),
        ArgKind::Iterate2 => missing(0) || n < 2,
        _ => return check_arg_count(kind, n),
    };
    // (The message is the kind's: what `check_arg_count` says of no word.)
    refused.then(|| check_arg_count(kind, 0)).flatten()
}

/// Like [`check_arg_count`], and for `FLAG` also rejects a first argument that is not `On` or
/// `Off` (case-insensitively), as httpd does; words after it are never read.
pub fn check_args<S: AsRef<str>>(kind: ArgKind, args: &[S]) -> Option<String> {
    if let (ArgKind::Flag, [first, ..]) = (kind, args) {
        let v = first.as_ref();
        if !v.eq_ignore_ascii_case("on") && !v.eq_ignore_ascii_case("off") {
            return Some("must be On or Off".to_string());
        }
        return None;
    }
    check_arg_count(kind, args.len())
}

/// One directive of httpd 2.4.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// Canonical spelling, without `<` for sections (`Directory`, `ServerName`).
    pub name: &'static str,
    /// Identifier of the providing module (`authz_core_module`; `core` for the
    /// core). Several identifiers separated by spaces when more than one module
    /// provides the directive (the MPM directives of `mpm_common`).
    pub module: &'static str,
    /// Source file(s) of the providing module(s), space-separated like `module`.
    pub source_file: &'static str,
    /// The manual's syntax line, whitespace collapsed.
    pub syntax: &'static str,
    /// Where the manual allows the directive.
    pub contexts: Contexts,
    /// The manual's override class (`AuthConfig`, `FileInfo`, `All`, …;
    /// comma-separated if several; empty when not allowed in .htaccess).
    pub override_class: &'static str,
    /// The manual's default, often written as a full directive line; may be empty.
    pub default: &'static str,
    pub status: Status,
    /// The manual (or httpd itself) marks the directive deprecated or obsolete.
    pub deprecated: bool,
    pub args: ArgKind,
    /// A `<Section>` container.
    pub is_section: bool,
    /// Reference documentation.
    pub url: &'static str,
    /// One line of our own words.
    pub description: &'static str,
    /// The `req_override` mask of the command table (`RSRC_CONF|ACCESS_CONF`,
    /// `OR_AUTHCFG`, …), normalised to `|`-joined flag names; empty if unknown.
    /// Without an `OR_*` flag httpd refuses the directive in .htaccess whatever
    /// the manual says; many directives narrow their context further at run time.
    pub req_override: &'static str,
    /// The `ap_check_cmd_context` flags the directive's handler checks
    /// (`NOT_IN_VIRTUALHOST|NOT_IN_LIMIT|…`), normalised to `|`-joined names;
    /// empty when it checks none (or only for some arguments). See [`context`].
    pub not_in: &'static str,
    /// The spelling httpd's command table registers, when it differs from
    /// [`Directive::name`] (`order`, `Timeout`): httpd's messages use it.
    pub c_name: &'static str,
    /// Whether Debian's httpd build defines the directive (its name is in the command table of
    /// `/usr/sbin/apache2` or of a module it ships). `false` for directives of modules Debian
    /// does not build (mod_isapi, mod_privileges…), for names the manual documents that no
    /// command table has (`MDCertificateMonitor`, `LuaHookPreTranslate`) and for the
    /// platform-only ones of the core (`UNCList`): httpd answers "Invalid command" to them.
    pub in_build: bool,
    /// [`Directive::req_override`] and [`Directive::not_in`] as bit masks (parsed once:
    /// the context check asks for them at every node).
    pub(crate) req_bits: u32,
    pub(crate) not_in_bits: u32,
}

impl Directive {
    /// Identifiers of the module(s) providing the directive.
    pub fn modules(&self) -> impl Iterator<Item = &'static str> {
        self.module.split_ascii_whitespace()
    }
    /// Source files of the module(s) providing the directive.
    pub fn source_files(&self) -> impl Iterator<Item = &'static str> {
        self.source_file.split_ascii_whitespace()
    }
    /// httpd's full message for a wrong argument count (`"ServerName takes one
    /// argument"`), see [`check_arg_count`].
    pub fn arg_count_error(&self, n: usize) -> Option<String> {
        check_arg_count(self.args, n).map(|m| format!("{} {m}", self.name))
    }
    /// The name httpd prints for the directive: its registered spelling,
    /// with `<` in front of a section (`<Directory`, `order`).
    pub fn httpd_name(&self) -> String {
        let name = if self.c_name.is_empty() { self.name } else { self.c_name };
        if self.is_section {
            format!("<{name}")
        } else {
            name.to_string()
        }
    }
    /// Whether httpd's command table permits the directive in .htaccess files
    /// (it has an `OR_*` bit); `None` when the mask is unknown.
    pub fn htaccess_allowed_by_code(&self) -> Option<bool> {
        if self.req_override.is_empty() {
            return None;
        }
        Some(self.req_override.split('|').any(|f| f.starts_with("OR_")))
    }
}

/// One module of httpd 2.4 (documented in the manual, or shipped in httpd's
/// tree without a manual page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// The identifier `LoadModule` and `<IfModule>` use (`authz_core_module`);
    /// the core is listed as `core` (httpd itself calls it `core_module`).
    pub identifier: &'static str,
    /// The source file name `<IfModule mod_x.c>` uses.
    pub source_file: &'static str,
    pub status: Status,
    /// Compiled into Debian's `apache2` binary (`apache2 -l`).
    pub builtin_debian: bool,
    /// Shared object Debian ships for it in `/usr/lib/apache2/modules/`, if any.
    pub debian_so: Option<&'static str>,
    /// One line of our own words.
    pub description: &'static str,
    /// The module's manual page; empty for undocumented modules.
    pub url: &'static str,
}

struct Catalogue {
    directives: Vec<Directive>,
    /// Looked up once per node by several checks: a fast hash for short keys.
    by_name: rustc_hash::FxHashMap<String, usize>,
    modules: Vec<Module>,
    by_identifier: HashMap<&'static str, usize>,
    by_source: HashMap<&'static str, usize>,
}

fn data_lines(tsv: &'static str) -> impl Iterator<Item = (usize, Vec<&'static str>)> {
    tsv.lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i + 1, l.split('\t').collect()))
}

fn parse_directives() -> Vec<Directive> {
    data_lines(DIRECTIVES_TSV)
        .map(|(line, f)| {
            assert!(f.len() >= 12, "directives.tsv:{line}: expected at least 12 columns, got {}", f.len());
            let (status_word, deprecated) = match f[7].split_once(' ') {
                Some((s, rest)) => (s, rest.split(' ').any(|w| w == "deprecated")),
                None => (f[7], false),
            };
            let status = Status::parse(status_word)
                .unwrap_or_else(|| panic!("directives.tsv:{line}: unknown status {:?}", f[7]));
            Directive {
                name: f[0],
                module: f[1],
                source_file: f[2],
                syntax: f[3],
                contexts: Contexts::parse_list(f[4]),
                override_class: f[5],
                default: f[6],
                status,
                deprecated,
                args: ArgKind::parse(f[8]),
                is_section: f[9] == "yes",
                url: f[10],
                description: f[11],
                req_override: f.get(12).copied().unwrap_or(""),
                not_in: f.get(13).copied().unwrap_or(""),
                c_name: f.get(14).copied().unwrap_or(""),
                in_build: f.get(15).copied() != Some("no"),
                req_bits: context::flag_bits(f.get(12).copied().unwrap_or("")),
                not_in_bits: context::flag_bits(f.get(13).copied().unwrap_or("")),
            }
        })
        .collect()
}

fn parse_modules() -> Vec<Module> {
    data_lines(MODULES_TSV)
        .map(|(line, f)| {
            assert!(f.len() >= 6, "modules.tsv:{line}: expected at least 6 columns, got {}", f.len());
            Module {
                identifier: f[0],
                source_file: f[1],
                status: Status::parse(f[2]).unwrap_or_else(|| panic!("modules.tsv:{line}: unknown status {:?}", f[2])),
                builtin_debian: f[3] == "yes",
                debian_so: Some(f[4]).filter(|s| !s.is_empty()),
                description: f[5],
                url: f.get(6).copied().unwrap_or(""),
            }
        })
        .collect()
}

fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let directives = parse_directives();
        let by_name = directives.iter().enumerate().map(|(i, d)| (d.name.to_ascii_lowercase(), i)).collect();
        let modules = parse_modules();
        let by_identifier = modules.iter().enumerate().map(|(i, m)| (m.identifier, i)).collect();
        let by_source = modules.iter().enumerate().map(|(i, m)| (m.source_file, i)).collect();
        Catalogue { directives, by_name, modules, by_identifier, by_source }
    })
}

/// The directive called `name` (case-insensitively, as httpd matches
/// directive names). Give section names without `<`.
pub fn directive(name: &str) -> Option<&'static Directive> {
    directive_id(name).map(DirectiveId::get)
}

/// A directive's place in the catalogue: what [`directive`] finds for a name, kept
/// in two bytes (configuration nodes look their name up once, when they are made).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DirectiveId(u16);

impl DirectiveId {
    pub fn get(self) -> &'static Directive {
        &catalogue().directives[usize::from(self.0)]
    }
    /// The place itself, for tables indexed by directive.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// The catalogue's place of the directive `name` (any case).
pub fn directive_id(name: &str) -> Option<DirectiveId> {
    // A configuration spells few names, each thousands of times: they are remembered per
    // thread as written, which spares lowercasing and hashing the lowercase copy.
    thread_local! {
        static SEEN: std::cell::RefCell<rustc_hash::FxHashMap<Box<str>, Option<DirectiveId>>> = Default::default();
    }
    SEEN.with(|seen| {
        if let Some(&id) = seen.borrow().get(name) {
            return id;
        }
        let id = directive_id_uncached(name);
        let mut seen = seen.borrow_mut();
        if seen.len() >= 4096 {
            seen.clear(); // a file of made-up names must not grow it without end
        }
        seen.insert(name.into(), id);
        id
    })
}

fn directive_id_uncached(name: &str) -> Option<DirectiveId> {
    let cat = catalogue();
    let i = if name.bytes().any(|b| b.is_ascii_uppercase()) {
        // Lowercased on the stack: this runs for every node of every check.
        let mut buf = [0u8; 64];
        match buf.get_mut(..name.len()) {
            Some(b) => {
                b.copy_from_slice(name.as_bytes());
                b.make_ascii_lowercase();
                std::str::from_utf8(b).ok().and_then(|l| cat.by_name.get(l))
            }
            None => cat.by_name.get(&name.to_ascii_lowercase()),
        }
    } else {
        cat.by_name.get(name)
    };
    i.and_then(|&i| u16::try_from(i).ok()).map(DirectiveId)
}

/// Every directive, sorted by name (case-insensitively).
pub fn directives() -> &'static [Directive] {
    &catalogue().directives
}

/// The module with this identifier, matched exactly as httpd does
/// (`authz_core_module`). The core answers to both `core` and `core_module`.
pub fn module_by_identifier(identifier: &str) -> Option<&'static Module> {
    let cat = catalogue();
    let id = if identifier == "core_module" { "core" } else { identifier };
    cat.by_identifier.get(id).map(|&i| &cat.modules[i])
}

/// The module built from this source file, matched exactly as httpd does
/// (`mod_authz_core.c`, `core.c`, `event.c`, `http_core.c`).
pub fn module_by_source(source_file: &str) -> Option<&'static Module> {
    let cat = catalogue();
    cat.by_source.get(source_file).map(|&i| &cat.modules[i])
}

/// Every module: the core first, then by identifier.
pub fn modules() -> &'static [Module] {
    &catalogue().modules
}

/// The modules compiled into Debian's `apache2` binary.
pub fn builtin_modules() -> &'static [&'static Module] {
    static BUILTIN: OnceLock<Vec<&'static Module>> = OnceLock::new();
    BUILTIN.get_or_init(|| modules().iter().filter(|m| m.builtin_debian).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn catalogue_parses_and_is_large() {
        assert!(directives().len() > 500, "{} directives", directives().len());
        assert!(modules().len() > 100, "{} modules", modules().len());
        for d in directives() {
            assert!(!d.name.is_empty());
            assert!(!d.module.is_empty(), "{}", d.name);
            assert!(!d.description.is_empty(), "{} has no description", d.name);
            assert!(d.description.len() <= 100, "{}: description too long", d.name);
            assert!(!d.syntax.is_empty(), "{} has no syntax", d.name);
            assert!(!d.contexts.is_empty(), "{} has no context", d.name);
        }
        for m in modules() {
            assert!(!m.description.is_empty(), "{} has no description", m.identifier);
        }
    }

    #[test]
    fn names_are_unique_case_insensitively() {
        let mut seen = HashSet::new();
        for d in directives() {
            assert!(seen.insert(d.name.to_ascii_lowercase()), "duplicate {}", d.name);
        }
        let mut ids = HashSet::new();
        let mut sources = HashSet::new();
        for m in modules() {
            assert!(ids.insert(m.identifier), "duplicate module {}", m.identifier);
            assert!(sources.insert(m.source_file), "duplicate source {}", m.source_file);
        }
    }

    #[test]
    fn every_module_of_a_directive_is_known() {
        for d in directives() {
            for m in d.modules() {
                if d.status != Status::Removed {
                    assert!(module_by_identifier(m).is_some(), "{}: unknown module {m}", d.name);
                }
            }
            assert_eq!(d.modules().count(), d.source_files().count(), "{}", d.name);
        }
    }

    #[test]
    fn require() {
        let d = directive("Require").unwrap();
        assert_eq!(d.module, "authz_core_module");
        assert_eq!(d.source_file, "mod_authz_core.c");
        assert_eq!(d.args, ArgKind::RawArgs);
        assert_eq!(d.contexts, Contexts::DIRECTORY | Contexts::HTACCESS);
        assert_eq!(d.override_class, "AuthConfig");
        assert_eq!(d.status, Status::Base);
        assert!(!d.is_section);
        assert_eq!(d.url, "https://httpd.apache.org/docs/2.4/mod/mod_authz_core.html#require");
        assert!(std::ptr::eq(d, directive("rEQUIRE").unwrap()));
    }

    #[test]
    fn order_is_access_compat_and_deprecated() {
        let d = directive("order").unwrap();
        assert_eq!(d.name, "Order");
        assert_eq!(d.module, "access_compat_module");
        assert!(d.deprecated);
        assert_eq!(d.override_class, "Limit");
    }

    #[test]
    fn document_root_is_not_allowed_in_directories() {
        let d = directive("DocumentRoot").unwrap();
        assert!(!d.contexts.directory());
        assert!(!d.contexts.htaccess());
        assert!(d.contexts.server() && d.contexts.vhost());
        assert_eq!(d.module, "core");
        assert_eq!(d.args, ArgKind::Take1);
        assert_eq!(d.htaccess_allowed_by_code(), Some(false));
    }

    #[test]
    fn removed_directives() {
        for name in [
            "AuthzLDAPAuthoritative",
            "AuthzDBDAuthoritative",
            "AuthzDBMAuthoritative",
            "AuthzGroupFileAuthoritative",
            "AuthzUserAuthoritative",
            "AuthzOwnerAuthoritative",
            "AuthzDefaultAuthoritative",
            "AuthDefaultAuthoritative",
            "AuthDBMAuthoritative",
        ] {
            let d = directive(name).unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(d.status, Status::Removed, "{name}");
        }
        assert_eq!(directive("AuthzUserAuthoritative").unwrap().module, "authz_user_module");
        // Still in 2.4, not removed.
        assert_eq!(directive("AuthBasicAuthoritative").unwrap().status, Status::Base);
    }

    #[test]
    fn sections() {
        for name in [
            "Directory",
            "IfModule",
            "RequireAll",
            "Limit",
            "VirtualHost",
            "If",
            "ElseIf",
            "Else",
            "Macro",
            "Proxy",
            "MDomainSet",
        ] {
            let d = directive(name).unwrap_or_else(|| panic!("{name} missing"));
            assert!(d.is_section, "{name}");
        }
        assert!(directive("<Directory").is_none(), "names are given without '<'");
        assert_eq!(directive("directory").unwrap().url, "https://httpd.apache.org/docs/2.4/mod/core.html#directory");
        assert!(!directive("ServerName").unwrap().is_section);
    }

    #[test]
    fn mpm_directives_list_their_mpms() {
        let d = directive("MaxRequestWorkers").unwrap();
        assert!(d.modules().any(|m| m == "mpm_event_module"));
        assert!(d.modules().any(|m| m == "mpm_prefork_module"));
        assert_eq!(d.status, Status::Mpm);
        assert!(d.url.contains("/mpm_common.html#"));
        assert_eq!(directive("MinSpareServers").unwrap().module, "mpm_prefork_module");
        assert!(directive("MaxClients").unwrap().deprecated);
    }

    #[test]
    fn every_url_is_well_formed() {
        for d in directives() {
            let rest = d
                .url
                .strip_prefix("https://httpd.apache.org/docs/2.4/")
                .unwrap_or_else(|| panic!("{}: {}", d.name, d.url));
            let (page, anchor) = rest.split_once(".html#").unwrap_or_else(|| panic!("{}: {}", d.name, d.url));
            assert!(
                !page.is_empty()
                    && page.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_/-".contains(&b)),
                "{}",
                d.url
            );
            assert!(
                !anchor.is_empty()
                    && anchor.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-".contains(&b)),
                "{}",
                d.url
            );
        }
        for m in modules() {
            if !m.url.is_empty() {
                assert!(
                    m.url.starts_with("https://httpd.apache.org/docs/2.4/mod/") && m.url.ends_with(".html"),
                    "{}",
                    m.url
                );
            }
        }
        // The anchor is the directive's name in lower case, where the manual has it.
        for d in directives().iter().filter(|d| d.status != Status::Removed) {
            let anchor = d.url.rsplit('#').next().unwrap();
            if anchor != d.name.to_ascii_lowercase() {
                assert!(
                    ["MaxClients", "MaxRequestsPerChild", "LuaHookPreTranslateName"].contains(&d.name),
                    "{}",
                    d.name
                );
            }
        }
    }

    #[test]
    fn arg_kinds_from_command_tables() {
        assert_eq!(directive("ServerName").unwrap().args, ArgKind::Take1);
        assert_eq!(directive("KeepAlive").unwrap().args, ArgKind::Flag);
        assert_eq!(directive("KeepAliveTimeout").unwrap().args, ArgKind::Take1);
        assert_eq!(directive("Options").unwrap().args, ArgKind::RawArgs);
        assert_eq!(directive("RewriteEngine").unwrap().args, ArgKind::Flag);
        assert_eq!(directive("SSLCipherSuite").unwrap().args, ArgKind::Take12);
        assert_eq!(directive("Listen").unwrap().args, ArgKind::TakeArgv);
        assert_eq!(directive("AddType").unwrap().args, ArgKind::Iterate2);
        assert_eq!(directive("SSLRequireSSL").unwrap().args, ArgKind::NoArgs);
        assert_eq!(directive("MDomain").unwrap().args, ArgKind::TakeArgv);
        let with_kind = directives().iter().filter(|d| d.args != ArgKind::Unknown).count();
        assert!(directives().len() - with_kind <= 3, "{with_kind} of {} have a kind", directives().len());
    }

    #[test]
    fn arg_count_messages() {
        assert_eq!(check_arg_count(ArgKind::Take1, 1), None);
        // Empty words (`""`), as invoke_cmd reads them.
        assert_eq!(check_arg_words(ArgKind::Take1, [""]).as_deref(), Some("takes one argument"));
        assert_eq!(check_arg_words(ArgKind::Take2, ["404", ""]).as_deref(), Some("takes two arguments"));
        assert_eq!(check_arg_words(ArgKind::Take12, ["x", ""]), None);
        assert_eq!(check_arg_words(ArgKind::Take12, ["", "x"]).as_deref(), Some("takes 1-2 arguments"));
        assert_eq!(check_arg_words(ArgKind::Take23, ["a", "b", ""]), None);
        assert_eq!(check_arg_words(ArgKind::Take23, ["a", ""]).as_deref(), Some("takes two or three arguments"));
        assert_eq!(check_arg_words(ArgKind::Take13, ["a", ""]), None);
        assert_eq!(check_arg_words(ArgKind::Take13, ["a", "b"]).as_deref(), Some("takes one or three arguments"));
        assert_eq!(check_arg_words(ArgKind::Iterate, ["a", "", "b"]), None);
        assert_eq!(check_arg_words(ArgKind::Iterate, [""]).as_deref(), Some("requires at least one argument"));
        assert_eq!(check_arg_words(ArgKind::Iterate2, ["a", ""]), None);
        assert_eq!(check_arg_words(ArgKind::Iterate2, ["", ".x"]).as_deref(), Some("requires at least two arguments"));
        assert_eq!(check_arg_words(ArgKind::Take1, ["a", "b"]).as_deref(), Some("takes one argument"));
        assert_eq!(check_arg_count(ArgKind::Take1, 3).as_deref(), Some("takes one argument"));
        assert_eq!(check_arg_count(ArgKind::Take1, 0).as_deref(), Some("takes one argument"));
        assert_eq!(check_arg_count(ArgKind::NoArgs, 1), None);
        assert_eq!(check_arg_count(ArgKind::Take2, 1).as_deref(), Some("takes two arguments"));
        assert_eq!(check_arg_count(ArgKind::Take12, 2), None);
        assert_eq!(check_arg_count(ArgKind::Take12, 3).as_deref(), Some("takes 1-2 arguments"));
        assert_eq!(check_arg_count(ArgKind::Take3, 2).as_deref(), Some("takes three arguments"));
        assert_eq!(check_arg_count(ArgKind::Take23, 1).as_deref(), Some("takes two or three arguments"));
        assert_eq!(check_arg_count(ArgKind::Take123, 4).as_deref(), Some("takes one, two or three arguments"));
        assert_eq!(check_arg_count(ArgKind::Take13, 2).as_deref(), Some("takes one or three arguments"));
        assert_eq!(check_arg_count(ArgKind::Take13, 3), None);
        assert_eq!(check_arg_count(ArgKind::Iterate, 0).as_deref(), Some("requires at least one argument"));
        assert_eq!(check_arg_count(ArgKind::Iterate, 9), None);
        assert_eq!(check_arg_count(ArgKind::Iterate2, 1).as_deref(), Some("requires at least two arguments"));
        assert_eq!(check_arg_count(ArgKind::Flag, 0).as_deref(), Some("must be On or Off"));
        // A FLAG reads its first word only: `KeepAlive On # comment` is On (server/config.c).
        assert_eq!(check_arg_count(ArgKind::Flag, 2), None);
        assert_eq!(check_args(ArgKind::Flag, &["On", "#", "keep"]), None);
        assert_eq!(check_args(ArgKind::Flag, &["yes", "On"]).as_deref(), Some("must be On or Off"));
        assert_eq!(check_arg_count(ArgKind::Take1, 2).as_deref(), Some("takes one argument"));
        assert_eq!(check_arg_count(ArgKind::RawArgs, 0), None);
        assert_eq!(check_arg_count(ArgKind::TakeArgv, 0), None);
        assert_eq!(check_arg_count(ArgKind::Unknown, 7), None);
        assert_eq!(check_args(ArgKind::Flag, &["oN"]), None);
        assert_eq!(check_args(ArgKind::Flag, &["yes"]).as_deref(), Some("must be On or Off"));
        assert_eq!(
            directive("ServerName").unwrap().arg_count_error(2).as_deref(),
            Some("ServerName takes one argument")
        );
    }

    #[test]
    fn modules_by_identifier_and_source() {
        let m = module_by_identifier("authz_core_module").unwrap();
        assert_eq!(m.source_file, "mod_authz_core.c");
        assert_eq!(m.debian_so, Some("mod_authz_core.so"));
        assert!(!m.builtin_debian);
        assert!(std::ptr::eq(module_by_source("mod_authz_core.c").unwrap(), m));
        assert!(module_by_identifier("Authz_core_module").is_none(), "httpd matches exactly");
        assert!(module_by_source("mod_authz_core").is_none());
        assert_eq!(module_by_identifier("core_module").unwrap().identifier, "core");
        assert_eq!(module_by_source("core.c").unwrap().identifier, "core");
        assert_eq!(module_by_source("event.c").unwrap().identifier, "mpm_event_module");
        assert_eq!(module_by_source("event.c").unwrap().debian_so, Some("mod_mpm_event.so"));
        assert_eq!(module_by_source("http_core.c").unwrap().identifier, "http_module");
        assert_eq!(module_by_identifier("ldap_module").unwrap().source_file, "util_ldap.c");
        let builtin: Vec<&str> = builtin_modules().iter().map(|m| m.source_file).collect();
        for s in ["core.c", "mod_so.c", "http_core.c", "mod_log_config.c", "mod_unixd.c"] {
            assert!(builtin.contains(&s), "{s} not built in: {builtin:?}");
        }
        assert!(!builtin.contains(&"mod_ssl.c"));
    }

    #[test]
    fn contexts_bits() {
        let c = Contexts::SERVER | Contexts::VHOST;
        assert!(c.contains(Contexts::SERVER));
        assert!(!c.contains(Contexts::SERVER | Contexts::DIRECTORY));
        assert!(c.intersects(Contexts::SERVER | Contexts::DIRECTORY));
        assert_eq!(c.to_string(), "server config, virtual host");
        assert_eq!(Contexts::from_name(".htaccess"), Some(Contexts::HTACCESS));
        assert!(directive("SSLProxyCheckPeerName").unwrap().contexts.proxy());
    }
}

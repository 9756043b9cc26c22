//! Where httpd accepts a directive, decided as httpd decides it.
//!
//! Two checks run before a directive does anything (httpd 2.4):
//! * `server/config.c: invoke_cmd` refuses a directive whose command-table mask
//!   ([`Directive::req_override`]) shares no bit with the current override mask
//!   (`cmd->override`): `X not allowed here`, or `X not allowed in <Sec> context`
//!   when it has an enclosing section;
//! * many handlers then call `server/core.c: ap_check_cmd_context` with
//!   `NOT_IN_*` flags ([`Directive::not_in`]): `X cannot occur within <VirtualHost>
//!   section`, `… within directory context`, `… within <Limit> or <LimitExcept>
//!   section`, `… within htaccess files`, `… within <Location> section`.
//!
//! A [`Scope`] is the part of httpd's `cmd_parms` those checks read; section
//! handlers change it for their bodies the way [`Scope::enter`] does (`dirsection`,
//! `urlsection`, `filesection`, `ifsection`, `ap_limit_section`, `virtualhost_section`
//! in core.c; `proxysection` in mod_proxy.c; `add_authz_section` and the provider
//! aliases in mod_authz_core.c/mod_authn_core.c). Read-time conditionals
//! (`<IfModule>` & co.) are transparent: httpd splices their bodies into the
//! enclosing section. Directives executed while the file is read (`EXEC_ON_READ`:
//! `Define`, `<IfModule>`, `<Macro>`…) see the top-level mask and no section at all,
//! so in a main configuration they are accepted anywhere.
//!
//! No IO, no configuration tree: callers walk their own tree and enter sections.

use super::options::{option_bits, OPT_ALL, OPT_MULTI, OPT_SYM_OWNER};
use super::Directive;

// Bits of `cmd->override` and `req_override` (include/http_config.h).
const OR_LIMIT: u32 = 1;
const OR_OPTIONS: u32 = 2;
const OR_FILEINFO: u32 = 4;
const OR_AUTHCFG: u32 = 8;
const OR_INDEXES: u32 = 16;
const ACCESS_CONF: u32 = 64;
const RSRC_CONF: u32 = 128;
const EXEC_ON_READ: u32 = 256;
const NONFATAL_OVERRIDE: u32 = 512;
const NONFATAL_UNKNOWN: u32 = 1024;
const PROXY_CONF: u32 = 2048;
const OR_ALL: u32 = OR_LIMIT | OR_OPTIONS | OR_FILEINFO | OR_AUTHCFG | OR_INDEXES;

/// Every option: what a configuration file may set (`cmd->override_opts` there), and what an
/// .htaccess file may set when the AllowOverride in force names no `Options` class.
const EVERY_OPTION: u32 = OPT_ALL | OPT_SYM_OWNER | OPT_MULTI;

/// Why `set_options` refuses an `Options` line ([`options_refusal_in`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct OptionsRefusal {
    /// httpd's words.
    message: String,
    /// An option the AllowOverride in force does not list (`Option X not allowed here`), not
    /// a line httpd refuses wherever it stands.
    not_allowed: Option<String>,
}

const MIXED: &str = "Either all Options must start with + or -, or no Option may.";

/// What `server/core.c: set_options` answers to an `Options` line's words (`ap_getword_conf`'s)
/// where the options `allowed` may be set (`cmd->override_opts`: every option in a configuration
/// file, those `AllowOverride Options=…` lists in an .htaccess file), in its words; None when it
/// takes them. Words are read in order: the first one refused decides.
fn options_refusal_in<'a>(words: impl IntoIterator<Item = &'a str>, allowed: u32) -> Option<OptionsRefusal> {
    let refuse = |m: &str| Some(OptionsRefusal { message: m.to_string(), not_allowed: None });
    let (mut first, mut merge, mut all_none) = (true, false, false);
    for w in words {
        let signed = w.starts_with(['+', '-']);
        let name = if signed { &w[1..] } else { w };
        if signed {
            if !merge && !first && !all_none {
                return refuse(MIXED);
            }
            merge = true;
        } else if !first && merge {
            return refuse(MIXED);
        }
        let Some(bits) = option_bits(name) else { return refuse(&format!("Illegal option {name}")) };
        if name.eq_ignore_ascii_case("None") {
            if !first {
                return refuse("'Options None' must be the first Option given.");
            } else if merge {
                return refuse("You may not use 'Options +None' or 'Options -None'.");
            }
            all_none = true;
        } else if name.eq_ignore_ascii_case("All") {
            if !first {
                return refuse("'Options All' must be the first option given.");
            } else if merge {
                return refuse("You may not use 'Options +All' or 'Options -All'.");
            }
            all_none = true;
        }
        if allowed & bits != bits {
            return Some(OptionsRefusal {
                message: format!("Option {name} not allowed here"),
                not_allowed: Some(name.to_string()),
            });
        }
        first = false;
    }
    None
}

/// What `set_options` answers to an `Options` line where every option may be set (a configuration file): only the
/// lines httpd refuses wherever they stand.
pub fn options_refusal<'a>(words: impl IntoIterator<Item = &'a str>) -> Option<String> {
    options_refusal_in(words, EVERY_OPTION).map(|r| r.message)
}

/// The options `AllowOverride` words let an .htaccess file set (`set_override`: `Options`
/// alone is httpd's `OPT_ALL`, `Options=a,b` those listed, the last such word winning; without
/// either, every option), as the directory walk takes them with the AllowOverride in force
/// (`server/request.c: core_opts_merge`). A word `set_allow_opts` refuses (a startup error)
/// ends the list there.
fn allowed_options(allow_override: &[String]) -> u32 {
    let mut opts = EVERY_OPTION;
    for w in allow_override {
        let (k, v) = match w.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (w.as_str(), None),
        };
        if !k.eq_ignore_ascii_case("Options") {
            continue;
        }
        match v {
            None => opts = OPT_ALL,
            Some(list) => {
                let mut first = true;
                for word in list.split(',').filter(|w| !w.is_empty()) {
                    if first {
                        opts = 0;
                        first = false;
                    }
                    match option_bits(word) {
                        Some(b) => opts |= b,
                        None => break,
                    }
                }
            }
        }
    }
    opts
}
/// The mask of a configuration file's top level (`ap_process_config_tree`).
const TOP_LEVEL: u32 = (RSRC_CONF | OR_ALL) & !(OR_AUTHCFG | OR_LIMIT);

// `ap_check_cmd_context` flags.
const NOT_IN_VIRTUALHOST: u32 = 0x01;
const NOT_IN_LIMIT: u32 = 0x02;
const NOT_IN_DIRECTORY: u32 = 0x04;
const NOT_IN_LOCATION: u32 = 0x08;
const NOT_IN_FILES: u32 = 0x10;
const NOT_IN_HTACCESS: u32 = 0x20;
const NOT_IN_PROXY: u32 = 0x40;
const NOT_IN_DIR_LOC_FILE: u32 = NOT_IN_DIRECTORY | NOT_IN_LOCATION | NOT_IN_FILES;
const NOT_IN_DIR_CONTEXT: u32 = NOT_IN_LIMIT | NOT_IN_DIR_LOC_FILE | NOT_IN_PROXY;
/// Not an httpd flag: mod_md's `md_section_check` (the directive only inside `<MDomainSet>` or
/// `<MDomain>`), carried in the catalogue's not_in column.
const MD_SECTION_ONLY: u32 = 0x80;

pub(super) fn flag_bits(list: &str) -> u32 {
    list.split('|')
        .map(|f| match f.trim() {
            "OR_LIMIT" => OR_LIMIT,
            "OR_OPTIONS" => OR_OPTIONS,
            "OR_FILEINFO" => OR_FILEINFO,
            "OR_AUTHCFG" => OR_AUTHCFG,
            "OR_INDEXES" => OR_INDEXES,
            "OR_ALL" => OR_ALL,
            "ACCESS_CONF" => ACCESS_CONF,
            "RSRC_CONF" => RSRC_CONF,
            "EXEC_ON_READ" => EXEC_ON_READ,
            "PROXY_CONF" => PROXY_CONF,
            "NOT_IN_VIRTUALHOST" => NOT_IN_VIRTUALHOST,
            "NOT_IN_LIMIT" => NOT_IN_LIMIT,
            "NOT_IN_DIRECTORY" => NOT_IN_DIRECTORY,
            "NOT_IN_LOCATION" => NOT_IN_LOCATION,
            "NOT_IN_FILES" => NOT_IN_FILES,
            "NOT_IN_HTACCESS" => NOT_IN_HTACCESS,
            "NOT_IN_PROXY" => NOT_IN_PROXY,
            "MD_SECTION_ONLY" => MD_SECTION_ONLY,
            _ => 0,
        })
        .fold(0, |a, b| a | b)
}

/// What `AllowOverride` and `AllowOverrideList` grant an .htaccess file
/// (`server/core.c: set_override`, `set_override_list`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Overrides {
    mask: u32,
    /// No AllowOverride applies: httpd's `OR_UNSET` bit, which makes it read the file and grant
    /// nothing in it.
    unset: bool,
    /// Directive names `AllowOverrideList` allows one by one.
    list: Vec<String>,
    /// The options an `Options` line may set (`AllowOverride Options=…`; [`allowed_options`]).
    options: u32,
}

/// The override classes `AllowOverride` takes, with the bit each grants.
pub const OVERRIDE_CLASSES: &[&str] = &["All", "None", "AuthConfig", "FileInfo", "Indexes", "Limit", "Options"];

/// The words `Options` takes (`server/core.c: set_options`), each with what it turns on. httpd
/// also takes `RunScripts` (undocumented, kept for old configurations: MultiViews and ExecCGI),
/// not offered here.
pub const OPTIONS: &[(&str, &str)] = &[
    ("None", "No extra features."),
    ("All", "Everything except MultiViews."),
    ("Indexes", "A directory without an index file is listed."),
    ("Includes", "Server-side includes (mod_include)."),
    ("IncludesNOEXEC", "Server-side includes without `#exec`."),
    ("FollowSymLinks", "Symbolic links are followed."),
    ("SymLinksIfOwnerMatch", "Symbolic links are followed when their target has the link's owner."),
    ("ExecCGI", "CGI scripts may run (mod_cgi)."),
    ("MultiViews", "Content negotiation picks among files of the same base name (mod_negotiation)."),
];

impl Overrides {
    /// From the arguments of the `AllowOverride` and `AllowOverrideList` in force. `None`
    /// when no AllowOverride applies: httpd 2.4 then reads the file all the same and grants
    /// nothing in it, so each directive there is a 500 (`server/core.c` starts every directory
    /// at `OR_UNSET|OR_NONE`, and `server/request.c` reads .htaccess files wherever that is not
    /// 0); the documented default, `AllowOverride None`, never reads it. Confirmed on 2.4.71.
    /// Words httpd would reject at startup are ignored.
    pub fn parse(allow_override: Option<&[String]>, list: Option<&[String]>) -> Overrides {
        let mut mask = 0;
        for w in allow_override.unwrap_or_default() {
            let (k, v) = match w.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (w.as_str(), None),
            };
            match k.to_ascii_lowercase().as_str() {
                "limit" => mask |= OR_LIMIT,
                "options" => mask |= OR_OPTIONS,
                "fileinfo" => mask |= OR_FILEINFO,
                "authconfig" => mask |= OR_AUTHCFG,
                "indexes" => mask |= OR_INDEXES,
                "nonfatal" => match v.map(str::to_ascii_lowercase).as_deref() {
                    Some("override") => mask |= NONFATAL_OVERRIDE,
                    Some("unknown") => mask |= NONFATAL_UNKNOWN,
                    Some("all") => mask |= NONFATAL_OVERRIDE | NONFATAL_UNKNOWN,
                    _ => {}
                },
                // Both replace what came before, Nonfatal included.
                "none" => mask = 0,
                "all" => mask = OR_ALL,
                _ => {}
            }
        }
        let list = list
            .unwrap_or_default()
            .iter()
            .filter(|n| !n.eq_ignore_ascii_case("none"))
            .map(|n| n.to_ascii_lowercase())
            .collect();
        let options = allowed_options(allow_override.unwrap_or_default());
        Overrides { mask, unset: allow_override.is_none(), list, options }
    }

    /// Whether httpd reads the .htaccess file at all (`server/request.c`: only
    /// when something is overridable).
    pub fn reads_htaccess(&self) -> bool {
        self.unset || self.mask != 0 || !self.list.is_empty()
    }

    /// Whether the class a directive needs is granted, or the directive is listed.
    pub fn grants(&self, d: &Directive) -> bool {
        self.mask & d.req_bits != 0 || self.lists(d)
    }

    fn lists(&self, d: &Directive) -> bool {
        self.list.iter().any(|n| n.eq_ignore_ascii_case(&d.httpd_name()))
    }

    /// Directives httpd does not know are logged (AH02296) and skipped instead of failing the
    /// request (`AllowOverride Nonfatal=Unknown`).
    pub fn nonfatal_unknown(&self) -> bool {
        self.mask & NONFATAL_UNKNOWN != 0
    }

    /// Violations are logged and skipped instead of failing the request
    /// (`AllowOverride Nonfatal=Override`).
    pub fn nonfatal(&self) -> bool {
        self.mask & NONFATAL_OVERRIDE != 0
    }

    /// As written: `AllowOverride Limit Nonfatal=Override`, with `AllowOverrideList …` after it
    /// when that lists any (`Options=…` lists are not spelled out).
    pub fn describe(&self) -> String {
        let mut words: Vec<&str> = Vec::new();
        if self.unset {
            words.push("(none applies)");
        } else if self.mask & OR_ALL == OR_ALL {
            words.push("All");
        } else {
            let classes = [
                (OR_AUTHCFG, "AuthConfig"),
                (OR_FILEINFO, "FileInfo"),
                (OR_INDEXES, "Indexes"),
                (OR_LIMIT, "Limit"),
                (OR_OPTIONS, "Options"),
            ];
            words.extend(classes.iter().filter(|(b, _)| self.mask & b != 0).map(|(_, w)| *w));
        }
        match (self.nonfatal(), self.nonfatal_unknown()) {
            (true, true) => words.push("Nonfatal=All"),
            (true, false) => words.push("Nonfatal=Override"),
            (false, true) => words.push("Nonfatal=Unknown"),
            (false, false) if words.is_empty() => words.push("None"),
            (false, false) => {}
        }
        let mut text = format!("AllowOverride {}", words.join(" "));
        if !self.list.is_empty() {
            text.push_str(&format!(" with AllowOverrideList {}", self.list.join(" ")));
        }
        text
    }
}

/// Whether httpd runs `d` as it reads a file (EXEC_ON_READ: `<IfModule>`, `Define`, `Include`…),
/// before the file's lines are executed.
pub fn runs_while_read(d: &Directive) -> bool {
    d.req_bits & EXEC_ON_READ != 0
}

/// What a refusal costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A configuration file: httpd refuses to start.
    Startup,
    /// An .htaccess file: every request it applies to gets 500 Internal Server Error.
    Request,
    /// httpd logs a warning and goes on (the directive is ignored or useless).
    Warning,
}

/// Why httpd refuses a directive where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// httpd's own message (`DocumentRoot not allowed in <Directory> context`).
    pub message: String,
    pub kind: Refusal,
    /// The refusal comes from the .htaccess file's AllowOverride (not from the
    /// directive being impossible in .htaccess files).
    pub by_allow_override: bool,
    /// What the AllowOverride would have to grant, when not the directive's class (an option
    /// of `Options=…`).
    pub grant: Option<String>,
}

/// The context a directive is read in: the part of httpd's `cmd_parms` that
/// decides whether it is accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// `cmd->override`; `None` when unknown (an .htaccess file whose AllowOverride
    /// is unknown, the top level of a fragment).
    mask: Option<u32>,
    override_list: Vec<String>,
    /// `cmd->path` is set (inside Directory, Location, Files, If, Proxy, .htaccess).
    in_path: bool,
    /// `cmd->limited` is set (inside Limit, LimitExcept, RequireAll/Any/None).
    limited: bool,
    /// Inside `<VirtualHost>`; `None` when it cannot be known (a fragment may be
    /// included at the top level or inside a virtual host).
    virtual_host: Option<bool>,
    htaccess: bool,
    /// `cmd->override_opts`: the options an `Options` line may set.
    override_opts: u32,
    /// The sections entered, as written (without `<`), innermost first: shared with the
    /// scopes outside, so that entering a section (every section of a big tree) makes one
    /// link, not a copy of the list.
    sections: Option<std::sync::Arc<Entered>>,
}

/// A section entered ([`Scope::sections`]), and the one around it.
#[derive(Debug, PartialEq, Eq)]
struct Entered {
    name: Box<str>,
    outer: Option<std::sync::Arc<Entered>>,
}

impl Drop for Entered {
    /// Link by link, not recursively: a chain as deep as the sections nest.
    fn drop(&mut self) {
        let mut next = self.outer.take();
        while let Some(link) = next {
            next = match std::sync::Arc::try_unwrap(link) {
                Ok(mut e) => e.outer.take(),
                Err(_) => None, // still shared: its other holder drops the rest
            };
        }
    }
}

impl Scope {
    /// The top level of a main configuration file.
    pub fn server_config() -> Scope {
        Scope {
            mask: Some(TOP_LEVEL),
            override_list: vec![],
            in_path: false,
            limited: false,
            virtual_host: Some(false),
            htaccess: false,
            override_opts: EVERY_OPTION,
            sections: None,
        }
    }

    /// The top level of a configuration fragment analysed on its own: it may be
    /// included at the top level, inside a `<VirtualHost>`, a `<Directory>`… (or be
    /// an .htaccess file under another name), so only the sections it opens itself
    /// decide anything.
    pub fn fragment() -> Scope {
        Scope { mask: None, virtual_host: None, ..Scope::server_config() }
    }

    /// The top level of an .htaccess file with what its AllowOverride grants, if known.
    pub fn htaccess(overrides: Option<&Overrides>) -> Scope {
        Scope {
            mask: overrides.map(|o| o.mask),
            override_list: overrides.map(|o| o.list.clone()).unwrap_or_default(),
            in_path: true,
            limited: false,
            virtual_host: Some(false),
            htaccess: true,
            override_opts: overrides.map_or(EVERY_OPTION, |o| o.options),
            sections: None,
        }
    }

    pub fn is_htaccess(&self) -> bool {
        self.htaccess
    }

    /// Whether httpd logs and skips a directive it does not know here (an .htaccess file
    /// under `AllowOverride Nonfatal=Unknown`, outside the sections walked with AuthConfig
    /// alone).
    pub fn skips_unknown(&self) -> bool {
        self.htaccess && self.mask.is_some_and(|m| m & NONFATAL_UNKNOWN != 0)
    }

    /// Inside `<VirtualHost>` for certain.
    pub fn in_virtual_host(&self) -> bool {
        self.virtual_host == Some(true)
    }

    /// The sections entered, as written, innermost first.
    pub fn sections(&self) -> impl Iterator<Item = &str> {
        let mut at = self.sections.as_deref();
        std::iter::from_fn(move || {
            let e = at?;
            at = e.outer.as_deref();
            Some(&*e.name)
        })
    }

    /// Whether a section's body is read in the scope the section stands in (the
    /// conditional sections: `<IfModule>`, `<IfDefine>`…).
    pub fn transparent(written: &str) -> bool {
        ["IfModule", "IfDefine", "IfVersion", "IfFile", "IfDirective", "IfSection"]
            .iter()
            .any(|n| written.eq_ignore_ascii_case(n))
    }

    /// The scope of a section's body. `None` when httpd does not read the body
    /// where it stands (`<Macro>` bodies are read where the macro is used) or the
    /// section is unknown.
    pub fn enter(&self, written: &str) -> Option<Scope> {
        if Scope::transparent(written) {
            return Some(self.clone());
        }
        // Lowercased on the stack (section names are short; longer ones are none of these).
        let mut buf = [0u8; 24];
        let lower = match buf.get_mut(..written.len()) {
            Some(b) => {
                b.copy_from_slice(written.as_bytes());
                b.make_ascii_lowercase();
                std::str::from_utf8(b).unwrap_or("")
            }
            None => "",
        };
        let mut s = self.clone();
        match lower {
            "virtualhost" => s.virtual_host = Some(true),
            "directory" | "directorymatch" | "location" | "locationmatch" => {
                s.in_path = true;
                s.mask = Some(OR_ALL | ACCESS_CONF);
            }
            // Only outside a path: in .htaccess files and directory sections the mask stays.
            "files" | "filesmatch" | "if" | "elseif" | "else" => {
                if !s.in_path {
                    s.mask = Some(OR_ALL | ACCESS_CONF);
                }
                s.in_path = true;
            }
            "proxy" | "proxymatch" => {
                s.in_path = true;
                s.mask = Some(OR_ALL | ACCESS_CONF | PROXY_CONF);
            }
            "limit" | "limitexcept" => s.limited = true,
            // Authorization containers walk their body with OR_AUTHCFG only, and mark
            // it limited so that NOT_IN_LIMIT checks fire as in <Limit>.
            "requireall" | "requireany" | "requirenone" => {
                s.mask = Some(OR_AUTHCFG);
                s.limited = true;
            }
            "authnprovideralias" | "authzprovideralias" => s.mask = Some(OR_AUTHCFG | ACCESS_CONF),
            "mdomainset" | "mdomain" => {}
            _ => return None,
        }
        s.sections = Some(std::sync::Arc::new(Entered { name: written.into(), outer: s.sections.take() }));
        Some(s)
    }

    /// httpd's verdict on an `Options` line with `words` here, once [`Scope::check`] let the
    /// directive in: `set_options`' refusal, by the AllowOverride in force when it names an
    /// option `AllowOverride Options=…` does not list (never nonfatal: that is the handler's
    /// error, not invoke_cmd's override check).
    pub fn check_options<'a>(&self, words: impl IntoIterator<Item = &'a str>) -> Option<Refused> {
        let r = options_refusal_in(words, self.override_opts)?;
        let kind = if self.htaccess { Refusal::Request } else { Refusal::Startup };
        let by_allow_override = r.not_allowed.is_some();
        Some(Refused { message: r.message, kind, by_allow_override, grant: r.not_allowed })
    }

    /// httpd's verdict on `d` here: `None` when accepted (or when what decides
    /// is unknown: a fragment's virtual host, an .htaccess file's AllowOverride).
    pub fn check(&self, d: &Directive) -> Option<Refused> {
        let req = d.req_bits;
        if req & EXEC_ON_READ != 0 && !self.htaccess {
            // Run while reading, before any section handler: the top-level mask, no path.
            return None;
        }
        // Spelled out only for a message (this runs for every node of a configuration).
        let name = || d.httpd_name();
        let kind = if self.htaccess { Refusal::Request } else { Refusal::Startup };
        if let (Some(mask), false) = (self.mask, d.req_override.is_empty()) {
            if mask & req == 0 && !self.override_list.iter().any(|n| n.eq_ignore_ascii_case(&name())) {
                let name = name();
                let by_allow_override = self.htaccess && req & OR_ALL != 0;
                if self.htaccess && mask & NONFATAL_OVERRIDE != 0 {
                    return Some(Refused {
                        message: format!("{name} in .htaccess forbidden by AllowOverride"),
                        kind: Refusal::Warning,
                        by_allow_override,
                        grant: None,
                    });
                }
                let message = match self.sections().next() {
                    Some(parent) => format!("{name} not allowed in <{parent}> context"),
                    None => format!("{name} not allowed here"),
                };
                return Some(Refused { message, kind, by_allow_override, grant: None });
            }
        } else if self.htaccess && !d.req_override.is_empty() && req & OR_ALL == 0 {
            // Whatever AllowOverride says, no class lets this directive into .htaccess
            // (AllowOverrideList aside, which we do not know either).
            let name = name();
            let message = match self.sections().next() {
                Some(parent) => format!("{name} not allowed in <{parent}> context"),
                None => format!("{name} not allowed here"),
            };
            return Some(Refused { message, kind, by_allow_override: false, grant: None });
        }
        let gt = if d.is_section { ">" } else { "" };
        let refuse = |within: &str| {
            Some(Refused {
                message: format!("{}{gt} cannot occur within {within}", name()),
                kind,
                by_allow_override: false,
                grant: None,
            })
        };
        let forbidden = d.not_in_bits;
        if forbidden & NOT_IN_VIRTUALHOST != 0 && self.virtual_host == Some(true) {
            return refuse("<VirtualHost> section");
        }
        // Any of the directory-context flags refuses <Limit> (`cmd->limited` is set), not only
        // NOT_IN_LIMIT: `MultiviewsMatch` (NOT_IN_LOCATION) "cannot occur within <Limit>".
        if forbidden & NOT_IN_DIR_CONTEXT != 0 && self.limited {
            return refuse("<Limit> or <LimitExcept> section");
        }
        if forbidden & NOT_IN_HTACCESS != 0 && self.htaccess {
            return refuse("htaccess files");
        }
        if forbidden & NOT_IN_DIR_LOC_FILE == NOT_IN_DIR_LOC_FILE && self.in_path {
            return refuse("directory context");
        }
        let parents: &[(u32, &[&str])] = &[
            (NOT_IN_DIRECTORY, &["Directory", "DirectoryMatch"]),
            (NOT_IN_LOCATION, &["Location", "LocationMatch"]),
            (NOT_IN_FILES, &["Files", "FilesMatch", "If", "ElseIf", "Else"]),
            (NOT_IN_PROXY, &["Proxy", "ProxyMatch"]),
        ];
        for (flag, names) in parents {
            if forbidden & flag == 0 {
                continue;
            }
            // `find_parent` looks for each name in turn, innermost section first.
            for n in *names {
                if let Some(found) = self.sections().find(|s| s.eq_ignore_ascii_case(n)) {
                    return refuse(&format!("<{found}> section"));
                }
            }
        }
        // mod_md: "X is only valid inside a '<MDomainSet' context, not here" (unknown at the top
        // of a fragment, which may be included in one).
        if forbidden & MD_SECTION_ONLY != 0
            && self.virtual_host.is_some()
            && !self.sections().any(|s| s.eq_ignore_ascii_case("MDomainSet") || s.eq_ignore_ascii_case("MDomain"))
        {
            return Some(Refused {
                message: format!("{} is only valid inside a '<MDomainSet' context, not here", name()),
                kind,
                by_allow_override: false,
                grant: None,
            });
        }
        // `AllowOverride` only means something in <Directory>: httpd warns elsewhere.
        if matches!(d.name, "AllowOverride" | "AllowOverrideList") {
            let useless = ["Location", "LocationMatch", "Files", "FilesMatch", "If", "ElseIf", "Else"];
            if let Some(found) = self.sections().find(|s| useless.iter().any(|u| s.eq_ignore_ascii_case(u))) {
                return Some(Refused {
                    message: format!("Useless use of {} inside <{found}>", d.name),
                    kind: Refusal::Warning,
                    by_allow_override: false,
                    grant: None,
                });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::catalogue::directive;

    fn verdict(scope: &Scope, name: &str) -> String {
        match scope.check(directive(name).unwrap()) {
            None => "accepted".into(),
            Some(r) => format!("{:?}: {}", r.kind, r.message),
        }
    }

    fn nested(path: &[&str]) -> Scope {
        path.iter().fold(Scope::server_config(), |s, n| s.enter(n).unwrap())
    }

    #[test]
    fn override_mask_refusals_name_the_enclosing_section() {
        assert_eq!(
            verdict(&nested(&["Directory"]), "DocumentRoot"),
            "Startup: DocumentRoot not allowed in <Directory> context"
        );
        assert_eq!(
            verdict(&nested(&["directory"]), "Directory"),
            "Startup: <Directory not allowed in <directory> context"
        );
        assert_eq!(verdict(&Scope::server_config(), "Require"), "Startup: Require not allowed here");
        assert_eq!(verdict(&Scope::server_config(), "Order"), "Startup: order not allowed here");
        assert_eq!(
            verdict(&nested(&["Proxy"]), "DocumentRoot"),
            "Startup: DocumentRoot not allowed in <Proxy> context"
        );
        assert_eq!(
            verdict(&nested(&["Directory", "RequireAll"]), "Options"),
            "Startup: Options not allowed in <RequireAll> context"
        );
        assert_eq!(
            verdict(&nested(&["Directory", "IfModule"]), "DocumentRoot"),
            "Startup: DocumentRoot not allowed in <Directory> context"
        );
    }

    #[test]
    fn context_checks_of_the_handlers() {
        assert_eq!(
            verdict(&nested(&["VirtualHost"]), "MaxRequestWorkers"),
            "Startup: MaxRequestWorkers cannot occur within <VirtualHost> section"
        );
        assert_eq!(
            verdict(&nested(&["VirtualHost"]), "VirtualHost"),
            "Startup: <VirtualHost> cannot occur within <VirtualHost> section"
        );
        assert_eq!(verdict(&nested(&["Location"]), "Files"), "Startup: <Files> cannot occur within <Location> section");
        assert_eq!(
            verdict(&nested(&["Location", "Limit"]), "CacheEnable"),
            "Startup: CacheEnable cannot occur within <Limit> or <LimitExcept> section"
        );
        assert_eq!(
            verdict(&nested(&["Directory", "Limit"]), "Files"),
            "Startup: <Files> cannot occur within <Limit> or <LimitExcept> section"
        );
        assert_eq!(verdict(&nested(&["Directory"]), "Alias"), "Startup: Alias cannot occur within <Directory> section");
        assert_eq!(verdict(&nested(&["Location"]), "Alias"), "accepted");
        assert_eq!(verdict(&nested(&["Directory", "Limit"]), "Options"), "accepted");
        // GLOBAL_ONLY in the handlers of mod_unixd and the scoreboard.
        assert_eq!(
            verdict(&nested(&["VirtualHost"]), "User"),
            "Startup: User cannot occur within <VirtualHost> section"
        );
        assert_eq!(
            verdict(&nested(&["VirtualHost"]), "ScoreBoardFile"),
            "Startup: ScoreBoardFile cannot occur within <VirtualHost> section"
        );
        // Any directory-context flag refuses <Limit>; NOT_IN_LOCATION alone here.
        assert_eq!(
            verdict(&nested(&["Directory", "Limit"]), "MultiviewsMatch"),
            "Startup: MultiviewsMatch cannot occur within <Limit> or <LimitExcept> section"
        );
        assert_eq!(verdict(&nested(&["Directory"]), "MultiviewsMatch"), "accepted");
        assert_eq!(verdict(&nested(&["Directory"]), "IdentityCheckTimeout"), "accepted");
        // mod_md's own checks.
        assert_eq!(
            verdict(&nested(&["Directory"]), "MDRequireHttps"),
            "Startup: MDRequireHttps cannot occur within <Directory> section"
        );
        assert_eq!(verdict(&nested(&["VirtualHost"]), "MDRequireHttps"), "accepted");
        assert_eq!(
            verdict(&nested(&["VirtualHost"]), "MDCertificateFile"),
            "Startup: MDCertificateFile is only valid inside a '<MDomainSet' context, not here"
        );
        assert_eq!(verdict(&nested(&["MDomain"]), "MDCertificateFile"), "accepted");
        assert_eq!(verdict(&Scope::fragment(), "MDCertificateFile"), "accepted");
        // Debian's mod_remoteip: RSRC_CONF, not read-time.
        assert_eq!(
            verdict(&nested(&["Directory"]), "RemoteIPTrustedProxyList"),
            "Startup: RemoteIPTrustedProxyList not allowed in <Directory> context"
        );
        assert_eq!(verdict(&nested(&["Directory", "If"]), "Files"), "accepted");
        assert_eq!(
            verdict(&nested(&["Location"]), "AllowOverride"),
            "Warning: Useless use of AllowOverride inside <Location>"
        );
    }

    #[test]
    fn read_time_directives_are_accepted_anywhere_in_configuration_files() {
        assert_eq!(verdict(&nested(&["Directory", "Limit"]), "Define"), "accepted");
        assert_eq!(verdict(&nested(&["VirtualHost"]), "DefaultRuntimeDir"), "accepted");
        assert_eq!(verdict(&Scope::htaccess(None), "Define"), "Request: Define not allowed here");
    }

    #[test]
    fn htaccess_follows_allow_override() {
        let auth = Overrides::parse(Some(&["AuthConfig".to_string()]), None);
        let s = Scope::htaccess(Some(&auth));
        assert_eq!(verdict(&s, "Require"), "accepted");
        assert_eq!(verdict(&s, "Options"), "Request: Options not allowed here");
        assert!(s.check(directive("Options").unwrap()).unwrap().by_allow_override);
        assert_eq!(verdict(&s.enter("Files").unwrap(), "Options"), "Request: Options not allowed in <Files> context");
        let list = Overrides::parse(Some(&["None".to_string()]), Some(&["Redirect".to_string()]));
        assert!(list.reads_htaccess());
        assert_eq!(verdict(&Scope::htaccess(Some(&list)), "redirect"), "accepted");
        let nonfatal = Overrides::parse(Some(&["Nonfatal=Override".into(), "AuthConfig".into()]), None);
        assert_eq!(
            verdict(&Scope::htaccess(Some(&nonfatal)), "Options"),
            "Warning: Options in .htaccess forbidden by AllowOverride"
        );
        // Unknown AllowOverride: only what no class allows is certain.
        assert_eq!(verdict(&Scope::htaccess(None), "Options"), "accepted");
        assert_eq!(verdict(&Scope::htaccess(None), "ServerName"), "Request: ServerName not allowed here");
        // No AllowOverride at all: read, and nothing granted.
        let unset = Overrides::parse(None, None);
        assert!(unset.reads_htaccess());
        assert_eq!(verdict(&Scope::htaccess(Some(&unset)), "Require"), "Request: Require not allowed here");
        assert!(!Overrides::parse(Some(&["All".into(), "None".into()]), None).reads_htaccess());
    }

    /// `AllowOverride Options=…` limits the options an .htaccess `Options` line may name
    /// (`Option X not allowed here`, fatal even under Nonfatal=All); `Options` alone is httpd's
    /// OPT_ALL, without MultiViews and SymLinksIfOwnerMatch; no Options class leaves every one.
    #[test]
    fn allow_override_options_lists_the_options_an_htaccess_file_may_set() {
        let verdict = |allow: &str, line: &str| {
            let words: Vec<String> = allow.split_whitespace().map(str::to_string).collect();
            let o = Overrides::parse(Some(&words), None);
            match Scope::htaccess(Some(&o)).check_options(line.split_whitespace()) {
                Some(r) => {
                    format!("{:?}{}: {}", r.kind, if r.by_allow_override { " (AllowOverride)" } else { "" }, r.message)
                }
                None => "accepted".into(),
            }
        };
        assert_eq!(
            verdict("Options=Indexes", "+FollowSymLinks"),
            "Request (AllowOverride): Option FollowSymLinks not allowed here"
        );
        assert_eq!(
            verdict("Options=Indexes Nonfatal=All", "-FollowSymLinks"),
            "Request (AllowOverride): Option FollowSymLinks not allowed here"
        );
        assert_eq!(verdict("Options=Indexes", "None"), "accepted");
        assert_eq!(verdict("Options=Indexes", "-Indexes"), "accepted");
        assert_eq!(verdict("Options=Indexes,FollowSymLinks", "Indexes FollowSymLinks"), "accepted");
        assert_eq!(verdict("Options=Indexes", "All"), "Request (AllowOverride): Option All not allowed here");
        assert_eq!(verdict("Options", "+MultiViews"), "Request (AllowOverride): Option MultiViews not allowed here");
        assert_eq!(
            verdict("Options", "+SymLinksIfOwnerMatch +ExecCGI"),
            "Request (AllowOverride): Option SymLinksIfOwnerMatch not allowed here"
        );
        assert_eq!(
            verdict("Options=All", "+MultiViews"),
            "Request (AllowOverride): Option MultiViews not allowed here"
        );
        assert_eq!(
            verdict("Options=IncludesNOEXEC", "+Includes"),
            "Request (AllowOverride): Option Includes not allowed here"
        );
        assert_eq!(verdict("Options=Includes", "+IncludesNOEXEC"), "accepted");
        assert_eq!(verdict("Options= AuthConfig", "+MultiViews"), "accepted");
        assert_eq!(verdict("All", "+MultiViews +SymLinksIfOwnerMatch"), "accepted");
        assert_eq!(
            verdict("Options=Indexes Options=ExecCGI", "+Indexes"),
            "Request (AllowOverride): Option Indexes not allowed here"
        );
        // Read in order: the first word refused decides.
        assert_eq!(
            verdict("Options=Indexes", "+Indexes FollowSymLinks"),
            "Request: Either all Options must start with + or -, or no Option may."
        );
        assert_eq!(
            verdict("Options=Indexes", "+ExecCGI Frob"),
            "Request (AllowOverride): Option ExecCGI not allowed here"
        );
        // A configuration file may set any.
        assert!(Scope::server_config().check_options(["+MultiViews"]).is_none());
    }

    #[test]
    fn a_deep_chain_of_sections_is_dropped_without_recursion() {
        let mut scope = Scope::server_config();
        for _ in 0..200_000 {
            scope = scope.enter("Directory").unwrap();
        }
        assert_eq!(scope.sections().count(), 200_000);
        assert_eq!(scope.sections().next(), Some("Directory"));
        drop(scope);
    }

    #[test]
    fn a_fragments_top_level_could_be_anywhere_but_its_own_sections_decide() {
        assert_eq!(verdict(&Scope::fragment(), "MaxRequestWorkers"), "accepted");
        assert_eq!(verdict(&Scope::fragment(), "Require"), "accepted");
        assert_eq!(verdict(&Scope::fragment(), "DocumentRoot"), "accepted");
        let dir = Scope::fragment().enter("Directory").unwrap();
        assert_eq!(verdict(&dir, "DocumentRoot"), "Startup: DocumentRoot not allowed in <Directory> context");
        let vhost = Scope::fragment().enter("VirtualHost").unwrap();
        assert_eq!(
            verdict(&vhost, "MaxRequestWorkers"),
            "Startup: MaxRequestWorkers cannot occur within <VirtualHost> section"
        );
        assert!(Scope::fragment().enter("Macro").is_none());
    }
}

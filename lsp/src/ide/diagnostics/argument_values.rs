//! Check: arguments httpd refuses as it reads the line, outside access control: `ServerName`
//! (`server/core.c: server_hostname_port`: a pattern, or a port `atoi` does not read as 1..65535),
//! and the back-end URLs of `ProxyPass`, `ProxyPassMatch` and `BalancerMember`
//! (`modules/proxy/proxy_util.c: ap_proxy_define_worker`: a URL `apr_uri_parse` cannot read, or
//! one with no scheme and host; `add_pass`: no path outside a section, a word that is no
//! `key=value`); the addresses of `RemoteIPTrustedProxy`,
//! `RemoteIPInternalProxy` and `RemoteIPProxyProtocolExceptions` (mod_remoteip: `proxies_set`,
//! `remoteip_disable_networks`) that `apr_ipsubnet_create` cannot read; the words of
//! `AllowOverride` and `AllowOverrideList` (`set_override`, `set_allow_opts`,
//! `set_override_list`) that httpd does not know; the word of any `FLAG` directive that is
//! neither `On` nor `Off`; and the keywords, numbers, URLs and missing words the handlers
//! described in [`catalogue::values`](crate::ide::catalogue::values) refuse.
//!
//! Handlers that remember earlier lines of the same configuration record (`HttpProtocolOptions`,
//! `MultiviewsMatch`, `ProxyErrorOverride`) are judged with the earlier lines of the record
//! ([`Place`]); inside a `<Limit>`, whose body is only part of its record, on their line alone.
//! Those that remember what the server defined (`CacheDirLevels` times `CacheDirLength`, a
//! proxy worker an earlier line defined, whose parameters are then ignored) read the server's
//! earlier lines. Also: the `key=value` parameters of proxy workers and balancers
//! ([`values::WORKER_PARAMS`], [`values::BALANCER_PARAMS`]), mod_headers' format tags,
//! mod_rewrite's flag delimiters and one-word lines, the Authn providers auth modules name,
//! `Substitute` patterns, `RequestReadTimeout` words, `AddOutputFilterByType` filters,
//! `CustomLog` conditions, mod_expires codes, the path forms of `Alias` and `ProxyPassReverse`
//! in sections with a path, and keywords of `RewriteOptions`, `SSLOptions`, `SSLVerifyClient`
//! and `ErrorDocument` statuses; the words of single modules' handlers are
//! [`module_words`]'.

use super::Diagnostic;
use crate::ide::catalogue::options::option_bits;
use crate::ide::catalogue::values::{self, Accepts, Handler, Read};
use crate::ide::catalogue::ArgKind;
use crate::ide::config::{Config, Node, NodeKind};
use crate::ide::policy::addr::{AddrError, IpSubnet};
use crate::ide::policy::pcre::pcre_refuses;

mod module_words;

/// The section whose path httpd's handlers see as `cmd->path` while they read a line: None
/// outside any (the server's own lines), else the innermost `<Directory>`, `<Location>`,
/// `<Files>`, `<If>`/`<ElseIf>`/`<Else>` or `<Proxy>` (and their `Match` kin) around the line,
/// or the .htaccess file itself.
#[derive(Clone, Copy)]
pub(crate) enum CmdPath<'a> {
    None,
    Section(&'a Node),
    Htaccess,
}

impl<'a> CmdPath<'a> {
    /// The path `section` gives the lines inside it, if it gives one (else `self`, the
    /// enclosing one's, stays).
    pub(crate) fn inside(self, section: &'a Node) -> CmdPath<'a> {
        let sets_path = section.is_section()
            && matches!(
                section.known(),
                "Directory"
                    | "DirectoryMatch"
                    | "Location"
                    | "LocationMatch"
                    | "Files"
                    | "FilesMatch"
                    | "If"
                    | "ElseIf"
                    | "Else"
                    | "Proxy"
                    | "ProxyMatch"
            );
        if sets_path {
            CmdPath::Section(section)
        } else {
            self
        }
    }
    fn is_set(self) -> bool {
        !matches!(self, CmdPath::None)
    }
    /// `cmd->path` as a URL-space handler compares with it (mod_cache): a `<Location>` or
    /// `<Proxy>`'s path (its `proxy:` prefix dropped, the word after `~` for a regex),
    /// `*If` in a condition; None where it is a directory (not a URL) or unset.
    fn url_path(self) -> Option<String> {
        let CmdPath::Section(s) = self else { return None };
        let args = s.args();
        let word = |i: usize| args.get(i).map(|w| w.to_string());
        match s.known() {
            "If" | "ElseIf" | "Else" => Some("*If".to_string()),
            "Location" | "LocationMatch" => {
                let first = word(0)?;
                if first == "~" && s.known() == "Location" {
                    word(1)
                } else {
                    Some(first)
                }
            }
            "Proxy" | "ProxyMatch" => {
                let first = word(0)?;
                Some(match first.get(..6) {
                    Some(p) if p.eq_ignore_ascii_case("proxy:") => first[6..].to_string(),
                    _ => first,
                })
            }
            _ => None,
        }
    }
}

/// Where a line is read: what its handler sees as `cmd->path`, the lines of the same
/// configuration record (a server's own lines, or a section's) for the handlers that remember
/// earlier lines, the server's lines (the main server's, or a `<VirtualHost>`'s body) for
/// those that remember what the server defined, and the section directly around the line
/// (`cmd->directive->parent`).
#[derive(Clone, Copy)]
pub(crate) struct Place<'a> {
    pub(crate) path: CmdPath<'a>,
    /// The lines of the body holding the line (a `<Limit>` inside the record, flattened when
    /// read).
    siblings: &'a [Node],
    /// Whether `siblings` are the whole record (not the body of a `<Limit>` in it).
    whole_record: bool,
    /// The lines of the server the line configures, sections and all.
    server: &'a [Node],
    /// The section whose body holds the line, if any.
    parent: Option<&'a Node>,
}

impl<'a> Place<'a> {
    /// The top of `cfg`: the main server's lines (or an .htaccess file's).
    pub(crate) fn top(cfg: &'a Config, htaccess: bool) -> Place<'a> {
        let path = if htaccess { CmdPath::Htaccess } else { CmdPath::None };
        Place { path, siblings: &cfg.nodes, whole_record: true, server: &cfg.nodes, parent: None }
    }
    /// Where the lines in `section`'s body are read.
    pub(crate) fn inside(self, section: &'a Node) -> Place<'a> {
        let transparent = section.is_section() && matches!(section.known(), "Limit" | "LimitExcept");
        let server =
            if section.is_section() && section.known() == "VirtualHost" { &section.children } else { self.server };
        Place {
            path: self.path.inside(section),
            siblings: &section.children,
            whole_record: !transparent,
            server,
            parent: Some(section),
        }
    }
    /// The lines of the record before `n` (those in a `<Limit>` among them too), when the
    /// record is known whole.
    fn earlier(self, n: &Node) -> Option<Vec<&'a Node>> {
        if !self.whole_record {
            return None;
        }
        let at = self.siblings.iter().position(|s| std::ptr::eq(s, n))?;
        let mut out = vec![];
        for s in &self.siblings[..at] {
            if s.is_section() && matches!(s.known(), "Limit" | "LimitExcept") {
                out.extend(s.children.iter());
            } else {
                out.push(s);
            }
        }
        Some(out)
    }
    /// The server's lines before `n`, in file order, each with whether it lies inside a
    /// section of the server (other servers' `<VirtualHost>` bodies left out); None when `n`
    /// is not among them. (A walk of the server: for a line already refused, not for every
    /// line.)
    fn earlier_in_server(self, n: &Node) -> Option<Vec<(&'a Node, bool)>> {
        let mut out = vec![];
        let mut stack: Vec<(&'a Node, bool)> = self.server.iter().rev().map(|c| (c, false)).collect();
        while let Some((node, nested)) = stack.pop() {
            if std::ptr::eq(node, n) {
                return Some(out);
            }
            out.push((node, nested));
            if node.is_section() && node.known() != "VirtualHost" {
                stack.extend(node.children.iter().rev().map(|c| (c, true)));
            }
        }
        None
    }
}

/// What httpd says of `n`'s arguments, if it refuses them, where `place` says it is read.
pub(crate) fn refusal(cfg: &Config, n: &Node, place: Place, loaded: &mut super::ModulesLoaded) -> Option<String> {
    if n.kind != NodeKind::Directive {
        return None;
    }
    if let Some(accepts) = n.directive_id.and_then(values::accepts) {
        let d = n.directive()?;
        // (Memoised per directive; a fragment, whose modules are not known, assumes Debian's.)
        if !loaded.of(d) && (cfg.modules_known || !cfg.module_loaded(d.module)) {
            return None;
        }
        return described_refusal(cfg, n, d, accepts, place);
    }
    // The words, copied only for the directives read here (every directive passes by).
    let words = || iterated(n, n.arg_strings());
    match n.known() {
        "ServerName" => {
            let args = words();
            let [arg] = &args[..] else { return None };
            if fnmatch_test(arg) {
                return Some(format!("Invalid ServerName \"{arg}\" use ServerAlias to set multiple server names."));
            }
            let rest = arg.find("://").map_or(arg.as_str(), |i| &arg[i + 3..]);
            let port = rest.find(':').map(|i| atoi(&rest[i + 1..]))?;
            (!(1..=65535).contains(&port))
                .then(|| format!("The port number \"{arg}\" is outside the appropriate range (i.e., 1..65535)."))
        }
        name @ ("ProxyPass" | "ProxyPassMatch") if cfg.module_loaded("proxy_module") => {
            let args = words();
            proxy_pass_refusal(cfg, n, name == "ProxyPassMatch", &args, place)
        }
        "BalancerMember" if cfg.module_loaded("proxy_module") => balancer_member_refusal(cfg, n, &words(), place),
        "ProxySet" if cfg.module_loaded("proxy_module") => proxy_set_refusal(cfg, n, &words(), place),
        name @ ("Header" | "RequestHeader") if cfg.module_loaded("headers_module") => {
            let args = words();
            header_refusal(name, &args).or_else(|| header_format_refusal(cfg, name == "Header", &args))
        }
        name @ ("RewriteRule" | "RewriteCond") if cfg.module_loaded("rewrite_module") => {
            // (`parseargline`: a quote ends a quoted word, a backslash before it or not.)
            if super::regex_compile::rewrite_line_refused(n.raw_args()) {
                return Some(format!("{name}: bad argument line '{}'", n.raw_args().trim()));
            }
            let (_, _, flags) = super::regex_compile::rewrite_words(n.raw_args())?;
            super::rewrite_flags::refusal(name == "RewriteRule", flags?).map(|why| format!("{name}: {why}"))
        }
        // `cmd_rewritebase`: per-directory only (a path set), then a URL path.
        "RewriteBase" if cfg.module_loaded("rewrite_module") => {
            if !place.path.is_set() {
                return Some("RewriteBase: only valid in per-directory config files".to_string());
            }
            let args = words();
            let [url] = &args[..] else { return None };
            // (An empty word is no argument at all to TAKE1: the arity check's.)
            (!url.is_empty() && !url.starts_with('/')).then(|| "RewriteBase: argument is not a valid URL".to_string())
        }
        "AllowOverride" => words().iter().find_map(|w| allow_override_refusal(w)),
        "AllowOverrideList" => {
            let args = words();
            (args.len() > 1 && args.iter().any(|w| w.eq_ignore_ascii_case("None")))
                .then(|| "'None' not allowed with other directives in AllowOverrideList".to_string())
        }
        name @ ("RemoteIPTrustedProxy" | "RemoteIPInternalProxy") if cfg.module_loaded("remoteip_module") => {
            // Each word in turn (ITERATE): the first httpd refuses stops the line.
            words()
                .iter()
                .find_map(|w| remoteip_proxy(w).map(|why| format!("RemoteIP: Error parsing IP {w} {why} for {name}")))
        }
        "RemoteIPProxyProtocolExceptions" if cfg.module_loaded("remoteip_module") => {
            // (No word at all: "… requires an argument", the arity check's.)
            words().iter().find_map(|w| {
                let (addr, mask) = w.split_once('/').map_or((w.as_str(), None), |(a, m)| (a, Some(m)));
                match IpSubnet::create(addr, mask) {
                    Ok(_) => None,
                    Err(AddrError::NotAnIp) => Some(format!("ip address '{addr}' appears to be invalid")),
                    Err(e) => Some(format!("ip address '{addr}' appears to be invalid: {}", e.apr_message())),
                }
            })
        }
        "ServerAlias" if in_main_server(cfg, place) => Some("ServerAlias only used in <VirtualHost>".to_string()),
        "Listen" if in_main_server(cfg, place) => listen_refusal(n.arg_strings()),
        "Error" => Some(super::error_directive::message(n.raw_args())),
        "Mutex" if in_main_server(cfg, place) => module_words::mutex_refusal(cfg, &n.arg_strings()),
        "IndexOptions" if arity_ok(n) && cfg.module_loaded("autoindex_module") => {
            module_words::index_options_refusal(n, &n.arg_strings(), place)
        }
        "SSLSessionCache" if arity_ok(n) && in_main_server(cfg, place) && cfg.module_loaded("ssl_module") => {
            module_words::ssl_session_cache_refusal(cfg, n.arg(0)?)
        }
        "SSLRandomSeed" if arity_ok(n) && in_main_server(cfg, place) && cfg.module_loaded("ssl_module") => {
            module_words::ssl_random_seed_refusal(&words())
        }
        "SSLPassPhraseDialog" if arity_ok(n) && in_main_server(cfg, place) && cfg.module_loaded("ssl_module") => {
            module_words::ssl_pass_phrase_dialog_refusal(n.arg(0)?)
        }
        // `set_user_dir`: RAW_ARGS, so no word at all reaches the handler, which refuses it.
        "UserDir" if arity_ok(n) && cfg.module_loaded("userdir_module") => {
            n.arg(0).is_none_or(str::is_empty).then(|| "UserDir requires an argument.".to_string())
        }
        "VirtualDocumentRoot" | "VirtualDocumentRootIP" | "VirtualScriptAlias" | "VirtualScriptAliasIP"
            if arity_ok(n) && cfg.module_loaded("vhost_alias_module") =>
        {
            module_words::vhost_alias_refusal(n.arg(0)?)
        }
        "SubstituteMaxLineLength" if arity_ok(n) && cfg.module_loaded("substitute_module") => {
            module_words::substitute_max_line_length_refusal(n.arg(0)?)
        }
        "Dav" if arity_ok(n) && cfg.module_loaded("dav_module") => module_words::dav_refusal(cfg, n.arg(0)?),
        "RewriteMap" if arity_ok(n) && cfg.module_loaded("rewrite_module") => {
            module_words::rewrite_map_refusal(cfg, n.arg(1)?)
        }
        name @ ("SSLProtocol" | "SSLProxyProtocol") if cfg.module_loaded("ssl_module") => {
            ssl_protocol_refusal(name, &words())
        }
        // (Validated with the access rules.)
        "AuthzSendForbiddenOnFailure" => None,
        // `set_error_document`: `atoi` of the first word must be a status httpd has a line for
        // (`ap_index_of_response`). Only what lies outside 100..599 is judged here; the gaps
        // inside the classes are not.
        "ErrorDocument" => {
            let code = n.arg(0)?;
            (n.args().len() == 2 && !(100..600).contains(&atoi(code)))
                .then(|| format!("Unsupported HTTP response code {code}"))
        }
        // mod_ssl's `ssl_cmd_SSLOptions`: each word an option (case aside), after an optional sign.
        "SSLOptions" if cfg.module_loaded("ssl_module") => words().iter().find_map(|w| {
            let name = w.strip_prefix(['+', '-']).unwrap_or(w);
            let known = SSL_OPTIONS.iter().any(|o| o.eq_ignore_ascii_case(name));
            (!known).then(|| format!("SSLOptions: Illegal option '{name}'"))
        }),
        "RewriteOptions" if cfg.module_loaded("rewrite_module") => words().iter().find_map(|w| {
            // `cmd_rewriteoptions`: names case aside, `MaxRedirects=` (ignored, with a warning).
            let known = REWRITE_OPTIONS.iter().any(|o| o.eq_ignore_ascii_case(w))
                || w.get(..13).is_some_and(|p| p.eq_ignore_ascii_case("MaxRedirects="));
            (!known).then(|| format!("RewriteOptions: unknown option '{w}'"))
        }),
        // mod_ssl's `ssl_cmd_verify_parse` (`strcEQ`: case aside).
        name @ ("SSLVerifyClient" | "SSLProxyVerify") if cfg.module_loaded("ssl_module") => {
            let arg = n.arg(0)?;
            let known = ["none", "off", "optional", "require", "on", "optional_no_ca"]
                .iter()
                .any(|k| k.eq_ignore_ascii_case(arg));
            (!known).then(|| format!("{name}: Invalid argument '{arg}'"))
        }
        "CustomLog" if cfg.module_loaded("log_config_module") => custom_log_refusal(&words()),
        "ExpiresDefault" if cfg.module_loaded("expires_module") => {
            let code = n.arg(0)?;
            expires_code_refusal(code).map(|why| format!("'ExpiresDefault {code}': {why}"))
        }
        "ExpiresByType" if cfg.module_loaded("expires_module") => {
            let args = words();
            let [mime, code] = &args[..] else { return None };
            if !mime.contains('/') {
                return Some("Invalid mimetype: should contain a slash".to_string());
            }
            expires_code_refusal(code).map(|why| format!("'ExpiresByType {mime} {code}': {why}"))
        }
        "AddOutputFilterByType" if cfg.modules_known && n.directive().is_some_and(|d| loaded.of(d)) => {
            add_output_filter_by_type_refusal(cfg, n, &n.arg_strings())
        }
        "RequestReadTimeout" if cfg.module_loaded("reqtimeout_module") => {
            n.arg_strings().iter().find_map(|w| request_read_timeout_refusal(w))
        }
        "ProxyPassReverse" if cfg.module_loaded("proxy_module") => {
            // `add_pass_reverse`: the path is the section's, or the first of two words (a
            // second word `interpolate` is a flag, not the URL).
            let args = words();
            let url = args.get(1).filter(|w| !w.eq_ignore_ascii_case("interpolate"));
            match (place.path.is_set(), url) {
                (false, None) if !args.is_empty() => {
                    Some("ProxyPassReverse needs a path when not defined in a location".to_string())
                }
                (true, Some(_)) => Some("ProxyPassReverse can not have a path when defined in a location".to_string()),
                _ => None,
            }
        }
        "Substitute" if cfg.module_loaded("substitute_module") => substitute_refusal(n.arg(0)?),
        name @ ("AuthBasicProvider" | "AuthDigestProvider" | "AuthFormProvider")
            if cfg.modules_known && n.directive().is_some_and(|d| loaded.of(d)) =>
        {
            authn_provider_refusal(cfg, name, &words())
        }
        // `ssl_cmd_SSLCompression`: OpenSSL built without compression methods (the default
        // since 1.1.0, Debian's included) refuses `on` in any context.
        "SSLCompression" if cfg.module_loaded("ssl_module") => {
            words().first().filter(|w| w.eq_ignore_ascii_case("on")).map(|_| SSL_NO_COMPRESSION.to_string())
        }
        _ => flag_refusal(cfg, n, words),
    }
}

/// Whether `invoke_cmd` hands `n`'s words to its handler (a count it refuses is the arity
/// check's).
fn arity_ok(n: &Node) -> bool {
    n.directive().is_some_and(|d| crate::ide::catalogue::check_arg_words(d.args, n.args()).is_none())
}

/// Whether a line is read by the main server itself, outside any section with a path (where
/// the handlers of server-wide directives run rather than the context check refusing them
/// first), in a configuration read whole.
pub(super) fn in_main_server(cfg: &Config, place: Place) -> bool {
    cfg.modules_known && matches!(place.path, CmdPath::None) && std::ptr::eq(place.server, cfg.nodes.as_slice())
}

/// mod_reqtimeout's `set_reqtimeouts` on one word: `key=value`, the key a stage, the value a
/// timeout, or `initial-max,MinRate=rate` (`set_reqtimeout_param`), each number as `parse_int`
/// reads it (`strtol`, the whole string, not negative).
fn request_read_timeout_refusal(word: &str) -> Option<String> {
    let Some((key, value)) = word.split_once('=') else {
        return Some("Invalid RequestReadTimeout parameter. Parameter must be in the form 'key=value'".to_string());
    };
    let why = (|| {
        if !["handshake", "header", "body"].iter().any(|k| k.eq_ignore_ascii_case(key)) {
            return Some("Unknown RequestReadTimeout parameter".to_string());
        }
        let parse_int = |s: &str| -> Result<i64, String> {
            match strtol(s) {
                (_, 0) => Err(format!("Value '{s}' not numerical")),
                (_, end) if end < s.len() => Err(format!("Cannot parse '{}'", &s[end..])),
                (v, _) if v.is_some_and(|v| v < 0) => Err("Value must be non-negative".to_string()),
                (v, _) => Ok(v.unwrap_or(0)),
            }
        };
        const MINRATE: &str = ",minrate=";
        let at = value.to_ascii_lowercase().find(MINRATE);
        let (timeout, max) = match at {
            Some(at) => {
                let rate = parse_int(&value[at + MINRATE.len()..]);
                match rate {
                    Err(e) => return Some(e),
                    Ok(0) => return Some("Minimum data rate must be larger than 0".to_string()),
                    Ok(_) => {}
                }
                let initial = &value[..at];
                match initial.split_once('-') {
                    Some((t, m)) => (t, Some(parse_int(m))),
                    None => (initial, None),
                }
            }
            None if value.contains('-') => return Some("Must set MinRate option if using timeout range".to_string()),
            None => (value, None),
        };
        let max = match max {
            Some(Err(e)) => return Some(e),
            Some(Ok(m)) => m,
            None => 0,
        };
        match parse_int(timeout) {
            Err(e) => Some(e),
            Ok(t) if max != 0 && t >= max => Some("Maximum timeout must be larger than initial timeout".to_string()),
            Ok(_) => None,
        }
    })()?;
    Some(format!("RequestReadTimeout: {key}={value}: {why}"))
}

/// Output filters of httpd's own modules that `AddOutputFilterByType` names, and the module that
/// registers each (`ap_register_output_filter`; names are compared case aside). A name not here
/// may come from `FilterDeclare`, `ExtFilterDefine`, mod_lua or another module, and is not judged.
const OUTPUT_FILTERS: &[(&str, &str)] = &[
    ("DEFLATE", "deflate_module"),
    ("INFLATE", "deflate_module"),
    ("BROTLI_COMPRESS", "brotli_module"),
    ("SUBSTITUTE", "substitute_module"),
    ("INCLUDES", "include_module"),
    ("Sed", "sed_module"),
    ("DATA", "data_module"),
    ("RATE_LIMIT", "ratelimit_module"),
    ("BUFFER", "buffer_module"),
    ("xml2enc", "xml2enc_module"),
    ("proxy-html", "proxy_html_module"),
];

/// mod_filter's `filter_bytype`: two words at least (`TAKE_ARGV` drops a last empty word),
/// then each `;`-separated filter a loaded
/// module registers (`add_filter`: "Unknown filter provider").
fn add_output_filter_by_type_refusal(cfg: &Config, n: &Node, args: &[String]) -> Option<String> {
    if args.len() - usize::from(args.last().is_some_and(String::is_empty)) < 2 {
        return Some("AddOutputFilterByType requires at least two arguments".to_string());
    }
    args[0].split(';').filter(|f| !f.is_empty()).find_map(|f| {
        let unknown = match OUTPUT_FILTERS.iter().find(|(name, _)| name.eq_ignore_ascii_case(f)) {
            Some((_, module)) => !cfg.modules.contains(module),
            None => registered_by_no_one(cfg, n, f),
        };
        unknown.then(|| format!("Unknown filter provider {f}"))
    })
}

/// Output filters httpd's other modules and its core register (any version of 2.4; registered
/// whether or not a configuration names them), which `AddOutputFilterByType` accepts as
/// providers when their module is loaded; not judged here.
const OTHER_OUTPUT_FILTERS: &[&str] = &[
    "CONTENT_LENGTH",
    "CORE",
    "SUBREQ_CORE",
    "OLD_WRITE",
    "HTTP_HEADER",
    "CHUNK",
    "HTTP_OUTERROR",
    "BYTERANGE",
    "CACHE",
    "CACHE_SAVE",
    "CACHE_SAVE_SUBREQ",
    "CACHE_OUT",
    "CACHE_OUT_SUBREQ",
    "CACHE_REMOVE_URL",
    "CACHE_INVALIDATE",
    "BUCKETEER",
    "DUMPIO_OUT",
    "CaseFilter",
    "XLATEOUT",
    "reqtimeout",
    "LOGIO_TTFB_OUT",
    "MOD_EXPIRES",
    "FIXUP_HEADERS_OUT",
    "FIXUP_HEADERS_ERR",
    "PROXY_SEND_DIR",
    "MOD_SESSION_OUT",
    "SSL/TLS Coalescing Filter",
    "SSL/TLS Filter",
    "UPGRADE_FILTER",
];

/// Whether no module can have registered output filter `name` (`ap_get_output_filter_handle`,
/// case aside) by the time httpd reads line `line`: no filter of httpd's modules has it, every
/// loaded module is one of httpd's own (another may register anything), and no `ExtFilterDefine`
/// or `LuaOutputFilter` line before (which register a filter as httpd reads them) names it. A
/// `FilterDeclare` registers none.
fn registered_by_no_one(cfg: &Config, line: &Node, name: &str) -> bool {
    let httpd_module =
        |id: &str| id == "core_module" || crate::ide::catalogue::modules().iter().any(|m| m.identifier == id);
    // (mod_http2's filters are named H2_… and vary between releases.)
    let h2 = name.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("H2_"));
    !h2 && !OTHER_OUTPUT_FILTERS.iter().any(|n| n.eq_ignore_ascii_case(name))
        && cfg.modules.iter().all(httpd_module)
        && !cfg.walk().take_while(|n| !std::ptr::eq(*n, line)).any(|n| {
            (n.is("ExtFilterDefine") || n.is("LuaOutputFilter"))
                && n.arg(0).is_some_and(|a| a.eq_ignore_ascii_case(name))
        })
}

/// mod_log_config's `add_custom_log`: a third word is a condition, `env=` or `expr=` and not
/// empty after it. (The expression itself is `expr_syntax`'s.)
fn custom_log_refusal(args: &[String]) -> Option<String> {
    let clause = args.get(2)?;
    let after = |prefix: &str| {
        clause.get(..prefix.len()).filter(|p| p.eq_ignore_ascii_case(prefix)).map(|_| &clause[prefix.len()..])
    };
    if let Some(var) = after("env=") {
        matches!(var, "" | "!").then(|| "missing environment variable name".to_string())
    } else if let Some(expr) = after("expr=") {
        expr.is_empty().then(|| "missing condition".to_string())
    } else {
        Some("error in condition clause".to_string())
    }
}

/// mod_expires's `check_code`: a code starting with `A` or `M` is taken as written (the old
/// `A3600` form); else `<base> [plus] {<num> <type>}*`, each keyword known by its first letter
/// (two for `mo`nths and `mi`nutes), each number starting with a digit.
fn expires_code_refusal(code: &str) -> Option<String> {
    // (An empty code is no argument at all: the arity check's.)
    if code.is_empty() || code.starts_with(['A', 'M']) {
        return None;
    }
    let mut words = apache_syntax::words(code);
    let mut next = move || words.next().map(|w| w.to_string()).unwrap_or_default();
    // strncasecmp(word, keyword, n): the first n bytes equal, case aside (a shorter word differs).
    let starts =
        |w: &str, k: &str, n: usize| w.len() >= n && w.as_bytes()[..n].eq_ignore_ascii_case(&k.as_bytes()[..n]);
    let base = next();
    if !(starts(&base, "now", 1) || starts(&base, "access", 1) || starts(&base, "modification", 1)) {
        return Some(format!("bad expires code, unrecognised <base> '{base}'"));
    }
    let mut word = next();
    if starts(&word, "plus", 1) {
        word = next();
    }
    while !word.is_empty() {
        if !word.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(format!("bad expires code, numeric value expected <num> '{word}'"));
        }
        let unit = next();
        if unit.is_empty() {
            return Some("bad expires code, missing <type>".to_string());
        }
        let units =
            [("years", 1), ("months", 2), ("weeks", 1), ("days", 1), ("hours", 1), ("minutes", 2), ("seconds", 1)];
        if !units.iter().any(|(k, n)| starts(&unit, k, *n)) {
            return Some(format!("bad expires code, unrecognised <type>'{unit}'"));
        }
        word = next();
    }
    None
}

/// mod_substitute's `set_pattern`: `s`, a delimiter, a non-empty pattern and a replacement each
/// ended by the delimiter, then only the flags `i`, `n`, `f` and `q` (case aside).
fn substitute_refusal(line: &str) -> Option<String> {
    let b = line.as_bytes();
    if !b.first().is_some_and(|c| c.eq_ignore_ascii_case(&b's')) {
        return Some("Bad Substitute format, must be an s/// pattern".to_string());
    }
    let incomplete = || Some("Bad Substitute format, must be a complete s/// pattern".to_string());
    let Some(&delim) = b.get(1) else { return incomplete() };
    // The end of the part starting at `from`: the next delimiter (the part's first byte
    // included in the search only when it is one).
    let end = |from: usize| {
        if b.get(from) == Some(&delim) {
            Some(from)
        } else {
            (from + 1..b.len()).find(|&i| b[i] == delim)
        }
    };
    let Some(pattern_end) = end(2) else { return incomplete() };
    if pattern_end == 2 {
        return incomplete();
    }
    let flags = match end(pattern_end + 1) {
        Some(replacement_end) => &b[replacement_end + 1..],
        None => &[][..],
    };
    flags
        .iter()
        .any(|f| !matches!(f.to_ascii_lowercase(), b'i' | b'n' | b'f' | b'q'))
        .then(|| "Bad Substitute flag, only s///[infq] are supported".to_string())
}

/// The options mod_ssl's `SSLOptions` knows (httpd 2.4.71).
const SSL_OPTIONS: &[&str] =
    &["StdEnvVars", "ExportCertData", "FakeBasicAuth", "StrictRequire", "OptRenegotiate", "LegacyDNStringFormat"];

/// The options mod_rewrite's `cmd_rewriteoptions` knows (httpd 2.4.71).
const REWRITE_OPTIONS: &[&str] = &[
    "inherit",
    "inheritbefore",
    "inheritdown",
    "inheritdownbefore",
    "ignoreinherit",
    "allownoslash",
    "allowanyuri",
    "mergebase",
    "ignorecontextinfo",
    "legacyprefixdocroot",
    "UnsafePrefixStat",
];

/// mod_auth_basic's, mod_auth_digest's and mod_auth_form's `add_authn_provider`: each word names
/// a provider some loaded module registered (or an `<AuthnProviderAlias>`), exact case; Digest
/// needs one that can give a realm's hash (not `anon`'s nor `ldap`'s).
fn authn_provider_refusal(cfg: &Config, name: &str, args: &[String]) -> Option<String> {
    use crate::ide::policy::authn::authn_provider_module;
    args.iter().take_while(|w| !w.is_empty()).find_map(|w| {
        let module = authn_provider_module(w);
        if module.is_some_and(|m| cfg.modules.contains(m)) {
            (name == "AuthDigestProvider" && crate::ide::policy::authn::without_realm_hash(w))
                .then(|| format!("The '{w}' Authn provider doesn't support Digest Authentication"))
        } else if cfg.index().ctx.extra_authn_providers.contains(w.as_str()) {
            None
        } else {
            Some(format!("Unknown Authn provider: {w}"))
        }
    })
}

/// `ap_set_listener` on the words `invoke_cmd` hands a `TAKE_ARGV` handler (a last empty word
/// dropped): one or two, the first an address [`listen_address`] reads, with a port.
fn listen_refusal(mut args: Vec<String>) -> Option<String> {
    if args.last().is_some_and(String::is_empty) {
        args.pop();
    }
    if args.is_empty() || args.len() > 2 {
        return Some("Listen requires 1 or 2 arguments.".to_string());
    }
    listen_address(&args[0]).err()
}

/// What a `Listen` word listens on: host (None for any, `*` or none), scope and port, as
/// `ap_set_listener` reads it with `apr_parse_addr_port`; or the words httpd refuses it with.
/// A host with a colon that is no IPv6 address (`Listen ::1` reads as host `:`, port 1) is
/// refused when `alloc_listener` looks it up (AH00077); other names are not looked up here.
pub(super) fn listen_address(word: &str) -> Result<(Option<&str>, Option<&str>, u16), String> {
    let invalid = || "Invalid address or port".to_string();
    let (host, scope, port) = apr_parse_addr_port(word).ok_or_else(invalid)?;
    let host = host.filter(|h| *h != "*");
    if port == 0 {
        return Err("Port must be specified".to_string());
    }
    if let Some(h) = host {
        if h.contains(':') && !word.starts_with('[') && h.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!(
                "alloc_listener: failed to set up sockaddr for {h} (AH00077; `{word}` reads as host `{h}`, port {port}: an IPv6 address needs brackets, [::1]:80): Listen setup failed"
            ));
        }
    }
    Ok((host, scope, port))
}

/// APR's `apr_parse_addr_port`: the port is the digits ending the word, alone or after a colon
/// (`atoi`, 1..65535); without them the whole word is the host and the port 0; a host in
/// brackets must be an IPv6 address, with an optional `%scope`. None where APR refuses it.
fn apr_parse_addr_port(s: &str) -> Option<(Option<&str>, Option<&str>, u16)> {
    let digits = s.len() - s.bytes().rev().take_while(u8::is_ascii_digit).count();
    let in_range = |p: &str| u16::try_from(atoi(p)).ok().filter(|&p| p >= 1);
    if digits == 0 {
        return Some((None, None, in_range(s)?));
    }
    let (host, port) = match s[..digits].strip_suffix(':') {
        Some(host) if digits < s.len() => {
            if host.is_empty() {
                return None;
            }
            (host, in_range(&s[digits..])?)
        }
        _ => (s, 0),
    };
    let Some(inner) = host.strip_prefix('[') else { return Some((Some(host), None, port)) };
    let inner = inner.strip_suffix(']')?;
    if inner.contains(']') {
        return None;
    }
    let (addr, scope) = match inner.split_once('%') {
        Some((_, "")) => return None,
        Some((a, z)) => (a, Some(z)),
        None => (inner, None),
    };
    addr.parse::<std::net::Ipv6Addr>().ok()?;
    Some((Some(addr), scope, port))
}

/// mod_ssl's `ssl_cmd_protocol_parse` (`SSLProtocol`, `SSLProxyProtocol`): each word, after an
/// optional `+` or `-`, one of the protocol names, case aside (`strcEQ`); `SSLv2` and `SSLv3`
/// only after a `-`.
fn ssl_protocol_refusal(name: &str, args: &[String]) -> Option<String> {
    for word in args {
        let (minus, bare) = match word.strip_prefix(['+', '-']) {
            Some(rest) => (word.starts_with('-'), rest),
            None => (false, word.as_str()),
        };
        let is = |name: &str| bare.eq_ignore_ascii_case(name);
        if is("SSLv2") {
            if minus {
                continue;
            }
            return Some("SSLProtocol: SSLv2 is no longer supported".to_string());
        }
        // (OpenSSL has been built without SSLv3 by default since 1.1.0, Debian's too:
        // `OPENSSL_NO_SSL3`.)
        if is("SSLv3") {
            if minus {
                continue;
            }
            return Some("SSLv3 not supported by this version of OpenSSL".to_string());
        }
        if !["TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3", "all"].iter().any(|p| is(p)) {
            return Some(format!("{name}: Illegal protocol '{bare}'"));
        }
    }
    None
}

/// mod_proxy's `add_pass`: the words in the order it takes them (outside a section the first
/// is the path, the second the target; inside one the section gives the path and the first
/// word is the target; `mapping=` is judged as it is read), then the back-end URL
/// ([`url_refusal`]), then the parameters of the balancer or worker it names
/// ([`proxy_params_refusal`]; none for `!`).
fn proxy_pass_refusal(cfg: &Config, n: &Node, is_regex: bool, args: &[String], place: Place) -> Option<String> {
    let has_path = place.path.is_set();
    let mut path = has_path;
    let mut target: Option<&str> = None;
    let mut params: Vec<(&str, &str)> = vec![];
    for word in args {
        if !path {
            if word == "~" {
                if is_regex {
                    return Some("ProxyPassMatch invalid syntax ('~' usage).".to_string());
                }
                continue;
            }
            path = true;
        } else if let Some(target) = target {
            if ["nocanon", "interpolate", "noquery"].iter().any(|k| word.eq_ignore_ascii_case(k)) {
                continue;
            }
            if let Some((key, value)) = word.split_once('=') {
                if key.eq_ignore_ascii_case("mapping") {
                    if !value.eq_ignore_ascii_case("encoded") && !value.eq_ignore_ascii_case("servlet") {
                        return Some("unknown mapping".to_string());
                    }
                } else {
                    params.push((key, value));
                }
                continue;
            }
            return Some(if has_path && target.starts_with('/') {
                "ProxyPass|ProxyPassMatch can not have a path when defined in a location.".to_string()
            } else {
                "Invalid ProxyPass|ProxyPassMatch parameter. Parameter must be in the form 'key=value'.".to_string()
            });
        } else {
            target = Some(word);
        }
    }
    let Some(url) = target else {
        return Some("ProxyPass|ProxyPassMatch needs a path when not defined in a location".to_string());
    };
    // (`!` excludes the path; its parameters are read and never applied.)
    if url == "!" {
        return None;
    }
    let balancer = is_balancer(url);
    if !balancer {
        // (An invalid `unix:` URL is reported under both names, as add_pass words it.)
        let who = |why: &str| if why == INVALID_UNIX { "ProxyPass|ProxyPassMatch" } else { "ProxyPass" };
        if let Some(why) = url_refusal(url) {
            return Some(format!("{} {why}", who(&why)));
        }
    }
    // (A regex path is compiled first: the regex check's.)
    let why = proxy_params_refusal(cfg, balancer, &deduplicated(&params), place, n)?;
    // A worker whose URL an earlier one of the server may take is shared, its parameters
    // ignored (`ap_proxy_get_worker_ex`); a balancer takes them all.
    (balancer || !may_share_worker(place, n, url)).then(|| format!("ProxyPass {why}"))
}

/// mod_proxy's `add_member`: the balancer (the section's path, or the first word that is no
/// `key=value`), the member's URL (the next), the worker's parameters.
fn balancer_member_refusal(cfg: &Config, n: &Node, args: &[String], place: Place) -> Option<String> {
    let has_path = place.path.is_set();
    let (mut path, mut name) = (has_path, None::<&str>);
    let mut params: Vec<(&str, &str)> = vec![];
    for word in args {
        if let Some((key, value)) = word.split_once('=') {
            params.push((key, value));
        } else if !path {
            path = true;
        } else if name.is_none() {
            name = Some(word);
        } else if has_path {
            return Some("BalancerMember can not have a balancer name when defined in a location".to_string());
        } else {
            return Some("Invalid BalancerMember parameter. Parameter must be in the form 'key=value'".to_string());
        }
    }
    if !path {
        return Some("BalancerMember must define balancer name when outside <Proxy > section".to_string());
    }
    let url = name?;
    if let Some(why) = url_refusal(url) {
        return Some(format!("BalancerMember {why}"));
    }
    let why = proxy_params_refusal(cfg, false, &deduplicated(&params), place, n)?;
    (!may_share_worker(place, n, url)).then(|| format!("BalancerMember {why}"))
}

/// mod_proxy's `set_proxy_param`. Directly inside a `<Proxy>` or `<ProxyMatch>` section the
/// section names the worker or balancer, which is defined if it is not yet; elsewhere the
/// first word names one that must exist already ([`proxy_set_unknown`]). Then each
/// `key=value` in order.
fn proxy_set_refusal(cfg: &Config, n: &Node, args: &[String], place: Place) -> Option<String> {
    let parent = place.parent.filter(|p| p.is_section() && matches!(p.known(), "Proxy" | "ProxyMatch"));
    let (name, args) = match parent {
        Some(parent) => {
            let name = parent.args().first()?;
            (name.split('>').next().unwrap_or(name), args)
        }
        // (A conditional section between the line and a `<Proxy>` is dissolved as httpd builds
        // the tree, the `<Proxy>` becoming the parent: not judged.)
        None if place.parent.is_some_and(|p| p.known().starts_with("If")) => return None,
        None => {
            let (name, rest) = args.split_first()?;
            if let Some(why) = proxy_set_unknown(cfg, n, name) {
                return Some(why);
            }
            (name.as_str(), rest)
        }
    };
    let balancer = is_balancer(name);
    // A `<Proxy>` URL httpd cannot define a worker for is refused first (`<Proxy *>`: no URL
    // httpd finds a worker by). A `<ProxyMatch>` pattern is read as a URL too, its `$n`
    // references aside (`ap_proxy_define_worker_ex` moves them out of the port): a pattern
    // with a `$` is not judged.
    let pattern = parent.is_some_and(|p| p.known() == "ProxyMatch");
    let judged = parent.is_some() && !balancer && !(pattern && name.contains('$'));
    if judged {
        if let Some(why) = url_refusal(name) {
            return Some(format!("ProxySet {why}"));
        }
    }
    for word in args {
        let Some((key, value)) = word.split_once('=') else {
            return Some("Invalid ProxySet parameter. Parameter must be in the form 'key=value'".to_string());
        };
        if let Some(why) = proxy_params_refusal(cfg, balancer, &[(key, value)], place, n) {
            return Some(format!("ProxySet: {why} {key}={value}; {name}"));
        }
    }
    None
}

/// `ProxySet NAME …` outside a `<Proxy>` section: httpd looks the worker or balancer up among
/// those earlier lines defined and refuses the line when there is none. Refused only where
/// no earlier line of the whole configuration (any server) defines one of the same
/// `scheme://host[:port]` and none defines a pattern (`ProxyPassMatch`, `<ProxyMatch>`, `~`,
/// `$`): httpd's lookup is narrower (the same server, a name the URL starts with). The
/// configuration is walked only for a `ProxySet` outside a section, a rare line.
fn proxy_set_unknown(cfg: &Config, n: &Node, name: &str) -> Option<String> {
    if !cfg.modules_known {
        return None;
    }
    let key = worker_host(name);
    let mut stack: Vec<&Node> = cfg.nodes.iter().rev().collect();
    while let Some(node) = stack.pop() {
        if std::ptr::eq(node, n) {
            let what = if is_balancer(name) { "Balancer" } else { "Worker" };
            return Some(format!("ProxySet can not find '{name}' {what}."));
        }
        let defines = matches!(
            node.known(),
            "ProxyPass" | "ProxyPassMatch" | "BalancerMember" | "ProxySet" | "Proxy" | "ProxyMatch"
        );
        if defines
            && (matches!(node.known(), "ProxyPassMatch" | "ProxyMatch")
                || node.args().any(|w| w == "~" || w.contains('$') || (key.is_some() && worker_host(w) == key)))
        {
            return None;
        }
        stack.extend(node.children.iter().rev());
    }
    None
}

/// Whether `url` names a balancer (`ap_proxy_valid_balancer_name`: `balancer:`, case aside).
fn is_balancer(url: &str) -> bool {
    url.get(..9).is_some_and(|p| p.eq_ignore_ascii_case("balancer:"))
}

/// Parameters as `apr_table_setn` keeps them: one per key (case aside), where the key first
/// came, with the last value given.
fn deduplicated<'s>(params: &[(&'s str, &'s str)]) -> Vec<(&'s str, &'s str)> {
    let mut out: Vec<(&str, &str)> = vec![];
    for &(key, value) in params {
        match out.iter_mut().find(|(k, _)| k.eq_ignore_ascii_case(key)) {
            Some(kept) => kept.1 = value,
            None => out.push((key, value)),
        }
    }
    out
}

/// What `set_worker_param` (or `set_balancer_param`) says of the first parameter it refuses,
/// as [`values::proxy_param`] describes them. A key the worker's table does not know is
/// handed to mod_proxy_hcheck where it is (or may be) loaded: not judged.
fn proxy_params_refusal(
    cfg: &Config,
    balancer: bool,
    params: &[(&str, &str)],
    place: Place,
    n: &Node,
) -> Option<String> {
    params.iter().find_map(|&(key, value)| match values::proxy_param(balancer, key) {
        Some(accepts) => value_refusal(cfg, accepts, value),
        None if balancer => Some("unknown Balancer parameter".to_string()),
        None if !cfg.modules_known => None,
        None if !cfg.module_loaded("proxy_hcheck_module") => Some("unknown Worker parameter".to_string()),
        None => match values::hc_param(key) {
            None => Some("unknown Worker hcheck parameter".to_string()),
            Some(Accepts::Handler(h @ (Handler::HcExpr | Handler::HcTemplate))) => hc_name_refusal(*h, value, place, n),
            Some(accepts) => value_refusal(cfg, accepts, value),
        },
    })
}

/// `hcexpr=NAME` or `hctemplate=NAME`: mod_proxy_hcheck finds the name (case aside) among
/// those its `ProxyHCExpr` or `ProxyHCTemplate` lines defined earlier in the same server (its
/// configuration is per server, never merged: a virtual host does not see the main
/// server's). Not judged where the server's lines are not known.
fn hc_name_refusal(h: Handler, name: &str, place: Place, n: &Node) -> Option<String> {
    let defining = if h == Handler::HcExpr { "ProxyHCExpr" } else { "ProxyHCTemplate" };
    let earlier = place.earlier_in_server(n)?;
    let defined = earlier
        .iter()
        .any(|(e, _)| e.known() == defining && e.args().next().is_some_and(|w| w.eq_ignore_ascii_case(name)));
    (!defined).then(|| {
        if h == Handler::HcExpr {
            format!("Unknown health check condition expr: {name}")
        } else {
            format!("Unknown ProxyHCTemplate name: {name}")
        }
    })
}

/// Whether an earlier line of `n`'s server may have defined a worker httpd finds for `url`
/// and shares (`ap_proxy_get_worker_ex`: a worker whose name starts with the URL's
/// `scheme://host[:port]`, case aside, or one matched as a pattern): any earlier proxy line or
/// section naming the same `scheme://host[:port]`, or one whose worker is a pattern. Where the
/// server's lines are not known, it may.
fn may_share_worker(place: Place, n: &Node, url: &str) -> bool {
    let Some(earlier) = place.earlier_in_server(n) else { return true };
    let key = worker_host(url);
    earlier.iter().any(|(e, _)| {
        let defines = matches!(
            e.known(),
            "ProxyPass" | "ProxyPassMatch" | "BalancerMember" | "ProxySet" | "Proxy" | "ProxyMatch"
        );
        defines
            && (matches!(e.known(), "ProxyPassMatch" | "ProxyMatch")
                || e.args().any(|w| w == "~" || w.contains('$') || (key.is_some() && worker_host(w) == key)))
    })
}

/// A worker URL's `scheme://host[:port]` in lower case (after a `unix:…|`), as workers are
/// found by it; None when it has none.
fn worker_host(url: &str) -> Option<String> {
    let url = url.split('>').next().unwrap_or(url);
    let url = match url.get(..5) {
        Some(p) if p.eq_ignore_ascii_case("unix:") => url.split_once('|').map_or(url, |(_, u)| u),
        _ => url,
    };
    let at = url.find("://")?;
    let end = url[at + 3..].find('/').map_or(url.len(), |i| at + 3 + i);
    Some(url[..end].to_ascii_lowercase())
}

/// mod_headers' `header_cmd` and `header_inout_cmd` on a `Header`/`RequestHeader` line
/// (`name`), up to its value's format: the words (action, header, value, substitution,
/// condition, nothing more), the action, the words each action needs or refuses, and the
/// condition clause (`early`, `env=NAME`, `expr=…`). A regex the action compiles first
/// (`edit`'s value, `echo`'s header) that may fail leaves the rest to the regex check, and
/// an `expr=` condition is the expression check's.
fn header_refusal(name: &str, args: &[String]) -> Option<String> {
    let mut words = args.iter().map(String::as_str);
    let mut action = words.next().unwrap_or("");
    if name == "Header" && (action.eq_ignore_ascii_case("always") || action.eq_ignore_ascii_case("onsuccess")) {
        action = words.next().unwrap_or("");
    }
    let header = words.next().unwrap_or("");
    let (mut value, subs, clause) = (words.next(), words.next(), words.next());
    if words.next().is_some() {
        return Some(format!("{name} has too many arguments"));
    }
    let action = action.to_ascii_lowercase();
    let known = ["set", "setifempty", "add", "append", "merge", "unset", "echo", "edit", "edit*", "note"];
    if !known.contains(&action.as_str()) {
        return Some(
            "first argument must be 'add', 'set', 'setifempty', 'append', 'merge', 'unset', 'echo', 'note', 'edit', or 'edit*'."
                .to_string(),
        );
    }
    // (httpd 2.4.71 refuses `note` for request headers, which it could only copy from the
    // request to its own notes.)
    if name == "RequestHeader" && action == "note" {
        return Some("RequestHeader does not support the 'note' action".to_string());
    }
    let compiles = |re: &str| regex_syntax::Parser::new().parse(re).is_ok() && !pcre_refuses(re);
    let mut clause = clause;
    if action == "edit" || action == "edit*" {
        if subs.is_none() {
            return Some("Header edit requires a match and a substitution".to_string());
        }
        if !compiles(value?) {
            return None;
        }
    } else {
        if clause.is_some() {
            return Some("Too many arguments to directive".to_string());
        }
        clause = subs;
    }
    match action.as_str() {
        "unset" | "echo" => {
            if value.is_some() {
                if clause.is_some() {
                    return Some(if action == "unset" {
                        "header unset takes two arguments".to_string()
                    } else {
                        "Header echo takes two arguments".to_string()
                    });
                }
                clause = value.take();
            }
            if action == "echo" {
                if name != "Header" {
                    return Some("Header echo only valid on Header directives".to_string());
                }
                if !compiles(header) {
                    return None;
                }
            }
        }
        _ if value.is_none() => return Some("Header requires three arguments".to_string()),
        _ => {}
    }
    let clause = clause?;
    if clause.eq_ignore_ascii_case("early") || clause.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("expr=")) {
        return None;
    }
    match clause.get(..4).filter(|p| p.eq_ignore_ascii_case("env=")).map(|_| &clause[4..]) {
        // (httpd's message ends in a blank, left out.)
        Some("" | "!") => {
            Some("error: missing environment variable name. envclause should be in the form env=envar".to_string())
        }
        Some(_) => None,
        // (An empty word leaves the message ending in a blank, left out too.)
        None => Some(format!("Unknown parameter: {clause}").trim_end().to_string()),
    }
}

/// mod_headers' `parse_format_string` on the value of a `Header`/`RequestHeader` line (the
/// substitution of `edit`; none for `unset` and `echo`, nor for an `expr=` value), after the
/// words before it are taken (an unknown action, a missing value, a condition refused: other
/// refusals first). A `%` is followed by `%`, nothing, or an optional `{…}` and one of the
/// tags mod_headers registers.
fn header_format_refusal(cfg: &Config, outgoing: bool, args: &[String]) -> Option<String> {
    let (value, clause) = super::expr_syntax::header_line(outgoing, args)?;
    if clause.is_some_and(|c| !super::expr_syntax::header_condition_ok(cfg, c)) {
        return None;
    }
    let value = value?;
    if value.starts_with("expr=") {
        return None;
    }
    let b = value.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        match b.get(i) {
            None => break,
            Some(b'%') => {
                i += 1;
                continue;
            }
            Some(b'{') => {
                // (`ap_getword` to the `}`, every `}` after it skipped too.)
                i = b[i..].iter().position(|&c| c == b'}').map_or(b.len(), |at| i + at);
                while b.get(i) == Some(&b'}') {
                    i += 1;
                }
            }
            Some(_) => {}
        }
        // The tags mod_headers registers (`register_format_tag_handler`).
        if !b.get(i).is_some_and(|t| b"Dteslib".contains(t)) {
            // (The character after the `%` or the braces: none at the end, and a blank, which
            // httpd prints as such, left out.)
            let shown = value.get(i..).and_then(|r| r.chars().next()).filter(|c| !c.is_whitespace());
            let shown = shown.map_or(String::new(), String::from);
            return Some(format!("Unrecognized header format %{shown}"));
        }
        i += 1;
    }
    None
}

/// What the handler [`values::accepts`] describes says of `n`'s arguments, if it refuses them.
fn described_refusal(
    cfg: &Config,
    n: &Node,
    d: &crate::ide::catalogue::Directive,
    accepts: &Accepts,
    place: Place,
) -> Option<String> {
    // (A count `invoke_cmd` refuses never reaches the handler: the arity check's.)
    if crate::ide::catalogue::check_arg_words(d.args, n.args()).is_some() {
        return None;
    }
    let args = iterated(n, n.arg_strings());
    match *accepts {
        Accepts::Handler(h) => handler_refusal(cfg, n, h, &args, place),
        _ => args.iter().find_map(|a| value_refusal(cfg, accepts, a)),
    }
}

/// The words `invoke_cmd` hands an `ITERATE` (each) or `ITERATE2` (each after the first)
/// handler: those before the first empty one (`""`), where it stops without a word; and a
/// `TAKE12`/`TAKE123` handler its words without the empty ones at the end.
fn iterated(n: &Node, mut args: Vec<String>) -> Vec<String> {
    let skip = match n.directive().map(|d| d.args) {
        Some(ArgKind::Iterate) => 0,
        Some(ArgKind::Iterate2) => 1,
        // An empty optional word is handed to the handler as none (`*w2 ? w2 : NULL`).
        Some(ArgKind::Take12 | ArgKind::Take123) => {
            while args.len() > 1 && args.last().is_some_and(String::is_empty) {
                args.pop();
            }
            return args;
        }
        _ => return args,
    };
    if let Some(empty) = args.iter().skip(skip).position(String::is_empty) {
        args.truncate(skip + empty);
    }
    args
}

/// What a handler [`Accepts`] describes says of one value (an argument, or a proxy
/// parameter's value), if it refuses it; the handlers with rules of their own that read a
/// parameter's value ([`param_handler_refusal`]) too.
fn value_refusal(cfg: &Config, accepts: &Accepts, value: &str) -> Option<String> {
    match *accepts {
        Accepts::Word { words, refused } => {
            (!words.iter().any(|w| w.eq_ignore_ascii_case(value))).then(|| refused.replace("{arg}", value))
        }
        Accepts::Number { words, read, ranges, refused } => {
            if words.iter().any(|w| w.eq_ignore_ascii_case(value)) {
                return None;
            }
            let ok = read_number(read, value).is_some_and(|v| ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&v)));
            (!ok).then(|| refused.replace("{arg}", value))
        }
        Accepts::Timeout { unit, min, refused, short } => match timeout_parameter(value, unit) {
            None => Some(refused.to_string()),
            Some(t) if t < min => Some(short.to_string()),
            Some(_) => None,
        },
        Accepts::Length { size, refused } => (value.len() >= size).then(|| refused.to_string()),
        Accepts::Letters { letters, refused } => {
            // (`+` or `-` then a letter; a sign with no letter after it is refused too.)
            let mut bytes = value.bytes();
            while let Some(b) = bytes.next() {
                let letter = if b == b'+' || b == b'-' { bytes.next() } else { Some(b) };
                if !letter.is_some_and(|l| letters.as_bytes().contains(&l.to_ascii_uppercase())) {
                    return Some(refused.to_string());
                }
            }
            None
        }
        Accepts::Any => None,
        Accepts::Handler(h) => param_handler_refusal(cfg, h, value),
    }
}

/// The refusals of the proxy parameters' handlers with rules of their own, in their words.
fn param_handler_refusal(cfg: &Config, h: Handler, value: &str) -> Option<String> {
    match h {
        Handler::LoadFactor => {
            let f = atof(value)?;
            let factor = (f * 100.0) as i32;
            (!(100..=10000).contains(&factor)).then(|| "LoadFactor must be a number between 1..100".to_string())
        }
        Handler::AddressTtl => {
            let ok = value == "-1"
                || timeout_parameter(value, "s").is_some_and(|t| t <= 2_147_483_647 * 1_000_000 && t % 1_000_000 == 0);
            (!ok).then(|| "AddressTTL must be -1 or a number of seconds not exceeding (2147483647)".to_string())
        }
        Handler::FailOnStatus => value
            .split([',', ' '])
            .filter(|s| !s.is_empty())
            .any(|s| !(100..600).contains(&atoi(s)))
            .then(|| "failonstatus must be one or more HTTP response codes".to_string()),
        Handler::LbMethod => {
            // (Providers are looked up by their exact name; judged only where every loaded
            // module is known, none else registering one.)
            if !cfg.modules_known
                || cfg.modules.iter().any(|m| crate::ide::catalogue::module_by_identifier(m).is_none())
            {
                return None;
            }
            let known = values::LB_METHODS.iter().any(|(m, name)| *name == value && cfg.module_loaded(m));
            (value.len() > 15 || !known).then(|| "unknown lbmethod".to_string())
        }
        Handler::StickySessionSep => (value.len() != 1 && !value.eq_ignore_ascii_case("off"))
            .then(|| "stickysessionsep must be a single character or Off".to_string()),
        Handler::HcMethod => match values::HC_METHODS.iter().find(|(m, _)| m.eq_ignore_ascii_case(value)) {
            None => Some("Unknown method".to_string()),
            Some((_, false)) => Some(format!("Health check method {value} not (yet) implemented")),
            Some((_, true)) => None,
        },
        _ => None,
    }
}

/// C's `atof` where it surely reads what it reads: blanks, a sign, digits with a point, an
/// exponent. None where it may read more than that (`0x…`, `inf`, `nan`): not judged.
fn atof(s: &str) -> Option<f64> {
    let body = s.trim_start_matches(C_SPACE);
    let unsigned = body.strip_prefix(['+', '-']).unwrap_or(body);
    let lower = unsigned.get(..2).map(str::to_ascii_lowercase);
    if lower.as_deref() == Some("0x")
        || unsigned.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("inf") || p.eq_ignore_ascii_case("nan"))
    {
        return None;
    }
    let b = body.as_bytes();
    let mut end = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |at: usize| b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int = digits(end);
    end += int;
    let mut frac = 0;
    if b.get(end) == Some(&b'.') {
        frac = digits(end + 1);
        if int + frac > 0 {
            end += 1 + frac;
        }
    }
    if int + frac == 0 {
        return Some(0.0);
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(end + 1), Some(b'+' | b'-')));
        let exp = digits(end + 1 + sign);
        if exp > 0 {
            end += 1 + sign + exp;
        }
    }
    body[..end].parse().ok()
}

/// The refusals of the handlers with rules of their own ([`Handler`]), in their words.
fn handler_refusal(cfg: &Config, n: &Node, h: Handler, args: &[String], place: Place) -> Option<String> {
    let name = n.known();
    let path = place.path;
    // The words of the earlier lines of the same name in the record, when it is known whole.
    let earlier_words = || -> Option<Vec<String>> {
        let earlier = place.earlier(n)?;
        Some(
            earlier
                .iter()
                .filter(|e| e.kind == NodeKind::Directive && e.known() == name)
                .flat_map(|e| e.arg_strings())
                .collect(),
        )
    };
    let eq = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    match h {
        Handler::LimitRequestBody => {
            let [arg] = args else { return None };
            match strtol(arg) {
                (None, _) => Some("LimitRequestBody argument is not parsable.".to_string()),
                (Some(v), end) if end < arg.len() || v < 0 => {
                    Some("LimitRequestBody requires a non-negative integer.".to_string())
                }
                _ => None,
            }
        }
        Handler::FileETag => args.iter().find_map(|token| {
            let word = token.strip_prefix(['+', '-']).unwrap_or(token);
            let signed = word.len() < token.len();
            let known = ["Size", "LMTime", "MTime", "LastModified", "INode", "Digest"];
            if eq(word, "None") || eq(word, "All") {
                signed.then(|| format!("FileETag keyword '{word}' cannot be used with '+' or '-'"))
            } else if known.iter().any(|k| eq(word, k)) {
                None
            } else {
                Some(format!("Unknown keyword '{word}' for FileETag directive"))
            }
        }),
        Handler::LogLevel => args.iter().find_map(|w| log_level_refusal(cfg, w)),
        Handler::RegexDefaultOptions => args.iter().find_map(|w| {
            if eq(w, "none") {
                return None;
            }
            let option = w.strip_prefix(['+', '-']).unwrap_or(w);
            let known = ["ICASE", "DOTALL", "DOLLAR_ENDONLY"];
            (!known.iter().any(|k| eq(option, k))).then(|| format!("RegexDefaultOptions: option '{option}' unknown"))
        }),
        Handler::HttpProtocolOptions => {
            // (Pairs each excluding the other, in the order httpd tests them.)
            const PAIRS: [(&str, &str); 3] =
                [("Allow0.9", "Require1.0"), ("Strict", "Unsafe"), ("RegisteredMethods", "LenientMethods")];
            let place_of = |w: &str| {
                PAIRS.iter().enumerate().find_map(|(i, (a, b))| {
                    if eq(w, a) {
                        Some((i, 0))
                    } else if eq(w, b) {
                        Some((i, 1))
                    } else {
                        None
                    }
                })
            };
            let mut seen = [[false; 2]; 3];
            let conflict = |seen: &[[bool; 2]; 3]| seen.iter().position(|s| s[0] && s[1]);
            // The server's record keeps what its earlier lines set (a line httpd refused stopped
            // it before this one); not known whole, the line alone is judged.
            for w in earlier_words().unwrap_or_default() {
                let (pair, side) = place_of(&w)?;
                seen[pair][side] = true;
                if conflict(&seen).is_some() {
                    return None;
                }
            }
            for w in args {
                let Some((pair, side)) = place_of(w) else {
                    return Some("HttpProtocolOptions accepts 'Unsafe' or 'Strict' (default), 'RegisteredMethods' or 'LenientMethods' (default), and 'Require1.0' or 'Allow0.9' (default)".to_string());
                };
                seen[pair][side] = true;
                if let Some(i) = conflict(&seen) {
                    let (a, b) = PAIRS[i];
                    return Some(format!("HttpProtocolOptions '{a}' and '{b}' are mutually exclusive"));
                }
            }
            None
        }
        Handler::MultiviewsMatch => {
            let (any, negotiated, filters, handlers) = (1, 2, 4, 8);
            let step = |set: u8, w: &str| -> Result<u8, String> {
                let (bit, others, message) = if eq(w, "Any") {
                    (any, !any, "Any is incompatible with NegotiatedOnly, Filters and Handlers")
                } else if eq(w, "NegotiatedOnly") {
                    (negotiated, !negotiated, "NegotiatedOnly is incompatible with Any, Filters and Handlers")
                } else if eq(w, "Filters") {
                    (filters, negotiated | any, "Filters is incompatible with Any and NegotiatedOnly")
                } else if eq(w, "Handlers") {
                    (handlers, negotiated | any, "Handlers is incompatible with Any and NegotiatedOnly")
                } else {
                    return Err(format!("Unrecognized option '{w}'"));
                };
                if set & others != 0 {
                    return Err(message.to_string());
                }
                Ok(set | bit)
            };
            // The section's record keeps what its earlier lines set.
            let mut set = 0;
            for w in earlier_words().unwrap_or_default() {
                set = step(set, &w).ok()?;
            }
            for w in args {
                set = match step(set, w) {
                    Ok(set) => set,
                    Err(message) => return Some(message),
                };
            }
            None
        }
        Handler::DirectoryIndexRedirect => {
            let [arg] = args else { return None };
            if ["on", "off", "permanent", "temp", "seeother"].iter().any(|k| eq(arg, k)) {
                None
            } else if arg.starts_with(|c: char| c.is_ascii_digit()) {
                (!(300..400).contains(&atoi(arg)))
                    .then(|| "DirectoryIndexRedirect only accepts values between 300 and 399".to_string())
            } else {
                Some("DirectoryIndexRedirect ON|OFF|permanent|temp|seeother|3xx".to_string())
            }
        }
        Handler::ProxyErrorOverride => {
            // The section's record remembers whether an earlier line said On or Off, and which:
            // before any, the first word must be one of them. Not known whole, a line is judged
            // only after its own On or Off.
            let (mut set, mut on) = (false, false);
            match earlier_words() {
                Some(earlier) => {
                    for w in earlier.iter().filter(|w| eq(w, "on") || eq(w, "off")) {
                        (set, on) = (true, eq(w, "on"));
                    }
                }
                None if !args.first().is_some_and(|w| eq(w, "on") || eq(w, "off")) => return None,
                None => {}
            }
            for w in args {
                if eq(w, "on") || eq(w, "off") {
                    (set, on) = (true, eq(w, "on"));
                } else if !set {
                    return Some("ProxyErrorOverride first parameter must be one of: off | on".to_string());
                } else if !w.starts_with(|c: char| c.is_ascii_digit()) {
                    return Some("ProxyErrorOverride: status codes to intercept must be numeric".to_string());
                } else if !on {
                    return Some("ProxyErrorOverride: status codes must follow a value of 'on'".to_string());
                } else if !(400..600).contains(&strtol(w).0.unwrap_or(i64::MAX)) {
                    return Some(
                        "ProxyErrorOverride: status codes to intercept must be valid HTTP Status Codes >=400 && <600"
                            .to_string(),
                    );
                }
            }
            None
        }
        Handler::ProxyDomain => {
            let [arg] = args else { return None };
            (!arg.starts_with('.')).then(|| "ProxyDomain: domain name must start with a dot.".to_string())
        }
        Handler::CacheLastModifiedFactor => {
            let [arg] = args else { return None };
            // What can begin a number `sscanf("%lg")` reads, after blanks and a sign: a digit, a
            // point and a digit, `inf` or `nan`; anything else is no float. (A number that
            // begins so and then goes wrong, `1e`, is not judged.)
            let start = arg.trim_start_matches(C_SPACE);
            let start = start.strip_prefix(['+', '-']).unwrap_or(start);
            let word = |w: &str| start.get(..3).is_some_and(|p| p.eq_ignore_ascii_case(w));
            let float = start.starts_with(|c: char| c.is_ascii_digit())
                || start.strip_prefix('.').is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
                || word("inf")
                || word("nan");
            (!float).then(|| "CacheLastModifiedFactor value must be a float".to_string())
        }
        Handler::CacheKeyBaseUrl => {
            let [arg] = args else { return None };
            match uri_has_scheme_or_authority(arg) {
                Err(()) => Some(format!("Could not parse '{arg}' as an URL.")),
                Ok(false) => Some(format!("URL '{arg}' must contain at least one of a scheme, a hostname or a port.")),
                Ok(true) => None,
            }
        }
        Handler::CacheEnable => {
            let provider = args.first()?;
            if provider.starts_with('/') {
                return Some(format!("provider ({provider}) starts with a '/'.  Are url and provider switched?"));
            }
            let section = path.url_path();
            match (args.get(1), section) {
                (None, None) if !path.is_set() => Some(format!("CacheEnable provider ({provider}) is missing an URL.")),
                (Some(url), Some(p)) if !url.starts_with(&p) => Some(
                    "When in a Location, CacheEnable must specify a path or an URL below that location.".to_string(),
                ),
                _ => None,
            }
        }
        Handler::CacheDisable => {
            let [url] = args else { return None };
            if path.is_set() {
                (!eq(url, "on"))
                    .then(|| "CacheDisable must be followed by the word 'on' when in a Location.".to_string())
            } else {
                (!url.starts_with('/') && !url.contains(':'))
                    .then(|| "CacheDisable must specify a path or an URL.".to_string())
            }
        }
        Handler::SetEnvIf | Handler::BrowserMatch | Handler::SetEnvIfExpr => {
            let name = n.directive()?.httpd_name();
            // The words before the variables, each of which must be there and not empty.
            let leading: &[&str] = match h {
                Handler::SetEnvIf => &["header-field name", "regular expression"],
                Handler::BrowserMatch => &["regular expression"],
                _ => &["expression"],
            };
            for (i, what) in leading.iter().enumerate() {
                if args.get(i).is_none_or(|w| w.is_empty()) {
                    return Some(format!("Missing {what} for {name}"));
                }
            }
            // (`add_envvars` stops at the first empty word.)
            let variables = args[leading.len()..].iter().take_while(|w| !w.is_empty()).count();
            (variables == 0).then(|| format!("Missing envariable expression for {name}"))
        }
        Handler::Redirect => redirect_refusal(name, args, path.is_set()),
        // `add_alias`: the one-word form needs a section's path; the two-word form
        // (`add_alias_internal`) refuses one.
        Handler::Alias => match args {
            [_] => (!path.is_set()).then(|| "Alias must have two arguments when used globally".to_string()),
            [_, _] => path.is_set().then(|| format!("{name} cannot occur within directory context")),
            _ => None,
        },
        Handler::CacheDirDepth => {
            let [arg] = args else { return None };
            let value = atoi(arg) as i32;
            let levels = name == "CacheDirLevels";
            if value < 1 {
                let what = if levels { "CacheDirLevels" } else { "CacheDirLength" };
                return Some(format!("{what} value must be an integer greater than 0"));
            }
            // The server's other value as its earlier lines set it (2 until then). A line in a
            // section of the server (a condition not evaluated) leaves it unknown, and a line
            // httpd refused stopped it before this one.
            let mut other = 2i32;
            let mut mine = 2i32;
            for (e, nested) in place.earlier_in_server(n)? {
                let (is_levels, is_length) = (e.known() == "CacheDirLevels", e.known() == "CacheDirLength");
                if !(is_levels || is_length) {
                    continue;
                }
                let v = atoi(e.args().first()?) as i32;
                let (set, by) = if is_levels == levels { (&mut mine, other) } else { (&mut other, mine) };
                if nested || v < 1 || v.checked_mul(by)? > 20 {
                    return None;
                }
                *set = v;
            }
            // (An `int` product: one that overflows is not judged.)
            (value.checked_mul(other)? > 20)
                .then(|| "CacheDirLevels*CacheDirLength value must not be higher than 20".to_string())
        }
        _ => None,
    }
}

/// mod_alias' `add_redirect_internal` for `name` (its default status from the command table),
/// where `has_path` tells whether the line has a section's path (which makes a URL alone an
/// expression, expr-syntax's to judge).
fn redirect_refusal(name: &str, args: &[String], has_path: bool) -> Option<String> {
    let (arg1, arg2, arg3) = (args.first()?, args.get(1), args.get(2));
    let is_regex = name == "RedirectMatch";
    let mut status = if name == "RedirectPermanent" { 301 } else { 302 };
    let word = |w: &str| arg1.eq_ignore_ascii_case(w);
    // "grokarg1": 1 a redirect status, -1 another status, 0 not a status (a path).
    let grok = if word("permanent") {
        status = 301;
        1
    } else if word("temp") {
        status = 302;
        1
    } else if word("seeother") {
        status = 303;
        1
    } else if word("gone") {
        status = 410;
        -1
    } else if arg1.starts_with(|c: char| c.is_ascii_digit()) {
        status = atoi(arg1);
        if (300..400).contains(&status) {
            1
        } else {
            -1
        }
    } else {
        0
    };
    if arg3.is_some() && grok == 0 {
        return Some("Redirect: invalid first argument (of three)".to_string());
    }
    if has_path && ((grok > 0 && arg2.is_some() && arg3.is_none()) || (grok == 0 && arg2.is_none())) {
        return None;
    }
    if has_path && grok < 0 && arg2.is_none() {
        return None;
    }
    let url = if arg3.is_none() && grok == 0 { arg2 } else { arg3 };
    if (300..400).contains(&status) {
        let Some(url) = url else { return Some("URL to redirect to is missing".to_string()) };
        (!is_regex && !is_url(url) && !url.starts_with('/')).then(|| "Redirect to non-URL".to_string())
    } else {
        url.map(|_| "Redirect URL not valid for this status".to_string())
    }
}

/// `ap_is_url`: a scheme (letters, digits, `+-.`, at least one) then a colon.
fn is_url(u: &str) -> bool {
    let scheme = u.bytes().take_while(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b)).count();
    scheme > 0 && u.as_bytes().get(scheme) == Some(&b':')
}

/// `set_loglevel`'s refusal of one word: a level, or `module:level` (split at the last colon)
/// with a module httpd finds among those loaded, by its source file, its symbol, or its
/// symbol without `_module`. A module is judged only where the loaded modules are known and
/// all in the catalogue (else its names are not).
fn log_level_refusal(cfg: &Config, word: &str) -> Option<String> {
    const LEVELS: &[&str] = &[
        "emerg", "alert", "crit", "error", "warn", "notice", "info", "debug", "trace1", "trace2", "trace3", "trace4",
        "trace5", "trace6", "trace7", "trace8",
    ];
    const BAD: &str =
        "Log level keyword must be one of emerg/alert/crit/error/warn/notice/info/debug/trace1/.../trace8";
    let level_ok = |l: &str| LEVELS.iter().any(|k| k.eq_ignore_ascii_case(l));
    let Some((module, level)) = word.rsplit_once(':') else {
        return (!level_ok(word)).then(|| BAD.to_string());
    };
    if level.is_empty() {
        return Some(format!("Module specifier '{module}' must be followed by a log level keyword"));
    }
    if !level_ok(level) {
        return Some(format!("{module}:{level}: {BAD}"));
    }
    if !cfg.modules_known {
        return None;
    }
    let mut found = false;
    for id in cfg.modules.iter() {
        let m = crate::ide::catalogue::module_by_identifier(id)?;
        let symbol: &str = if id == "core" { "core_module" } else { id };
        found |= m.source_file == module || symbol == module || symbol.strip_suffix("_module") == Some(module);
    }
    (!found).then(|| format!("Cannot find module {module}"))
}

/// Blanks as C's `isspace` knows them.
const C_SPACE: [char; 6] = [' ', '\t', '\n', '\r', '\x0b', '\x0c'];

/// C's `strtol` in base 10 (64-bit `long`, as `apr_strtoff` and `apr_strtoi64` use on Linux):
/// the value (None when it overflows: `ERANGE`) and how many bytes it read (0 when no digit).
fn strtol(s: &str) -> (Option<i64>, usize) {
    let body = s.trim_start_matches(C_SPACE);
    let skipped = s.len() - body.len();
    let (neg, digits_at) = match body.as_bytes().first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let digits = body[digits_at..].bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return (Some(0), 0);
    }
    let mut v: i128 = 0;
    let mut overflow = false;
    for b in body[digits_at..digits_at + digits].bytes() {
        v = v * 10 + i128::from(b - b'0');
        if v > i128::from(i64::MAX) + 1 {
            overflow = true;
            v = i128::from(i64::MAX) + 1;
        }
    }
    let v = if neg { -v } else { v };
    let value = i64::try_from(v).ok().filter(|_| !overflow);
    (value, skipped + digits_at + digits)
}

/// A number as [`Read`] says the handler reads it; None where the handler finds none.
fn read_number(read: Read, s: &str) -> Option<i64> {
    let (value, end) = strtol(s);
    match read {
        // (Past 64 bits strtol saturates; glibc's atoi keeps the low 32 bits of that.)
        Read::Atoi => Some(saturated(s, value) as i32 as i64),
        Read::Atol => Some(saturated(s, value)),
        Read::StrtoffWhole => value.filter(|_| end == s.len()),
        Read::StrtoffPrefix => value,
    }
}

/// `strtol`'s result where it overflowed: the limit on the number's side.
fn saturated(s: &str, value: Option<i64>) -> i64 {
    value.unwrap_or(if s.trim_start_matches(C_SPACE).starts_with('-') { i64::MIN } else { i64::MAX })
}

/// `ap_timeout_parameter_parse`: a number `apr_strtoi64` reads (not negative, no overflow;
/// none at all is 0), then no unit (`default_unit`) or one whose first letters are `s`, `h`,
/// `ms` or `mi`, the value within what that unit can hold in microseconds. The duration in
/// microseconds.
fn timeout_parameter(s: &str, default_unit: &str) -> Option<i64> {
    let (value, end) = strtol(s);
    let value = value.filter(|v| *v >= 0)?;
    let unit = if end == s.len() { default_unit } else { &s[end..] };
    let per_unit: i64 = if unit.starts_with('s') {
        1_000_000
    } else if unit.starts_with('h') {
        3_600_000_000
    } else if unit.starts_with("ms") {
        1_000
    } else if unit.starts_with("mi") {
        60_000_000
    } else {
        return None;
    };
    value.checked_mul(per_unit)
}

/// `apr_uri_parse` as mod_cache's `set_cache_key_base_url` reads the answer: Err when it
/// cannot parse the URL (a port that is not a number, an unclosed `[`), else whether it has a
/// scheme, a hostname or a port (`//host`, `//?q`: `///x` is a path).
fn uri_has_scheme_or_authority(url: &str) -> Result<bool, ()> {
    // (`//` then anything but a third `/` opens an authority, a hostname even if empty.)
    if let Some(rest) = url.strip_prefix("//") {
        return if rest.starts_with('/') { Ok(false) } else { parse_authority(&format!("x:{url}")).map(|_| true) };
    }
    let scheme = url.find([':', '/', '?', '#']).filter(|&i| i > 0 && url.as_bytes()[i] == b':');
    match scheme {
        Some(i) if url[i + 1..].starts_with("//") => parse_authority(url).map(|_| true),
        Some(_) => Ok(true),
        None => Ok(false),
    }
}

/// A `FLAG` directive's first word that is neither `On` nor `Off` (httpd's `invoke_cmd`, in the
/// name the command table registers; it ignores any later word); only where its module is
/// loaded (else that is the error).
fn flag_refusal(cfg: &Config, n: &Node, words: impl FnOnce() -> Vec<String>) -> Option<String> {
    let d = n.directive()?;
    if d.args != ArgKind::Flag {
        return None;
    }
    let args = words();
    let [word, ..] = &args[..] else { return None };
    if word.eq_ignore_ascii_case("on") || word.eq_ignore_ascii_case("off") {
        return None;
    }
    if d.module != "core" && !cfg.module_loaded(d.module) {
        return None;
    }
    Some(format!("{} must be On or Off", d.httpd_name()))
}

/// What `set_override` says of one word of `AllowOverride` when it refuses it: a keyword it
/// does not know (what follows a `=` aside), an option after `Options=` that `set_allow_opts`
/// does not know (the list is split at commas, empty items skipped), `Nonfatal` without `=…`
/// (an unknown value after it is ignored, as are values after the other keywords).
fn allow_override_refusal(word: &str) -> Option<String> {
    let (key, value) = word.split_once('=').map_or((word, None), |(k, v)| (k, Some(v)));
    let known = ["Limit", "Options", "FileInfo", "AuthConfig", "Indexes", "Nonfatal", "None", "All"];
    if !known.iter().any(|k| k.eq_ignore_ascii_case(key)) {
        return Some(format!("Illegal override option {key}"));
    }
    if key.eq_ignore_ascii_case("Nonfatal") && value.is_none() {
        return Some(format!("=Override, =Unknown or =All expected after {key}"));
    }
    if !key.eq_ignore_ascii_case("Options") {
        return None;
    }
    let value = value?;
    let illegal = value.split(',').filter(|o| !o.is_empty()).find(|o| option_bits(o).is_none())?;
    Some(format!("Illegal option {illegal}"))
}

/// What mod_remoteip's `proxies_set` says of one word of `RemoteIPTrustedProxy` or
/// `RemoteIPInternalProxy` when it refuses it (the text between the word and ` for NAME`).
/// A word of digits and dots, or with a colon, is an address: `apr_ipsubnet_create` must read
/// it and its `/mask`. Anything else is a host name: refused with a mask; without one httpd
/// resolves it as it reads the line (`apr_sockaddr_info_get`) and refuses a name that does not
/// resolve, which this check does not do (no part of check touches the network): None.
fn remoteip_proxy(word: &str) -> Option<String> {
    let (ip, mask) = word.split_once('/').map_or((word, None), |(a, m)| (a, Some(m)));
    let address = ip.contains(':') || ip.bytes().all(|c| c == b'.' || c.is_ascii_digit());
    if !address {
        // A wildcard is no host name any resolver finds (glibc's `res_hnok` refuses it), nor
        // is a word with a `#` (a comment after the addresses is read as words: `# proxy`),
        // which DNS refuses the same way and /etc/hosts cannot list (it starts a comment
        // there).
        if mask.is_none() && ip.contains(['*', '?', '#']) {
            return Some("(Name or service not known error)".to_string());
        }
        return mask.map(|m| format!("the subnet /{m} is invalid"));
    }
    // (An empty address, `/8`, is one too: APR answers EINVAL, "Invalid argument".)
    IpSubnet::create(ip, mask).err().map(|e| format!("({} error)", e.apr_message()))
}

/// Why a worker's URL is refused (`ap_proxy_define_worker`), in its words.
fn url_refusal(url: &str) -> Option<String> {
    // `unix:/path|scheme:…` (`ap_proxy_de_socketfy`, `ap_proxy_define_worker_ex`): a socket
    // path up to the first `|` after `unix:`, then a URL that needs a scheme and nothing else
    // (no host is `localhost`: `|http:`, `|http://`, `|fcgi:$1` are all accepted).
    let uds = url.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("unix:")).then(|| url[5..].find('|')).flatten();
    if let Some(bar) = uds {
        let target = &url[5 + bar + 1..];
        let Some(colon) = target.find(':') else { return Some(INVALID_UNIX.to_string()) };
        let scheme = &target[..colon];
        return match parse_authority(target) {
            Err(()) => Some(format!("Unable to parse URL: {url}")),
            Ok(_) if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) => {
                None
            }
            Ok(_) => Some(format!("URL must be absolute!: {url}")),
        };
    }
    // (No host, `http://`, `http:///x`, `http://:80/`, is no absolute URL either.)
    match parse_authority(url) {
        Err(()) => Some(format!("Unable to parse URL: {url}")),
        Ok(None | Some("")) => Some(format!("URL must be absolute!: {url}")),
        Ok(Some(_)) => None,
    }
}

/// What httpd says of `SSLCompression on`, and that it depends on the OpenSSL build.
const SSL_NO_COMPRESSION: &str = "This version of OpenSSL does not have any compression methods available, cannot enable SSLCompression. (This depends on how OpenSSL was built: builds since 1.1.0 have none unless built with zlib.)";

/// [`url_refusal`]'s words for a `unix:…|` URL with no scheme after the bar (the directive's
/// name goes before them).
const INVALID_UNIX: &str = "uses an invalid \"unix:\" URL";

/// The host of `scheme://[user@]host[:port]/…` as `apr_uri_parse` reads it: Err when it cannot
/// (a port that is not digits), Ok(None) when there is no scheme or no `//` authority.
fn parse_authority(url: &str) -> Result<Option<&str>, ()> {
    let Some(colon) = url.find(':') else { return Ok(None) };
    let scheme = &url[..colon];
    if scheme.contains(['/', '?', '#']) {
        return Ok(None); // a path
    }
    // A colon in the first segment after anything but a scheme (`:80`, `1http:`, `h_t:`): APR
    // cannot parse it.
    if !scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        || !scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return Err(());
    }
    let Some(rest) = url[colon + 1..].strip_prefix("//") else { return Ok(None) };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = rest[..end].rsplit_once('@').map_or(&rest[..end], |(_, h)| h);
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let Some(close) = v6.find(']') else { return Err(()) };
        let after = &v6[close + 1..];
        match after.strip_prefix(':') {
            Some(p) => (&v6[..close], Some(p)),
            None if after.is_empty() => (&v6[..close], None),
            None => return Err(()),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if port.is_some_and(|p| !p.bytes().all(|b| b.is_ascii_digit())) {
        return Err(());
    }
    Ok(Some(host))
}

/// C's `atoi` as glibc has it (`(int) strtol`).
pub(super) fn atoi(s: &str) -> i64 {
    read_number(Read::Atoi, s).unwrap_or(0)
}

/// `apr_fnmatch_test`: a `*` or `?`, or a `[` closed by a `]` (a backslash escapes).
fn fnmatch_test(s: &str) -> bool {
    let mut open = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '*' | '?' => return true,
            '\\' if chars.next().is_none() => return false,
            '[' => open = true,
            ']' if open => return true,
            _ => {}
        }
    }
    false
}

/// Checks `n`; `in_path` as the regex check takes it.
pub(super) fn node(
    cfg: &Config,
    n: &Node,
    in_path: bool,
    place: Place,
    loaded: &mut super::ModulesLoaded,
    out: &mut Vec<Diagnostic>,
) {
    let Some(refusal) = refusal(cfg, n, place, loaded) else { return };
    // A handler that compiles a regex or parses an expression before it looks at the words
    // after it (mod_setenvif, mod_alias) stops at that error: the other check's to report.
    let compiles_first = n.directive_id.and_then(values::accepts).is_some_and(|a| {
        matches!(
            a,
            Accepts::Handler(Handler::SetEnvIf | Handler::BrowserMatch | Handler::SetEnvIfExpr | Handler::Redirect)
        )
    });
    if compiles_first
        && (super::regex_compile::refusal(cfg, n, in_path).is_some() || super::expr_syntax::refusal(cfg, n).is_some())
    {
        return;
    }
    out.push(super::refused_line(cfg, n, "argument-value", &refusal));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::diagnostics::tests::render;
    use expect_test::expect;

    /// AllowOverride's keywords and Options= list, AllowOverrideList's None among others.
    #[test]
    fn allow_override_words_httpd_refuses() {
        expect![[r#"
            /etc/httpd.conf:2: Error[argument-value]: httpd 2.4 will not start: Illegal option Bogus
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: Illegal option +FollowSymLinks
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: Illegal override option Bogus
            /etc/httpd.conf:5: Error[argument-value]: httpd 2.4 will not start: =Override, =Unknown or =All expected after Nonfatal
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: 'None' not allowed with other directives in AllowOverrideList
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "<Directory /srv>\n",
            "AllowOverride Options=Bogus\n",
            "AllowOverride AuthConfig Options=Indexes,,+FollowSymLinks\n",
            "AllowOverride Bogus=x\n",
            "AllowOverride Nonfatal\n",
            "AllowOverrideList None Redirect\n",
            "AllowOverride Options= Nonfatal=Bogus AuthConfig=x Options=all,RunScripts,indexes None\n",
            "AllowOverrideList None\n",
            "</Directory>\n",
        )));
    }

    /// A FLAG directive's word, in the spelling httpd registers; a module not loaded is
    /// another check's.
    #[test]
    fn flags_are_on_or_off() {
        expect![[r#"
            /etc/httpd.conf:2: Error[argument-value]: httpd 2.4 will not start: KeepAlive must be On or Off
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: DAVDepthInfinity must be On or Off
            /etc/httpd.conf:7: Error[module-not-loaded]: Invalid command 'ProxyRequests', perhaps misspelled or defined by a module not included in the server configuration: it comes from proxy_module, which is not loaded
            /etc/httpd.conf:9: Error[argument-value]: httpd 2.4 will not start: KeepAlive must be On or Off
            /etc/httpd.conf:13: Error[argument-value]: httpd 2.4 will not start: This version of OpenSSL does not have any compression methods available, cannot enable SSLCompression. (This depends on how OpenSSL was built: builds since 1.1.0 have none unless built with zlib.)
            /etc/httpd.conf:15: Error[argument-value]: httpd 2.4 will not start: This version of OpenSSL does not have any compression methods available, cannot enable SSLCompression. (This depends on how OpenSSL was built: builds since 1.1.0 have none unless built with zlib.)
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule dav_module m\n",
            "KeepAlive maybe\n",
            "<Directory /srv>\nDavDepthInfinity yes\n</Directory>\n",
            "KeepAlive \"On\"\n",
            "ProxyRequests maybe\n",
            // Only the first word is read: a trailing "comment" is ignored, a bad first word is not.
            "KeepAlive On # keep connections open\n",
            "KeepAlive maybe On\n",
            "LoadModule ssl_module m\n",
            "<VirtualHost *:443>\nSSLCompression off\nSSLCompression on\n</VirtualHost>\n",
            "SSLCompression On # no\n",
        )));
    }

    /// RewriteCond and RewriteRule need a second word: a first word that runs to the end of the
    /// line is refused; one whose closing quote ends the line leaves an empty second word.
    #[test]
    fn rewrite_lines_of_one_word() {
        expect![[r#"
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: RewriteCond: bad argument line '%{HTTP_HOST}'
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: RewriteRule: bad argument line '^/x$'
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: RewriteRule: bad argument line '"^/x'
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule rewrite_module m\nRewriteEngine On\n",
            "RewriteCond %{HTTP_HOST}\n",
            "RewriteRule ^/x$\n",
            "RewriteRule \"^/x\"\n",
            "RewriteRule \"^/x\n",
            "RewriteRule ^/a /b [L] extra\n",
        )));
    }

    /// The two-word Alias and ProxyPassReverse take their path from the line, which a
    /// `<Location>`-like section gives already; their one-word forms need one.
    #[test]
    fn path_forms_in_sections_with_a_path() {
        expect![[r#"
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: ProxyPassReverse can not have a path when defined in a location
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: ScriptAlias cannot occur within directory context
            /etc/httpd.conf:10: Error[argument-value]: httpd 2.4 will not start: Alias cannot occur within directory context
            /etc/httpd.conf:12: Error[argument-value]: httpd 2.4 will not start: ProxyPassReverse needs a path when not defined in a location
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule proxy_module m\nLoadModule alias_module m\n<Location /app>\n",
            "ProxyPassReverse /app http://127.0.0.1:8080/\n",
            "ProxyPassReverse http://127.0.0.1:8080/ interpolate\n",
            "ScriptAlias /a /srv/a\n",
            "Alias /srv/a\n",
            "</Location>\n<Proxy *>\nAlias /a /srv/a\n</Proxy>\n",
            "ProxyPassReverse http://127.0.0.1:8080/ interpolate\n",
            "ProxyPassReverse /a http://127.0.0.1:8080/\n",
        )));
    }

    /// RequestReadTimeout's words, as mod_reqtimeout reads them: a trailing comment is words too.
    #[test]
    fn request_read_timeout_words() {
        expect![[r#"
            /etc/httpd.conf:2: Error[argument-value]: httpd 2.4 will not start: Invalid RequestReadTimeout parameter. Parameter must be in the form 'key=value'
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: RequestReadTimeout: header=foo: Value 'foo' not numerical
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: RequestReadTimeout: header=20-40,minrate=500": Cannot parse '"'
            /etc/httpd.conf:5: Error[argument-value]: httpd 2.4 will not start: RequestReadTimeout: header=20-40: Must set MinRate option if using timeout range
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: RequestReadTimeout: body=40-20,MinRate=1: Maximum timeout must be larger than initial timeout
            /etc/httpd.conf:7: Error[argument-value]: httpd 2.4 will not start: RequestReadTimeout: header=10,minrate=0: Minimum data rate must be larger than 0
            /etc/httpd.conf:8: Error[argument-value]: httpd 2.4 will not start: RequestReadTimeout: foo=1: Unknown RequestReadTimeout parameter
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule reqtimeout_module m\nRequestReadTimeout header=20-40,MinRate=500 # tune\n",
            "RequestReadTimeout header=foo\n",
            "RequestReadTimeout header=20-40,minrate=500\"\n",
            "RequestReadTimeout header=20-40\n",
            "RequestReadTimeout body=40-20,MinRate=1\n",
            "RequestReadTimeout header=10,minrate=0\n",
            "RequestReadTimeout foo=1\n",
            "RequestReadTimeout handshake=5 header=20-40,MinRate=500 Body=10\n",
        )));
    }

    /// AddOutputFilterByType: two words, and filters of loaded modules; a name no module
    /// registers (black-box round 17 C17 F7, `apache2 -t`: "Unknown filter provider"), unless an
    /// ExtFilterDefine line before defines it (a FilterDeclare does not).
    #[test]
    fn output_filters_by_type() {
        expect![[r#"
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: Unknown filter provider BROTLI_COMPRESS
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: AddOutputFilterByType requires at least two arguments
            /etc/httpd.conf:5: Error[argument-value]: httpd 2.4 will not start: AddOutputFilterByType requires at least two arguments
            /etc/httpd.conf:7: Error[argument-value]: httpd 2.4 will not start: Unknown filter provider SUBSTITUTE
            /etc/httpd.conf:8: Error[argument-value]: httpd 2.4 will not start: Unknown filter provider MYFILTER
            /etc/httpd.conf:10: Error[argument-value]: httpd 2.4 will not start: Unknown filter provider DECLARED
            /etc/httpd.conf:11: Error[argument-value]: httpd 2.4 will not start: Unknown filter provider EXT
            /etc/httpd.conf:12: Error[module-not-loaded]: Invalid command 'ExtFilterDefine', perhaps misspelled or defined by a module not included in the server configuration: it comes from ext_filter_module, which is not loaded
            /etc/httpd.conf:14: Error[argument-value]: httpd 2.4 will not start: Unknown filter provider DEFLAT
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule filter_module m\nLoadModule deflate_module m\nAddOutputFilterByType BROTLI_COMPRESS text/html\n",
            "AddOutputFilterByType DEFLATE\n",
            "AddOutputFilterByType DEFLATE \"\"\n",
            "AddOutputFilterByType DEFLATE \"\" text/html\n",
            "AddOutputFilterByType deflate;SUBSTITUTE text/html\n",
            "AddOutputFilterByType MYFILTER text/html\n",
            "FilterDeclare DECLARED\nAddOutputFilterByType DECLARED text/html\n",
            "AddOutputFilterByType EXT text/html\nExtFilterDefine ext mode=output cmd=/bin/cat\nAddOutputFilterByType EXT text/html\n",
            "AddOutputFilterByType CONTENT_LENGTH;Byterange;DEFLAT text/html\n",
        )));
        // A module httpd does not ship may register any name: none is judged.
        expect![[r#""#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule filter_module m\nLoadModule pagespeed_module m\nAddOutputFilterByType MOD_PAGESPEED_OUTPUT_FILTER text/html\n",
        )));
    }

    /// CustomLog's condition, Listen's port, mod_expires's codes.
    #[test]
    fn log_conditions_ports_and_expiry_codes() {
        expect![[r#"
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: error in condition clause
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: missing environment variable name
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: missing condition
            /etc/httpd.conf:7: Error[argument-value]: httpd 2.4 will not start: Port must be specified
            /etc/httpd.conf:8: Error[argument-value]: httpd 2.4 will not start: Port must be specified
            /etc/httpd.conf:11: Error[argument-value]: httpd 2.4 will not start: 'ExpiresDefault access plus 1 mnth': bad expires code, unrecognised <type>'mnth'
            /etc/httpd.conf:12: Error[argument-value]: httpd 2.4 will not start: 'ExpiresDefault access plus -1 days': bad expires code, numeric value expected <num> '-1'
            /etc/httpd.conf:13: Error[argument-value]: httpd 2.4 will not start: 'ExpiresDefault later': bad expires code, unrecognised <base> 'later'
            /etc/httpd.conf:14: Error[argument-value]: httpd 2.4 will not start: 'ExpiresDefault now plus 1': bad expires code, missing <type>
            /etc/httpd.conf:17: Error[argument-value]: httpd 2.4 will not start: Invalid mimetype: should contain a slash
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule mpm_event_module m\nLoadModule expires_module m\nCustomLog /tmp/a.log combined nolog\n",
            "CustomLog /tmp/a.log combined env=!\n",
            "CustomLog /tmp/a.log combined ENV=x\n",
            "CustomLog /tmp/a.log combined expr=\n",
            "Listen localhost\n",
            "Listen *\n",
            "Listen 8080 https\n",
            "Listen [::1]:8081\n",
            "ExpiresDefault \"access plus 1 mnth\"\n",
            "ExpiresDefault \"access plus -1 days\"\n",
            "ExpiresDefault later\n",
            "ExpiresDefault \"now plus 1\"\n",
            "ExpiresDefault \"Access plus 1 mnth\"\n",
            "ExpiresDefault \"n p 1 mo 2 mi 3 y\"\n",
            "ExpiresByType text A300\n",
            "ExpiresByType text/html \"modification 5 hours\"\n",
        )));
    }

    /// An `Error` line stops httpd wherever it is read, with its message (one pair of enclosing
    /// quotes taken off), or core.c's words when it has none; not where a false conditional
    /// skips it.
    #[test]
    fn an_error_line_stops_httpd() {
        expect![[r#"
            /etc/httpd.conf:1: Error[argument-value]: httpd 2.4 will not start: The Error directive was used with no message.
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: mod_ssl is needed (the message of this Error line, which stops httpd wherever it is read)
            /etc/httpd.conf:5: Error[argument-value]: httpd 2.4 will not start: 'x" (the message of this Error line, which stops httpd wherever it is read)
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: an empty message (this Error line stops httpd wherever it is read)
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "Error\n",
            "<Directory /srv>\nError \"mod_ssl is needed\"\n</Directory>\n",
            "Error 'x\"\n",
            "Error ''\n",
            "<IfModule mod_nosuch.c>\nError \"skipped\"\n</IfModule>\n",
        )));
    }

    /// Keywords of mod_rewrite, mod_ssl, mod_include, mod_usertrack and mod_negotiation.
    #[test]
    fn keywords_of_module_directives() {
        expect![[r#"
            /etc/httpd.conf:7: Error[argument-value]: httpd 2.4 will not start: RewriteOptions: unknown option 'off'
            /etc/httpd.conf:9: Error[argument-value]: httpd 2.4 will not start: Argument must be On or Off
            /etc/httpd.conf:11: Error[argument-value]: httpd 2.4 will not start: SSLVerifyClient: Invalid argument '99'
            /etc/httpd.conf:13: Error[argument-value]: httpd 2.4 will not start: XBitHack must be set to Off, On, or Full
            /etc/httpd.conf:15: Error[argument-value]: httpd 2.4 will not start: Invalid CookieStyle keyword: '0'
            /etc/httpd.conf:18: Error[argument-value]: httpd 2.4 will not start: Invalid algorithm in AuthBasicUseDigestAlgorithm: SHA
            /etc/httpd.conf:21: Error[argument-value]: httpd 2.4 will not start: Invalid ForceLanguagePriority option 1.2.3
            /etc/httpd.conf:24: Error[argument-value]: httpd 2.4 will not start: SSLOptions: Illegal option 'Full'
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule rewrite_module m\nLoadModule ssl_module m\nLoadModule include_module m\nLoadModule usertrack_module m\nLoadModule negotiation_module m\nLoadModule auth_basic_module m\n",
            "RewriteOptions off\n",
            "RewriteOptions Inherit MaxRedirects=5 AllowNoSlash\n",
            "SSLEngine foo\n",
            "SSLEngine Optional\n",
            "SSLVerifyClient 99\n",
            "SSLVerifyClient Require\n",
            "XBitHack yes\n",
            "XBitHack FULL\n",
            "CookieStyle 0\n",
            "CookieStyle rfc2965\n",
            "<Directory /x>\nAuthBasicUseDigestAlgorithm SHA\nAuthBasicUseDigestAlgorithm MD5\n</Directory>\n",
            "ForceLanguagePriority 1.2.3\n",
            "ForceLanguagePriority Prefer Fallback\n",
            "<Directory /srv>\nSSLOptions StdEnvVars Full\n",
            "SSLOptions +stdenvvars -FakeBasicAuth StrictRequire OptRenegotiate LegacyDNStringFormat ExportCertData\n</Directory>\n",
        )));
    }

    /// ErrorDocument's status: `atoi` of the word, outside 100..599 refused.
    #[test]
    fn error_document_statuses() {
        expect![[r#"
            /etc/httpd.conf:1: Error[argument-value]: httpd 2.4 will not start: Unsupported HTTP response code On
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: Unsupported HTTP response code 600
        "#]]
        .assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "ErrorDocument On /e.html\n",
            "ErrorDocument 404abc /e.html\n",
            "ErrorDocument 600 \"x\"\n",
            "ErrorDocument \" 500\" /e.html\n",
        )));
    }

    /// Substitute's s/// form and its flags, as mod_substitute reads them.
    #[test]
    fn substitute_patterns() {
        expect![[r#"
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: Bad Substitute flag, only s///[infq] are supported
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: Bad Substitute format, must be an s/// pattern
            /etc/httpd.conf:5: Error[argument-value]: httpd 2.4 will not start: Bad Substitute format, must be a complete s/// pattern
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: Bad Substitute format, must be a complete s/// pattern
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule substitute_module m\n<Location /x>\n",
            "Substitute s/foo/bar/g\n",
            "Substitute foo\n",
            "Substitute s//bar/\n",
            "Substitute s/foo\n",
            "Substitute s/foo/bar\n",
            "Substitute S|a|b|iNq\n",
            "</Location>\n",
        )));
    }

    /// Authn providers: each word a provider a loaded module registers, or an alias; Digest's
    /// able to give a realm's hash.
    #[test]
    fn authn_providers_must_be_registered() {
        expect![[r#"
            /etc/httpd.conf:8: Error[argument-value]: httpd 2.4 will not start: Unknown Authn provider: dbm
            /etc/httpd.conf:9: Error[argument-value]: httpd 2.4 will not start: Unknown Authn provider: File
            /etc/httpd.conf:11: Error[argument-value]: httpd 2.4 will not start: The 'anon' Authn provider doesn't support Digest Authentication
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule authn_file_module m\nLoadModule auth_basic_module m\nLoadModule auth_digest_module m\n",
            "LoadModule authn_anon_module m\nLoadModule authn_core_module m\n",
            "<Location /a>\n",
            "AuthBasicProvider file anon mine\n",
            "AuthBasicProvider file dbm\n",
            "AuthBasicProvider File\n",
            "AuthDigestProvider file mine\n",
            "AuthDigestProvider anon\n",
            "</Location>\n",
            "<AuthnProviderAlias file mine>\n</AuthnProviderAlias>\n",
        )));
    }

    /// mod_remoteip's addresses: refused ones in its words; a host name without a mask is
    /// resolved by httpd at startup and not judged here.
    #[test]
    fn remoteip_addresses_httpd_refuses() {
        expect![[r#"
            /etc/httpd.conf:2: Error[argument-value]: httpd 2.4 will not start: RemoteIP: Error parsing IP 10.0.0.1/33 (The specified network mask is invalid. error) for RemoteIPInternalProxy
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: RemoteIP: Error parsing IP 10.0.0.400 (The specified IP address is invalid. error) for RemoteIPTrustedProxy
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: RemoteIP: Error parsing IP proxy.example/8 the subnet /8 is invalid for RemoteIPTrustedProxy
            /etc/httpd.conf:5: Error[argument-value]: httpd 2.4 will not start: RemoteIP: Error parsing IP /8 (Invalid argument error) for RemoteIPTrustedProxy
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: RemoteIP: Error parsing IP ::ffff:1.2.3.4 (The specified IP address is invalid. error) for RemoteIPTrustedProxy
            /etc/httpd.conf:7: Error[argument-value]: httpd 2.4 will not start: ip address '1.2.3.4' appears to be invalid: The specified network mask is invalid.
            /etc/httpd.conf:8: Error[argument-value]: httpd 2.4 will not start: ip address 'proxy.example' appears to be invalid
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule remoteip_module m\n",
            "RemoteIPInternalProxy 10.0.0.1/33\n",
            "RemoteIPTrustedProxy 10.0.0.0/8 10.0.0.400\n",
            "RemoteIPTrustedProxy proxy.example/8\n",
            "RemoteIPTrustedProxy /8\n",
            "RemoteIPTrustedProxy ::ffff:1.2.3.4\n",
            "RemoteIPProxyProtocolExceptions 1.2.3.4/99\n",
            "RemoteIPProxyProtocolExceptions proxy.example\n",
            "RemoteIPTrustedProxy 10.1 10.0.0.0/255.0.0.0 ::1/128 proxy.example\n",
            "RemoteIPProxyProtocolExceptions 10.0.0.0/8 ::1\n",
        )));
    }

    /// Keywords and numbers as the handlers `catalogue::values` describes read them: `atoi`
    /// accepts what follows its digits, `apr_strtoff` with an end check does not; a module
    /// not loaded is another check's.
    #[test]
    fn keywords_and_numbers_httpd_refuses() {
        expect![[r#"
            /etc/httpd.conf:2: Error[argument-value]: httpd 2.4 will not start: AcceptPathInfo must be set to on, off or default
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: KeepAliveTimeout has wrong format
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: LimitRequestBody requires a non-negative integer.
            /etc/httpd.conf:5: Error[argument-value]: httpd 2.4 will not start: LimitRequestBody argument is not parsable.
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: The recursion limit must be greater than zero.
            /etc/httpd.conf:7: Error[argument-value]: httpd 2.4 will not start: parameter must be a number between 0 and (4294967295U)): 12abc
            /etc/httpd.conf:8: Error[argument-value]: httpd 2.4 will not start: FileETag keyword 'All' cannot be used with '+' or '-'
            /etc/httpd.conf:9: Error[argument-value]: httpd 2.4 will not start: core:bogus: Log level keyword must be one of emerg/alert/crit/error/warn/notice/info/debug/trace1/.../trace8
            /etc/httpd.conf:10: Error[argument-value]: httpd 2.4 will not start: Cannot find module rewrite
            /etc/httpd.conf:11: Error[argument-value]: httpd 2.4 will not start: HttpProtocolOptions 'Strict' and 'Unsafe' are mutually exclusive
            /etc/httpd.conf:12: Error[argument-value]: httpd 2.4 will not start: ProxyIOBufferSize must be >= 512 bytes, or 0 for system default.
            /etc/httpd.conf:13: Error[module-not-loaded]: Invalid command 'CacheLockMaxAge', perhaps misspelled or defined by a module not included in the server configuration: it comes from cache_module, which is not loaded
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule proxy_module m\n",
            "AcceptPathInfo maybe\n",
            "KeepAliveTimeout 5x\n",
            "LimitRequestBody 12abc\n",
            "LimitRequestBody 99999999999999999999\n",
            "LimitInternalRecursion 10 4294967296\n",
            "ReadBufferSize 12abc\n",
            "FileETag INode -All\n",
            "LogLevel info core:bogus\n",
            "LogLevel proxy:debug mod_proxy.c:info rewrite:trace1\n",
            "HttpProtocolOptions Strict Unsafe\n",
            "ProxyIOBufferSize 100\n",
            "CacheLockMaxAge 0\n",
            "KeepAliveTimeout 5min\n",
            "MaxRanges 12abc\n",
            "ProxyTimeout 5abc\n",
            "LimitInternalRecursion 12abc\n",
            "ServerTokens Minimal\n",
        )));
    }

    /// Missing words and URLs, where the section around the line gives the handler its path or
    /// not.
    #[test]
    fn words_a_handler_misses_outside_and_inside_sections() {
        expect![[r#"
            /etc/httpd.conf:5: Error[argument-value]: httpd 2.4 will not start: Missing header-field name for SetEnvIf
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: Missing envariable expression for BrowserMatchNoCase
            /etc/httpd.conf:7: Error[argument-value]: httpd 2.4 will not start: URL to redirect to is missing
            /etc/httpd.conf:8: Error[argument-value]: httpd 2.4 will not start: Alias must have two arguments when used globally
            /etc/httpd.conf:9: Error[argument-value]: httpd 2.4 will not start: ProxyPass|ProxyPassMatch needs a path when not defined in a location
            /etc/httpd.conf:10: Error[argument-value]: httpd 2.4 will not start: CacheEnable provider (disk) is missing an URL.
            /etc/httpd.conf:12: Error[argument-value]: httpd 2.4 will not start: When in a Location, CacheEnable must specify a path or an URL below that location.
            /etc/httpd.conf:13: Error[argument-value]: httpd 2.4 will not start: CacheDisable must be followed by the word 'on' when in a Location.
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule alias_module m\nLoadModule setenvif_module m\nLoadModule proxy_module m\nLoadModule cache_module m\n",
            "SetEnvIf\n",
            "BrowserMatchNoCase bot\n",
            "Redirect /old\n",
            "Alias /x\n",
            "ProxyPass /x\n",
            "CacheEnable disk\n",
            "<Location /a>\n",
            "CacheEnable disk /b\n",
            "CacheDisable /a\n",
            "Alias /srv/a\n",
            "ProxyPass http://backend/\n",
            "CacheEnable disk\n",
            "Redirect gone\n",
            "</Location>\n",
            "<Proxy \"proxy:http://b\">\nCacheEnable disk http://b/x\n</Proxy>\n",
        )));
    }

    /// Handlers that remember the earlier lines of their record: a section's, a server's; the
    /// body of a `<Limit>` is only part of one (its line judged alone).
    #[test]
    fn earlier_lines_of_the_same_record() {
        expect![[r#"
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: ProxyErrorOverride: status codes must follow a value of 'on'
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: ProxyErrorOverride first parameter must be one of: off | on
            /etc/httpd.conf:8: Error[argument-value]: httpd 2.4 will not start: HttpProtocolOptions 'Strict' and 'Unsafe' are mutually exclusive
            /etc/httpd.conf:19: Error[argument-value]: httpd 2.4 will not start: Filters is incompatible with Any and NegotiatedOnly
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule proxy_module m\nLoadModule mime_module m\n",
            "ProxyErrorOverride off\n",
            "ProxyErrorOverride 404\n",
            "<VirtualHost *:80>\nProxyErrorOverride 500\nHttpProtocolOptions Strict\nHttpProtocolOptions Unsafe\n</VirtualHost>\n",
            "<Location /a>\nProxyErrorOverride on\nProxyErrorOverride 404\n<Limit GET>\nProxyErrorOverride 500\n</Limit>\n</Location>\n",
            "<Directory /srv>\nMultiviewsMatch Any\nMultiviewsMatch Filters\n</Directory>\n",
            "<Directory /srv>\nMultiviewsMatch Filters\n</Directory>\n",
        )));
    }

    /// Worker and balancer parameters as `set_worker_param` and `set_balancer_param` read
    /// them (ProxyPass, BalancerMember, ProxySet in a `<Proxy>`); a worker an earlier line of
    /// the same server defined is shared and its parameters ignored; `!` applies none.
    #[test]
    fn proxy_parameters_httpd_refuses() {
        expect![[r#"
            /etc/httpd.conf:2: Error[argument-value]: httpd 2.4 will not start: ProxyPass unknown Worker parameter
            /etc/httpd.conf:3: Error[argument-value]: httpd 2.4 will not start: ProxyPass Timeout must be at least one second
            /etc/httpd.conf:4: Error[argument-value]: httpd 2.4 will not start: ProxyPass Unknown status parameter option
            /etc/httpd.conf:5: Error[argument-value]: httpd 2.4 will not start: ProxyPass unknown Balancer parameter
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: ProxyPass Ping/Pong timeout must be at least one millisecond
            /etc/httpd.conf:7: Error[argument-value]: httpd 2.4 will not start: ProxyPass URL must be absolute!: http:///path
            /etc/httpd.conf:8: Error[argument-value]: httpd 2.4 will not start: unknown mapping
            /etc/httpd.conf:13: Error[argument-value]: httpd 2.4 will not start: BalancerMember lbset must be between 0 and 99
            /etc/httpd.conf:15: Error[argument-value]: httpd 2.4 will not start: ProxySet: growth must be between 1 and 100 growth=0; balancer://c
            /etc/httpd.conf:18: Error[argument-value]: httpd 2.4 will not start: ProxySet URL must be absolute!: *
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule proxy_module m\n",
            "ProxyPass /a http://a/ bogus=1\n",
            "ProxyPass /b http://b/ timeout=\"5\"\n",
            "ProxyPass /c http://c/ status=+Z\n",
            "ProxyPass /d balancer://d retry=1\n",
            "ProxyPass /e http://e/ ping=\n",
            "ProxyPass /f http:///path\n",
            "ProxyPass /g ! mapping=x\n",
            // Shared with /a's worker; `!` and values httpd takes.
            "ProxyPass /h http://A/x timeout=0\n",
            "ProxyPass /i ! timeout=0\n",
            "ProxyPass /j http://j/ timeout=0 timeout=5 status=-d+H acquire=1 ping=500ms nocanon\n",
            "<Proxy balancer://c>\n",
            "BalancerMember http://m:1 lbset=100\n",
            "BalancerMember http://m:2 loadfactor=1.5 route=r1\n",
            "ProxySet growth=0\n",
            "</Proxy>\n",
            "<Proxy *>\n",
            "ProxySet timeout=5\n",
            "</Proxy>\n",
        )));
    }

    /// mod_headers' format tags, mod_rewrite's flag field as `parseargline` splits it,
    /// RemoteIP wildcards, CacheDirLevels times CacheDirLength, and an ITERATE list that ends
    /// at an empty word.
    #[test]
    fn formats_flags_wildcards_and_products() {
        expect![[r#"
            /etc/httpd.conf:6: Error[argument-value]: httpd 2.4 will not start: Unrecognized header format %
            /etc/httpd.conf:7: Error[argument-value]: httpd 2.4 will not start: Unrecognized header format %o
            /etc/httpd.conf:8: Error[argument-value]: httpd 2.4 will not start: Unrecognized header format %q
            /etc/httpd.conf:13: Error[argument-value]: httpd 2.4 will not start: RewriteRule: bad flag delimiters
            /etc/httpd.conf:14: Error[argument-value]: httpd 2.4 will not start: RewriteCond: bad flag delimiters
            /etc/httpd.conf:16: Error[argument-value]: httpd 2.4 will not start: RemoteIP: Error parsing IP 10.0.0.* (Name or service not known error) for RemoteIPTrustedProxy
            /etc/httpd.conf:19: Error[argument-value]: httpd 2.4 will not start: CacheDirLevels*CacheDirLength value must not be higher than 20
        "#]].assert_eq(&render(concat!(
            "//- /etc/httpd.conf\n",
            "LoadModule headers_module m\nLoadModule rewrite_module m\nLoadModule remoteip_module m\nLoadModule cache_module m\nLoadModule cache_disk_module m\n",
            "RequestHeader set X \"100% secure\"\n",
            "Header always set X \"%D %{x}e %o\"\n",
            "Header edit X a \"%q\"\n",
            "Header set X \"%{x}}e %% a%\" env=a\n",
            "Header echo \"%z\"\n",
            "Header set X expr=%{HTTP_HOST}\n",
            "Header edit X a \"100%\"\n",
            "RewriteRule ^/x /y \"[R=301,E=a:\\\"b\\\"]\"\n",
            "RewriteCond %{HTTP_HOST} x NC\n",
            "RewriteRule ^/x /y [R,L] ignored\n",
            "RemoteIPTrustedProxy 10.0.0.*\n",
            "RemoteIPTrustedProxy 10.0.0.1 \"\" 1.2.3.4.5\n",
            "CacheDirLevels 5\n",
            "CacheDirLength 5\n",
            "<VirtualHost *:80>\nCacheDirLength 10\n</VirtualHost>\n",
        )));
    }

    #[test]
    fn ports_and_urls_as_httpd_reads_them() {
        for (s, v) in [("80", 80), ("80abc", 80), ("", 0), ("-5", -5), (" 7", 7), ("notaport", 0), ("4294967376", 80)] {
            assert_eq!(atoi(s), v, "{s:?}");
        }
        // (glibc's atoi: past 64 bits strtol saturates, and the low 32 bits of LONG_MAX are -1.)
        assert_eq!(atoi("99999999999999999999"), -1);
        assert_eq!(read_number(Read::StrtoffWhole, "10 "), None);
        assert_eq!(read_number(Read::StrtoffWhole, "99999999999999999999"), None);
        assert_eq!(read_number(Read::StrtoffPrefix, "12abc"), Some(12));
        assert_eq!(timeout_parameter("5", "s"), Some(5_000_000));
        assert_eq!(timeout_parameter("100ms", "s"), Some(100_000));
        assert_eq!(timeout_parameter("2minutes", "s"), Some(120_000_000));
        assert_eq!(timeout_parameter("5mx", "s"), None);
        assert_eq!(timeout_parameter("-1", "s"), None);
        assert_eq!(timeout_parameter("9223372036855", "s"), None);
        assert_eq!(uri_has_scheme_or_authority("///x"), Ok(false));
        assert_eq!(uri_has_scheme_or_authority("//?q"), Ok(true));
        assert_eq!(uri_has_scheme_or_authority("foo:bar"), Ok(true));
        assert_eq!(uri_has_scheme_or_authority("/foo"), Ok(false));
        assert_eq!(uri_has_scheme_or_authority("http://a:x/"), Err(()));
        assert!(
            fnmatch_test("*.example.com") && fnmatch_test("[::1]") && !fnmatch_test("a[b") && !fnmatch_test("a\\*")
        );
        assert_eq!(url_refusal("http://localhost:8080/"), None);
        assert_eq!(url_refusal("unix:/run/x.sock|http://localhost/"), None);
        // A socket's URL needs a scheme only (round 6 bug 5, from httpd's own test suite).
        for ok in ["unix:/tmp/x.sock|http:", "UNIX:/x|fcgi://", "unix:/x|http:$1", "unix:/x|fcgi:///"] {
            assert_eq!(url_refusal(ok), None, "{ok}");
        }
        assert_eq!(url_refusal("unix:/x|localhost").as_deref(), Some(INVALID_UNIX));
        assert_eq!(url_refusal("unix:/x|:80").as_deref(), Some("Unable to parse URL: unix:/x|:80"));
        assert_eq!(url_refusal("unix:/x|ht+p:"), None);
        assert_eq!(url_refusal("1http://a/").as_deref(), Some("Unable to parse URL: 1http://a/"));
        assert_eq!(url_refusal("unix:/x.sock").as_deref(), Some("URL must be absolute!: unix:/x.sock"));
        assert_eq!(url_refusal("http://[::1]:80/"), None);
        assert_eq!(url_refusal("balancer://c"), None);
        assert_eq!(url_refusal("localhost:8080/").as_deref(), Some("URL must be absolute!: localhost:8080/"));
        assert_eq!(url_refusal("foo").as_deref(), Some("URL must be absolute!: foo"));
        assert_eq!(
            url_refusal("ajp://localhost:$NOPE/").as_deref(),
            Some("Unable to parse URL: ajp://localhost:$NOPE/")
        );
    }
}

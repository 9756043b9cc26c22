//! What the handlers of some directives accept as argument values, as data: the words a
//! handler compares its argument with, the numbers it reads (and how: `atoi`, `atol`,
//! `apr_atoi64`, `apr_strtoff` with or without an end check, `ap_timeout_parameter_parse`)
//! and the range it keeps, and the message it returns otherwise (httpd's own words, which
//! users search for). Read from each handler in httpd 2.4's source (`server/core.c`,
//! `modules/http/http_core.c`, `modules/proxy/mod_proxy.c`, `modules/cache/*.c`,
//! `modules/mappers/mod_dir.c`, `modules/mappers/mod_alias.c`, `modules/http/mod_mime.c`,
//! `modules/metadata/mod_setenvif.c`) and held against `apache2 -t`
//! (`context_vs_httpd::handler_values_match_apache2_t`).
//!
//! Handlers whose rules have more structure than a word list or a number name a
//! [`Handler`]; `diagnostics::argument_values` reads them. [`accepts`] is a lookup by the
//! directive's place in the catalogue.

use super::{directive_id, DirectiveId};
use std::sync::OnceLock;

/// How a handler reads a number from its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Read {
    /// C's `atoi`: blanks, a sign, digits (anything may follow; none read is 0), kept as an
    /// `int` (glibc: `(int) strtol`, so a value past 32 bits is cut to its low bits).
    Atoi,
    /// `atol`/`apr_atoi64`: the same, kept in 64 bits (saturated past them).
    Atol,
    /// `apr_strtoff` whose end is checked: the whole argument must be the number; past 64 bits
    /// is an error (`ERANGE`).
    StrtoffWhole,
    /// `apr_strtoff` without an end check: a leading number (anything may follow); past 64
    /// bits is an error.
    StrtoffPrefix,
}

/// What a handler accepts.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Accepts {
    /// Each argument (one for `TAKE1`, each of an `ITERATE`) is one of `words`, case aside;
    /// else `refused`, where `{arg}` stands for the argument.
    Word { words: &'static [&'static str], refused: &'static str },
    /// Each argument is one of `words`, case aside, or a number read as `read` that lies in
    /// one of `ranges`; else `refused`, where `{arg}` stands for the argument.
    Number { words: &'static [&'static str], read: Read, ranges: &'static [(i64, i64)], refused: &'static str },
    /// A duration `ap_timeout_parameter_parse` reads (digits, then nothing, which means
    /// `unit`, or a unit whose first letters are `s`, `h`, `ms` or `mi`); else `refused`. A
    /// duration under `min` microseconds is refused with `short`.
    Timeout { unit: &'static str, min: i64, refused: &'static str, short: &'static str },
    /// A string the handler copies into a buffer of `size` bytes (`PROXY_STRNCPY`): `size`
    /// bytes or more are refused with `refused`.
    Length { size: usize, refused: &'static str },
    /// Letters out of `letters` (case aside), each after an optional `+` or `-` (a worker's
    /// `status=`, `ap_proxy_set_wstatus`); else `refused`.
    Letters { letters: &'static str, refused: &'static str },
    /// Anything (the handler never refuses the value).
    Any,
    /// Rules of the handler's own, read by `diagnostics::argument_values`.
    Handler(Handler),
}

/// Handlers with rules of their own (see `diagnostics::argument_values::handler_refusal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Handler {
    /// `set_limit_req_body`: `apr_strtoff`, two messages (unparsable; not a whole
    /// non-negative number).
    LimitRequestBody,
    /// `set_etag_bits`: keywords, `None`/`All` without `+`/`-`.
    FileETag,
    /// `set_loglevel`: a level, or `module:level` naming a loaded module.
    LogLevel,
    /// `set_regex_default_options`: `none`, or `[+|-]` a PCRE option name.
    RegexDefaultOptions,
    /// `set_http_protocol_options`: keywords, pairs that exclude each other.
    HttpProtocolOptions,
    /// mod_mime's `multiviews_match`: keywords, some incompatible.
    MultiviewsMatch,
    /// mod_dir's `configure_redirect`: keywords, or a 3xx status.
    DirectoryIndexRedirect,
    /// mod_proxy's `set_proxy_error_override`: `On`/`Off` then status codes.
    ProxyErrorOverride,
    /// mod_proxy's `set_proxy_domain`: a leading dot.
    ProxyDomain,
    /// mod_cache's `set_cache_factor`: what `sscanf("%lg")` reads.
    CacheLastModifiedFactor,
    /// mod_cache's `set_cache_key_base_url`: a URL with a scheme, host or port.
    CacheKeyBaseUrl,
    /// mod_cache's `add_cache_enable`: a provider, then a URL (or the section's path).
    CacheEnable,
    /// mod_cache's `add_cache_disable`: `on` in a section with a path, a path or URL outside.
    CacheDisable,
    /// mod_setenvif's `add_setenvif` (`SetEnvIf`, `SetEnvIfNoCase`): a header field, a
    /// regex, variables.
    SetEnvIf,
    /// mod_setenvif's `add_browser` (`BrowserMatch`, `BrowserMatchNoCase`): a regex, variables.
    BrowserMatch,
    /// mod_setenvif's `add_setenvifexpr`: an expression (then variables).
    SetEnvIfExpr,
    /// mod_alias' `add_redirect_internal` (`Redirect`, `RedirectMatch`, `RedirectTemp`,
    /// `RedirectPermanent`): status, path and URL.
    Redirect,
    /// mod_alias' `add_alias` (`Alias`, `ScriptAlias`): one argument only in a section.
    Alias,
    /// mod_cache_disk's `set_cache_dirlevels`/`set_cache_dirlength`: a positive `atoi`, and
    /// the product with the server's other one (2 until set) at most 20.
    CacheDirDepth,
    /// A worker's `loadfactor=`: `atof` times 100, cut to an `int`, within 100..=10000.
    LoadFactor,
    /// A worker's `addressttl=`: `-1`, or a duration in whole seconds up to `INT32_MAX`.
    AddressTtl,
    /// A balancer's `failonstatus=`: statuses `atoi` reads as 100..=599, split at `,` and ` `.
    FailOnStatus,
    /// A balancer's `lbmethod=`: a provider a loaded `mod_lbmethod_*` registers.
    LbMethod,
    /// A balancer's `stickysessionsep=`: one character, or `Off`.
    StickySessionSep,
    /// A worker's `hcmethod=` (mod_proxy_hcheck): a method of `proxy_hcmethods`, case aside,
    /// that is implemented.
    HcMethod,
    /// A worker's `hcexpr=`: a name an earlier `ProxyHCExpr` of the same server defined.
    HcExpr,
    /// A worker's `hctemplate=`: a name an earlier `ProxyHCTemplate` of the same server
    /// defined.
    HcTemplate,
}

/// `APR_STRINGIFY(APR_UINT32_MAX)` and `APR_INT32_MAX` as Debian's build spells them in
/// messages.
const U32_MAX: i64 = 4_294_967_295;
const I32_MAX: i64 = 2_147_483_647;
const I64_MAX: i64 = i64::MAX;
const ON_OFF: &[&str] = &["on", "off"];
const RANGES: &[&str] = &["none", "default", "unlimited"];

/// Each directive's handler, by the catalogue's name.
const RULES: &[(&str, Accepts)] = &[
    // server/core.c
    ("AcceptPathInfo", Accepts::Word { words: &["on", "off", "default"], refused: "AcceptPathInfo must be set to on, off or default" }),
    ("AllowEncodedSlashes", Accepts::Word { words: &["on", "off", "nodecode"], refused: "AllowEncodedSlashes must be On, Off, or NoDecode" }),
    ("EnableMMAP", Accepts::Word { words: ON_OFF, refused: "parameter must be 'on' or 'off'" }),
    ("EnableSendfile", Accepts::Word { words: ON_OFF, refused: "parameter must be 'on' or 'off'" }),
    ("HostnameLookups", Accepts::Word { words: &["on", "off", "double"], refused: "parameter must be 'on', 'off', or 'double'" }),
    ("UseCanonicalName", Accepts::Word { words: &["on", "off", "dns"], refused: "parameter must be 'on', 'off', or 'dns'" }),
    ("UseCanonicalPhysicalPort", Accepts::Word { words: ON_OFF, refused: "parameter must be 'on' or 'off'" }),
    ("ProtocolsHonorOrder", Accepts::Word { words: ON_OFF, refused: "ProtocolsHonorOrder must be 'on' or 'off'" }),
    ("TraceEnable", Accepts::Word { words: &["on", "off", "extended"], refused: "TraceEnable must be one of 'on', 'off', or 'extended'" }),
    ("ServerSignature", Accepts::Word { words: &["on", "off", "email"], refused: "ServerSignature: use one of: off | on | email" }),
    (
        "ServerTokens",
        Accepts::Word {
            words: &["os", "min", "minimal", "major", "minor", "prod", "productonly", "full"],
            refused: "ServerTokens takes 1 argument: 'Prod(uctOnly)', 'Major', 'Minor', 'Min(imal)', 'OS', or 'Full'",
        },
    ),
    ("KeepAliveTimeout", Accepts::Timeout { unit: "s", min: 0, refused: "KeepAliveTimeout has wrong format", short: "" }),
    ("LimitRequestBody", Accepts::Handler(Handler::LimitRequestBody)),
    (
        "LimitInternalRecursion",
        Accepts::Number { words: &[], read: Read::Atoi, ranges: &[(1, I32_MAX)], refused: "The recursion limit must be greater than zero." },
    ),
    (
        "MaxRanges",
        Accepts::Number {
            words: RANGES,
            read: Read::Atoi,
            ranges: &[(1, I32_MAX)],
            refused: "MaxRanges requires 'none', 'default', 'unlimited' or a positive integer",
        },
    ),
    (
        "MaxRangeOverlaps",
        Accepts::Number {
            words: RANGES,
            read: Read::Atoi,
            ranges: &[(1, I32_MAX)],
            refused: "MaxRangeOverlaps requires 'none', 'default', 'unlimited' or a positive integer",
        },
    ),
    (
        "MaxRangeReversals",
        Accepts::Number {
            words: RANGES,
            read: Read::Atoi,
            ranges: &[(1, I32_MAX)],
            refused: "MaxRangeReversals requires 'none', 'default', 'unlimited' or a positive integer",
        },
    ),
    (
        "ReadBufferSize",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffWhole,
            ranges: &[(0, U32_MAX)],
            refused: "parameter must be a number between 0 and (4294967295U)): {arg}",
        },
    ),
    (
        "FlushMaxThreshold",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffWhole,
            ranges: &[(0, U32_MAX)],
            refused: "parameter must be a number between 0 and (4294967295U)): {arg}",
        },
    ),
    (
        "FlushMaxPipelined",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffWhole,
            ranges: &[(-1, I32_MAX)],
            refused: "parameter must be a number between -1 and (2147483647): {arg}",
        },
    ),
    ("FileETag", Accepts::Handler(Handler::FileETag)),
    ("LogLevel", Accepts::Handler(Handler::LogLevel)),
    ("RegexDefaultOptions", Accepts::Handler(Handler::RegexDefaultOptions)),
    ("HttpProtocolOptions", Accepts::Handler(Handler::HttpProtocolOptions)),
    // modules/http/mod_mime.c, modules/mappers/mod_dir.c
    ("MultiviewsMatch", Accepts::Handler(Handler::MultiviewsMatch)),
    ("DirectoryIndexRedirect", Accepts::Handler(Handler::DirectoryIndexRedirect)),
    // modules/proxy/mod_proxy.c
    ("ProxyVia", Accepts::Word { words: &["off", "on", "block", "full"], refused: "ProxyVia must be one of: off | on | full | block" }),
    ("ProxyStatus", Accepts::Word { words: &["off", "on", "full"], refused: "ProxyStatus must be one of: off | on | full" }),
    (
        "ProxyBadHeader",
        Accepts::Word { words: &["iserror", "ignore", "startbody"], refused: "ProxyBadHeader must be one of: IsError | Ignore | StartBody" },
    ),
    (
        "ProxyTimeout",
        Accepts::Number { words: &[], read: Read::Atoi, ranges: &[(1, I32_MAX)], refused: "Proxy Timeout must be at least 1 second." },
    ),
    (
        "ProxyIOBufferSize",
        Accepts::Number {
            words: &[],
            read: Read::Atol,
            ranges: &[(0, 0), (512, I64_MAX)],
            refused: "ProxyIOBufferSize must be >= 512 bytes, or 0 for system default.",
        },
    ),
    (
        "ProxyReceiveBufferSize",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(0, 0), (512, I32_MAX)],
            refused: "ProxyReceiveBufferSize must be >= 512 bytes, or 0 for system default.",
        },
    ),
    ("ProxyErrorOverride", Accepts::Handler(Handler::ProxyErrorOverride)),
    ("ProxyDomain", Accepts::Handler(Handler::ProxyDomain)),
    // modules/cache/mod_cache.c, mod_cache_disk.c, mod_cache_socache.c
    ("CacheLastModifiedFactor", Accepts::Handler(Handler::CacheLastModifiedFactor)),
    (
        "CacheLockMaxAge",
        Accepts::Number {
            words: &[],
            read: Read::Atol,
            ranges: &[(1, I64_MAX)],
            refused: "CacheLockMaxAge value must be a non-zero positive integer",
        },
    ),
    ("CacheKeyBaseURL", Accepts::Handler(Handler::CacheKeyBaseUrl)),
    ("CacheEnable", Accepts::Handler(Handler::CacheEnable)),
    ("CacheDisable", Accepts::Handler(Handler::CacheDisable)),
    ("CacheDirLevels", Accepts::Handler(Handler::CacheDirDepth)),
    ("CacheDirLength", Accepts::Handler(Handler::CacheDirDepth)),
    (
        "CacheMinFileSize",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffPrefix,
            ranges: &[(0, I64_MAX)],
            refused: "CacheMinFileSize argument must be a non-negative integer representing the min size of a file to cache in bytes.",
        },
    ),
    (
        "CacheMaxFileSize",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffPrefix,
            ranges: &[(0, I64_MAX)],
            refused: "CacheMaxFileSize argument must be a non-negative integer representing the max size of a file to cache in bytes.",
        },
    ),
    (
        "CacheReadSize",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffPrefix,
            ranges: &[(0, I64_MAX)],
            refused: "CacheReadSize argument must be a non-negative integer representing the max amount of data to cache in go.",
        },
    ),
    (
        "CacheReadTime",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffPrefix,
            ranges: &[(0, I64_MAX)],
            refused: "CacheReadTime argument must be a non-negative integer representing the max amount of time taken to cache in go.",
        },
    ),
    (
        "CacheSocacheMaxSize",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffPrefix,
            ranges: &[(1024, U32_MAX)],
            refused: "CacheSocacheMaxSize argument must be a integer representing the max size of a cached entry (headers and body), at least 1024 and at most (4294967295U)",
        },
    ),
    (
        "CacheSocacheMaxTime",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffPrefix,
            ranges: &[(0, I64_MAX)],
            refused: "CacheSocacheMaxTime argument must be the maximum amount of time in seconds to cache an entry.",
        },
    ),
    (
        "CacheSocacheMinTime",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffPrefix,
            ranges: &[(0, I64_MAX)],
            refused: "CacheSocacheMinTime argument must be the minimum amount of time in seconds to cache an entry.",
        },
    ),
    (
        "CacheSocacheReadSize",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffPrefix,
            ranges: &[(0, I64_MAX)],
            refused: "CacheSocacheReadSize argument must be a non-negative integer representing the max amount of data to cache in go.",
        },
    ),
    (
        "CacheSocacheReadTime",
        Accepts::Number {
            words: &[],
            read: Read::StrtoffPrefix,
            ranges: &[(0, I64_MAX)],
            refused: "CacheSocacheReadTime argument must be a non-negative integer representing the max amount of time taken to cache in go.",
        },
    ),
    // modules/metadata/mod_setenvif.c
    ("SetEnvIf", Accepts::Handler(Handler::SetEnvIf)),
    ("SetEnvIfNoCase", Accepts::Handler(Handler::SetEnvIf)),
    ("BrowserMatch", Accepts::Handler(Handler::BrowserMatch)),
    ("BrowserMatchNoCase", Accepts::Handler(Handler::BrowserMatch)),
    ("SetEnvIfExpr", Accepts::Handler(Handler::SetEnvIfExpr)),
    // modules/mappers/mod_alias.c
    ("Redirect", Accepts::Handler(Handler::Redirect)),
    ("RedirectMatch", Accepts::Handler(Handler::Redirect)),
    ("RedirectTemp", Accepts::Handler(Handler::Redirect)),
    ("RedirectPermanent", Accepts::Handler(Handler::Redirect)),
    ("Alias", Accepts::Handler(Handler::Alias)),
    ("ScriptAlias", Accepts::Handler(Handler::Alias)),
    // modules/filters/mod_include.c
    ("XBitHack", Accepts::Word { words: &["off", "on", "full"], refused: "XBitHack must be set to Off, On, or Full" }),
    // modules/ssl/ssl_engine_config.c (2.4's message names two of the three words)
    ("SSLEngine", Accepts::Word { words: &["on", "off", "optional"], refused: "Argument must be On or Off" }),
    // modules/metadata/mod_usertrack.c
    ("CookieStyle", Accepts::Word { words: &["netscape", "cookie", "rfc2109", "cookie2", "rfc2965"], refused: "Invalid CookieStyle keyword: '{arg}'" }),
    // modules/aaa/mod_auth_basic.c
    ("AuthBasicUseDigestAlgorithm", Accepts::Word { words: &["off", "md5"], refused: "Invalid algorithm in AuthBasicUseDigestAlgorithm: {arg}" }),
    // modules/mappers/mod_negotiation.c (ITERATE; combinations with None are not judged)
    ("ForceLanguagePriority", Accepts::Word { words: &["none", "prefer", "fallback"], refused: "Invalid ForceLanguagePriority option {arg}" }),
];

/// `On` or `Off`, as the proxy's parameter handlers compare them.
const PARAM_ON_OFF: &[&str] = &["on", "off"];

/// The `key=value` parameters of a proxy worker (`ProxyPass` to anything but `balancer://`,
/// `BalancerMember`, `ProxySet` on a worker): mod_proxy's `set_worker_param`, keys compared
/// case aside. A key not here is "unknown Worker parameter" unless mod_proxy_hcheck is loaded
/// (its `hc…` keys).
pub(crate) const WORKER_PARAMS: &[(&str, Accepts)] = &[
    ("loadfactor", Accepts::Handler(Handler::LoadFactor)),
    (
        "retry",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(0, I32_MAX)],
            refused: "Retry must be a positive value",
        },
    ),
    (
        "ttl",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(1, I32_MAX)],
            refused: "TTL must be at least one second",
        },
    ),
    (
        "min",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(0, I32_MAX)],
            refused: "Min must be a positive number",
        },
    ),
    (
        "max",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(0, I32_MAX)],
            refused: "Max must be a positive number",
        },
    ),
    (
        "smax",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(0, I32_MAX)],
            refused: "Smax must be a positive number",
        },
    ),
    (
        "acquire",
        Accepts::Timeout {
            unit: "ms",
            min: 1000,
            refused: "Acquire timeout has wrong format",
            short: "Acquire must be at least one millisecond",
        },
    ),
    (
        "timeout",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(1, I32_MAX)],
            refused: "Timeout must be at least one second",
        },
    ),
    (
        "iobuffersize",
        Accepts::Number {
            words: &[],
            read: Read::Atol,
            ranges: &[(0, 0), (512, I64_MAX)],
            refused: "IOBufferSize must be >= 512 bytes, or 0 for system default.",
        },
    ),
    (
        "receivebuffersize",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(0, 0), (512, I32_MAX)],
            refused: "ReceiveBufferSize must be >= 512 bytes, or 0 for system default.",
        },
    ),
    ("keepalive", Accepts::Word { words: PARAM_ON_OFF, refused: "KeepAlive must be On|Off" }),
    ("disablereuse", Accepts::Word { words: PARAM_ON_OFF, refused: "DisableReuse must be On|Off" }),
    ("enablereuse", Accepts::Word { words: PARAM_ON_OFF, refused: "EnableReuse must be On|Off" }),
    ("addressttl", Accepts::Handler(Handler::AddressTtl)),
    ("route", Accepts::Length { size: 64, refused: "Route length must be < 64 characters" }),
    ("redirect", Accepts::Length { size: 64, refused: "Redirect length must be < 64 characters" }),
    ("status", Accepts::Letters { letters: "OINGUDSEHRFC", refused: "Unknown status parameter option" }),
    ("flushpackets", Accepts::Word { words: &["on", "off", "auto"], refused: "flushpackets must be on|off|auto" }),
    (
        "flushwait",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(0, 1000)],
            refused: "flushwait must be <= 1000, or 0 for system default of 10 millseconds.",
        },
    ),
    (
        "ping",
        Accepts::Timeout {
            unit: "s",
            min: 1000,
            refused: "Ping/Pong timeout has wrong format",
            short: "Ping/Pong timeout must be at least one millisecond",
        },
    ),
    (
        "lbset",
        Accepts::Number { words: &[], read: Read::Atoi, ranges: &[(0, 99)], refused: "lbset must be between 0 and 99" },
    ),
    (
        "connectiontimeout",
        Accepts::Timeout {
            unit: "s",
            min: 1000,
            refused: "Connectiontimeout has wrong format",
            short: "Connectiontimeout must be at least one millisecond.",
        },
    ),
    ("flusher", Accepts::Length { size: 16, refused: "flusher name length must be < 16 characters" }),
    ("upgrade", Accepts::Length { size: 16, refused: "upgrade protocol length must be < 16 characters" }),
    (
        "responsefieldsize",
        Accepts::Number {
            words: &[],
            read: Read::Atol,
            ranges: &[(0, I64_MAX)],
            refused: "ResponseFieldSize must be greater than 0 bytes, or 0 for system default.",
        },
    ),
    ("secret", Accepts::Length { size: 64, refused: "Secret length must be < 64 characters" }),
];

/// The `key=value` parameters mod_proxy_hcheck adds to a worker's (`set_worker_hc_param`,
/// keys compared case aside), read where the worker's table does not know the key. Its
/// names and templates live in each server's own configuration (no merge): a virtual host
/// sees only those defined earlier in it. A key not here is "unknown Worker hcheck parameter".
pub(crate) const HC_PARAMS: &[(&str, Accepts)] = &[
    ("hctemplate", Accepts::Handler(Handler::HcTemplate)),
    ("hcmethod", Accepts::Handler(Handler::HcMethod)),
    (
        "hcinterval",
        Accepts::Timeout {
            unit: "s",
            // (`AP_WD_TM_SLICE`, mod_watchdog's 100 ms.)
            min: 100_000,
            refused: "Unparse-able hcinterval setting",
            short: "Interval must be a positive value greater than 100ms",
        },
    ),
    (
        "hcpasses",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(0, I32_MAX)],
            refused: "Passes must be a positive value",
        },
    ),
    (
        "hcfails",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(0, I32_MAX)],
            refused: "Fails must be a positive value",
        },
    ),
    ("hcuri", Accepts::Length { size: 64, refused: "Health check uri length must be < 64 characters" }),
    ("hcexpr", Accepts::Handler(Handler::HcExpr)),
];

/// mod_proxy's health-check methods (`proxy_hcmethods` in `proxy_util.c`), each with whether
/// it is implemented (`CPING` and `PROVIDER` are listed and refused).
pub(crate) const HC_METHODS: &[(&str, bool)] = &[
    ("NONE", true),
    ("TCP", true),
    ("OPTIONS", true),
    ("HEAD", true),
    ("GET", true),
    ("CPING", false),
    ("PROVIDER", false),
    ("OPTIONS11", true),
    ("HEAD11", true),
    ("GET11", true),
];

/// What a health-check parameter `key` accepts (case aside), if mod_proxy_hcheck knows it.
pub(crate) fn hc_param(key: &str) -> Option<&'static Accepts> {
    HC_PARAMS.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, a)| a)
}

/// The `key=value` parameters of a balancer (`ProxyPass` to `balancer://…`, `ProxySet` on
/// one): mod_proxy's `set_balancer_param`. A key not here is "unknown Balancer parameter".
pub(crate) const BALANCER_PARAMS: &[(&str, Accepts)] = &[
    // (A value too long is cut, its message never returned.)
    ("stickysession", Accepts::Any),
    ("stickysessionsep", Accepts::Handler(Handler::StickySessionSep)),
    ("nofailover", Accepts::Word { words: PARAM_ON_OFF, refused: "failover must be On|Off" }),
    (
        "timeout",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(1, I32_MAX)],
            refused: "timeout must be at least one second",
        },
    ),
    (
        "maxattempts",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(0, I32_MAX)],
            refused: "maximum number of attempts must be a positive number",
        },
    ),
    ("lbmethod", Accepts::Handler(Handler::LbMethod)),
    ("scolonpathdelim", Accepts::Word { words: PARAM_ON_OFF, refused: "scolonpathdelim must be On|Off" }),
    ("failonstatus", Accepts::Handler(Handler::FailOnStatus)),
    ("failontimeout", Accepts::Word { words: PARAM_ON_OFF, refused: "failontimeout must be On|Off" }),
    // (`APR_UUID_FORMATTED_LENGTH + 1` bytes; `None` clears it.)
    ("nonce", Accepts::Length { size: 37, refused: "Provided nonce is too large" }),
    (
        "growth",
        Accepts::Number {
            words: &[],
            read: Read::Atoi,
            ranges: &[(1, 100)],
            refused: "growth must be between 1 and 100",
        },
    ),
    ("forcerecovery", Accepts::Word { words: PARAM_ON_OFF, refused: "forcerecovery must be On|Off" }),
];

/// What a worker's (`balancer` false) or a balancer's parameter `key` accepts, case aside;
/// None for a key the handler does not know.
pub(crate) fn proxy_param(balancer: bool, key: &str) -> Option<&'static Accepts> {
    let table = if balancer { BALANCER_PARAMS } else { WORKER_PARAMS };
    table.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, a)| a)
}

/// The load-balancing methods (`lbmethod=`) each `mod_lbmethod_*` registers, by module.
pub(crate) const LB_METHODS: &[(&str, &str)] = &[
    ("lbmethod_byrequests_module", "byrequests"),
    ("lbmethod_bytraffic_module", "bytraffic"),
    ("lbmethod_bybusyness_module", "bybusyness"),
    ("lbmethod_heartbeat_module", "heartbeat"),
];

/// What the handler of the directive at `id` accepts, if [`RULES`] describes it: one index.
pub(crate) fn accepts(id: DirectiveId) -> Option<&'static Accepts> {
    static BY_ID: OnceLock<Vec<Option<&'static Accepts>>> = OnceLock::new();
    let by_id = BY_ID.get_or_init(|| {
        let mut v = vec![None; super::catalogue().directives.len()];
        for (name, accepts) in RULES {
            let id = directive_id(name).unwrap_or_else(|| panic!("{name} is not in the catalogue"));
            v[id.index()] = Some(accepts);
        }
        v
    });
    by_id.get(id.index()).copied().flatten()
}

/// Directives httpd 2.4 defines only on some platforms or builds (an `#ifdef` around their
/// command-table entry in `server/core.c`): Debian's Linux build answers "Invalid command".
/// The name, and where the directive exists.
const PLATFORM: &[(&str, &str)] = &[
    ("GprofDir", "httpd built for profiling with gprof (GPROF)"),
    ("ScriptInterpreterSource", "httpd for Windows"),
    ("UNCList", "httpd for Windows"),
];

/// Where the directive `name` exists if only on another platform or build than Debian's (see
/// [`PLATFORM`]).
pub fn platform_only(name: &str) -> Option<&'static str> {
    PLATFORM.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_names_a_directive_once() {
        let mut names: Vec<&str> = RULES.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RULES.len());
        for (name, _) in RULES {
            let id = directive_id(name).unwrap();
            assert!(accepts(id).is_some(), "{name}");
        }
        assert!(accepts(directive_id("DocumentRoot").unwrap()).is_none());
        for table in [WORKER_PARAMS, BALANCER_PARAMS] {
            let mut keys: Vec<String> = table.iter().map(|(k, _)| k.to_ascii_lowercase()).collect();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys.len(), table.len());
        }
        assert!(proxy_param(false, "ConnectionTimeout").is_some() && proxy_param(true, "retry").is_none());
        for (name, _) in PLATFORM {
            assert!(directive_id(name).is_some(), "{name}");
        }
    }
}

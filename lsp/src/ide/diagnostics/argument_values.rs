//! Check: arguments httpd refuses as it reads the line, outside access control: `ServerName`
//! (`server/core.c: server_hostname_port`: a pattern, or a port `atoi` does not read as 1..65535),
//! and the back-end URLs of `ProxyPass`, `ProxyPassMatch` and `BalancerMember`
//! (`modules/proxy/proxy_util.c: ap_proxy_define_worker`: a URL `apr_uri_parse` cannot read, or
//! one with no scheme and host); the addresses of `RemoteIPTrustedProxy`,
//! `RemoteIPInternalProxy` and `RemoteIPProxyProtocolExceptions` (mod_remoteip: `proxies_set`,
//! `remoteip_disable_networks`) that `apr_ipsubnet_create` cannot read; the words of
//! `AllowOverride` and `AllowOverrideList` (`set_override`, `set_allow_opts`,
//! `set_override_list`) that httpd does not know; the word of any `FLAG` directive that is
//! neither `On` nor `Off`.

use super::Diagnostic;
use crate::ide::catalogue::options::option_bits;
use crate::ide::catalogue::ArgKind;
use crate::ide::config::{Config, Node, NodeKind};
use crate::ide::policy::addr::{AddrError, IpSubnet};

/// What httpd says of `n`'s arguments, if it refuses them; `in_location` when `n` is inside a
/// `<Location>`/`<LocationMatch>` (where ProxyPass takes its path from the section).
pub(crate) fn refusal(cfg: &Config, n: &Node, in_location: bool) -> Option<String> {
    if n.kind != NodeKind::Directive {
        return None;
    }
    let args = n.arg_strings();
    match n.known() {
        "ServerName" => {
            let [arg] = &args[..] else { return None };
            if fnmatch_test(arg) {
                return Some(format!("Invalid ServerName \"{arg}\" use ServerAlias to set multiple server names."));
            }
            let rest = arg.find("://").map_or(arg.as_str(), |i| &arg[i + 3..]);
            let port = rest.find(':').map(|i| atoi(&rest[i + 1..]))?;
            (!(1..=65535).contains(&port))
                .then(|| format!("The port number \"{arg}\" is outside the appropriate range (i.e., 1..65535)."))
        }
        "ProxyPass" | "ProxyPassMatch" if cfg.module_loaded("proxy_module") => {
            let words: Vec<&str> = args.iter().map(String::as_str).filter(|w| *w != "~").collect();
            let url = if in_location { words.first() } else { words.get(1) }?;
            // (`!` excludes the path; key=value parameters follow the URL.)
            if *url == "!" || url.contains('=') && !url.contains("://") {
                return None;
            }
            let who = |why: &str| if why == INVALID_UNIX { "ProxyPass|ProxyPassMatch" } else { "ProxyPass" };
            url_refusal(url).map(|why| format!("{} {why}", who(&why)))
        }
        "BalancerMember" if cfg.module_loaded("proxy_module") => {
            let url = args.first()?;
            if url.contains('=') && !url.contains("://") {
                return None;
            }
            url_refusal(url).map(|why| format!("BalancerMember {why}"))
        }
        "AllowOverride" => args.iter().find_map(|w| allow_override_refusal(w)),
        "AllowOverrideList" => (args.len() > 1 && args.iter().any(|w| w.eq_ignore_ascii_case("None")))
            .then(|| "'None' not allowed with other directives in AllowOverrideList".to_string()),
        name @ ("RemoteIPTrustedProxy" | "RemoteIPInternalProxy") if cfg.module_loaded("remoteip_module") => {
            // Each word in turn (ITERATE): the first httpd refuses stops the line.
            args.iter()
                .find_map(|w| remoteip_proxy(w).map(|why| format!("RemoteIP: Error parsing IP {w} {why} for {name}")))
        }
        "RemoteIPProxyProtocolExceptions" if cfg.module_loaded("remoteip_module") => {
            // (No word at all: "… requires an argument", the arity check's.)
            args.iter().find_map(|w| {
                let (addr, mask) = w.split_once('/').map_or((w.as_str(), None), |(a, m)| (a, Some(m)));
                match IpSubnet::create(addr, mask) {
                    Ok(_) => None,
                    Err(AddrError::NotAnIp) => Some(format!("ip address '{addr}' appears to be invalid")),
                    Err(e) => Some(format!("ip address '{addr}' appears to be invalid: {}", e.apr_message())),
                }
            })
        }
        // (Validated with the access rules.)
        "AuthzSendForbiddenOnFailure" => None,
        // `ssl_cmd_SSLCompression`: OpenSSL built without compression methods (the default
        // since 1.1.0, Debian's included) refuses `on` in any context.
        "SSLCompression" if cfg.module_loaded("ssl_module") => {
            args.first().filter(|w| w.eq_ignore_ascii_case("on")).map(|_| SSL_NO_COMPRESSION.to_string())
        }
        _ => flag_refusal(cfg, n, &args),
    }
}

/// A `FLAG` directive's first word that is neither `On` nor `Off` (httpd's `invoke_cmd`, in the
/// name the command table registers; it ignores any later word); only where its module is
/// loaded (else that is the error).
fn flag_refusal(cfg: &Config, n: &Node, args: &[String]) -> Option<String> {
    let d = n.directive()?;
    let [word, ..] = args else { return None };
    if d.args != ArgKind::Flag || word.eq_ignore_ascii_case("on") || word.eq_ignore_ascii_case("off") {
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
    match parse_authority(url) {
        Err(()) => Some(format!("Unable to parse URL: {url}")),
        Ok(None) => Some(format!("URL must be absolute!: {url}")),
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

/// C's `atoi`: blanks, a sign, then digits (0 when none; saturated, as only the range matters).
fn atoi(s: &str) -> i64 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = (v * 10 + i64::from(b - b'0')).min(1 << 40);
    }
    if neg {
        -v
    } else {
        v
    }
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

pub(super) fn node(cfg: &Config, n: &Node, in_location: bool, out: &mut Vec<Diagnostic>) {
    let Some(refusal) = refusal(cfg, n, in_location) else { return };
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

    #[test]
    fn ports_and_urls_as_httpd_reads_them() {
        for (s, v) in [("80", 80), ("80abc", 80), ("", 0), ("-5", -5), (" 7", 7), ("notaport", 0)] {
            assert_eq!(atoi(s), v, "{s:?}");
        }
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

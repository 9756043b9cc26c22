//! Feature: the client address mod_remoteip gives a request (`modules/metadata/mod_remoteip.c`,
//! 2.4: `remoteip_modify_request`, a post_read_request hook). With `RemoteIPHeader`, a
//! connection from a trusted proxy (any, when no `RemoteIPInternalProxy`/`RemoteIPTrustedProxy`
//! is set) takes its client address from the header, read right to left: each address is taken
//! while the one before it is a listed proxy; an address that does not parse, or a private one
//! presented by a proxy that is not internal, stops the reading. Every access rule then sees
//! that address (`Require ip`, `Allow from`, `Require local`, SetEnvIf `Remote_Addr`).
//!
//! Invariant: reads only server-level directives and the headers told; where the header is not
//! told, or a proxy list is out of reach (a file, a host name, the PROXY protocol), the address
//! is unknown.

use crate::ide::config::{level_directives, Config, Node};
use crate::ide::setenvif::EnvInputs;
use std::net::IpAddr;

/// The client address httpd's access rules see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Client {
    /// The connection's: mod_remoteip does not change it (not loaded, no header configured or
    /// sent, a proxy not trusted, nothing usable in the header).
    Connection,
    /// The address the header gives, and how it was read.
    Header(IpAddr, String),
    /// Not known from what explain is told: why.
    Unknown(String),
}

/// A proxy list entry (`proxymatch_ip`): the network, and whether it is internal.
struct Proxy {
    net: ipnet::IpNet,
    internal: bool,
}

/// The server-level settings of the main server, overridden by those the virtual host sets
/// (`merge_remoteip_server_config`).
struct Settings {
    header: Option<String>,
    proxies: Option<Vec<Proxy>>,
}

/// One server level's settings, or why they cannot be read.
fn level(nodes: &[Node]) -> Result<Settings, String> {
    let mut header = None;
    let mut proxies: Option<Vec<Proxy>> = None;
    for n in level_directives(nodes) {
        let name = n.name().to_ascii_lowercase();
        match name.as_str() {
            "remoteipheader" => header = n.args().next().map(str::to_string),
            "remoteipinternalproxy" | "remoteiptrustedproxy" => {
                let list = proxies.get_or_insert_with(Vec::new);
                for w in n.args() {
                    let net = crate::ide::policy::IpSubnet::parse_word(w)
                        .ok()
                        .and_then(|s| s.to_ipnet())
                        .ok_or_else(|| format!("{} {w}: a host name, resolved when httpd starts", n.name()))?;
                    list.push(Proxy { net, internal: name == "remoteipinternalproxy" });
                }
            }
            "remoteipinternalproxylist" | "remoteiptrustedproxylist" => {
                return Err(format!("the proxies of {} are listed in a file explain does not read", n.name()))
            }
            "remoteipproxyprotocol" if n.args().next().is_some_and(|a| a.eq_ignore_ascii_case("on")) => {
                return Err("RemoteIPProxyProtocol On: the client address comes from the PROXY protocol".into())
            }
            _ => {}
        }
    }
    Ok(Settings { header, proxies })
}

/// Whether an address a proxy that is not internal presents is refused (RFC 3330's local and
/// private IPv4 networks; for IPv6, anything outside 2000::/3).
fn private(a: IpAddr) -> bool {
    match a {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            o[0] == 10
                || o[0] == 127
                || (o[0] == 169 && o[1] == 254)
                || (o[0] == 172 && (o[1] & 0xf0) == 16)
                || (o[0] == 192 && o[1] == 168)
        }
        IpAddr::V6(v6) => v6.octets()[0] & 0xe0 != 0x20,
    }
}

/// The client address of a request from `connection` to the server at `vhost` (its index in
/// `cfg.nodes`, None for the main server), given the headers `inputs` tells.
pub fn client(cfg: &Config, vhost: Option<usize>, connection: IpAddr, inputs: &EnvInputs) -> Client {
    if !cfg.module_loaded("remoteip_module") {
        return Client::Connection;
    }
    let main = match level(&cfg.nodes) {
        Ok(s) => s,
        Err(why) => return Client::Unknown(why),
    };
    let own = match vhost.and_then(|v| cfg.nodes.get(v)).map(|v| level(&v.children)).transpose() {
        Ok(s) => s,
        Err(why) => return Client::Unknown(why),
    };
    let (header, proxies) = match own {
        Some(o) => (o.header.or(main.header), o.proxies.or(main.proxies)),
        None => (main.header, main.proxies),
    };
    let Some(header) = header else { return Client::Connection };
    let Some((_, value)) = inputs.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(&header)) else {
        if inputs.headers_complete {
            return Client::Connection;
        }
        return Client::Unknown(format!(
            "RemoteIPHeader {header}: the client address may come from that header, which is not given (--header \
             {header}:ADDRESS, or --only-headers when it is not sent)"
        ));
    };
    // With a proxy list, a proxy is internal until an external one presents another.
    let mut internal = proxies.is_some();
    let mut current = connection;
    let mut taken = None;
    let mut rest: &str = value;
    loop {
        if let Some(list) = &proxies {
            match list.iter().find(|p| p.net.contains(&current)) {
                Some(p) => internal = internal && p.internal,
                None => break,
            }
        }
        let (left, word) = match rest.rsplit_once(',') {
            Some((l, w)) => (Some(l), w),
            None => (None, rest),
        };
        let word = word.trim_matches(' ');
        if word.is_empty() {
            break;
        }
        let Ok(addr) = word.parse::<IpAddr>() else {
            return Client::Unknown(format!(
                "RemoteIPHeader {header}: {word:?} is not an IP address (httpd may resolve it as a host name)"
            ));
        };
        let addr = match addr {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(addr, IpAddr::V4),
            a => a,
        };
        if !internal && private(addr) {
            break;
        }
        taken = Some(addr);
        current = addr;
        match left {
            Some(l) => rest = l,
            None => break,
        }
    }
    match taken {
        Some(a) => Client::Header(
            a,
            format!(
                "mod_remoteip: the connection from {connection} is a trusted proxy; the client address is {a}, read \
                 from {header}: {value}"
            ),
        ),
        None => Client::Connection,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The addresses a proxy that is not internal may not present: RFC 3330's private and
    /// local IPv4 networks, and IPv6 outside global unicast.
    #[test]
    fn private_addresses_are_those_mod_remoteip_ignores_from_external_proxies() {
        for a in
            ["10.0.0.1", "127.0.0.2", "169.254.1.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "::1", "fd00::1"]
        {
            assert!(private(a.parse().unwrap()), "{a}");
        }
        for a in ["8.8.8.8", "172.32.0.1", "192.0.2.1", "2001:db8::1"] {
            assert!(!private(a.parse().unwrap()), "{a}");
        }
    }
}

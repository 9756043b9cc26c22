//! Feature: which server a hover row's connection reaches. httpd picks the virtual host by the
//! connection's local address and port first, then by name among the hosts of that address
//! (`server/vhost.c`); explain does this with the connection it is told of. A hover row is a
//! client address only: a loopback client reaches the server on the loopback address of its
//! family (where a `Listen` covers it), another client on an address the hover assumes.

use crate::ide::config::Config;
use crate::ide::policy::{addr::sockaddr_equal, Request};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The server side of a row's connection, as far as the configuration tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowConnection {
    /// The server-side address.
    pub local: IpAddr,
    /// The port, when the `Listen` lines covering `local` give one (or several that pick the
    /// same virtual hosts for it); else the virtual host is picked by address family only.
    pub port: Option<u16>,
    /// `local` is assumed (a client off this machine: the server's own address is not known).
    pub assumed: bool,
}

impl RowConnection {
    /// Sets `r`'s connection: its local address, and its port when known (the virtual host is
    /// then chosen by address and port first, as explain does with `--port`).
    pub fn apply(&self, r: &mut Request) {
        r.local_addr = self.local;
        r.local_port = self.port;
        r.local_family_known = true;
    }
}

/// Addresses of the documentation ranges, one of which is taken as the server's address
/// for a client off this machine (the first no `<VirtualHost>` names).
const ASSUMED_V4: [Ipv4Addr; 3] =
    [Ipv4Addr::new(192, 0, 2, 254), Ipv4Addr::new(198, 51, 100, 254), Ipv4Addr::new(203, 0, 113, 254)];
const ASSUMED_V6: [Ipv6Addr; 2] =
    [Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0xfe), Ipv6Addr::new(0x2001, 0xdb8, 1, 0, 0, 0, 0, 0xfe)];

/// The connections of a table's rows under one configuration: its `Listen` lines read once.
pub(crate) struct RowConnections<'c> {
    cfg: &'c Config,
    listens: Vec<(Option<IpAddr>, u16)>,
}

impl<'c> RowConnections<'c> {
    pub fn new(cfg: &'c Config) -> RowConnections<'c> {
        RowConnections { cfg, listens: crate::ide::explain::listen_addresses(cfg) }
    }

    /// The connection a request from `client` comes on. A loopback client connects to the
    /// loopback address of its family. Another connects to the address a `Listen` of its family
    /// names (the first), else to an address no `<VirtualHost>` names (so its `*` hosts
    /// answer): `assumed`.
    pub fn of(&self, client: IpAddr) -> RowConnection {
        let (cfg, listens) = (self.cfg, &self.listens);
        let v4 = client.to_canonical().is_ipv4();
        let (local, assumed) = if client.to_canonical().is_loopback() {
            (if v4 { IpAddr::V4(Ipv4Addr::LOCALHOST) } else { IpAddr::V6(Ipv6Addr::LOCALHOST) }, false)
        } else {
            let named = listens
                .iter()
                .filter_map(|(a, _)| *a)
                .find(|a| a.to_canonical().is_ipv4() == v4 && !a.to_canonical().is_loopback());
            (named.unwrap_or_else(|| unnamed_address(cfg, v4)), true)
        };
        let mut ports: Vec<u16> =
            listens.iter().filter(|(a, _)| a.is_none_or(|a| sockaddr_equal(a, local))).map(|(_, p)| *p).collect();
        if ports.is_empty() && assumed {
            // (The address such a client really reaches the server on is not known either.)
            ports = listens.iter().map(|(_, p)| *p).collect();
        }
        ports.sort_unstable();
        ports.dedup();
        let ix = cfg.index();
        let port = match ports.split_first() {
            Some((&first, rest))
                if rest.iter().all(|&p| ix.vhosts_for_address(local, p) == ix.vhosts_for_address(local, first)) =>
            {
                Some(first)
            }
            _ => None,
        };
        RowConnection { local, port, assumed }
    }
}

/// An address of the family `v4` that no `<VirtualHost>` names.
fn unnamed_address(cfg: &Config, v4: bool) -> IpAddr {
    let named = |a: IpAddr| cfg.index().vhosts.iter().any(|v| v.addrs.iter().any(|(ip, _)| *ip == Some(a)));
    let candidates: Vec<IpAddr> = if v4 {
        ASSUMED_V4.iter().map(|&a| a.into()).collect()
    } else {
        ASSUMED_V6.iter().map(|&a| a.into()).collect()
    };
    candidates.iter().copied().find(|&a| !named(a)).unwrap_or(candidates[0])
}

/// The virtual hosts besides the one answering that the Host header can pick on `conn`: their
/// labels (`*:80 (v2.test)`), when `conn`'s port is known.
pub(crate) fn other_named_hosts(cfg: &Config, conn: &RowConnection, answering: Option<&str>) -> Vec<String> {
    let Some(port) = conn.port else { return vec![] };
    let ix = cfg.index();
    ix.vhosts_for_address(conn.local, port)
        .iter()
        .map(|&v| crate::ide::access::vhost_label(ix.node(cfg, ix.vhosts[v as usize].id)))
        .filter(|l| Some(l.as_str()) != answering && l.contains('('))
        .collect()
}

//! Request classes: the requests that tell two policies apart on one path.
//!
//! The outcome of a request on a given path depends only on the merged configurations in
//! effect there (mod_access_compat's, mod_authz_core's, the authentication settings) and on
//! the request features those configurations test. So the classes are built from exactly
//! those features, before and after a rewrite, and nothing else:
//! * client addresses: for every network mentioned, its first address, its last, and the
//!   addresses just outside it (for nested or disjoint CIDR networks these hit every cell of
//!   the partition the networks induce), plus loopback and non-loopback IPv4/IPv6 clients;
//! * the client's verified host name: none, each name mentioned and a name below it, an
//!   unrelated name — only when a host rule is in effect;
//! * environment variables: every subset of the names mentioned (up to 2^8; beyond that each
//!   name alone, none, all, and all but one);
//! * credentials: none, wrong, each user named, a member of each group named, an unnamed
//!   user — only when authentication or a user rule is in effect;
//! * methods: GET alone unless some rule is per method, then each method a mask or
//!   `Require method` names and one method none names.

use crate::ide::access::Resolved;
use crate::ide::config::Config;
use crate::ide::policy::{
    self, AuthTypeKind, AuthnConfig, AuthzConfig, AuthzNode, CompatConfig, EnvKnowledge, HostKnowledge, HostSpec,
    IpSubnet, NodeKind, Provider, Request,
};
use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

/// Above this many names, environment subsets are sampled rather than enumerated.
const MAX_ENV_FULL: usize = 8;

/// What the policies on one path test.
#[derive(Debug, Default, Clone)]
pub(super) struct Dims {
    pub nets: Vec<IpSubnet>,
    pub hosts: BTreeSet<String>,
    pub envs: BTreeSet<String>,
    pub users: BTreeSet<String>,
    pub groups: BTreeSet<String>,
    pub methods: BTreeSet<String>,
    pub per_method: bool,
    pub credentials: bool,
    pub local: bool,
}

impl Dims {
    pub fn add_resolved(&mut self, e: &Resolved) {
        if let Some(c) = e.compat() {
            self.add_compat(c);
        }
        if let Some(a) = &e.authz {
            self.add_authz(a);
        }
        self.add_authn(&e.authn);
    }

    fn add_compat(&mut self, c: &CompatConfig) {
        for e in c.allows.iter().chain(&c.denies) {
            self.add_mask(&e.methods);
            match &e.spec {
                HostSpec::Ip(s) => self.nets.push(*s),
                HostSpec::Host(h) => {
                    self.hosts.insert(h.to_ascii_lowercase());
                }
                HostSpec::EnvPresent(v) | HostSpec::EnvAbsent(v) => {
                    self.envs.insert(v.to_ascii_lowercase());
                }
                HostSpec::All => {}
            }
        }
        for o in &c.orders {
            self.add_mask(&o.methods);
        }
        for s in &c.satisfies {
            self.add_mask(&s.methods);
        }
    }

    fn add_mask(&mut self, m: &policy::MethodMask) {
        if !m.is_all() {
            self.per_method = true;
            self.methods.extend(m.distinguishing_names());
        }
    }

    fn add_authz(&mut self, a: &AuthzConfig) {
        let Some(root) = &a.section else { return };
        let mut stack: Vec<&AuthzNode> = vec![root];
        while let Some(n) = stack.pop() {
            self.add_mask(&n.methods);
            match &n.kind {
                NodeKind::Container { children, .. } => stack.extend(children),
                NodeKind::Require(r) => {
                    let words = || policy::items::getwords_conf(&r.args);
                    match &r.provider {
                        Provider::Ip(nets) => self.nets.extend(nets.iter().copied()),
                        Provider::Host(_) => self.hosts.extend(words().into_iter().map(|w| w.to_ascii_lowercase())),
                        Provider::Env(v) => self.envs.extend(v.iter().map(|v| v.to_ascii_lowercase())),
                        Provider::Method(m) => {
                            self.per_method = true;
                            self.methods.extend(m.distinguishing_names());
                        }
                        Provider::Local => self.local = true,
                        Provider::User(_) => {
                            self.credentials = true;
                            self.users.extend(words());
                        }
                        Provider::Group(_) | Provider::DbmGroup(_) => {
                            self.credentials = true;
                            self.groups.extend(words());
                        }
                        Provider::ValidUser | Provider::FileOwner | Provider::FileGroup | Provider::DbmFileGroup => {
                            self.credentials = true
                        }
                        Provider::Expr { expr, wants_user } => {
                            self.credentials |= *wants_user;
                            self.nets.extend(expr_addresses(expr));
                        }
                        Provider::All { .. } | Provider::ForwardDns(_) | Provider::Ldap | Provider::Opaque => {}
                    }
                }
            }
        }
    }

    fn add_authn(&mut self, n: &AuthnConfig) {
        if n.auth_type_kind() != AuthTypeKind::None {
            self.credentials = true;
        }
    }

    /// Client addresses covering every cell of the networks' partition.
    fn clients(&self) -> Vec<IpAddr> {
        let mut out: BTreeSet<IpAddr> =
            ["127.0.0.1", "192.0.2.1", "::1", "2001:db8::1"].iter().map(|s| s.parse().unwrap()).collect();
        if self.local {
            out.insert("127.0.0.2".parse().unwrap());
        }
        for s in &self.nets {
            match *s {
                IpSubnet::V4 { net, mask } => {
                    let last = net | !mask;
                    for a in [net, last, last.wrapping_add(1), net.wrapping_sub(1)] {
                        out.insert(IpAddr::V4(a.into()));
                    }
                }
                IpSubnet::V6 { net, mask } => {
                    let last = net | !mask;
                    for a in [net, last, last.wrapping_add(1), net.wrapping_sub(1)] {
                        out.insert(IpAddr::V6(a.into()));
                    }
                }
            }
        }
        out.into_iter().collect()
    }

    fn host_names(&self) -> Vec<HostKnowledge> {
        let mut out = vec![HostKnowledge::NoName];
        if self.hosts.is_empty() {
            return out;
        }
        let mut names: BTreeSet<String> = ["unrelated.invalid".to_string()].into();
        for h in &self.hosts {
            let bare = h.trim_start_matches('.');
            if !bare.is_empty() {
                names.insert(bare.to_string());
                names.insert(format!("x.{bare}"));
            }
        }
        out.extend(names.into_iter().map(HostKnowledge::Known));
        out
    }

    fn env_sets(&self) -> Vec<Vec<String>> {
        let v: Vec<&String> = self.envs.iter().collect();
        if v.len() <= MAX_ENV_FULL {
            return (0..(1u32 << v.len()))
                .map(|mask| {
                    v.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, s)| (*s).clone()).collect()
                })
                .collect();
        }
        let all: Vec<String> = v.iter().map(|s| (*s).clone()).collect();
        let mut out = vec![vec![], all.clone()];
        for s in &all {
            out.push(vec![s.clone()]);
            out.push(all.iter().filter(|x| *x != s).cloned().collect());
        }
        out
    }

    /// (user, groups) pairs for valid credentials, then None (no credentials) and a wrong password.
    fn credentials(&self) -> Vec<Cred> {
        if !self.credentials {
            return vec![Cred::None];
        }
        let mut out = vec![Cred::None, Cred::Wrong];
        for u in &self.users {
            out.push(Cred::User(u.clone(), BTreeSet::new()));
        }
        for g in &self.groups {
            out.push(Cred::User(format!("member-of-{g}"), [g.clone()].into()));
        }
        out.push(Cred::User("someone-unnamed".into(), BTreeSet::new()));
        out
    }

    fn method_list(&self) -> Vec<String> {
        if !self.per_method {
            return vec!["GET".into()];
        }
        let mut v: BTreeSet<String> = self.methods.clone();
        v.insert("GET".into());
        let other = ["POST", "PUT", "DELETE", "OPTIONS", "PATCH", "PROPFIND", "MKCOL", "COPY", "MOVE", "LOCK"]
            .iter()
            .find(|m| !v.contains(**m));
        if let Some(o) = other {
            v.insert(o.to_string());
        }
        v.into_iter().collect()
    }

    /// Every request class, from a connection to `local` (the server side).
    pub fn requests(&self, local: Option<IpAddr>) -> Vec<Class> {
        let mut out = Vec::new();
        let hosts = self.host_names();
        let envs = self.env_sets();
        let creds = self.credentials();
        let methods = self.method_list();
        for client in self.clients() {
            let local = match local {
                Some(l) if l.is_ipv4() == client.is_ipv4() => l,
                _ if client.is_ipv4() => "127.0.0.1".parse().unwrap(),
                _ => "::1".parse().unwrap(),
            };
            for host in &hosts {
                for env in &envs {
                    for cred in &creds {
                        for method in &methods {
                            let mut r = Request::new(method, client, local);
                            r.client_host = host.clone();
                            r.env = EnvKnowledge::with_set(env.iter().map(|e| (e.clone(), "1".to_string())));
                            let mut groups = BTreeMap::new();
                            match cred {
                                Cred::None => {}
                                Cred::Wrong => r.bad_credentials = true,
                                Cred::User(u, g) => {
                                    r.user = Some(u.clone());
                                    groups.insert(u.clone(), g.clone());
                                }
                            }
                            r.groups = Some(groups);
                            out.push(Class {
                                request: r,
                                host_split: !self.hosts.is_empty(),
                                env_split: !self.envs.is_empty(),
                                method_split: self.per_method,
                            });
                        }
                    }
                }
            }
        }
        out
    }
}

#[derive(Debug, Clone)]
enum Cred {
    None,
    Wrong,
    User(String, BTreeSet<String>),
}

/// One request class, and which of its features were varied (for describing it).
#[derive(Debug, Clone)]
pub(super) struct Class {
    pub request: Request,
    pub host_split: bool,
    pub env_split: bool,
    pub method_split: bool,
}

/// The status httpd answers `request` with on a walked path (None: cannot be known).
pub(super) fn status(r: &Resolved, cfg: &Config, request: &Request) -> Option<u16> {
    r.outcome(cfg, request).status
}

/// The addresses and networks an expression names (`%{REMOTE_ADDR} == '127.0.0.2'`,
/// `-ipmatch '10.0.0.0/8'`, `-R '192.0.2.0/24'`): each word of digits, dots, colons and a
/// `/` that reads as an address or network as mod_authz_host reads one. The clients then cover
/// each one's edges; without them, a `Require expr` granting only 127.0.0.2 was never asked from
/// there, and a rewrite carrying `Require all denied` beside it turned 404 into 403 (black-box
/// round 16, C F9).
fn expr_addresses(expr: &str) -> Vec<IpSubnet> {
    expr.split(|c: char| !(c.is_ascii_hexdigit() || matches!(c, '.' | ':' | '/')))
        .filter(|w| w.contains(['.', ':']) && w.chars().any(|c| c.is_ascii_digit()))
        .filter_map(|w| IpSubnet::parse_word(w).ok())
        .collect()
}

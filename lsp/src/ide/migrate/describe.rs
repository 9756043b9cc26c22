//! Saying which requests change outcome: client class, credentials, method, before → after.

use crate::ide::policy::{HostKnowledge, IpSubnet};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::net::IpAddr;

/// One request class whose status differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The virtual host's name (Host header), if any.
    pub host: Option<String>,
    pub url: String,
    /// None when the rules do not depend on the method.
    pub method: Option<String>,
    /// The client class, e.g. `127.0.0.0/8` or `any other IPv4 client`.
    pub client: String,
    /// `from host h` / `with env X set`, when those were varied.
    pub extra: Vec<String>,
    /// `anonymous`, `wrong password`, `user alice`…
    pub who: String,
    pub before: Option<u16>,
    pub after: Option<u16>,
}

fn show(s: Option<u16>) -> String {
    s.map(|s| s.to_string()).unwrap_or_else(|| "unknown".into())
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = &self.method {
            write!(f, "{m} ")?;
        }
        write!(f, "{}", self.url)?;
        if let Some(h) = &self.host {
            write!(f, " on {h}")?;
        }
        write!(f, " from {}", self.client)?;
        for e in &self.extra {
            write!(f, " {e}")?;
        }
        match (self.before, self.after) {
            // Not a change seen, but one that cannot be ruled out.
            (None, None) => write!(f, " ({}): status unknown before and after, so no rewrite can be proven", self.who),
            _ => write!(f, " ({}): {} → {}", self.who, show(self.before), show(self.after)),
        }
    }
}

/// The client class of `ip` among the networks the rules name: the smallest one holding it.
pub(super) fn client_class(ip: IpAddr, nets: &[IpSubnet], local: bool) -> String {
    if nets.is_empty() && !local {
        return "any client".into();
    }
    let best = nets.iter().filter(|n| n.test(ip)).max_by_key(|n| n.prefix_len().unwrap_or(0));
    match best {
        Some(n) => match n.prefix_len() {
            Some(32) | Some(128) => ip.to_string(),
            _ => format!("clients in {n}"),
        },
        None if local && (ip.is_loopback() || ip.to_string().starts_with("127.")) => "local clients".into(),
        None => "any other client".into(),
    }
}

pub(super) fn who(user: Option<&str>, wrong: bool) -> String {
    match (user, wrong) {
        (Some(u), _) => format!("user {u}"),
        (None, true) => "wrong password".into(),
        (None, false) => "anonymous".into(),
    }
}

pub(super) fn host_extra(h: &HostKnowledge) -> String {
    match h {
        HostKnowledge::Known(n) => format!("named {n}"),
        _ => "without a verified host name".into(),
    }
}

/// Changes merged where only the client class differs, as readable lines. A directory asked
/// without its slash that changes exactly as with it is named once, with the slash.
pub fn summarize(changes: &[Change]) -> Vec<String> {
    // (Keyed by the fields themselves, borrowed: a key formatted for each change took a fifth
    // of a 1 000-host migration, whose few blames summarise thousands of changes each.)
    type Key<'a> = (&'a Option<String>, &'a str, &'a Option<String>, &'a [String], &'a str, Option<u16>, Option<u16>);
    fn key_at<'a>(c: &'a Change, url: &'a str) -> Key<'a> {
        (&c.host, url, &c.method, &c.extra, &c.who, c.before, c.after)
    }
    let all: HashSet<(Key, &str)> = changes.iter().map(|c| (key_at(c, &c.url), c.client.as_str())).collect();
    let mut groups: HashMap<Key, usize> = HashMap::new();
    let mut merged: Vec<(Vec<&str>, &Change)> = Vec::new();
    for c in changes {
        if !c.url.ends_with('/') {
            let slashed = format!("{}/", c.url);
            if all.contains(&(key_at(c, &slashed), c.client.as_str())) {
                continue;
            }
        }
        let i = *groups.entry(key_at(c, &c.url)).or_insert_with(|| {
            merged.push((vec![], c));
            merged.len() - 1
        });
        let clients = &mut merged[i].0;
        if !clients.contains(&c.client.as_str()) {
            clients.push(&c.client);
        }
    }
    let mut out: Vec<String> =
        merged.into_iter().map(|(clients, c)| Change { client: clients.join(", "), ..c.clone() }.to_string()).collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::Change;

    /// A change reads as what happens to the request; one whose status is unknown on both sides
    /// (an `<If>` on the way) is said to be unprovable, not a change "unknown → unknown".
    #[test]
    fn changes_read_as_before_and_after() {
        let c = |before, after| Change {
            host: None,
            url: "/sub/a.txt".into(),
            method: None,
            client: "127.0.0.2".into(),
            extra: vec![],
            who: "anonymous".into(),
            before,
            after,
        };
        assert_eq!(c(Some(403), Some(200)).to_string(), "/sub/a.txt from 127.0.0.2 (anonymous): 403 → 200");
        assert_eq!(c(Some(403), None).to_string(), "/sub/a.txt from 127.0.0.2 (anonymous): 403 → unknown");
        assert_eq!(
            c(None, None).to_string(),
            "/sub/a.txt from 127.0.0.2 (anonymous): status unknown before and after, so no rewrite can be proven"
        );
        // A directory without its slash changing as with it is named once; otherwise apart.
        let at = |url: &str, after| Change { url: url.into(), ..c(Some(401), Some(after)) };
        assert_eq!(
            super::summarize(&[at("/sub", 403), at("/sub/", 403)]),
            ["/sub/ from 127.0.0.2 (anonymous): 401 → 403"]
        );
        assert_eq!(super::summarize(&[at("/sub", 301), at("/sub/", 403)]).len(), 2);
    }
}

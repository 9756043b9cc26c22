//! Feature: hover — the effective, merged access policy of a section, and what
//! the catalogue knows of a directive.

use crate::ide::access::{effective, resolve, FsView, RequestSpec};
use crate::ide::catalogue;
use crate::ide::config::{Config, FileId, Node, NodeKind};
use crate::ide::policy::{self, HostKnowledge, Layer, Request};
use apache_syntax::{TextRange, TextSize};
use std::fmt::Write as _;
use std::net::IpAddr;

/// Request-matching sections a hover explains.
fn is_container(n: &Node) -> bool {
    matches!(
        n.name.to_ascii_lowercase().as_str(),
        "directory" | "directorymatch" | "location" | "locationmatch" | "files" | "filesmatch" | "virtualhost"
    )
}

/// The chain of nodes from the top to the innermost node of `file` containing `offset`.
fn path_to(cfg: &Config, file: FileId, offset: TextSize) -> Vec<&Node> {
    let mut chain = Vec::new();
    let mut level: &[Node] = &cfg.nodes;
    loop {
        let Some(n) = level.iter().find(|n| n.loc.file == file && n.loc.range.contains_inclusive(offset)) else {
            // A node from another file (an Include'd one) may contain our file's nodes.
            if let Some(n) = level.iter().find(|n| {
                n.is_section() && n.walk().any(|d| d.loc.file == file && d.loc.range.contains_inclusive(offset))
            }) {
                chain.push(n);
                level = &n.children;
                continue;
            }
            return chain;
        };
        chain.push(n);
        if n.kind == NodeKind::Directive {
            return chain;
        }
        level = &n.children;
    }
}

/// The URL a section applies to, and the virtual host name to ask for.
pub fn url_for(cfg: &Config, chain: &[&Node]) -> Option<(String, Option<String>)> {
    let vhost = chain.iter().find(|n| n.is("VirtualHost"));
    let host = vhost.and_then(|v| v.children.iter().find(|c| c.is("ServerName")).and_then(|c| c.args.first().cloned()));
    let section = chain.iter().rev().find(|n| is_container(n) && !n.is("VirtualHost"))?;
    let arg = |i: usize| section.args.get(i).cloned().unwrap_or_default();
    let docroot = vhost
        .and_then(|v| v.children.iter().find(|c| c.is("DocumentRoot")))
        .map(|d| d.args.first().cloned())
        .unwrap_or_else(|| cfg.index().main.document_root.clone())
        .map(|d| d.trim_end_matches('/').to_string());
    let l = section.name.to_ascii_lowercase();
    let url = match l.as_str() {
        "location" if arg(0) != "~" && !arg(0).contains(['*', '?', '[']) => arg(0),
        "directory" if arg(0) != "~" => {
            let p = arg(0).trim_end_matches('/').to_string();
            let via_alias =
                cfg.index().alias_to(&p).map(|(from, rest)| format!("{}{rest}/", from.trim_end_matches('/')));
            match (&docroot, via_alias) {
                (_, Some(u)) => u,
                (Some(d), None) if p.starts_with(d.as_str()) => format!("{}/", &p[d.len()..]),
                (Some(d), None) if d.starts_with(&p) || p.is_empty() => "/".into(),
                _ => return None,
            }
        }
        "files" if arg(0) != "~" && !arg(0).contains(['*', '?', '[']) => {
            let dir =
                chain.iter().rev().find(|n| n.is("Directory")).map(|d| d.args.first().cloned().unwrap_or_default());
            match (dir, &docroot) {
                (Some(d), Some(root)) if d.trim_end_matches('/').starts_with(root.as_str()) => {
                    format!("{}/{}", &d.trim_end_matches('/')[root.len()..], arg(0))
                }
                (None, _) => format!("/{}", arg(0)),
                _ => return None,
            }
        }
        _ => return None,
    };
    Some((if url.is_empty() { "/".into() } else { url }, host))
}

/// The clients a table shows: a local one, each address the rules mention, and an outsider.
pub fn representative_clients(cfg: &Config) -> Vec<(String, IpAddr)> {
    let mut v: Vec<(String, IpAddr)> = vec![("local (127.0.0.1)".into(), "127.0.0.1".parse().unwrap())];
    for n in cfg.walk() {
        let words: Vec<&String> = if n.is("Allow") || n.is("Deny") {
            n.args.iter().skip(1).collect()
        } else if n.is("Require")
            && n.args.iter().skip_while(|w| w.eq_ignore_ascii_case("not")).next().is_some_and(|p| p == "ip")
        {
            n.args.iter().skip_while(|w| w.eq_ignore_ascii_case("not")).skip(1).collect()
        } else {
            continue;
        };
        for w in words {
            if let Ok(s) = policy::IpSubnet::parse_word(w) {
                if let Some(net) = s.to_ipnet() {
                    let ip = net.network();
                    if !v.iter().any(|(_, a)| *a == ip) && v.len() < 6 {
                        v.push((w.to_string(), ip));
                    }
                }
            }
        }
    }
    v.push(("any other (192.0.2.1)".into(), "192.0.2.1".parse().unwrap()));
    v
}

fn spec(url: &str, host: &Option<String>, client: IpAddr, user: Option<&str>) -> RequestSpec {
    let local = if client.is_ipv4() { "127.0.0.1".parse().unwrap() } else { "::1".parse().unwrap() };
    let mut r = Request::new("GET", client, local);
    r.user = user.map(str::to_string);
    r.client_host = HostKnowledge::NoName;
    r.groups = Some(Default::default());
    RequestSpec { path: url.to_string(), host: host.clone(), request: r }
}

/// A trap in a section: its Require lines never take effect because an old-style
/// rule inherited from elsewhere refuses every request first.
#[derive(Debug, Clone)]
pub struct Defeated {
    pub require: (FileId, TextRange),
    pub require_text: String,
    pub decided_by: String,
    pub deciding: Option<policy::Loc>,
}

/// Checks one section for the precedence trap.
pub fn defeated_require(cfg: &Config, chain: &[&Node]) -> Option<Defeated> {
    defeated_require_among(cfg, chain, &representative_clients(cfg), &FsView::fresh())
}

/// [`defeated_require`] for a batch: the clients to try ([`representative_clients`]) and
/// the file system view are computed once for all sections.
pub fn defeated_require_among(
    cfg: &Config,
    chain: &[&Node],
    clients: &[(String, IpAddr)],
    fs: &FsView,
) -> Option<Defeated> {
    let section = chain.last()?;
    let req = section.children.iter().find(|c| c.is("Require"))?;
    if section
        .children
        .iter()
        .any(|c| matches!(c.name.to_ascii_lowercase().as_str(), "order" | "allow" | "deny" | "satisfy"))
    {
        return None;
    }
    let (url, host) = url_for(cfg, chain)?;
    // The walk does not depend on the client: resolve once, evaluate per client.
    let resolved = resolve(cfg, fs, &url, host.as_deref(), None);
    let mut decided = None;
    for (_, ip) in clients {
        let outcome = resolved.outcome(cfg, &spec(&url, &host, *ip, None).request);
        let d = outcome.deciding.clone()?;
        if outcome.status != Some(403) || d.layer != Layer::AccessCompat {
            return None;
        }
        // The deciding rule must come from another section.
        let from_here = d.loc.as_ref().is_some_and(|l| {
            l.file == cfg.file(section.loc.file).path && {
                let r = section.loc.range;
                l.range.0 >= u32::from(r.start()) && l.range.1 <= u32::from(r.end())
            }
        });
        if from_here {
            return None;
        }
        decided = Some(d);
    }
    let d = decided?;
    Some(Defeated {
        require: (req.loc.file, cfg.trimmed(&req.loc)),
        require_text: format!("Require {}", req.raw_args),
        decided_by: d.rule.clone(),
        deciding: d.loc,
    })
}

fn loc_label(l: &policy::Loc) -> String {
    format!("{}:{}", l.file.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default(), l.line)
}

/// Markdown hover at `offset` of `file`.
pub fn hover(cfg: &Config, file: FileId, offset: TextSize) -> Option<(TextRange, String)> {
    let chain = path_to(cfg, file, offset);
    let last = *chain.last()?;
    // On a directive name that is not about access: the catalogue entry.
    if last.kind == NodeKind::Directive
        && !crate::ide::access::is_access_directive(&last.name)
        && !last.name.to_ascii_lowercase().starts_with("auth")
    {
        if !last.loc.focus.contains_inclusive(offset) {
            return None;
        }
        let d = catalogue::directive(&last.name)?;
        return Some((last.loc.focus, directive_doc(d)));
    }
    // On a section header or an access directive: the effective policy.
    let sec_idx = chain.iter().rposition(|n| is_container(n))?;
    let sections = &chain[..=sec_idx];
    let section = sections[sec_idx];
    if last.is_section() && !last.loc.focus.contains_inclusive(offset) && std::ptr::eq(last, section) {
        return None;
    }
    let range = if last.kind == NodeKind::Directive { last.loc.range } else { last.loc.focus };
    let Some((url, host)) = url_for(cfg, sections) else {
        return Some((range, format!("**<{} {}>**\n\nNo URL reaches this section through DocumentRoot or Alias, so there is no request to evaluate.", section.name, section.args.join(" "))));
    };
    let mut md = String::new();
    let _ = writeln!(
        md,
        "**Effective access** for `GET {url}`{}",
        host.as_ref().map(|h| format!(" on `{h}`")).unwrap_or_default()
    );
    let base = effective(cfg, &spec(&url, &host, "127.0.0.1".parse().unwrap(), None));
    let _ = writeln!(md, "\nFile system: `{}`\n", base.filesystem_path.display());
    let _ = writeln!(md, "Sections in merge order:");
    for s in &base.sections {
        let layers: Vec<&str> = [
            s.compat.as_ref().map(|_| "mod_access_compat (replaces)"),
            s.authz.as_ref().map(|_| "mod_authz_core"),
            s.authn.as_ref().map(|_| "authn"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let file = s.path.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default();
        let _ = writeln!(
            md,
            "- `<{} {}>` ({file}:{}){}",
            s.kind,
            s.args.join(" "),
            s.line,
            if layers.is_empty() { String::new() } else { format!(": {}", layers.join(", ")) }
        );
    }
    if let Some(a) = base.authz.as_ref().and_then(|a| a.section.as_ref()) {
        let _ = writeln!(md, "\nEffective Require:\n```apache\n{}```", a.render());
    }
    if let Some(c) = &base.compat {
        let _ =
            writeln!(md, "\nEffective Order/Allow/Deny: {}", crate::ide::diagnostics::deprecated_access::describe(c));
    }
    let _ = writeln!(md, "\n| client | anonymous | authenticated |\n|---|---|---|");
    // One walk for the whole table: it does not depend on the client.
    let fs = FsView::cached();
    let resolved = resolve(cfg, &fs, &url, host.as_deref(), None);
    let clients = representative_clients(cfg);
    for (label, ip) in &clients {
        let a = resolved.outcome(cfg, &spec(&url, &host, *ip, None).request).status;
        let b = resolved.outcome(cfg, &spec(&url, &host, *ip, Some("alice")).request).status;
        let show = |s: Option<u16>| s.map(|s| s.to_string()).unwrap_or_else(|| "unknown".into());
        let _ = writeln!(md, "| {label} | {} | {} |", show(a), show(b));
    }
    if let Some(d) = &base.outcome.deciding {
        let at = d.loc.as_ref().map(|l| format!(" ({})", loc_label(l))).unwrap_or_default();
        let _ = writeln!(md, "\nFor 127.0.0.1, decided by {:?}: `{}`{at}", d.layer, d.rule);
    }
    if let Some(t) = defeated_require_among(cfg, sections, &clients, &fs) {
        let at = t.deciding.as_ref().map(|l| format!(" ({})", loc_label(l))).unwrap_or_default();
        let _ = writeln!(
            md,
            "\n⚠ `{}` has no effect here: `{}`{at} refuses every request first.",
            t.require_text, t.decided_by
        );
    }
    if let Some(r) = &base.outcome.reason_unknown {
        let _ = writeln!(md, "\nSome outcomes cannot be known: {r}");
    }
    Some((range, md))
}

fn directive_doc(d: &catalogue::Directive) -> String {
    let mut s = format!("**{}** — {}\n\n", d.name, d.description);
    let _ = writeln!(s, "```apache\n{}\n```", d.syntax);
    let _ = writeln!(s, "Module: `{}` · Context: {}", d.module, d.contexts);
    if !d.override_class.is_empty() {
        let _ = writeln!(s, " · Override: {}", d.override_class);
    }
    if !d.default.is_empty() {
        let _ = writeln!(s, "\nDefault: `{}`", d.default);
    }
    if d.deprecated {
        s.push_str("\n**Deprecated.**\n");
    }
    if d.status == catalogue::Status::Removed {
        s.push_str("\n**Removed in httpd 2.4: httpd will not start with it.**\n");
    }
    let _ = writeln!(s, "\n[Documentation]({})", d.url);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config::load;
    use crate::ide::diagnostics::tests::Fixture;
    use std::path::Path;

    /// `█` marks the cursor (it cannot clash with `$` in regexes or `${VAR}`).
    fn check(fixture: &str) -> String {
        let marker = fixture.find('█').expect("cursor marker");
        let fx = Fixture::parse(&fixture.replace('█', ""));
        let cfg = load(Path::new(&fx.0[0].0), &fx);
        // The marker is in the first file.
        let header = fixture[..marker].rfind("//- ").unwrap();
        let first_line_end = fixture[header..].find('\n').unwrap() + header + 1;
        let offset = TextSize::from((marker - first_line_end) as u32);
        hover(&cfg, 0, offset).map(|(_, md)| md).unwrap_or_default()
    }

    #[test]
    fn hover_shows_the_inherited_deny_defeating_require_local() {
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot /nonexistent-docroot\n<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n<Loc█ation /server-status>\n  Require local\n</Location>\n",
        );
        assert!(md.contains("| local (127.0.0.1) | 403 | 403 |"), "{md}");
        assert!(
            md.contains(
                "`Require local` has no effect here: `Deny from all` (httpd.conf:7) refuses every request first"
            ),
            "{md}"
        );
    }

    #[test]
    fn hover_on_a_plain_directive_shows_the_catalogue() {
        let md = check("//- /srv/httpd.conf\nServer█Name example.com\n");
        assert!(md.contains("**ServerName**"), "{md}");
        assert!(md.contains("https://httpd.apache.org/docs/2.4/mod/core.html#servername"), "{md}");
    }
}

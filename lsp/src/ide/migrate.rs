//! Feature: rewriting old-style access control (Order/Allow/Deny/Satisfy) into
//! `Require`, proven to keep every request's outcome.
//!
//! The translation follows the fact sheet §7 (`Order` → a host formula H built
//! from `Require ip|host|env|all` nodes, combined with the section's Require
//! lines under its Satisfy). A rewrite is only called behaviour-preserving after
//! [`verify`] has evaluated, with the engine, every request class the
//! configuration distinguishes — before and after the edit — and found the same
//! status for each. What cannot be proven is reported with the requests that change.

use crate::ide::access::{effective, RequestSpec};
use crate::ide::config::{self, Config, FileId, FileSource, Node, NodeKind};
use crate::ide::policy::{self, HostKnowledge, HostSpec, Order, Request};
use apache_syntax::{TextRange, TextSize};
use std::collections::BTreeSet;
use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;

/// A text replacement in one file of the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub file: FileId,
    pub range: TextRange,
    pub new_text: String,
}

/// A proposed rewrite of one section.
#[derive(Debug, Clone)]
pub struct Rewrite {
    /// The section (or .htaccess file) rewritten.
    pub section: TextRange,
    pub file: FileId,
    pub title: String,
    pub edits: Vec<Edit>,
    /// Requests whose outcome changes (empty when behaviour is preserved).
    pub changes: Vec<String>,
    /// Whether the engine proved every request class keeps its outcome.
    pub preserving: bool,
    /// Why no rewrite was possible (then `edits` is empty).
    pub refused: Option<String>,
}

fn is_compat(name: &str) -> bool {
    matches!(name.to_ascii_lowercase().as_str(), "order" | "allow" | "deny" | "satisfy")
}

/// Sections (and top-level .htaccess bodies) that hold old-style directives directly.
pub fn old_style_sections(cfg: &Config) -> Vec<&Node> {
    let mut out = Vec::new();
    for n in cfg.walk() {
        if n.is_section() && n.children.iter().any(|c| c.kind == NodeKind::Directive && is_compat(&c.name)) {
            out.push(n);
        }
    }
    out
}

/// One Allow/Deny word as a Require line (exact, fact sheet §7.1).
fn entry_line(spec: &HostSpec, text: &str) -> String {
    match spec {
        HostSpec::All => "Require all granted".into(),
        HostSpec::Ip(_) => format!("Require ip {text}"),
        HostSpec::Host(h) => format!("Require host {h}"),
        HostSpec::EnvPresent(v) => format!("Require env {v}"),
        HostSpec::EnvAbsent(v) => format!("<RequireAll>\n  Require all granted\n  Require not env {v}\n</RequireAll>"),
    }
}

fn indent_block(text: &str, pad: &str) -> String {
    text.lines().map(|l| format!("{pad}{l}")).collect::<Vec<_>>().join("\n")
}

/// The host formula H of a section for all methods, as Require lines for an OR
/// context (the section's implicit RequireAny). None when the section's rules
/// differ per method (`<Limit>`), which this rewrite does not handle.
fn host_formula(c: &policy::CompatConfig) -> Option<Vec<String>> {
    if c.orders.iter().any(|o| !o.methods.is_all())
        || c.allows.iter().chain(&c.denies).any(|e| !e.methods.is_all())
        || c.satisfies.iter().any(|s| !s.methods.is_all())
    {
        return None;
    }
    let order = c.orders.last().map(|o| o.value).unwrap_or(Order::DenyAllow);
    let a: Vec<String> = c.allows.iter().map(|e| entry_line(&e.spec, &e.text)).collect();
    let d: Vec<String> = c.denies.iter().map(|e| entry_line(&e.spec, &e.text)).collect();
    let a_all = c.allows.iter().any(|e| e.spec == HostSpec::All);
    let d_all = c.denies.iter().any(|e| e.spec == HostSpec::All);
    let none_of = |d: &[String]| format!("<RequireNone>\n{}\n</RequireNone>", indent_block(&d.join("\n"), "  "));
    Some(match order {
        Order::AllowDeny | Order::MutualFailure => {
            if a.is_empty() || d_all {
                vec!["Require all denied".into()]
            } else if d.is_empty() {
                a
            } else {
                let any = if a.len() == 1 {
                    a[0].clone()
                } else {
                    format!("<RequireAny>\n{}\n</RequireAny>", indent_block(&a.join("\n"), "  "))
                };
                vec![format!(
                    "<RequireAll>\n{}\n{}\n</RequireAll>",
                    indent_block(&any, "  "),
                    indent_block(&none_of(&d), "  ")
                )]
            }
        }
        Order::DenyAllow => {
            if a_all || d.is_empty() {
                vec!["Require all granted".into()]
            } else if d_all {
                if a.is_empty() {
                    vec!["Require all denied".into()]
                } else {
                    a
                }
            } else {
                let mut v = a;
                v.push(format!(
                    "<RequireAll>\n  Require all granted\n{}\n</RequireAll>",
                    indent_block(&none_of(&d), "  ")
                ));
                v
            }
        }
    })
}

/// Text of lines `range` covers, extended to whole lines (with their line break).
fn whole_lines(text: &str, range: TextRange) -> TextRange {
    let start = text[..usize::from(range.start())].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let end = match text[usize::from(range.end())..].find('\n') {
        Some(i) => usize::from(range.end()) + i + 1,
        None => text.len(),
    };
    TextRange::new(TextSize::from(start as u32), TextSize::from(end as u32))
}

fn line_indent(text: &str, at: TextSize) -> String {
    let start = text[..usize::from(at)].rfind('\n').map(|i| i + 1).unwrap_or(0);
    text[start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
}

/// The edits that rewrite one section, without verification.
fn rewrite_edits(cfg: &Config, section: &Node) -> Result<(Vec<Edit>, String), String> {
    let file = section.loc.file;
    let fd = cfg.file(file);
    if fd.not_utf8.is_some() {
        return Err("the file is not valid UTF-8; it is never rewritten".into());
    }
    // Old-style lines must all be directly in this section and in its own file.
    let compat_nodes: Vec<&Node> =
        section.children.iter().filter(|c| c.kind == NodeKind::Directive && is_compat(&c.name)).collect();
    if compat_nodes.iter().any(|n| n.loc.file != file) {
        return Err("some of its old-style lines come from an included file".into());
    }
    if section
        .children
        .iter()
        .any(|c| c.is_section() && (c.is("Limit") || c.is("LimitExcept")) && c.walk().any(|n| is_compat(&n.name)))
    {
        return Err(
            "its rules differ per HTTP method (<Limit>); rewrite those by hand with <Limit> around Require".into()
        );
    }
    let ctx = crate::ide::access::policy_ctx(cfg);
    let items = crate::ide::access::body_items(cfg, section);
    let (compat, errs) = policy::compat_from_items(&items, &ctx);
    if !errs.is_empty() {
        return Err(format!("httpd rejects these lines: {}", errs[0].message));
    }
    let compat = compat.ok_or("no old-style directive")?;
    let h = host_formula(&compat).ok_or("its rules differ per HTTP method")?;
    let satisfy_any = compat.satisfies.last().is_some_and(|s| s.value == policy::Satisfy::Any);
    let own_require: Vec<&Node> = section
        .children
        .iter()
        .filter(|c| {
            (c.kind == NodeKind::Directive && c.is("Require"))
                || (c.is_section() && (c.is("RequireAll") || c.is("RequireAny") || c.is("RequireNone")))
        })
        .collect();
    if own_require.iter().any(|n| n.loc.file != file) {
        return Err("its Require lines come from an included file".into());
    }
    let has_authmerging = section.children.iter().any(|c| c.is("AuthMerging"));
    if has_authmerging {
        return Err("it already sets AuthMerging; combine by hand".into());
    }
    let text = &fd.text;
    let r_text: Vec<String> = own_require
        .iter()
        .map(|n| {
            let r = whole_lines(text, cfg.trimmed(&n.loc));
            let body = &text[usize::from(r.start())..usize::from(r.end())];
            dedent(body.trim_end_matches(['\n', '\r']))
        })
        .collect();
    // Is there a Require in effect that this section inherits?
    let inherited = inherits_require(cfg, section);
    let (block, note) = if satisfy_any {
        if !r_text.is_empty() {
            let mut v = h.clone();
            v.extend(r_text.iter().cloned());
            (v.join("\n"), "Satisfy Any: the host rules and the Require lines are alternatives")
        } else if inherited {
            (format!("AuthMerging Or\n{}", h.join("\n")), "Satisfy Any with inherited Require lines: AuthMerging Or")
        } else {
            ("Require all granted".to_string(), "Satisfy Any with no Require in effect lets everyone in")
        }
    } else if !r_text.is_empty() {
        let hh = if h.len() == 1 {
            h[0].clone()
        } else {
            format!("<RequireAny>\n{}\n</RequireAny>", indent_block(&h.join("\n"), "  "))
        };
        let rr = if r_text.len() == 1 && !r_text[0].starts_with('<') {
            r_text[0].clone()
        } else {
            format!("<RequireAny>\n{}\n</RequireAny>", indent_block(&r_text.join("\n"), "  "))
        };
        (
            format!("<RequireAll>\n{}\n{}\n</RequireAll>", indent_block(&hh, "  "), indent_block(&rr, "  ")),
            "Satisfy All: host rules AND the Require lines",
        )
    } else if inherited {
        (
            format!("AuthMerging And\n{}", h.join("\n")),
            "Satisfy All with inherited Require lines: AuthMerging And keeps them",
        )
    } else {
        (h.join("\n"), "host rules only")
    };
    // Replace the first old-style (or Require) line with the block, delete the rest.
    let mut targets: Vec<&Node> = compat_nodes.clone();
    if !satisfy_any || !r_text.is_empty() {
        targets.extend(own_require.iter().copied());
    }
    targets.sort_by_key(|n| n.loc.range.start());
    let crlf = text.contains("\r\n");
    let nl = if crlf { "\r\n" } else { "\n" };
    let first = targets[0];
    let pad = line_indent(text, first.loc.range.start());
    let mut edits = Vec::new();
    for (i, n) in targets.iter().enumerate() {
        let r = whole_lines(text, cfg.trimmed(&n.loc));
        let new_text = if i == 0 {
            let ends_nl = text[usize::from(r.start())..usize::from(r.end())].ends_with('\n');
            let mut t = block.lines().map(|l| format!("{pad}{l}")).collect::<Vec<_>>().join(nl);
            if ends_nl {
                t.push_str(nl);
            }
            t
        } else {
            String::new()
        };
        edits.push(Edit { file, range: r, new_text });
    }
    Ok((edits, note.to_string()))
}

fn dedent(s: &str) -> String {
    let pad = s.lines().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    s.lines().map(|l| if l.len() >= pad { &l[pad..] } else { l.trim_start() }).collect::<Vec<_>>().join("\n")
}

/// Whether a Require is in effect from sections merged before this one (any
/// section with Require lines that encloses it by path in the same server).
fn inherits_require(cfg: &Config, section: &Node) -> bool {
    // Conservative: any other section with Require lines that is not this one.
    // Verification decides in the end; this only picks between H and AuthMerging+H.
    let _ = section;
    cfg.walk().any(|n| {
        n.is_section() && !std::ptr::eq(n, section) && n.children.iter().any(|c| c.is("Require")) && {
            let d = n.name.to_ascii_lowercase();
            d == "directory" && n.args.first().is_some_and(|p| p == "/")
        }
    })
}

/// Applies edits to a text (edits must not overlap).
pub fn apply(text: &str, edits: &[&Edit]) -> String {
    let mut e: Vec<&&Edit> = edits.iter().collect();
    e.sort_by_key(|e| std::cmp::Reverse(e.range.start()));
    let mut out = text.to_string();
    let mut limit = usize::MAX;
    for ed in e {
        let (a, b) = (usize::from(ed.range.start()), usize::from(ed.range.end()));
        // Overlapping or out-of-range edits are dropped rather than corrupting text.
        if b > limit || b > out.len() || !out.is_char_boundary(a) || !out.is_char_boundary(b) {
            continue;
        }
        out.replace_range(a..b, &ed.new_text);
        limit = a;
    }
    out
}

/// The configuration after `edits`, read through `base` for everything else.
pub fn edited_config(cfg: &Config, main: &Path, edits: &[Edit], base: &dyn FileSource, is_main: bool) -> Config {
    struct Over<'a> {
        base: &'a dyn FileSource,
        files: Vec<(Arc<Path>, Arc<str>)>,
    }
    impl FileSource for Over<'_> {
        fn read(&self, path: &Path) -> std::io::Result<(Arc<str>, Option<usize>)> {
            match self.files.iter().find(|(p, _)| &**p == path) {
                Some((_, t)) => Ok((t.clone(), None)),
                None => self.base.read(path),
            }
        }
    }
    let mut files = Vec::new();
    let ids: BTreeSet<FileId> = edits.iter().map(|e| e.file).collect();
    for id in ids {
        let fd = cfg.file(id);
        let mine: Vec<&Edit> = edits.iter().filter(|e| e.file == id).collect();
        files.push((fd.path.clone(), Arc::from(apply(&fd.text, &mine))));
    }
    let over = Over { base, files };
    if is_main {
        config::load(main, &over)
    } else {
        config::load_fragment(main, &over)
    }
}

/// Request classes that tell configurations apart: every address, network,
/// host name, environment variable, user and method the configuration
/// mentions, plus outsiders, over every URL its sections name.
pub fn request_classes(cfg: &Config) -> Vec<RequestSpec> {
    let mut clients: BTreeSet<IpAddr> =
        ["127.0.0.1", "127.0.0.2", "127.1.2.3", "::1", "10.0.0.1", "192.0.2.1", "2001:db8::1"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
    let mut hosts: BTreeSet<String> = BTreeSet::new();
    let mut envs: BTreeSet<String> = BTreeSet::new();
    let mut users: BTreeSet<String> = ["alice".to_string()].into_iter().collect();
    let mut methods: BTreeSet<String> = ["GET", "POST"].iter().map(|s| s.to_string()).collect();
    let mut urls: BTreeSet<String> = ["/".to_string()].into_iter().collect();
    let mut vhost_names: Vec<Option<String>> = vec![None];
    let docroots: Vec<String> = cfg
        .walk()
        .filter(|n| n.is("DocumentRoot"))
        .filter_map(|n| n.args.first().cloned())
        .map(|d| d.trim_end_matches('/').to_string())
        .collect();
    for n in cfg.walk() {
        let l = n.name.to_ascii_lowercase();
        match l.as_str() {
            "allow" | "deny" => {
                for w in n.args.iter().skip(1) {
                    match HostSpec::parse(w) {
                        Ok(HostSpec::Ip(s)) => add_net(&mut clients, &s),
                        Ok(HostSpec::Host(h)) => {
                            hosts.insert(h.trim_start_matches('.').to_string());
                        }
                        Ok(HostSpec::EnvPresent(v)) | Ok(HostSpec::EnvAbsent(v)) => {
                            envs.insert(v);
                        }
                        _ => {}
                    }
                }
            }
            "require" => {
                let words: Vec<&String> = n.args.iter().skip_while(|w| w.eq_ignore_ascii_case("not")).collect();
                if let Some((p, rest)) = words.split_first() {
                    match p.as_str() {
                        "ip" => rest
                            .iter()
                            .filter_map(|w| policy::IpSubnet::parse_word(w).ok())
                            .for_each(|s| add_net(&mut clients, &s)),
                        "host" => rest.iter().for_each(|h| {
                            hosts.insert(h.trim_start_matches('.').to_string());
                        }),
                        "env" => rest.iter().for_each(|v| {
                            envs.insert(v.to_string());
                        }),
                        "user" => rest.iter().for_each(|u| {
                            users.insert(u.to_string());
                        }),
                        "method" => rest.iter().for_each(|m| {
                            methods.insert(m.to_string());
                        }),
                        _ => {}
                    }
                }
            }
            "limit" | "limitexcept" => methods.extend(n.args.iter().cloned()),
            "location" => {
                if let Some(p) = n.args.first().filter(|p| p.starts_with('/') && !p.contains(['*', '?', '['])) {
                    urls.insert(p.clone());
                    urls.insert(format!("{}/x", p.trim_end_matches('/')));
                }
            }
            "directory" => {
                if let Some(p) = n.args.first() {
                    for d in &docroots {
                        if let Some(rest) = p.trim_end_matches('/').strip_prefix(d.as_str()) {
                            urls.insert(format!("{rest}/"));
                            urls.insert(format!("{rest}/index.html"));
                        }
                    }
                }
            }
            "files" => {
                if let Some(f) = n.args.first().filter(|f| !f.contains(['*', '?', '[', '~'])) {
                    urls.insert(format!("/{f}"));
                }
            }
            "alias" | "scriptalias" => {
                if let Some(a) = n.args.first() {
                    urls.insert(a.clone());
                }
            }
            "servername" => vhost_names.push(n.args.first().cloned()),
            _ => {}
        }
    }
    let host_knowledge: Vec<HostKnowledge> =
        std::iter::once(HostKnowledge::NoName).chain(hosts.iter().map(|h| HostKnowledge::Known(h.clone()))).collect();
    let env_sets: Vec<Vec<String>> = {
        let v: Vec<String> = envs.into_iter().collect();
        if v.len() <= 3 {
            (0..(1u32 << v.len()))
                .map(|mask| {
                    v.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, s)| s.clone()).collect()
                })
                .collect()
        } else {
            std::iter::once(vec![]).chain(v.iter().map(|s| vec![s.clone()])).collect()
        }
    };
    let mut out = Vec::new();
    for host in &vhost_names {
        for url in &urls {
            for client in &clients {
                for hk in &host_knowledge {
                    for env in &env_sets {
                        for method in &methods {
                            for cred in std::iter::once(None)
                                .chain(users.iter().map(|u| Some(Some(u.clone()))))
                                .chain(std::iter::once(Some(None)))
                            {
                                let local = if client.is_ipv4() {
                                    "127.0.0.1".parse().unwrap()
                                } else {
                                    "::1".parse().unwrap()
                                };
                                let mut r = Request::new(method, *client, local);
                                match cred {
                                    None => {}
                                    Some(Some(u)) => r.user = Some(u),
                                    Some(None) => r.bad_credentials = true,
                                }
                                r.env =
                                    policy::EnvKnowledge::with_set(env.iter().map(|e| (e.clone(), "1".to_string())));
                                r.client_host = hk.clone();
                                r.groups = Some(Default::default());
                                out.push(RequestSpec { path: url.clone(), host: host.clone(), request: r });
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

fn add_net(clients: &mut BTreeSet<IpAddr>, s: &policy::IpSubnet) {
    if let Some(net) = s.to_ipnet() {
        clients.insert(net.network());
        clients.insert(net.broadcast());
        // Just outside the network, on both sides.
        match net {
            ipnet::IpNet::V4(n) => {
                let b = u32::from(n.broadcast());
                let a = u32::from(n.network());
                clients.insert(IpAddr::V4(b.wrapping_add(1).into()));
                clients.insert(IpAddr::V4(a.wrapping_sub(1).into()));
            }
            ipnet::IpNet::V6(n) => {
                let b = u128::from(n.broadcast());
                clients.insert(IpAddr::V6(b.wrapping_add(1).into()));
            }
        }
    }
}

/// Compares outcomes before and after over the request classes; returns the
/// requests that change, described for people.
pub fn verify(before: &Config, after: &Config, max_report: usize) -> Vec<String> {
    let classes = request_classes(before);
    let mut changes = Vec::new();
    for spec in &classes {
        let a = effective(before, spec).outcome.status;
        let b = effective(after, spec).outcome.status;
        if a != b || a.is_none() {
            if changes.len() < max_report {
                let who = match (&spec.request.user, spec.request.bad_credentials) {
                    (Some(u), _) => format!("user {u}"),
                    (None, true) => "wrong password".to_string(),
                    (None, false) => "anonymous".to_string(),
                };
                let show = |s: Option<u16>| s.map(|s| s.to_string()).unwrap_or_else(|| "unknown".into());
                changes.push(format!(
                    "{} {} from {} ({who}): {} → {}",
                    spec.request.method,
                    spec.path,
                    spec.request.client,
                    show(a),
                    show(b)
                ));
            } else {
                break;
            }
        }
    }
    changes
}

/// The rewrite of one section, verified.
pub fn rewrite_section(cfg: &Config, main: &Path, is_main: bool, section: &Node, base: &dyn FileSource) -> Rewrite {
    let label = format!("<{} {}>", section.name, section.args.join(" "));
    match rewrite_edits(cfg, section) {
        Err(why) => Rewrite {
            section: section.loc.range,
            file: section.loc.file,
            title: format!("Cannot rewrite {label} automatically"),
            edits: vec![],
            changes: vec![],
            preserving: false,
            refused: Some(why),
        },
        Ok((edits, note)) => {
            let after = edited_config(cfg, main, &edits, base, is_main);
            let changes = verify(cfg, &after, 20);
            let preserving = changes.is_empty();
            Rewrite {
                section: section.loc.range,
                file: section.loc.file,
                title: if preserving {
                    format!("Rewrite as Require ({note}): {label}")
                } else {
                    format!("Rewrite as Require, changing access: {label}")
                },
                edits,
                changes,
                preserving,
                refused: None,
            }
        }
    }
}

//! Feature: hover — the effective, merged access policy of a section, and what
//! the catalogue knows of a directive.

use crate::ide::access::{self, Effective, FsView, RequestSpec};
use crate::ide::catalogue;
use crate::ide::config::{Config, FileId, Node, NodeKind};
use crate::ide::defeated::{defeated, defeated_require, Defeated, DefeatedBatch, Own, RecentWalks};
use crate::ide::policy::{self, HostKnowledge, Request};
use crate::ide::row_server::{other_named_hosts, RowConnection, RowConnections};
use crate::ide::section_urls::{access_file_url, is_container, reaching_url, url_for};
use apache_syntax::{TextRange, TextSize};
use std::fmt::Write as _;
use std::net::IpAddr;

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

/// How many addresses the rules mention a table shows at most.
const MENTIONED_SHOWN: usize = 5;

/// The clients a table shows: a local one, each address the rules mention (at most
/// `MENTIONED_SHOWN`), and an outsider.
pub fn representative_clients(cfgs: &[&Config]) -> Vec<(String, IpAddr)> {
    let mut v: Vec<(String, IpAddr)> = vec![("local (127.0.0.1)".into(), "127.0.0.1".parse().unwrap())];
    for (w, ip) in cfgs.iter().flat_map(|c| mentioned_addresses(c).iter()) {
        if v.len() == 1 + MENTIONED_SHOWN {
            break;
        }
        if !v.iter().any(|(_, a)| a == ip) {
            v.push((w.clone(), *ip));
        }
    }
    v.push(("any other (192.0.2.1)".into(), "192.0.2.1".parse().unwrap()));
    v
}

/// The first addresses the configuration's Allow, Deny and `Require ip` lines name, in
/// walk order without repeats (as written, and its network address): as many as
/// [`representative_clients`] can take from one configuration (one more than it shows,
/// as 127.0.0.1 may be among them), so the walk stops early in a big configuration
/// (an edit of an access rule asks again). Kept in the configuration's index.
pub(crate) fn mentioned_addresses(cfg: &Config) -> &[(String, IpAddr)] {
    cfg.index().mentioned_addresses.get_or_init(|| {
        let mut seen = std::collections::HashSet::new();
        let mut v = Vec::new();
        for n in cfg.walk() {
            let words: Vec<&str> = if n.is("Allow") || n.is("Deny") {
                n.args().skip(1).collect()
            } else if n.is("Require") && n.args().find(|w| !w.eq_ignore_ascii_case("not")).is_some_and(|p| p == "ip") {
                n.args().skip_while(|w| w.eq_ignore_ascii_case("not")).skip(1).collect()
            } else {
                continue;
            };
            for w in words {
                if let Some(net) = policy::IpSubnet::parse_word(w).ok().and_then(|s| s.to_ipnet()) {
                    let ip = net.network();
                    if seen.insert(ip) {
                        v.push((w.to_string(), ip));
                        if v.len() > MENTIONED_SHOWN {
                            return v;
                        }
                    }
                }
            }
        }
        v
    })
}

/// Walks and evaluates a hover's request: SetEnvIf evaluated (headers other than Host unknown).
pub(crate) fn effective(cfg: &Config, fs: &FsView, spec: &RequestSpec) -> Effective {
    crate::ide::access::effective_in(cfg, fs, spec, Some(&hover_env_inputs(&spec.host)))
}

/// What a hover knows of a request for SetEnvIf: its Host header only.
pub(crate) fn hover_env_inputs(host: &Option<String>) -> crate::ide::setenvif::EnvInputs {
    crate::ide::setenvif::EnvInputs {
        headers: host.iter().map(|h| ("Host".to_string(), h.clone())).collect(),
        ..Default::default()
    }
}

/// What httpd writes to the error log for one outcome: the entries (with why LogLevel drops
/// one), or what a refusal without an entry means.
fn log_summary(cfg: &Config, e: &Effective) -> String {
    let suppressed = crate::ide::loglevel::suppressed(cfg, e);
    let entries: Vec<String> = e
        .outcome
        .log
        .iter()
        .zip(&suppressed)
        .filter(|(l, why)| why.is_none() || l.level != policy::LogLevel::Info)
        .map(|(l, why)| {
            let text = format!("`{}`", crate::ide::explain::log_line(l));
            match why {
                Some(w) => format!("{text} ({w})"),
                None => text,
            }
        })
        .collect();
    if !entries.is_empty() {
        return entries.join("; ");
    }
    match e.outcome.status {
        Some(401) => "nothing (httpd asks for credentials without logging)".into(),
        _ => "nothing".into(),
    }
}

pub(crate) fn spec(url: &str, host: &Option<String>, client: IpAddr, user: Option<&str>) -> RequestSpec {
    asked_spec("GET", url, host, client, user)
}

/// [`spec`] with the method `method`.
fn asked_spec(method: &str, url: &str, host: &Option<String>, client: IpAddr, user: Option<&str>) -> RequestSpec {
    let mut r = Request::new(method, client, client);
    set_client(&mut r, client);
    r.user = user.map(str::to_string);
    // The hover looks no name up (no network from the server): a cell that a host-name rule
    // decides is unknown, and the rule is named under the table.
    r.client_host = HostKnowledge::Unknown;
    r.groups = Some(Default::default());
    RequestSpec { path: url.to_string(), host: host.clone(), request: r }
}

/// [`asked_spec`] over the connection `client`'s request reaches the server on
/// ([`RowConnections::of`]): its virtual host is the one httpd picks for it.
fn row_spec(
    conn: &RowConnection,
    method: &str,
    url: &str,
    host: &Option<String>,
    client: IpAddr,
    user: Option<&str>,
) -> RequestSpec {
    let mut sp = asked_spec(method, url, host, client, user);
    conn.apply(&mut sp.request);
    sp
}

/// A hover's request from `client`, over a loopback connection of its address family: a
/// virtual host on addresses of the other family only never serves it (a main-server section's
/// table shows what the main server answers such a client).
pub(crate) fn set_client(r: &mut Request, client: IpAddr) {
    r.client = client;
    r.local_addr = if client.is_ipv4() { "127.0.0.1".parse().unwrap() } else { "::1".parse().unwrap() };
    r.local_family_known = true;
}

/// Markdown hover at `offset` of `file`.
pub fn hover(cfg: &Config, file: FileId, offset: TextSize) -> Option<(TextRange, String)> {
    if let Some(h) = skipped_line_hover(cfg, file, offset) {
        return Some(h);
    }
    let chain = path_to(cfg, file, offset);
    let last = *chain.last()?;
    // On a directive name that is not about access: the catalogue entry.
    if last.kind == NodeKind::Directive
        && !crate::ide::access::is_access_directive(last.name())
        && !last.canonical().get(..4).is_some_and(|p| p.eq_ignore_ascii_case("auth"))
    {
        if !last.loc.focus.contains_inclusive(offset) {
            return None;
        }
        let d = catalogue::directive(last.name())?;
        return Some((last.loc.focus, directive_doc(d)));
    }
    if let Some(server) = &cfg.enclosing {
        return access_file_hover(cfg, server, &chain, offset);
    }
    if cfg.top == crate::ide::config::TopLevel::Htaccess {
        // No server configuration serves this file's directory: its own rules, under a server
        // assumed to read it and to set nothing else.
        let server = assumed_server(cfg)?;
        let (range, md) = access_file_hover(cfg, &server, &chain, offset)?;
        return Some((range, format!("{HTACCESS_ALONE_CAVEAT}{md}")));
    }
    // On a section header or an access directive: the effective policy.
    let sec_idx = chain.iter().rposition(|n| is_container(n))?;
    let sections = &chain[..=sec_idx];
    let section = sections[sec_idx];
    if last.is_section() && !last.loc.focus.contains_inclusive(offset) && std::ptr::eq(last, section) {
        return None;
    }
    let range = if last.kind == NodeKind::Directive { last.loc.range } else { last.loc.focus };
    let pattern = !matches!(access::section_pattern(section), Some(access::SectionPattern::Plain(_)) | None);
    // The editor's unsaved .htaccess texts over the disk's.
    let fs = crate::ide::defeated::htaccess_view(cfg);
    let reached = reaching_url(cfg, sections, &fs);
    let Some((url, host)) = reached.clone().or_else(|| url_for(cfg, sections).filter(|_| !pattern)) else {
        let why = if pattern {
            "No request built from this pattern (its wildcards filled in, each branch of a regular expression, beneath the DocumentRoot and Alias targets) reaches this section, so there is no request to evaluate; requests this tool cannot build may still reach it."
        } else {
            "No URL reaches this section through DocumentRoot or Alias, so there is no request to evaluate."
        };
        let caveat = if cfg.top == crate::ide::config::TopLevel::Fragment { FRAGMENT_CAVEAT } else { "" };
        return Some((range, format!("{caveat}**<{} {}>**\n\n{why}", section.name(), section.args().join(" "))));
    };
    let trap = defeated_require(cfg, sections);
    let family = chain.iter().find(|n| n.is("VirtualHost")).and_then(|v| one_family(v));
    // An example file missing from a tree that is here: the table is httpd's answer for it.
    let missing = missing_file_note(cfg, &fs, &url, &host);
    let fs = if missing.is_some() { fs.last_missing() } else { fs };
    let mut md = policy_markdown(cfg, &fs, &url, &host, &Asked::of(&chain), trap, &[cfg], family);
    if pattern {
        let first_line = md.find('\n').unwrap_or(md.len());
        md.insert_str(first_line, &format!(" (a URL this section's pattern `{}` reaches)", section.args().join(" ")));
    }
    if let Some(note) = missing {
        md.insert_str(0, &note);
    }
    // Inside an <If>: the table is the enclosing section's, each cell over the branches.
    if let Some(cond) = chain[sec_idx + 1..].iter().rev().find(|n| matches!(n.known(), "If" | "ElseIf" | "Else")) {
        let expr = cond.args().join(" ");
        let what = if expr.is_empty() { String::new() } else { format!(" `{expr}`") };
        md.insert_str(
            0,
            &format!(
                "Inside `<{}>`{what} (line {}): the table below is the enclosing section's, each cell walked with \
                 the branches httpd takes for its request (client, method, Host, URL); where an expression reads \
                 what a cell does not know, the cell is walked with this branch applying and not, and one it \
                 changes is unknown (the answers of each are listed under the table).\n\n",
                cond.name(),
                cfg.line(&cond.loc)
            ),
        );
    }
    // (The innermost `<Directory>` on the way: a `<Files>` inside it applies to nothing either.)
    if let Some(note) = sections.iter().rev().find(|s| s.is("Directory")).and_then(|d| missing_directory_note(d)) {
        md.insert_str(0, &note);
    }
    if cfg.top == crate::ide::config::TopLevel::Fragment {
        md.insert_str(0, FRAGMENT_CAVEAT);
    }
    Some((range, md))
}

/// Whether every address of virtual host `v` is an IPv4 one (Some(true)) or every one an IPv6
/// one (Some(false)): a client of the other family connects to the server over the other
/// family's loopback, and httpd picks the host by the connection's address first
/// (`ap_update_vhost_given_ip`), so that client never reaches `v`. None: `*`, `_default_` or a
/// name (resolved by httpd at start-up, not here) among them.
fn one_family(v: &Node) -> Option<bool> {
    let mut family = None;
    for a in v.args() {
        let ip = access::vhost_address(a).ok()?.0?;
        if family.is_some_and(|f| f != ip.is_ipv4()) {
            return None;
        }
        family = Some(ip.is_ipv4());
    }
    family
}

/// Said first in a hover on a `<Directory>` naming a directory missing from this machine while
/// its parent is here (the tree seems deployed): httpd's walk stops at the first missing
/// component, so here the section applies to no request, and the table (walked on this disk)
/// leaves it out: the note says so, and that where the directory exists the section applies.
fn missing_directory_note(section: &Node) -> Option<String> {
    if !section.is("Directory") {
        return None;
    }
    let dir = std::path::Path::new(section.args().next()?);
    let parent = dir.parent()?;
    if !dir.is_absolute() || dir.exists() || !parent.is_dir() {
        return None;
    }
    Some(format!(
        "⚠ **Not on this disk**: `{}` does not exist here while `{}` does. httpd's directory walk stops at the first \
         missing component, so on this machine this section applies to no request: requests beneath it are answered \
         by the sections above it (a 404 where they grant). The table below is httpd's answer on this machine, \
         without this section; on a server where the directory exists, the section applies and the answer may \
         differ.\n\n",
        dir.display(),
        parent.display()
    ))
}

/// Said first in a hover whose request names a file missing from this machine while its
/// directory is here (the tree seems deployed), where `<Directory>` sections (a wildcard `…/*`,
/// the file's own name) apply only if it exists: httpd's walk stops at the missing file, so the
/// table is walked without them ([`FsView::last_missing`]), as httpd answers here.
fn missing_file_note(cfg: &Config, fs: &FsView, url: &str, host: &Option<String>) -> Option<String> {
    let r = access::resolve(cfg, fs, url, host.as_deref(), None);
    let file = &r.filesystem_path;
    if !r.presumes_last_there() || file.exists() || !file.parent().is_some_and(std::path::Path::is_dir) {
        return None;
    }
    Some(format!(
        "⚠ **Not on this disk**: `{}` does not exist here, so httpd's directory walk stops at it and the \
         `<Directory>` sections matching it as a path of its own (such as a wildcard `…/*`) do not apply: the \
         table below is httpd's answer on this machine. Where the file exists, they apply too.\n\n",
        file.display()
    ))
}

/// Said first in a hover on a file analysed without the main configuration that includes it:
/// what that configuration sets (a `<Directory />` refusing everything, the modules it loads) is
/// not in the table, which can show a grant httpd refuses.
const FRAGMENT_CAVEAT: &str = "⚠ **Analysed on its own**: no main configuration (httpd.conf, apache2.conf) including this file was found in the workspace, so the sections it inherits from there (such as a `<Directory />` that refuses everything) are missing below, and httpd's real answer may differ. Open the folder holding the main configuration to see the merged policy.\n\n";

/// The name of the server configuration an .htaccess file analysed alone is read under.
const ASSUMED_SERVER: &str = "assumed-server.conf";

/// Said first in a hover on an .htaccess file analysed without a server configuration: the
/// table is the file's own rules under [`assumed_server`].
const HTACCESS_ALONE_CAVEAT: &str = "⚠ **Analysed on its own**: no main configuration (httpd.conf, apache2.conf) serving this directory was found in the workspace. The table shows this file's rules alone, read as if its directory were the DocumentRoot with `AllowOverride All`, `AllowOverride None` above it, and nothing else on the way (`assumed-server.conf`, Debian's default modules). What the real server sets is missing: its AllowOverride (httpd may ignore this file, or answer 500 to a line it does not allow), and the sections and .htaccess files above this one (such as a `<Directory />` that refuses everything), so httpd's real answer may differ. Open the folder holding the main configuration to see the merged policy.\n\n";

/// The server an .htaccess file (`htaccess`, loaded alone) is read under when no configuration
/// of the workspace serves its directory: that directory is the DocumentRoot, with
/// `AllowOverride All` there and `None` above (httpd's compiled-in default would read the
/// .htaccess files above with no directive allowed: 500), and the .htaccess file's modules
/// (Debian's defaults).
fn assumed_server(htaccess: &Config) -> Option<Config> {
    struct Assumed {
        path: std::path::PathBuf,
        text: std::sync::Arc<str>,
    }
    impl crate::ide::config::FileSource for Assumed {
        fn read(&self, path: &std::path::Path) -> std::io::Result<(std::sync::Arc<str>, Option<usize>)> {
            if path == self.path {
                Ok((self.text.clone(), None))
            } else {
                Err(std::io::ErrorKind::NotFound.into())
            }
        }
        // A server made up to read the file under: no path it names is checked.
        fn disk_paths(&self) -> bool {
            false
        }
    }
    let dir = htaccess.file(0).path.parent()?;
    // (Inside quotes httpd's tokenizer takes a backslash as an escape before a quote only.)
    let quoted = format!("\"{}\"", dir.display().to_string().replace('"', "\\\""));
    let text = format!(
        "DocumentRoot {quoted}\n<Directory />\n  AllowOverride None\n</Directory>\n<Directory {quoted}>\n  AllowOverride All\n</Directory>\n"
    );
    let source = Assumed { path: dir.join(ASSUMED_SERVER), text: text.into() };
    let mut server = crate::ide::config::load(&source.path, &source);
    server.modules = htaccess.modules.clone();
    server.modules_known = htaccess.modules_known;
    Some(server)
}

/// Hover on a line inside a conditional section httpd skips (`<IfVersion < 2.4>`,
/// `<IfModule !mod_authz_core.c>`, a module not loaded): httpd never reads it, so it has no
/// policy to show; say so, name the conditional, and add the catalogue's entry.
fn skipped_line_hover(cfg: &Config, file: FileId, offset: TextSize) -> Option<(TextRange, String)> {
    // The innermost inactive body holding the offset.
    let body = cfg
        .inactive
        .iter()
        .filter(|(f, r)| *f == file && r.contains(offset))
        .map(|(_, r)| *r)
        .min_by_key(|r| r.len())?;
    let data = cfg.file(file);
    let text: &str = &data.text;
    let index = &data.line_index;
    let line_of = |o: TextSize| index.line_col(o, apache_syntax::Encoding::Utf8).line;
    let line_range = index.line_range(line_of(offset))?;
    let line = &text[line_range];
    let trimmed = line.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return None;
    }
    let word = trimmed.split(|c: char| c.is_whitespace()).next().unwrap_or("");
    let word_start = line_range.start() + TextSize::from((line.len() - line.trim_start().len()) as u32);
    let range = TextRange::at(word_start, TextSize::from(trimmed.len() as u32));
    // The conditional's header is the line the body starts after.
    let header_line = line_of(body.start().checked_sub(TextSize::from(1)).unwrap_or_default());
    let header = text[TextRange::new(index.line_range(header_line)?.start(), body.start())].trim();
    let header_line = header_line + 1;
    let v = crate::ide::config::HTTPD_VERSION;
    let mut md = format!(
        "**Skipped by httpd**: this line is inside `{header}` (line {header_line}), whose condition is false with this configuration (httpd {}.{}.{}, the modules and Defines it loads), so httpd never reads it: it has no effect.\n",
        v.0, v.1, v.2
    );
    let name = word.trim_start_matches('<').trim_start_matches('/').trim_end_matches('>');
    if let Some(d) = catalogue::directive(name) {
        md.push_str("\n---\n\n");
        md.push_str(&directive_doc(d));
    }
    Some((range, md))
}

fn trap_text(t: &Defeated, place: impl Fn(&std::path::Path, u32) -> String) -> String {
    let at = |l: Option<&policy::Loc>| l.map(|l| format!(" ({})", place(&l.file, l.line))).unwrap_or_default();
    let said = t.lines.iter().map(|line| format!("⚠ {}.", t.sentence(line, at)));
    said.collect::<Vec<_>>().join("\n\n")
}

/// Hover in an .htaccess file read under `server`: the effective policy of its
/// directory's URL (or of a `<Files>` name in it), every section on the way included.
fn access_file_hover(cfg: &Config, server: &Config, chain: &[&Node], offset: TextSize) -> Option<(TextRange, String)> {
    let last = *chain.last()?;
    let range = if last.kind == NodeKind::Directive {
        last.loc.range
    } else if last.loc.focus.contains_inclusive(offset) {
        last.loc.focus
    } else {
        return None;
    };
    let path = cfg.file(last.loc.file).path.clone();
    let dir = path.parent()?;
    let Some((mut url, host)) = access_file_url(server, dir) else {
        return Some((
            range,
            format!(
                "**{}**\n\nNo URL reaches `{}` through a DocumentRoot or Alias of the server configuration, so there is no request to evaluate.",
                path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                dir.display()
            ),
        ));
    };
    if let Some(name) = chain.iter().find(|n| n.is("Files")).and_then(|f| f.args().first()) {
        if !name.contains(['*', '?', '[', '~']) {
            url = format!("{}/{name}", url.trim_end_matches('/'));
        }
    }
    let own = Own { cfg, file: path.clone(), range: None };
    let batch = DefeatedBatch::new(&[server, cfg], crate::ide::defeated::htaccess_view(server));
    let trap = defeated(server, &cfg.nodes, &own, &url, &host, &batch, &mut RecentWalks::default());
    let fs = crate::ide::defeated::htaccess_view(server);
    // The addresses the file itself names first: a big server configuration names more than a
    // table shows before it.
    Some((range, policy_markdown(server, &fs, &url, &host, &Asked::of(chain), trap, &[cfg, server], None)))
}

/// The evaluations a table's request meets: its own, and those of mod_dir's DirectoryIndex
/// subrequests for it (whose Require lines, of a `<Files>` naming the index file, decide too).
fn met_by(e: &Effective) -> Vec<&Effective> {
    let subrequests = e.index.iter().flat_map(|l| l.tries.iter()).filter_map(|t| t.effective.as_ref());
    std::iter::once(e).chain(subrequests).collect()
}

/// Whether a `Require group` line is in the trees.
fn names_a_group(trees: &[&policy::AuthzNode]) -> bool {
    let mut stack: Vec<&policy::AuthzNode> = trees.to_vec();
    while let Some(n) = stack.pop() {
        match &n.kind {
            policy::NodeKind::Require(r) if matches!(r.provider, policy::Provider::Group(_)) => return true,
            policy::NodeKind::Container { children, .. } => stack.extend(children),
            policy::NodeKind::Require(_) => {}
        }
    }
    false
}

/// How many named users a table gives a column each, at most; the others named are listed under
/// it ([`table_columns`]), never folded silently into "another valid user".
const NAMED_USERS_SHOWN: usize = 8;

/// The users a hover's table authenticates as: every user the Require lines in `trees` name
/// (`Require user`, then a member of each `Require group` by `groups`, user → groups), and one
/// name none of them is, for any other valid user.
fn table_users(trees: &[&policy::AuthzNode], groups: &Memberships) -> (Vec<String>, String) {
    let (mut users, mut group_names): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    let mut stack: Vec<&policy::AuthzNode> = trees.iter().rev().copied().collect();
    // (Words holding an ap_expr reference are not names.)
    let words = |a: &str| -> Vec<String> {
        a.split_whitespace().filter(|w| !w.contains("%{")).map(|w| w.trim_matches('"').to_string()).collect()
    };
    while let Some(n) = stack.pop() {
        match &n.kind {
            policy::NodeKind::Require(r) => match &r.provider {
                policy::Provider::User(a) => users.extend(words(a)),
                policy::Provider::Group(a) => group_names.extend(words(a)),
                _ => {}
            },
            policy::NodeKind::Container { children, .. } => stack.extend(children.iter().rev()),
        }
    }
    for g in &group_names {
        if let Some(member) = groups
            .iter()
            .find(|(u, gs)| !users.contains(u) && gs.iter().any(|x| x.eq_ignore_ascii_case(g)))
            .map(|(u, _)| u)
        {
            users.push(member.clone());
        }
    }
    let mut named: Vec<String> = Vec::new();
    for u in users {
        if !named.contains(&u) {
            named.push(u);
        }
    }
    let other = (0..)
        .map(|i| if i == 0 { "someone".to_string() } else { format!("someone{i}") })
        .find(|c| !named.contains(c) && !groups.contains_key(c))
        .unwrap_or_default();
    (named, other)
}

/// The request a hover evaluates: its method, and the `<Limit>` or `<LimitExcept>` section it
/// was chosen for (where the cursor is).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Asked {
    method: String,
    limit: Option<String>,
}

/// Methods a `<LimitExcept>` hover may evaluate, in the order tried: the first it does not list.
const EXCEPT_CANDIDATES: &[&str] = &["GET", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"];

impl Asked {
    /// GET, or inside a `<Limit>` (the innermost on `chain`) a method it lists (GET if it
    /// lists GET or HEAD, else its first, as written: httpd compares methods case-sensitively),
    /// inside a `<LimitExcept>` the first of [`EXCEPT_CANDIDATES`] it does not list (HEAD is
    /// GET's method number, `ap_method_number_of`, so listing either excepts both).
    fn of(chain: &[&Node]) -> Asked {
        let get = || Asked { method: "GET".into(), limit: None };
        let Some(limit) = chain.iter().rev().find(|n| n.is_section() && policy::method::is_limit(n.name())) else {
            return get();
        };
        let listed: Vec<&str> = limit.args().collect();
        let lists = |m: &str| listed.iter().any(|l| *l == m || (m == "GET" && *l == "HEAD"));
        let method = if limit.is("Limit") {
            if lists("GET") {
                Some("GET")
            } else {
                listed.first().copied()
            }
        } else {
            EXCEPT_CANDIDATES.iter().copied().find(|m| !lists(m))
        };
        match method {
            Some(m) => Asked { method: m.to_string(), limit: Some(format!("<{} {}>", limit.name(), listed.join(" "))) },
            None => get(),
        }
    }
}

/// A place in the configuration as a hover names it: `file:line`, the file by its name, except
/// a per-directory file (`.htaccess`, read per request: `per_dir` holds their paths), named by
/// its directory ([`per_dir_name`]), as nested ones share a name.
fn place(path: &std::path::Path, line: u32, per_dir: &[&std::path::Path], docroot: Option<&std::path::Path>) -> String {
    if per_dir.contains(&path) {
        return format!("{}:{line}", per_dir_name(path, docroot));
    }
    format!("{}:{line}", path.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default())
}

/// How long a path a hover writes in full, at most.
const SHORT_PATH: usize = 40;

/// A per-directory file named by its directory: the path from the DocumentRoot's parent
/// (`htdocs/sub/.htaccess`) when the file is beneath the DocumentRoot, else the full path when
/// short, else its last three components after `…/`.
fn per_dir_name(path: &std::path::Path, docroot: Option<&std::path::Path>) -> String {
    if let Some(rel) = docroot
        .and_then(|d| Some((d.parent()?, d)))
        .and_then(|(parent, d)| path.starts_with(d).then(|| path.strip_prefix(parent).ok()).flatten())
    {
        return rel.display().to_string();
    }
    let full = path.display().to_string();
    if full.chars().count() <= SHORT_PATH {
        return full;
    }
    let parts: Vec<_> = path.components().collect();
    let tail: std::path::PathBuf = parts[parts.len().saturating_sub(3)..].iter().collect();
    format!("…/{}", tail.display())
}

/// The effective policy of `asked.method url` as markdown: the sections in merge order, the
/// resulting Require, the outcome table (for the clients the `mentioned` configurations name),
/// what the handler answers where access is granted, the deciding rule and `trap` if any; for
/// a method other than GET, GET's table too when it differs. `ipv4`: the only address family
/// whose clients reach the section's virtual host ([`one_family`]), if one.
#[allow(clippy::too_many_arguments)]
fn policy_markdown(
    cfg: &Config,
    fs: &FsView,
    url: &str,
    host: &Option<String>,
    asked: &Asked,
    trap: Option<Defeated>,
    mentioned: &[&Config],
    ipv4: Option<bool>,
) -> String {
    let mut md = String::new();
    let method = asked.method.as_str();
    let limited = match &asked.limit {
        Some(l) if method == "GET" => format!(" (a method `{l}` applies to)"),
        Some(l) => format!(" (a method `{l}` applies to; `GET` below)"),
        None => String::new(),
    };
    let _ = writeln!(
        md,
        "**Effective access** for `{method} {url}`{}{limited}",
        host.as_ref().map(|h| format!(" on `{h}`")).unwrap_or_default()
    );
    let local: IpAddr = "127.0.0.1".parse().unwrap();
    let local_conn = RowConnections::new(cfg).of(local);
    let base = effective(cfg, fs, &row_spec(&local_conn, method, url, host, local, None));
    // httpd stops at a line it refuses before any request: no rule decides, and the rules left
    // once that line is dropped are not ones httpd runs.
    let refuses = !base.errors.is_empty();
    // .htaccess files are named by their directory, from the request's DocumentRoot.
    let per_dir: Vec<&std::path::Path> = base.sections.iter().filter(|s| s.file.is_none()).map(|s| &*s.path).collect();
    let docroot = crate::ide::access::document_root(cfg, &row_spec(&local_conn, method, url, host, local, None));
    let place = |path: &std::path::Path, line: u32| place(path, line, &per_dir, Some(&docroot));
    if refuses {
        let _ =
            writeln!(md, "\n**httpd refuses to start** with the sections that apply here, so it answers no request:");
        for e in &base.errors {
            let _ = writeln!(md, "- {} ({})", e.message, place(&e.loc.file, e.loc.line));
        }
    }
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
        let _ = writeln!(
            md,
            "- `<{} {}>` ({}){}",
            s.kind,
            s.args.join(" "),
            place(&s.path, s.line),
            if layers.is_empty() { String::new() } else { format!(": {}", layers.join(", ")) }
        );
    }
    if let Some(a) = base.authz.as_ref().and_then(|a| a.section.as_ref()).filter(|_| !refuses) {
        let _ = writeln!(md, "\nEffective Require:\n```apache\n{}```", a.render());
    }
    if let Some(c) = base.compat.as_ref().filter(|_| !refuses) {
        let _ =
            writeln!(md, "\nEffective Order/Allow/Deny: {}", crate::ide::diagnostics::deprecated_access::describe(c));
    }
    let mut clients = representative_clients(mentioned);
    let mut unreached = Vec::new();
    clients.retain(|(label, ip)| {
        let reaches = ipv4.is_none_or(|v4| ip.is_ipv4() == v4);
        if !reaches {
            unreached.push(label.clone());
        }
        reaches
    });
    // Columns: anonymous, then valid credentials of the users the Require lines name (members of
    // the groups they name, by the group files), then of a user they do not name. The lines are
    // those of every walk the table makes, not only 127.0.0.1's anonymous one: a user named in an
    // `<Else>` another client takes, or by the index file's own section, which mod_dir's
    // subrequest reaches only once the directory let the credentials through. Each new column
    // walks again, until the names settle.
    let (mut named, mut other, mut groups) = table_users_of(cfg, &[&base]);
    let mut round = 0;
    let mut asked_table = loop {
        let columns = table_columns(&named, &other);
        let table = Table::of(cfg, fs, method, url, host, &columns, &groups, &clients);
        let walks: Vec<&Effective> = std::iter::once(&base).chain(&table.walked).collect();
        let found = table_users_of(cfg, &walks);
        round += 1;
        if found == (named.clone(), other.clone(), groups.clone()) || round == MAX_COLUMN_ROUNDS {
            break table;
        }
        (named, other, groups) = found;
    };
    let columns = table_columns(&named, &other);
    asked_table.said_after = base.outcome.reason_unknown.clone();
    md.push_str(&asked_table.markdown);
    server_notes(&mut md, cfg, host, &asked_table.servers);
    if let Some(unshown) = named.get(NAMED_USERS_SHOWN..).filter(|u| !u.is_empty()) {
        let names: Vec<String> = unshown.iter().map(|u| format!("`{u}`")).collect();
        let _ = writeln!(
            md,
            "\nNo column for {} (named too, but a table shows at most {NAMED_USERS_SHOWN} named users): \
             \"another valid user\" is a user no rule names.",
            names.join(", ")
        );
    }
    if !unreached.is_empty() {
        let _ = writeln!(
            md,
            "\nNo row for {}: this virtual host's addresses are all {}, so such a client's connection reaches another server.",
            unreached.join(", "),
            if ipv4 == Some(true) { "IPv4" } else { "IPv6" }
        );
    }
    if !asked_table.refused.is_empty() {
        let _ = writeln!(md, "\nError log of the refused rows:");
        for ((st, log), who, ip) in &asked_table.refused {
            let _ = writeln!(md, "- {st} for {}: {log}; access log `{method} {url} {st} {ip}`", who.join("; "));
        }
    }
    asked_table.handler_lines(&mut md, method, url);
    if method != "GET" {
        let limit = asked.limit.as_deref().unwrap_or_default();
        let mut get = Table::of(cfg, fs, "GET", url, host, &columns, &groups, &clients);
        get.said_after = base.outcome.reason_unknown.clone();
        if get.statuses == asked_table.statuses {
            let _ = writeln!(md, "\n`GET {url}`, which `{limit}` does not apply to, gets the same answers.");
        } else {
            let _ = writeln!(md, "\nFor `GET {url}`, which `{limit}` does not apply to:");
            md.push_str(&get.markdown);
            get.handler_lines(&mut md, "GET", url);
        }
    }
    if let Some(d) = base.outcome.deciding.as_ref().filter(|_| !refuses) {
        let at = d.loc.as_ref().map(|l| format!(" ({})", place(&l.file, l.line))).unwrap_or_default();
        let _ = writeln!(md, "\nFor 127.0.0.1, decided by {:?}: `{}`{at}", d.layer, d.rule);
    }
    if let Some(t) = &trap {
        let _ = writeln!(md, "\n{}", trap_text(t, place));
    }
    if let Some(r) = &base.outcome.reason_unknown {
        let _ = writeln!(md, "\nSome outcomes cannot be known: {r}");
    }
    md
}

/// Said under a table whose rows virtual hosts answer: the server address taken for clients off
/// this machine, a port that is not known, and (for a section no virtual host holds) the other
/// virtual hosts the Host header picks on a row's connection.
fn server_notes(
    md: &mut String,
    cfg: &Config,
    host: &Option<String>,
    servers: &[(String, RowConnection, Option<String>)],
) {
    if cfg.index().vhosts.is_empty() {
        return;
    }
    let join = |rows: &[&str]| rows.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", ");
    let mut assumed: Vec<(RowConnection, Vec<&str>)> = Vec::new();
    for (label, conn, _) in servers.iter().filter(|(_, c, _)| c.assumed) {
        match assumed.iter_mut().find(|(c, _)| c == conn) {
            Some((_, rows)) => rows.push(label),
            None => assumed.push((*conn, vec![label])),
        }
    }
    for (conn, rows) in &assumed {
        let at = match conn.port {
            Some(p) if conn.local.is_ipv6() => format!("[{}]:{p}", conn.local),
            Some(p) => format!("{}:{p}", conn.local),
            None => conn.local.to_string(),
        };
        let named = crate::ide::explain::listen_addresses(cfg).iter().any(|(a, _)| *a == Some(conn.local));
        let what = if named { "the address `Listen` names" } else { "an address no `<VirtualHost>` names" };
        let _ = writeln!(
            md,
            "\nRow {}: a client off this machine is taken to connect to {at}, {what}; the server address it really \
             connects to may pick another virtual host.",
            join(rows)
        );
    }
    let unported: Vec<&str> = servers.iter().filter(|(_, c, _)| c.port.is_none()).map(|(l, ..)| l.as_str()).collect();
    // (Without any `Listen`, a fragment's, nothing tells the port: the family picks.)
    if !unported.is_empty() && !crate::ide::explain::listen_addresses(cfg).is_empty() {
        let _ = writeln!(
            md,
            "\nRow {}: the port is not known (no `Listen` covers the address, or several pick different virtual \
             hosts), so the server is picked among every virtual host of the address family.",
            join(&unported)
        );
    }
    if host.is_some() {
        return;
    }
    let mut by_name: Vec<(&str, Vec<String>, Vec<&str>)> = Vec::new();
    for (label, conn, on) in servers {
        let Some(on) = on else { continue };
        let others = other_named_hosts(cfg, conn, Some(on));
        if others.is_empty() {
            continue;
        }
        match by_name.iter_mut().find(|(o, x, _)| o == on && *x == others) {
            Some((_, _, rows)) => rows.push(label),
            None => by_name.push((on, others, vec![label])),
        }
    }
    for (on, others, rows) in by_name {
        let _ = writeln!(
            md,
            "\nRow {}: `{on}` answers a request whose Host header names no other virtual host of its address; one \
             naming {} is answered by that host instead, whose sections may differ.",
            join(&rows),
            join(&others.iter().map(String::as_str).collect::<Vec<_>>())
        );
    }
}

/// How many times a hover's table is walked at most while its columns settle
/// ([`table_users_of`]).
const MAX_COLUMN_ROUNDS: usize = 3;

/// A table's columns: anonymous, the credentials of `named` (the first [`NAMED_USERS_SHOWN`]),
/// then `other`'s (a user no rule names).
fn table_columns<'a>(named: &'a [String], other: &'a str) -> Vec<(String, Option<&'a str>)> {
    let mut columns: Vec<(String, Option<&str>)> = vec![("anonymous".into(), None)];
    columns.extend(named.iter().take(NAMED_USERS_SHOWN).map(|u| (format!("as `{u}`"), Some(u.as_str()))));
    let other_label = if named.is_empty() { "authenticated".to_string() } else { "another valid user".to_string() };
    columns.push((other_label, Some(other)));
    columns
}

/// Group memberships, user → groups.
type Memberships = std::collections::BTreeMap<String, std::collections::BTreeSet<String>>;

/// [`table_users`] of the Require lines in effect in `walks` and in their DirectoryIndex
/// subrequests, with the group memberships read for them.
fn table_users_of(cfg: &Config, walks: &[&Effective]) -> (Vec<String>, String, Memberships) {
    let met: Vec<&Effective> = walks.iter().flat_map(|e| met_by(e)).collect();
    let trees: Vec<&policy::AuthzNode> = met.iter().filter_map(|e| e.authz.as_ref()?.section.as_ref()).collect();
    // (The group files are read only when a Require names a group, and only those in effect
    // on the table's walks, an .htaccess file's included: httpd reads no other for them.)
    let groups = if names_a_group(&trees) {
        let in_effect = met.iter().filter_map(|e| e.authn.group_file.as_ref()).map(|v| v.value.as_str());
        access::group_memberships_in(cfg, in_effect)
    } else {
        Default::default()
    };
    let (named, other) = table_users(&trees, &groups);
    (named, other, groups)
}

/// One method's outcome table: a row per client, a cell per column (anonymous, users).
struct Table {
    /// The table in markdown, its header first.
    markdown: String,
    /// The cells' statuses, row by row.
    statuses: Vec<Vec<Option<u16>>>,
    /// Refused cells grouped by what httpd logs for them: (status, log text) → who, and the
    /// first client's address.
    refused: Vec<((u16, String), Vec<String>, IpAddr)>,
    /// What the handler answers, other than 200, where access is granted: (status, why) → the
    /// granted cells it answers; and how many cells are granted.
    handled: Vec<((u16, String), Vec<String>)>,
    granted: usize,
    /// Cells whose answer the `<If>` branches on the way change: what each combination of
    /// branches answers → the cells.
    branches: Vec<(String, Vec<String>)>,
    /// Cells whose answer is not known for another reason (the client's host name): why → the
    /// cells.
    unknown: Vec<(String, Vec<String>)>,
    /// The reason said after the tables, that of the request the hover evaluates first.
    said_after: Option<String>,
    /// Every walk of the cells (each combination of `<If>` branches too): the users their
    /// Require lines name are the columns ([`table_users`]).
    walked: Vec<Effective>,
    /// Per row: its label, its connection, and the virtual host answering it (None: the main
    /// server).
    servers: Vec<(String, RowConnection, Option<String>)>,
}

/// One cell of a [`Table`]: the request walked with the `<If>` branches untold, and the answer
/// of each combination of the branches of the chains on its way that hold what it reads
/// ([`access::branches`]; one combination, untold, when there are none).
struct Cell {
    e: Effective,
    /// The access status shown: the same in every combination, else unknown (None); an error
    /// an ErrorDocument naming a URL turns into a redirect is shown as 302.
    status: Option<u16>,
    /// The redirect an ErrorDocument makes of the refusal shown.
    redirect: Option<crate::ide::error_document::Redirect>,
    /// Per combination (in words): the status, and what the handler answers other than 200
    /// where access is granted.
    variants: Vec<Variant>,
    /// The walks of the combinations, when there are several.
    combined: Vec<Effective>,
}

/// A combination of `<If>` branches (in words), the access status it gives, and what the
/// handler answers instead of 200 where access is granted.
type Variant = (String, Option<u16>, Option<(u16, String)>);

impl Cell {
    fn of(cfg: &Config, fs: &FsView, sp: RequestSpec) -> Cell {
        let inputs = hover_env_inputs(&sp.host);
        let answered =
            |e: &Effective| -> (Option<u16>, Option<crate::ide::error_document::Redirect>, Option<(u16, String)>) {
                let walk_failed = e.refused_symlink.is_some()
                    || e.outcome.deciding.as_ref().is_some_and(|d| d.rule.starts_with(".htaccess error"));
                let redirect = |st: u16| crate::ide::error_document::redirect(cfg, e, st, walk_failed);
                match e.outcome.status {
                    Some(200) => {
                        let handled = match crate::ide::handler::answer(cfg, fs, &sp, e) {
                            Some(crate::ide::handler::Answer::File { status, why, .. }) if status != 200 => {
                                Some(match redirect(status) {
                                    Some(r) => (
                                        302,
                                        format!(
                                            "{why}, turned into a redirect to `{}` by ErrorDocument at line {}",
                                            r.location, r.line
                                        ),
                                    ),
                                    None => (status, why),
                                })
                            }
                            Some(crate::ide::handler::Answer::File { .. }) | None => None,
                            // Not predicted: said where the branches make a difference only.
                            Some(crate::ide::handler::Answer::Handler { why, may }) => {
                                let may = may.iter().map(u16::to_string).collect::<Vec<_>>().join(", ");
                                let may = if may.is_empty() { String::new() } else { format!(", it may with {may}") };
                                Some((200, format!("unless `{why}` answers otherwise{may}")))
                            }
                            // Not known at all (mod_rewrite may redirect internally): the cell is
                            // unknown, with the reason (status 0).
                            Some(crate::ide::handler::Answer::Unknown { why, may }) => {
                                let may = may.iter().map(u16::to_string).collect::<Vec<_>>().join(", ");
                                return (
                                    None,
                                    None,
                                    Some((0, format!("access is granted, then {why} (possible: {may})"))),
                                );
                            }
                        };
                        (Some(200), None, handled)
                    }
                    Some(st) => match redirect(st) {
                        Some(r) => (Some(302), Some(r), None),
                        None => (Some(st), None, None),
                    },
                    None => (None, None, None),
                }
            };
        let e = translated(cfg, &sp, effective(cfg, fs, &sp));
        let known = access::branches::expr_request(cfg, &sp, &inputs);
        let value = |b: &access::branches::Branch| access::branches::condition(cfg, b, &known);
        let combos = (!e.chains.is_empty()).then(|| access::branches::combinations(cfg, &e.chains, &value)).flatten();
        let (status, redirect, handled) = answered(&e);
        let Some(combos) = combos else {
            // (Too many combinations: the cells are unknown where a chain holds anything read.)
            let status = if e.chains.is_empty() { status } else { None };
            return Cell { e, status, redirect, variants: vec![(String::new(), status, handled)], combined: vec![] };
        };
        if let [d] = &combos[..] {
            // Every condition on the way is known: the branches httpd takes.
            let x = translated(cfg, &sp, access::effective_decided(cfg, fs, &sp, Some(&inputs), Some(d)));
            let (status, redirect, handled) = answered(&x);
            return Cell { e: x, status, redirect, variants: vec![(String::new(), status, handled)], combined: vec![] };
        }
        let (variants, combined): (Vec<Variant>, Vec<Effective>) = combos
            .iter()
            .map(|d| {
                let x = translated(cfg, &sp, access::effective_decided(cfg, fs, &sp, Some(&inputs), Some(d)));
                let (st, _, handled) = answered(&x);
                ((access::branches::describe(cfg, d), st, handled), x)
            })
            .unzip();
        let agree = variants.iter().all(|(_, st, _)| *st == status);
        Cell { status: if agree { status } else { None }, redirect: redirect.filter(|_| agree), e, variants, combined }
    }
}

/// `e` as a redirect at translate_name leaves it (crate::ide::alias_redirect): its status,
/// before access control is asked.
fn translated(cfg: &Config, sp: &RequestSpec, mut e: Effective) -> Effective {
    if let Some(r) = crate::ide::alias_redirect::at_translate_name(cfg, &e, sp) {
        crate::ide::alias_redirect::answer_at_translation(&mut e, &r);
    }
    e
}

impl Table {
    #[allow(clippy::too_many_arguments)]
    fn of(
        cfg: &Config,
        fs: &FsView,
        method: &str,
        url: &str,
        host: &Option<String>,
        columns: &[(String, Option<&str>)],
        groups: &Memberships,
        clients: &[(String, IpAddr)],
    ) -> Table {
        let mut t = Table {
            markdown: String::new(),
            statuses: vec![],
            refused: vec![],
            handled: vec![],
            granted: 0,
            branches: vec![],
            unknown: vec![],
            said_after: None,
            walked: vec![],
            servers: vec![],
        };
        let mut rows: Vec<(String, String)> = Vec::new();
        let connections = RowConnections::new(cfg);
        for (label, ip) in clients {
            let conn = connections.of(*ip);
            let cells: Vec<Cell> = columns
                .iter()
                .enumerate()
                .map(|(i, (_, user))| {
                    let mut sp = row_spec(&conn, method, url, host, *ip, *user);
                    if user.is_some() {
                        sp.request.groups = Some(groups.clone());
                        // The password file in force as httpd opens it (a missing one is a 500),
                        // and whether it lists a user a column names (the last column stands
                        // for any user it lists).
                        sp.request.auth_files_from_disk = cfg.disk_paths;
                        sp.request.check_user_listed = i + 1 < columns.len();
                    }
                    Cell::of(cfg, fs, sp)
                })
                .collect();
            let show = |s: Option<u16>| s.map(|s| s.to_string()).unwrap_or_else(|| "unknown".into());
            rows.push((label.clone(), cells.iter().map(|c| show(c.status)).collect::<Vec<_>>().join(" | ")));
            t.servers.push((label.clone(), conn, cells.first().and_then(|c| c.e.virtual_host.clone())));
            t.statuses.push(cells.iter().map(|c| c.status).collect());
            for (c, (who, _)) in cells.iter().zip(columns) {
                let row = format!("{label}, {who}");
                if c.variants.windows(2).any(|w| w[0].1 != w[1].1 || w[0].2 != w[1].2) {
                    // The <If> branches on the way change this cell's answer.
                    let each = c
                        .variants
                        .iter()
                        .map(|(d, st, handled)| {
                            let st = match (st, handled) {
                                (_, Some((0, why))) => format!("unknown ({why})"),
                                (_, Some((h, why))) => format!("{h} ({why})"),
                                (Some(s), None) => s.to_string(),
                                (None, None) => "unknown".into(),
                            };
                            format!("{st} {d}")
                        })
                        .collect::<Vec<_>>()
                        .join("; ");
                    match t.branches.iter_mut().find(|(k, _)| *k == each) {
                        Some((_, v)) => v.push(row),
                        None => t.branches.push((each, vec![row])),
                    }
                    continue;
                }
                let handled = c.variants.first().and_then(|v| v.2.as_ref()).filter(|(st, _)| *st == 0);
                if let (None, Some(why)) = (c.status, c.e.outcome.reason_unknown.as_ref().or(handled.map(|(_, w)| w))) {
                    match t.unknown.iter_mut().find(|(k, _)| k == why) {
                        Some((_, v)) => v.push(row),
                        None => t.unknown.push((why.clone(), vec![row])),
                    }
                    continue;
                }
                let Some(st) = c.status.filter(|s| *s != 200) else {
                    // Granted: the handler answers this cell's own request (mod_dir's
                    // subrequest runs with its credentials).
                    if c.status == Some(200) {
                        t.granted += 1;
                        if let Some(key) = c.variants[0].2.clone().filter(|(st, _)| *st != 200) {
                            match t.handled.iter_mut().find(|(k, _)| *k == key) {
                                Some((_, v)) => v.push(row),
                                None => t.handled.push((key, vec![row])),
                            }
                        }
                    }
                    continue;
                };
                let mut log = log_summary(cfg, &c.e);
                if let Some(r) = &c.redirect {
                    log.push_str(&format!(
                        " (a {} turned into a redirect to `{}` by ErrorDocument at line {})",
                        r.status, r.location, r.line
                    ));
                }
                let key = (st, log);
                match t.refused.iter_mut().find(|(k, ..)| *k == key) {
                    Some((_, v, _)) => v.push(row),
                    None => t.refused.push((key, vec![row], *ip)),
                }
            }
            t.walked.extend(cells.into_iter().flat_map(|c| std::iter::once(c.e).chain(c.combined)));
        }
        // Which server answers each row, where the rows are not all answered by the one the
        // heading names: by different servers, or a main-server section's by a virtual host.
        let first = t.servers.first().map(|(_, _, s)| s);
        let labelled = t.servers.iter().any(|(_, _, s)| Some(s) != first)
            || (host.is_none() && t.servers.iter().any(|(_, _, s)| s.is_some()));
        let server = if labelled { "server | " } else { "" };
        let _ = writeln!(
            t.markdown,
            "\n| client | {server}{} |\n|---|{}",
            columns.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>().join(" | "),
            "---|".repeat(columns.len() + usize::from(labelled))
        );
        for ((label, cells), (_, _, on)) in rows.iter().zip(&t.servers) {
            let on = if labelled {
                format!("{} | ", on.as_deref().map_or_else(|| "main server".to_string(), |v| format!("`{v}`")))
            } else {
                String::new()
            };
            let _ = writeln!(t.markdown, "| {label} | {on}{cells} |");
        }
        t
    }

    /// The table is access control's answer; where it grants, the file system may answer
    /// otherwise: one line per such answer, naming the cells when not every granted one.
    fn handler_lines(&self, md: &mut String, method: &str, url: &str) {
        let cells: usize = self.statuses.iter().map(Vec::len).sum();
        for (each, who) in &self.branches {
            let whom = if who.len() == cells { "every cell".to_string() } else { who.join("; ") };
            let _ = writeln!(
                md,
                "\nFor {whom}, httpd's answer to `{method} {url}` depends on the `<If>` expressions on the way, whose values are not known here: {each}.",
            );
        }
        // (The reason of the request evaluated first is said after the tables.)
        for (why, who) in self.unknown.iter().filter(|(w, _)| Some(w) != self.said_after.as_ref()) {
            let whom = if who.len() == cells { "every cell".to_string() } else { who.join("; ") };
            let _ = writeln!(md, "\nFor {whom}, httpd's answer to `{method} {url}` is not known here: {why}.");
        }
        for ((status, why), who) in &self.handled {
            let whom =
                if who.len() == self.granted { "(200 above)".to_string() } else { format!("for {}", who.join("; ")) };
            let _ =
                writeln!(md, "\nWhere access is granted {whom}, httpd answers `{method} {url}` with {status}: {why}.");
        }
    }
}

pub(crate) fn directive_doc(d: &catalogue::Directive) -> String {
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

    /// A configuration on disk for hover tests: `{d}` in `conf`, `dirs` and `files` is a fresh
    /// directory (the walk asks the disk which paths exist).
    struct OnDisk {
        dir: tempfile::TempDir,
        cfg: Config,
    }

    impl OnDisk {
        fn new(dirs: &[&str], files: &[(&str, &str)], conf: &str) -> OnDisk {
            let dir = tempfile::tempdir().unwrap();
            for sub in dirs {
                std::fs::create_dir_all(dir.path().join(sub)).unwrap();
            }
            for (at, text) in files {
                std::fs::write(dir.path().join(at), text).unwrap();
            }
            let main = dir.path().join("httpd.conf");
            std::fs::write(&main, conf.replace("{d}", &dir.path().display().to_string())).unwrap();
            let cfg = load(&main, &crate::ide::config::RealFs);
            OnDisk { dir, cfg }
        }

        fn d(&self) -> String {
            self.dir.path().display().to_string()
        }

        /// The hover two bytes into the first occurrence of `header` (`{d}` replaced).
        fn hover_on(&self, header: &str) -> String {
            let at = self.cfg.file(0).text.find(&header.replace("{d}", &self.d())).unwrap() + 2;
            hover(&self.cfg, 0, TextSize::from(at as u32)).unwrap().1
        }
    }

    /// A pattern section's hover evaluates a request that reaches it, not its pattern taken
    /// literally (`GET /*/deeper/`, which left the section out and showed its parent's 403), and
    /// a regex section is not said to be reached by no URL. httpd answered 200 from 127.0.0.2 at
    /// /sub/deeper/ (the wildcard section's Allow), 403 from 127.0.0.1 at /a.txt, /sub/ and
    /// /private/ (each regex section's Require).
    #[test]
    fn pattern_sections_are_hovered_at_a_url_they_reach() {
        let conf = "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\n Order deny,allow\n Deny from 127.0.0.2\n</Directory>\n<Directory {d}/www/*/deeper>\n Allow from all\n</Directory>\n<FilesMatch \"\\.txt$\">\n Require ip 127.0.0.2\n</FilesMatch>\n<LocationMatch \"^/sub/\">\n Require ip 127.0.0.2\n</LocationMatch>\n<DirectoryMatch \"^{d}/www/priv\">\n Require ip 127.0.0.2\n</DirectoryMatch>\n";
        let t = OnDisk::new(&["www/sub/deeper", "www/private"], &[("www/a.txt", "x")], conf);
        let (d, hover_on) = (t.d(), |h: &str| t.hover_on(h));
        let md = hover_on("<Directory {d}/www/*/deeper>");
        assert!(md.starts_with("**Effective access** for `GET /sub/deeper/` (a URL this section's pattern"), "{md}");
        assert!(md.contains(&format!("`<Directory {d}/www/*/deeper>`")), "the section is merged: {md}");
        assert!(md.contains("| 127.0.0.2 | 200 | 200 |"), "{md}");
        for (header, url) in [("<FilesMatch", "/a.txt"), ("<LocationMatch", "/sub/"), ("<DirectoryMatch", "/private/")]
        {
            let md = hover_on(header);
            assert!(md.contains(&format!("for `GET {url}")), "{header}: {md}");
            // Merged, and refusing 127.0.0.1 by its Require (127.0.0.2 meets the Deny above).
            assert!(md.contains(&format!("- `{header} ")), "{header}: {md}");
            assert!(
                md.contains("| local (127.0.0.1) | 403 | 403 |") && md.contains("| 127.0.0.2 | 403 | 403 |"),
                "{header}: {md}"
            );
        }
    }

    /// The password file in force is read as httpd reads it per request: missing, every cell with
    /// credentials is a 500 (AH01620); a user a Require line names but the file does not list is
    /// refused like a wrong password (AH01618: 401), while a listed one gets in (black-box round 17
    /// B17 H1, H3; hover_vs_httpd::a_password_file_missing_or_not_listing_a_user_as_httpd_reads_it).
    #[test]
    fn the_password_file_in_force_is_read_for_the_columns() {
        let conf = |file: &str| {
            format!("{AUTH_MODULES}DocumentRoot {{d}}/www\n<Directory {{d}}/www>\n AuthType Basic\n AuthName x\n AuthUserFile {{d}}/{file}\n Require user carol zed\n</Directory>\n")
        };
        let t = OnDisk::new(&["www"], &[("pw", "carol:x\n")], &conf("pw"));
        let md = t.hover_on("<Directory {d}/www>");
        assert!(md.contains("| local (127.0.0.1) | 401 | 200 | 401 | 401 |"), "{md}");
        assert!(md.contains("AH01618: user zed not found"), "{md}");
        let t = OnDisk::new(&["www"], &[], &conf("missing"));
        let md = t.hover_on("<Directory {d}/www>");
        assert!(md.contains("| local (127.0.0.1) | 401 | 500 | 500 | 500 |"), "{md}");
    }

    /// The table's authenticated columns are the users the Require lines name (members of the
    /// groups they name, by the group file) and one they do not: a fixed "alice" showed
    /// `Require user carol` and `Require group admins` closed to everyone, where httpd lets carol
    /// and the group's members in (round-3 finding, confirmed on httpd).
    #[test]
    fn authenticated_columns_are_the_users_the_rules_name() {
        let conf = "LoadModule authz_core_module m\nLoadModule authz_user_module m\nLoadModule authz_groupfile_module m\nLoadModule auth_basic_module m\nLoadModule authn_core_module m\nLoadModule authn_file_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\n AuthType Basic\n AuthName x\n AuthUserFile {d}/pw\n AuthGroupFile {d}/groups\n Require user carol\n</Directory>\n<Location /g>\n Require group admins\n</Location>\n";
        let files = [("groups", "admins: alice\nstaff: alice bob\n"), ("pw", "alice:x\nbob:x\ncarol:x\n")];
        let t = OnDisk::new(&["www"], &files, conf);
        let hover_on = |h: &str| t.hover_on(h);
        let md = hover_on("<Directory {d}/www>");
        assert!(md.contains("| client | anonymous | as `carol` | another valid user |"), "{md}");
        assert!(md.contains("| local (127.0.0.1) | 401 | 200 | 401 |"), "{md}");
        assert!(md.contains("user someone: authorization failure"), "{md}");
        let md = hover_on("<Location /g>");
        assert!(md.contains("| client | anonymous | as `alice` | another valid user |"), "{md}");
        assert!(md.contains("| local (127.0.0.1) | 401 | 200 | 401 |"), "{md}");
    }

    /// Every user the Require lines name gets a column (round-15 F6: a third name, `dave`, had
    /// none and read as "another valid user", 401, where httpd grants him); past
    /// [`NAMED_USERS_SHOWN`] the others are named under the table.
    #[test]
    fn every_named_user_gets_a_column_up_to_the_bound() {
        let head = "LoadModule authz_core_module m\nLoadModule authz_user_module m\nLoadModule auth_basic_module m\nLoadModule authn_core_module m\nLoadModule authn_file_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\n AuthType Basic\n AuthName x\n AuthUserFile {d}/pw\n";
        let conf = format!("{head} Require user alice bob\n Require user dave\n</Directory>\n");
        let md = OnDisk::new(&["www"], &[("pw", "alice:x\nbob:x\ndave:x\n")], &conf).hover_on("<Directory {d}/www>");
        assert!(md.contains("| client | anonymous | as `alice` | as `bob` | as `dave` | another valid user |"), "{md}");
        assert!(md.contains("| local (127.0.0.1) | 401 | 200 | 200 | 200 | 401 |"), "{md}");
        assert!(!md.contains("No column for"), "{md}");
        let many: Vec<String> = (1..=NAMED_USERS_SHOWN + 2).map(|i| format!("u{i}")).collect();
        let conf = format!("{head} Require user {}\n</Directory>\n", many.join(" "));
        let md = OnDisk::new(&["www"], &[], &conf).hover_on("<Directory {d}/www>");
        let header = md.lines().find(|l| l.starts_with("| client")).unwrap();
        assert_eq!(header.matches("| as `").count(), NAMED_USERS_SHOWN, "{md}");
        let (last, past) = (NAMED_USERS_SHOWN + 1, NAMED_USERS_SHOWN + 2);
        assert!(md.contains(&format!("No column for `u{last}`, `u{past}` (named too")), "{md}");
    }

    /// A file analysed without its main configuration says so before its table: a tester saw a
    /// confident 200 where httpd answered 403 through the main file's `<Directory />`.
    #[test]
    fn a_fragment_alone_says_what_its_table_lacks() {
        let fx = Fixture::parse(
            "//- /etc/apache2/sites-enabled/site.conf\n<Directory /var/www>\n  Options None\n</Directory>\nDocumentRoot /var/www\n",
        );
        let cfg = crate::ide::config::load_fragment(Path::new("/etc/apache2/sites-enabled/site.conf"), &fx);
        let (_, md) = hover(&cfg, 0, TextSize::from(2)).unwrap();
        assert!(md.starts_with("⚠ **Analysed on its own**"), "{md}");
        assert!(md.contains("**Effective access** for `GET /"), "{md}");
    }

    /// The table is access control's answer; where it grants a directory asked without its
    /// slash, httpd sends mod_dir's 301, and the hover says so (a tester read the 200 as the status).
    #[test]
    fn a_granted_directory_without_its_slash_is_a_redirect() {
        let conf = "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule dir_module m\nDocumentRoot {d}/www\n<Directory {d}/www>\n Require all granted\n</Directory>\n<Location /private>\n Require ip 127.0.0.1\n</Location>\n";
        let md = OnDisk::new(&["www/private"], &[], conf).hover_on("<Location /private>");
        assert!(md.contains("| local (127.0.0.1) | 200 | 200 |"), "{md}");
        assert!(md.contains("Where access is granted (200 above), httpd answers `GET /private` with 301"), "{md}");
    }

    /// The lines of a hover from the table on (its header, rows and what follows).
    fn from_table(md: &str) -> String {
        md[md.find("| client").unwrap_or(0)..].to_string()
    }

    const AUTH_MODULES: &str = "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule authz_user_module m\nLoadModule auth_basic_module m\nLoadModule authn_core_module m\nLoadModule authn_file_module m\nLoadModule dir_module m\n";

    /// What the handler answers is asked of each granted cell's own request: mod_dir's
    /// DirectoryIndex subrequest carries the cell's credentials (`ap_sub_req_lookup_uri` copies
    /// the headers; `ap_process_request_internal` re-authenticates where the subrequest's
    /// sections differ, else takes the main request's user). The hover once asked it of the
    /// anonymous request, refused with 401, whose index was never looked up, and said "404: a
    /// directory with no DirectoryIndex file" where httpd serves index.html to a valid user.
    #[test]
    fn the_directory_index_is_looked_up_with_each_cells_credentials() {
        let conf = format!("{AUTH_MODULES}DocumentRoot {{d}}/www\n<Directory {{d}}/www>\n AuthType Basic\n AuthName x\n AuthUserFile {{d}}/pw\n Require valid-user\n</Directory>\n<Directory {{d}}/www/empty>\n Options None\n</Directory>\n");
        let t = OnDisk::new(&["www/empty"], &[("www/index.html", "x"), ("pw", "alice:x\n")], &conf);
        let md = t.hover_on("<Directory {d}/www>");
        expect_test::expect![[r#"
            | client | anonymous | authenticated |
            |---|---|---|
            | local (127.0.0.1) | 401 | 200 |
            | any other (192.0.2.1) | 401 | 200 |

            Error log of the refused rows:
            - 401 for local (127.0.0.1), anonymous; any other (192.0.2.1), anonymous: nothing (httpd asks for credentials without logging); access log `GET / 401 127.0.0.1`

            For 127.0.0.1, decided by Authn: `AuthType Basic: credentials required` (httpd.conf:10)
        "#]]
        .assert_eq(&from_table(&md));
        // Without an index file, every granted cell meets the default handler's 404.
        let md = t.hover_on("<Directory {d}/www/empty>");
        assert!(
            md.contains("Where access is granted (200 above), httpd answers `GET /empty/` with 404: a directory with no DirectoryIndex file, and mod_autoindex is not loaded."),
            "{md}"
        );
        // An answer only some granted cells get: mod_dir redirects a POST to a directory
        // without its slash unless redirect-carefully is set, here for 127.0.0.2 only.
        let conf = format!("{AUTH_MODULES}LoadModule setenvif_module m\nDocumentRoot {{d}}/www\nSetEnvIf Remote_Addr ^127\\.0\\.0\\.2$ redirect-carefully\n<Directory {{d}}/www>\n Require all granted\n</Directory>\n<Location /sub>\n <Limit POST>\n  Require ip 127.0.0.1 127.0.0.2\n </Limit>\n</Location>\n");
        let t = OnDisk::new(&["www/sub"], &[], &conf);
        let md = t.hover_on("Require ip 127.0.0.1 127.0.0.2");
        let said: Vec<&str> = md.lines().filter(|l| l.starts_with("Where access is granted")).collect();
        expect_test::expect![[r#"
            [
                "Where access is granted for local (127.0.0.1), anonymous; local (127.0.0.1), authenticated, httpd answers `POST /sub` with 301: a directory requested without its trailing slash: mod_dir redirects to /sub/.",
                "Where access is granted (200 above), httpd answers `GET /sub` with 301: a directory requested without its trailing slash: mod_dir redirects to /sub/.",
            ]
        "#]]
        .assert_debug_eq(&said);
    }

    /// Inside a `<Limit>` or `<LimitExcept>`, the hover evaluates a method the section applies
    /// to, says which, and shows GET's table too where it differs (a tester saw only GET's
    /// 200s under `<Limit POST> Require all denied`).
    #[test]
    fn inside_a_limit_the_table_is_for_a_method_it_applies_to() {
        let conf = format!("{AUTH_MODULES}DocumentRoot {{d}}/www\n<Directory {{d}}/www>\n Require all granted\n <Limit POST>\n  Require all denied\n </Limit>\n</Directory>\n<Location /x>\n <LimitExcept GET HEAD>\n  Require ip 127.0.0.2\n </LimitExcept>\n</Location>\n<Location /y>\n <Limit PUT GET>\n  Require ip 127.0.0.2\n </Limit>\n</Location>\n");
        let t = OnDisk::new(&["www"], &[("www/index.html", "x"), ("www/x", "x"), ("www/y", "y")], &conf);
        // httpd grants POST too: `Require all granted` beside it in the same implicit RequireAny.
        let md = t.hover_on("Require all denied");
        assert!(
            md.starts_with("**Effective access** for `POST /` (a method `<Limit POST>` applies to; `GET` below)"),
            "{md}"
        );
        assert!(md.contains("| local (127.0.0.1) | 200 | 200 |"), "{md}");
        assert!(md.contains("`GET /`, which `<Limit POST>` does not apply to, gets the same answers."), "{md}");
        let md = t.hover_on("Require ip 127.0.0.2\n </LimitExcept>");
        expect_test::expect![[r#"
            **Effective access** for `POST /x` (a method `<LimitExcept GET HEAD>` applies to; `GET` below)
            | client | anonymous | authenticated |
            |---|---|---|
            | local (127.0.0.1) | 403 | 403 |
            | 127.0.0.2 | 200 | 200 |
            | any other (192.0.2.1) | 403 | 403 |

            Error log of the refused rows:
            - 403 for local (127.0.0.1), anonymous; local (127.0.0.1), authenticated; any other (192.0.2.1), anonymous; any other (192.0.2.1), authenticated: `[authz_core:error] AH01630: client denied by server configuration: /www/x`; access log `POST /x 403 127.0.0.1`

            For `GET /x`, which `<LimitExcept GET HEAD>` does not apply to:

            | client | anonymous | authenticated |
            |---|---|---|
            | local (127.0.0.1) | 200 | 200 |
            | 127.0.0.2 | 200 | 200 |
            | any other (192.0.2.1) | 200 | 200 |

            For 127.0.0.1, decided by AuthzCore: `Require ip 127.0.0.2` (httpd.conf:17)
        "#]]
        .assert_eq(&format!("{}\n{}", md.lines().next().unwrap(), from_table(&md).replace(&t.d(), "")));
        // A <Limit> listing GET is shown for GET alone.
        let md = t.hover_on("Require ip 127.0.0.2\n </Limit>");
        assert!(md.starts_with("**Effective access** for `GET /y` (a method `<Limit PUT GET>` applies to)\n"), "{md}");
        assert!(!md.contains("does not apply to"), "{md}");
    }

    /// An .htaccess file no configuration of the workspace serves: the hover says so first, then
    /// gives the table of its own rules (it gave no hover at all).
    #[test]
    fn an_htaccess_alone_gets_its_own_rules_table_after_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let access = dir.path().join("site/.htaccess");
        std::fs::create_dir_all(access.parent().unwrap()).unwrap();
        // The file above is not read: the server assumed sets AllowOverride None there.
        std::fs::write(dir.path().join(".htaccess"), "Require all denied\n").unwrap();
        std::fs::write(&access, "AuthType Basic\nAuthName x\nAuthUserFile /nonexistent\nRequire valid-user\n").unwrap();
        let cfg = crate::ide::config::load_fragment(&access, &crate::ide::config::RealFs);
        let md = hover(&cfg, 0, TextSize::from(60)).map(|(_, md)| md).unwrap_or_default();
        assert!(md.starts_with("⚠ **Analysed on its own**: no main configuration"), "{md}");
        expect_test::expect![[r#"
            **Effective access** for `GET /`

            File system: `/site/`

            Sections in merge order:
            - `<Directory />` (assumed-server.conf:2)
            - `<Directory /site>` (assumed-server.conf:5)
            - `<.htaccess >` (site/.htaccess:1): mod_authz_core, authn

            Effective Require:
            ```apache
            section's Require lines (implicit <RequireAny>)
              Require valid-user
            ```

            | client | anonymous | authenticated |
            |---|---|---|
            | local (127.0.0.1) | 401 | 200 |
            | any other (192.0.2.1) | 401 | 200 |

            Error log of the refused rows:
            - 401 for local (127.0.0.1), anonymous; any other (192.0.2.1), anonymous: nothing (httpd asks for credentials without logging); access log `GET / 401 127.0.0.1`

            Where access is granted (200 above), httpd answers `GET /` with 403: a directory with no DirectoryIndex file, and Options without Indexes (mod_autoindex).

            For 127.0.0.1, decided by Authn: `AuthType Basic: credentials required` (site/.htaccess:1)
        "#]]
        .assert_eq(&md[HTACCESS_ALONE_CAVEAT.len()..].replace(&dir.path().display().to_string(), ""));
    }

    /// Nested .htaccess files are named by their directory wherever the hover names a place
    /// (both were `.htaccess:1`).
    #[test]
    fn nested_htaccess_files_are_named_by_their_directory() {
        let conf = format!("{AUTH_MODULES}LoadModule access_compat_module m\nDocumentRoot {{d}}/www\n<Directory {{d}}/www>\n AllowOverride All\n</Directory>\n");
        let t = OnDisk::new(
            &["www/sub/deeper"],
            &[
                ("www/sub/.htaccess", "Require ip 127.0.0.2\n"),
                ("www/sub/deeper/.htaccess", "AuthMerging Or\nRequire ip 127.0.0.3\n"),
            ],
            &conf,
        );
        let server = std::sync::Arc::new(t.cfg);
        let cfg = crate::ide::config::load_in_context(
            &t.dir.path().join("www/sub/deeper/.htaccess"),
            &crate::ide::config::RealFs,
            server,
        );
        let md = hover(&cfg, 0, TextSize::from(20)).map(|(_, md)| md).unwrap_or_default();
        let places: Vec<&str> = md.lines().filter(|l| l.starts_with("- `<") || l.starts_with("For 127")).collect();
        expect_test::expect![[r#"
            [
                "- `<Directory TMP/www>` (httpd.conf:10)",
                "- `<.htaccess >` (www/sub/.htaccess:1): mod_authz_core",
                "- `<.htaccess >` (www/sub/deeper/.htaccess:1): mod_authz_core",
                "For 127.0.0.1, decided by AuthzCore: `AuthMerging Or (inherited rules OR this section's): denied by `Require ip 127.0.0.2` (TMP/www/sub/.htaccess:1) and `Require ip 127.0.0.3` (TMP/www/sub/deeper/.htaccess:2)` (www/sub/deeper/.htaccess:1)",
            ]
        "#]]
        .assert_debug_eq(&places.iter().map(|l| l.replace(&t.dir.path().display().to_string(), "TMP")).collect::<Vec<_>>());
        // Outside the DocumentRoot: the full path when short, else its last three components.
        let long = Path::new("/srv/a-rather-long-directory-name/for/an/alias/target/.htaccess");
        assert_eq!(per_dir_name(long, Some(Path::new("/var/www"))), "…/alias/target/.htaccess");
        assert_eq!(
            per_dir_name(Path::new("/srv/alias/.htaccess"), Some(Path::new("/var/www"))),
            "/srv/alias/.htaccess"
        );
    }

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
    fn a_cell_a_host_name_rule_decides_is_unknown_and_says_why() {
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot /nonexistent-docroot\n<Direc█tory />\n  Order deny,allow\n  Deny from localhost 127.0.0.2\n</Directory>\n",
        );
        assert!(md.contains("| local (127.0.0.1) | unknown | unknown |"), "{md}");
        // An address the rules name is refused whatever its name.
        assert!(md.contains("| 127.0.0.2 | 403 | 403 |"), "{md}");
        assert!(md.contains("the client's host name (double-reverse DNS) is not known"), "{md}");
    }

    #[test]
    fn a_loopback_row_is_answered_by_the_host_on_its_address_before_a_wildcard_one() {
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nListen 127.0.0.1:8000\nListen [::1]:8000\nDocumentRoot /nonexistent-docroot\n<VirtualHost *>\nServerName v1.test\n<Location /d1>\nOrder allow,deny\nAllow from all\n</Location>\n</VirtualHost>\n<VirtualHost [::1]>\nServerName v2.test\n</VirtualHost>\n<VirtualHost *>\nServerName v3.test\n</VirtualHost>\n<Loc█ation /d1>\nOrder deny,allow\nDeny from ::1\n</Location>\n",
        );
        assert!(md.contains("| local (127.0.0.1) | `* (v1.test)` | 200 | 200 |"), "{md}");
        assert!(md.contains("| ::1 | `[::1] (v2.test)` | 403 | 403 |"), "{md}");
        assert!(md.contains("taken to connect to 192.0.2.254:8000, an address no `<VirtualHost>` names"), "{md}");
        // Name-based hosts of the row's address the Host header may pick instead.
        assert!(md.contains("one naming `* (v3.test)` is answered by that host instead"), "{md}");
    }

    #[test]
    fn a_virtual_host_on_one_address_family_has_rows_of_that_family_only() {
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nDocumentRoot /nonexistent-docroot\n<VirtualHost 127.0.0.1:80>\n<Loc█ation /x>\n  Require ip ::1 127.0.0.2\n</Location>\n</VirtualHost>\n",
        );
        assert!(!md.contains("| ::1 |"), "{md}");
        // (The heading names no host, this one having no ServerName: each row says it.)
        assert!(md.contains("| 127.0.0.2 | `127.0.0.1:80` | 200 | 200 |"), "{md}");
        assert!(md.contains("No row for ::1: this virtual host's addresses are all IPv4"), "{md}");
        let both = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nDocumentRoot /nonexistent-docroot\n<VirtualHost 127.0.0.1:80 [::1]:80>\n<Loc█ation /x>\n  Require ip ::1\n</Location>\n</VirtualHost>\n",
        );
        assert!(both.contains("| ::1 | `127.0.0.1:80 [::1]:80` | 200 | 200 |"), "{both}");
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
    fn hover_names_the_log_entry_of_each_refused_row() {
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nLoadModule auth_basic_module m\nLoadModule authn_file_module m\nLoadModule authn_core_module m\nLoadModule authz_user_module m\nDocumentRoot /nonexistent-docroot\n<Location /deny>\n  Order allow,deny\n  Allow from 127.0.0.1\n</Location>\n<Loc█ation /auth>\n  AuthType Basic\n  AuthName a\n  AuthUserFile /nonexistent-pw\n  Require user bob\n</Location>\n",
        );
        let refused: Vec<&str> = md.lines().filter(|l| l.starts_with("- 40")).collect();
        expect_test::expect![[r#"
            [
                "- 401 for local (127.0.0.1), anonymous; any other (192.0.2.1), anonymous: nothing (httpd asks for credentials without logging); access log `GET /auth 401 127.0.0.1`",
                "- 401 for local (127.0.0.1), another valid user; any other (192.0.2.1), another valid user: `[authz_core:error] AH01631: user someone: authorization failure for \"/auth\": `; access log `GET /auth 401 127.0.0.1`",
            ]
        "#]]
        .assert_debug_eq(&refused);
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule access_compat_module m\nDocumentRoot /nonexistent-docroot\nLogLevel warn access_compat:crit\n<Loc█ation /deny>\n  Order allow,deny\n  Allow from 127.0.0.1\n</Location>\n<Location /deny/x>\n  LogLevel info\n</Location>\n",
        );
        let refused: Vec<&str> = md.lines().filter(|l| l.starts_with("- 40")).collect();
        expect_test::expect![[r#"
            [
                "- 403 for any other (192.0.2.1), anonymous; any other (192.0.2.1), authenticated: `[access_compat:error] AH01797: client denied by server configuration: /nonexistent-docroot` (not logged at LogLevel access_compat:crit (an entry of level error; `LogLevel warn access_compat:crit` at /srv/httpd.conf:4)); access log `GET /deny 403 192.0.2.1`",
            ]
        "#]]
        .assert_debug_eq(&refused);
    }

    /// A Require line httpd refuses (here a negative one beside a positive one, outside any
    /// RequireAll): the hover says first that httpd does not start, names
    /// no deciding rule and shows no Require as in effect (the lines left are not what httpd runs).
    #[test]
    fn hover_under_a_refused_require_says_httpd_does_not_start() {
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nDocumentRoot /nonexistent-docroot\n<Directory />\n  Require all granted\n</Directory>\n<Loc█ation /x>\n  Require not ip 127.0.0.2\n  Require all granted\n</Location>\n",
        );
        expect_test::expect![[r#"
            **Effective access** for `GET /x`

            **httpd refuses to start** with the sections that apply here, so it answers no request:
            - negative Require directive has no effect in <RequireAny> directive (httpd.conf:8)

            File system: `/nonexistent-docroot`

            Sections in merge order:
            - `<Directory />` (httpd.conf:4): mod_authz_core
            - `<Location /x>` (httpd.conf:7): mod_authz_core

            | client | anonymous | authenticated |
            |---|---|---|
            | local (127.0.0.1) | unknown | unknown |
            | 127.0.0.2 | unknown | unknown |
            | any other (192.0.2.1) | unknown | unknown |

            Some outcomes cannot be known: httpd would refuse to start: negative Require directive has no effect in <RequireAny> directive
        "#]].assert_eq(&md);
    }

    #[test]
    fn hover_on_a_line_httpd_skips_says_so() {
        let md = check(
            "//- /srv/httpd.conf\nLoadModule authz_core_module m\nDocumentRoot /nonexistent-docroot\n<Directory /srv/www>\n  <IfVersion < 2.4>\n    Order allow,deny\n    Al█low from all\n  </IfVersion>\n  Require all granted\n</Directory>\n",
        );
        expect_test::expect![[r#"
            **Skipped by httpd**: this line is inside `<IfVersion < 2.4>` (line 4), whose condition is false with this configuration (httpd 2.4.71, the modules and Defines it loads), so httpd never reads it: it has no effect.

            ---"#]].assert_eq(md.lines().take(3).collect::<Vec<_>>().join("\n").as_str());
        // Nested: the innermost skipped conditional is named.
        let md = check(
            "//- /srv/httpd.conf\n<IfModule !mod_authz_core.c>\n  <IfModule mod_access.c>\n    Or█der allow,deny\n  </IfModule>\n</IfModule>\n",
        );
        assert!(md.starts_with("**Skipped by httpd**: this line is inside `<IfModule mod_access.c>` (line 2)"), "{md}");
        // A comment in a skipped body has no hover.
        assert_eq!(check("//- /srv/httpd.conf\n<IfVersion < 2.4>\n  # Or█der\n</IfVersion>\n"), "");
    }

    #[test]
    fn hover_on_a_plain_directive_shows_the_catalogue() {
        let md = check("//- /srv/httpd.conf\nServer█Name example.com\n");
        assert!(md.contains("**ServerName**"), "{md}");
        assert!(md.contains("https://httpd.apache.org/docs/2.4/mod/core.html#servername"), "{md}");
    }

    #[test]
    fn the_table_of_an_htaccess_shows_the_addresses_it_names_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("htdocs/sub")).unwrap();
        let main = root.join("httpd.conf");
        let many: String = (11..20)
            .map(|i| format!("<Directory \"{r}/o{i}\">\n  Require ip 10.0.0.{i}\n</Directory>\n", r = root.display()))
            .collect();
        std::fs::write(
            &main,
            format!(
                "LoadModule authz_core_module m\nLoadModule authz_host_module m\nDocumentRoot \"{r}/htdocs\"\n{many}<Directory \"{r}/htdocs\">\n  AllowOverride All\n</Directory>\n",
                r = root.display()
            ),
        )
        .unwrap();
        let access = root.join("htdocs/sub/.htaccess");
        std::fs::write(&access, "Require ip 127.0.0.2\n").unwrap();
        let server = std::sync::Arc::new(load(&main, &crate::ide::config::RealFs));
        let cfg = crate::ide::config::load_in_context(&access, &crate::ide::config::RealFs, server);
        let md = hover(&cfg, 0, TextSize::from(2)).map(|(_, md)| md).unwrap_or_default();
        // The one client the file lets in has its row (it was left out: the server's ten
        // addresses came first, and a table shows five).
        assert!(md.contains("| 127.0.0.2 | 200 | 200 |"), "{md}");
    }

    #[test]
    fn hover_in_an_htaccess_file_explains_its_directory_under_the_server() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sïte");
        std::fs::create_dir_all(root.join("htdocs/sub")).unwrap();
        let main = root.join("httpd.conf");
        std::fs::write(
            &main,
            format!(
                "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot \"{r}/htdocs\"\n<Directory />\n  Order deny,allow\n  Deny from all\n</Directory>\n<Directory \"{r}/htdocs\">\n  AllowOverride All\n  Require all granted\n</Directory>\n",
                r = root.display()
            ),
        )
        .unwrap();
        let access = root.join("htdocs/sub/.htaccess");
        std::fs::write(&access, "Require ip 127.0.0.2\n").unwrap();
        let server = std::sync::Arc::new(load(&main, &crate::ide::config::RealFs));
        let cfg = crate::ide::config::load_in_context(&access, &crate::ide::config::RealFs, server);
        let md = hover(&cfg, 0, TextSize::from(2)).map(|(_, md)| md).unwrap_or_default();
        assert!(md.contains("**Effective access** for `GET /sub/`"), "{md}");
        assert!(md.contains("- `<.htaccess >`"), "{md}");
        // mod_access_compat's inherited Deny wins over the .htaccess's Require (fact sheet: the
        // precedence trap), for the address the .htaccess names as for any other.
        assert!(md.contains("| local (127.0.0.1) | 403 | 403 |"), "{md}");
        assert!(md.contains("| 127.0.0.2 | 403 | 403 |"), "{md}");
        assert!(
            md.contains("⚠ `Require ip 127.0.0.2` has no effect here: `Deny from all` (httpd.conf:7) refuses every request first."),
            "{md}"
        );
    }
}

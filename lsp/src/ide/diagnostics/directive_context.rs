//! Check: directives where httpd refuses them — `DocumentRoot` inside
//! `<Directory>`, `MaxRequestWorkers` inside `<VirtualHost>`, `ServerName` in an
//! .htaccess file, `Options` in an .htaccess file whose AllowOverride does not
//! grant `Options` — with httpd's own message and what it costs: in a
//! configuration file httpd does not start; in an .htaccess file every request
//! the file applies to is answered 500.
//!
//! The rules are [`catalogue::context`]'s; this file walks the loaded tree with
//! them. Directives httpd will not know at all are the unknown-directive check's.
//! An .htaccess file is checked under the AllowOverride in force for each server that reads
//! it ([`crate::ide::allow_override`]): where they differ, a directive refused by some is one
//! finding saying which servers answer 500 and which do not. A file no server reads (each
//! under an AllowOverride that grants nothing) is said once, and nothing inside is checked.

use super::Diagnostic;
use crate::ide::allow_override::{self, join_and, server_names, Readers};
use crate::ide::catalogue;
use crate::ide::catalogue::context::{Overrides, Refusal, Refused, Scope};
use crate::ide::config::{Config, HtaccessOverrides, Node, NodeKind, ServerId, Severity, TopLevel};
use crate::ide::nonfatal::{self, Skipped};
use apache_syntax::{TextRange, TextSize};

#[cfg(test)]
pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    let Some(mut walk) = Walk::start(cfg, out) else { return };
    let mut loaded = super::ModulesLoaded::new(cfg);
    // Depth first with an explicit stack: nesting depth is the file's to choose.
    let mut stack: Vec<(&Node, usize)> = cfg.nodes.iter().rev().map(|n| (n, Walk::TOP)).collect();
    while let Some((node, at)) = stack.pop() {
        let d = node.directive();
        if let Some(inner) = walk.node(cfg, node, d, at, &mut loaded, out) {
            stack.extend(node.children.iter().rev().map(|c| (c, inner)));
        }
    }
}

/// The check's state along a depth-first walk of the tree: the scope of each section
/// entered, made once (the nodes refer to it by position). An .htaccess file read by servers
/// under different AllowOverride has one scope per such group at each position.
pub(super) struct Walk {
    /// `width` scopes per position, one for each group of `reading`.
    scopes: Vec<Scope>,
    width: usize,
    /// For an .htaccess file under a known configuration: the AllowOverride in force for the
    /// servers that read it, servers with equal ones grouped; and for those that never do.
    reading: Vec<HtaccessOverrides>,
    unread: Vec<HtaccessOverrides>,
    /// For each group of `reading`: the lines httpd skips under its AllowOverride.
    skips: Vec<Vec<Skipped>>,
}

impl Walk {
    /// The position of the top level's scope.
    pub(super) const TOP: usize = 0;

    /// `None` when nothing in the configuration is checked (an .htaccess file no server
    /// reads, which is said once).
    pub(super) fn start(cfg: &Config, out: &mut Vec<Diagnostic>) -> Option<Walk> {
        let top = match &cfg.top {
            TopLevel::Main => Scope::server_config(),
            TopLevel::Fragment => Scope::fragment(),
            TopLevel::Htaccess if read_by_no_server(cfg) => {
                if let Some(file) = cfg.nodes.first().map(|n| n.loc.file) {
                    out.push(Diagnostic::new(
                        file,
                        TextRange::empty(TextSize::from(0)),
                        Severity::Warning,
                        "htaccess-ignored",
                        "httpd never reads this file: no virtual host serves its directory (by DocumentRoot or Alias, or a <Directory> opening it to overrides), and the main server, which would read it, answers no request (every address and port httpd listens on has a <VirtualHost>), so nothing here takes effect",
                    ));
                }
                return None;
            }
            TopLevel::Htaccess => match overrides_read(cfg) {
                None => Scope::htaccess(None),
                Some(groups) => {
                    let (reading, unread): (Vec<_>, Vec<_>) = groups.into_iter().partition(|(_, o)| o.reads_htaccess());
                    let unread: Vec<HtaccessOverrides> = unread.into_iter().map(|(h, _)| h).collect();
                    let file = cfg.nodes.first().map(|n| n.loc.file);
                    let at = TextRange::empty(TextSize::from(0));
                    if reading.is_empty() {
                        if let Some(file) = file {
                            let why = match &unread[..] {
                                [one] => format!("{} for its directory", allow_override_text(one)),
                                _ => format!("for its directory {}", under_each(cfg, &unread)),
                            };
                            out.push(Diagnostic::new(
                                file,
                                at,
                                Severity::Warning,
                                "htaccess-ignored",
                                format!("httpd never reads this file: {why}, so nothing here takes effect"),
                            ));
                        }
                        return None;
                    }
                    if let Some(file) = file.filter(|_| !unread.is_empty()) {
                        let read: Vec<HtaccessOverrides> = reading.iter().map(|(h, _)| h.clone()).collect();
                        out.push(Diagnostic::new(
                            file,
                            at,
                            Severity::Information,
                            "htaccess-partly-read",
                            format!(
                                "only some of the servers serving this directory read this file. It is never read {}. It is read {}, and what is said of it holds for their requests",
                                under_each(cfg, &unread),
                                under_each(cfg, &read)
                            ),
                        ));
                    }
                    let width = reading.len();
                    let skips = reading.iter().map(|(_, o)| nonfatal::skipped(cfg, o)).collect();
                    let (reading, scopes): (Vec<_>, Vec<_>) =
                        reading.into_iter().map(|(h, o)| (h, Scope::htaccess(Some(&o)))).unzip();
                    return Some(Walk { scopes, width, reading, unread, skips });
                }
            },
        };
        Some(Walk { scopes: vec![top], width: 1, reading: Vec::new(), unread: Vec::new(), skips: Vec::new() })
    }

    /// What httpd makes of `node` where the servers of group `group` skip it.
    fn skipped(&self, group: usize, node: &Node) -> Option<&Skipped> {
        let found = |s: &&Skipped| s.file == node.loc.file && s.range == node.loc.range;
        self.skips.get(group)?.iter().find(found)
    }

    /// Checks `node` (the directive `d` of the catalogue), read in the scope at position
    /// `at`; gives the position of the scope its children are read in, `None` when they
    /// are not checked (httpd stops before, or does not know the section).
    pub(super) fn node(
        &mut self,
        cfg: &Config,
        node: &Node,
        d: Option<&'static catalogue::Directive>,
        at: usize,
        loaded: &mut super::ModulesLoaded,
        out: &mut Vec<Diagnostic>,
    ) -> Option<usize> {
        let d = d?;
        if d.status == catalogue::Status::Removed {
            return None;
        }
        if cfg.modules_known && !loaded.of(d) {
            return None; // httpd stops at "Invalid command" first; module-not-loaded says so
        }
        let base = at * self.width;
        // An Options line the directive's class lets in may still name an option
        // `AllowOverride Options=…` does not list (its other refusals are options-syntax's).
        let verdict = |s: &Scope| {
            s.check(d).or_else(|| {
                (d.name == "Options" && node.kind == NodeKind::Directive)
                    .then(|| s.check_options(node.args()).filter(|r| r.by_allow_override))
                    .flatten()
            })
        };
        if self.width == 1 && self.unread.is_empty() {
            if let Some(refused) = verdict(&self.scopes[base]) {
                out.push(diagnostic(cfg, node, d, &refused, self.reading.first(), self.skipped(0, node)));
            }
        } else {
            let verdicts: Vec<Option<Refused>> = self.scopes[base..base + self.width].iter().map(verdict).collect();
            let agreed = match &verdicts[..] {
                [Some(first), rest @ ..] if self.unread.is_empty() && !first.by_allow_override => {
                    rest.iter().all(|v| v.as_ref() == Some(first)).then_some(first)
                }
                _ => None,
            };
            if let Some(refused) = agreed {
                // Every server refuses it alike, whatever its AllowOverride: as for one server.
                out.push(diagnostic(cfg, node, d, refused, None, self.skipped(0, node)));
            } else if verdicts.iter().any(Option::is_some) {
                let skipped: Vec<Option<&Skipped>> = (0..self.width).map(|g| self.skipped(g, node)).collect();
                out.push(across_servers(cfg, node, d, &verdicts, &self.reading, &self.unread, &skipped));
            }
        }
        if node.kind != NodeKind::Section {
            return None;
        }
        if Scope::transparent(node.name()) {
            return Some(at);
        }
        if self.width == 1 {
            let inner = self.scopes[base].enter(node.name())?;
            self.scopes.push(inner);
            return Some(self.scopes.len() - 1);
        }
        let inner: Vec<Scope> =
            self.scopes[base..base + self.width].iter().map(|s| s.enter(node.name())).collect::<Option<_>>()?;
        self.scopes.extend(inner);
        Some(self.scopes.len() / self.width - 1)
    }
}

/// Each group's AllowOverride and the servers it is in force for: `AllowOverride None
/// (httpd.conf:3) under a.test, AllowOverride All (httpd.conf:9) under b.test`.
fn under_each(cfg: &Config, groups: &[HtaccessOverrides]) -> String {
    let root = cfg.enclosing.as_deref().unwrap_or(cfg);
    groups
        .iter()
        .map(|h| format!("under {} ({})", server_names(root, &h.servers), allow_override_text(h)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The finding on a directive that the servers reading the file do not all take alike: one
/// finding saying, for each group of servers, what httpd does with it (`skipped`: what each
/// group's servers make of it, where they skip it); an error when any answers 500.
fn across_servers(
    cfg: &Config,
    node: &Node,
    d: &catalogue::Directive,
    verdicts: &[Option<Refused>],
    reading: &[HtaccessOverrides],
    unread: &[HtaccessOverrides],
    skipped: &[Option<&Skipped>],
) -> Diagnostic {
    let root = cfg.enclosing.as_deref().unwrap_or(cfg);
    let servers = |h: &HtaccessOverrides| server_names(root, &h.servers);
    let why_refused = |r: &Refused, h: &HtaccessOverrides| match &h.allow_override {
        _ if !r.by_allow_override => servers(h),
        None => format!("{} (no AllowOverride applies, and httpd then grants nothing in the file)", servers(h)),
        Some(_) => format!("{} ({} does not grant {})", servers(h), allow_override_text(h), grant(d, r)),
    };
    let (mut answers_500, mut allows) = (Vec::new(), Vec::new());
    // The servers that skip it, grouped by what the skipped line still does.
    let mut warns: Vec<(String, Vec<String>)> = Vec::new();
    let mut message = None;
    for ((v, h), skip) in verdicts.iter().zip(reading).zip(skipped) {
        match v {
            Some(r) if r.kind == Refusal::Warning => {
                let effect = skipped_effect(*skip);
                let who = format!("{} ({})", servers(h), allow_override_text(h));
                match warns.iter_mut().find(|(e, _)| *e == effect) {
                    Some((_, list)) => list.push(who),
                    None => warns.push((effect, vec![who])),
                }
                message.get_or_insert(&r.message);
            }
            Some(r) => {
                answers_500.push(why_refused(r, h));
                message = Some(&r.message); // the 500's words win
            }
            None => allows.push(format!("{} ({})", servers(h), allow_override_text(h))),
        }
    }
    let severity = if answers_500.is_empty() { Severity::Warning } else { Severity::Error };
    let mut parts = Vec::new();
    if !answers_500.is_empty() {
        parts.push(format!(
            "for {}, httpd answers 500 Internal Server Error to every request this .htaccess file applies to",
            join_and(answers_500)
        ));
    }
    for (effect, who) in warns {
        parts.push(format!("for {}, httpd logs a warning and {effect}", join_and(who)));
    }
    if !allows.is_empty() {
        parts.push(format!("for {}, it is allowed", join_and(allows)));
    }
    if !unread.is_empty() {
        let never: Vec<String> =
            unread.iter().map(|h| format!("{} ({})", servers(h), allow_override_text(h))).collect();
        parts.push(format!("for {}, httpd never reads this file", join_and(never)));
    }
    let message = format!("{}: {}", message.map_or("", String::as_str), parts.join("; "));
    Diagnostic::new(node.loc.file, name_range(cfg, node), severity, "directive-context", message)
}

fn diagnostic(
    cfg: &Config,
    node: &Node,
    d: &catalogue::Directive,
    refused: &Refused,
    known: Option<&HtaccessOverrides>,
    skipped: Option<&Skipped>,
) -> Diagnostic {
    let allowed_in = d.contexts.to_string();
    let (severity, message) = match refused.kind {
        Refusal::Startup => (
            Severity::Error,
            format!("{}: httpd will not start ({} belongs in: {allowed_in})", refused.message, d.name),
        ),
        Refusal::Request => {
            let why = match known {
                Some(h) if refused.by_allow_override && h.allow_override.is_none() => {
                    "; no AllowOverride applies to its directory, and httpd then reads the file granting nothing in it"
                        .to_string()
                }
                Some(h) if refused.by_allow_override => {
                    format!("; {} does not grant {}", allow_override_text(h), grant(d, refused))
                }
                _ => String::new(),
            };
            (
                Severity::Error,
                format!(
                    "{}{why}: httpd answers 500 Internal Server Error to every request this .htaccess file applies to",
                    refused.message
                ),
            )
        }
        Refusal::Warning => {
            (Severity::Warning, format!("{}; httpd logs a warning and {}", refused.message, skipped_effect(skipped)))
        }
    };
    Diagnostic::new(node.loc.file, name_range(cfg, node), severity, "directive-context", message)
}

/// What a line httpd skips under `Nonfatal=Override` still does: nothing, but the first line of
/// a module without a merger in its configuration vector, whose configuration httpd made there
/// before refusing the line ([`Skipped::resets`]).
fn skipped_effect(skipped: Option<&Skipped>) -> String {
    let Some((module, s)) = skipped.and_then(|s| Some((s.resets?, s))) else { return "ignores it".to_string() };
    let lost = match module {
        "access_compat_module" => "the Order, Allow, Deny and Satisfy rules set above no longer apply here",
        "authn_file_module" => {
            "an AuthUserFile set above no longer applies here (Basic authentication with the file provider then answers 500, AH01619)"
        }
        "authz_groupfile_module" => {
            "an AuthGroupFile set above no longer applies here (`Require group` then refuses every user: 401, AH01664)"
        }
        "authz_dbm_module" => "an AuthDBMGroupFile set above no longer applies here",
        "authn_dbm_module" => {
            "an AuthDBMUserFile set above no longer applies here (the dbm provider then answers 500, AH10285)"
        }
        "authn_anon_module" => "the Anonymous settings set above no longer apply here",
        _ => "an AuthDigestProvider set above no longer applies here",
    };
    let place = if s.vector == 0 { "this file" } else { "the section around it" };
    format!(
        "skips it, yet not harmlessly: httpd makes {module}'s settings for {place} before refusing the line, with \
         nothing set, and that module merges nothing, so they replace the inherited ones: {lost}"
    )
}

/// What the AllowOverride would have to grant for `d` to be taken: the option refused, else the
/// directive's class.
fn grant<'a>(d: &'a catalogue::Directive, refused: &'a Refused) -> &'a str {
    match (&refused.grant, d.override_class) {
        (Some(option), _) => option,
        (None, "") => "it",
        (None, class) => class,
    }
}

/// The directive's name, or a section's header without its line break.
fn name_range(cfg: &Config, node: &Node) -> TextRange {
    if node.kind == NodeKind::Directive {
        return node.loc.focus;
    }
    let text = &cfg.file(node.loc.file).text;
    let r = node.loc.focus;
    let slice = text.get(usize::from(r.start())..usize::from(r.end())).unwrap_or("");
    let lead = slice.len() - slice.trim_start().len();
    TextRange::new(r.start() + TextSize::from(lead as u32), r.start() + TextSize::from(slice.trim_end().len() as u32))
}

fn allow_override_text(h: &HtaccessOverrides) -> String {
    let what = match &h.allow_override {
        Some(args) => format!("AllowOverride {}", args.join(" ")),
        None => "no AllowOverride".to_string(),
    };
    match &h.set_at {
        Some((path, line)) => {
            format!("{what} ({}:{line})", path.file_name().map(|f| f.to_string_lossy()).unwrap_or_default())
        }
        None => what,
    }
}

/// For an .htaccess file read under a known server configuration ([`Config::enclosing`]): the
/// AllowOverride in force for its directory under each server that reads it
/// ([`Config::htaccess_servers`], else [`Readers::servers`]), servers with equal ones grouped
/// ([`allow_override::groups`]).
pub fn overrides_in_force(cfg: &Config) -> Option<Vec<HtaccessOverrides>> {
    if cfg.top != TopLevel::Htaccess {
        return None;
    }
    let root = cfg.enclosing.as_deref()?;
    let dir = cfg.files.first()?.path.parent()?.to_string_lossy().into_owned();
    let servers: Vec<ServerId> = match &cfg.htaccess_servers {
        Some(s) => s.to_vec(),
        None => Readers::of(root).servers(&dir),
    };
    let groups = allow_override::groups(root, &servers, &dir);
    (!groups.is_empty()).then_some(groups)
}

/// Whether an .htaccess file read under a known server configuration is read by none of its
/// servers: only the main server would read it ([`Readers::servers`]), and no request reaches
/// the main server. (`check` scans no such file; an editor may open one.)
pub(super) fn read_by_no_server(cfg: &Config) -> bool {
    let (Some(root), None) = (cfg.enclosing.as_deref(), &cfg.htaccess_servers) else { return false };
    let Some(dir) = cfg.files.first().and_then(|f| f.path.parent()) else { return false };
    Readers::of(root).servers(&dir.to_string_lossy()).is_empty()
}

/// [`overrides_in_force`] with what httpd makes of them.
pub(super) fn overrides_read(cfg: &Config) -> Option<Vec<(HtaccessOverrides, Overrides)>> {
    overrides_in_force(cfg).map(|groups| {
        groups
            .into_iter()
            .map(|h| {
                let o = Overrides::parse(h.allow_override.as_deref(), h.allow_override_list.as_deref());
                (h, o)
            })
            .collect()
    })
}

/// What the AllowOverride in force grants an .htaccess file, when every server that reads it
/// grants the same (`None`: unknown, or the servers differ).
pub fn agreed_overrides(cfg: &Config) -> Option<Overrides> {
    let mut reading = overrides_read(cfg)?.into_iter().map(|(_, o)| o).filter(Overrides::reads_htaccess);
    let first = reading.next()?;
    reading.all(|o| o == first).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config::{load, load_fragment, load_in_context};
    use crate::ide::diagnostics::tests::{render_diagnostics, Fixture};
    use expect_test::expect;
    use std::path::Path;

    /// This check's findings in a fixture; a file named httpd.conf is a main
    /// configuration, anything else a fragment or .htaccess file analysed alone.
    fn render(fixture: &str) -> String {
        let fx = Fixture::parse(fixture);
        let path = Path::new(&fx.0[0].0);
        let cfg = if path.ends_with("httpd.conf") { load(path, &fx) } else { load_fragment(path, &fx) };
        lines(&cfg)
    }

    fn lines(cfg: &Config) -> String {
        let mut out = Vec::new();
        check(cfg, &mut out);
        render_diagnostics(cfg, &out)
    }

    #[test]
    fn document_root_inside_directory_stops_httpd() {
        expect![[r#"
            /etc/httpd/httpd.conf:4: Error[directive-context]: DocumentRoot not allowed in <Directory> context: httpd will not start (DocumentRoot belongs in: server config, virtual host)
            /etc/httpd/httpd.conf:7: Error[directive-context]: MaxRequestWorkers cannot occur within <VirtualHost> section: httpd will not start (MaxRequestWorkers belongs in: server config)
            /etc/httpd/httpd.conf:9: Error[directive-context]: Require not allowed here: httpd will not start (Require belongs in: directory, .htaccess)
        "#]]
        .assert_eq(&render(
            "//- /etc/httpd/httpd.conf\nLoadModule authz_core_module m.so\nLoadModule mpm_event_module m.so\n<Directory /srv>\n  DocumentRoot /srv\n</Directory>\n<VirtualHost *:80>\n  MaxRequestWorkers 10\n</VirtualHost>\nRequire all granted\n",
        ));
    }

    #[test]
    fn sections_in_sections_and_limits() {
        expect![[r#"
            /etc/httpd/httpd.conf:2: Error[directive-context]: <Files> cannot occur within <Location> section: httpd will not start (Files belongs in: server config, virtual host, directory, .htaccess)
            /etc/httpd/httpd.conf:6: Error[directive-context]: <VirtualHost not allowed in <Directory> context: httpd will not start (VirtualHost belongs in: server config)
            /etc/httpd/httpd.conf:10: Warning[directive-context]: Useless use of AllowOverride inside <Location>; httpd logs a warning and ignores it
        "#]]
        .assert_eq(&render(
            "//- /etc/httpd/httpd.conf\n<Location /a>\n  <Files x>\n  </Files>\n</Location>\n<Directory /b>\n  <VirtualHost *:80>\n  </VirtualHost>\n</Directory>\n<Location /c>\n  AllowOverride All\n</Location>\n",
        ));
    }

    #[test]
    fn conditionals_are_transparent_and_fragments_may_be_virtual_hosts() {
        expect![[r#"
            /srv/site.conf:3: Error[directive-context]: DocumentRoot not allowed in <Directory> context: httpd will not start (DocumentRoot belongs in: server config, virtual host)
        "#]]
        .assert_eq(&render(
            "//- /srv/site.conf\n<Directory /srv>\n  <IfModule mod_alias.c>\n    DocumentRoot /srv\n  </IfModule>\n</Directory>\nMaxRequestWorkers 10\n",
        ));
    }

    #[test]
    fn htaccess_alone_reports_only_what_no_allow_override_permits() {
        expect![[r#"
            /srv/www/.htaccess:1: Error[directive-context]: ServerName not allowed here: httpd answers 500 Internal Server Error to every request this .htaccess file applies to
        "#]]
        .assert_eq(&render("//- /srv/www/.htaccess\nServerName example.com\nOptions -Indexes\nRequire all denied\n"));
    }

    fn htaccess_with_root(root: &str, htaccess: &str) -> String {
        let fx = Fixture::parse(&format!("//- /etc/httpd/httpd.conf\n{root}//- /srv/www/.htaccess\n{htaccess}"));
        let root = crate::ide::config::load(Path::new("/etc/httpd/httpd.conf"), &fx);
        let cfg = load_in_context(Path::new("/srv/www/.htaccess"), &fx, std::sync::Arc::new(root));
        let mut out = Vec::new();
        check(&cfg, &mut out);
        out.iter()
            .map(|d| {
                format!("{}: {:?}[{}]: {}\n", cfg.file(d.file).line_of(d.range.start()), d.severity, d.code, d.message)
            })
            .collect()
    }

    /// An .htaccess only the main server would read, when every Listen address has a virtual
    /// host (an editor opens it; check never scans it): said once, nothing in it claimed.
    #[test]
    fn htaccess_only_an_unreachable_main_server_would_read() {
        let root = "Listen 127.0.0.1:80\nDocumentRoot /srv/www\n<Directory /srv/www>\n  AllowOverride All\n</Directory>\n<VirtualHost 127.0.0.1:80>\n  DocumentRoot /srv/other\n</VirtualHost>\n";
        let all = |root: &str| {
            let fx = Fixture::parse(&format!(
                "//- /etc/httpd/httpd.conf\n{root}//- /srv/www/.htaccess\nBogusDirective on\nOrder deny,allow\n"
            ));
            let root = crate::ide::config::load(Path::new("/etc/httpd/httpd.conf"), &fx);
            let cfg = load_in_context(Path::new("/srv/www/.htaccess"), &fx, std::sync::Arc::new(root));
            crate::ide::diagnostics::all(&cfg)
                .iter()
                .map(|d| format!("{}: {}\n", d.code, d.message))
                .collect::<String>()
        };
        expect![[r#"
            htaccess-ignored: httpd never reads this file: no virtual host serves its directory (by DocumentRoot or Alias, or a <Directory> opening it to overrides), and the main server, which would read it, answers no request (every address and port httpd listens on has a <VirtualHost>), so nothing here takes effect
        "#]].assert_eq(&all(root));
        // With a Listen the virtual host does not take, the main server reads it.
        let reachable = all(&format!("Listen 127.0.0.2:80\n{root}"));
        assert!(reachable.contains("unknown-directive") && !reachable.contains("htaccess-ignored"), "{reachable}");
    }

    #[test]
    fn htaccess_under_a_known_allow_override() {
        expect![[r#"
            2: Error[directive-context]: Options not allowed here; AllowOverride AuthConfig (httpd.conf:5) does not grant Options: httpd answers 500 Internal Server Error to every request this .htaccess file applies to
            4: Error[directive-context]: Header not allowed in <Files> context; AllowOverride AuthConfig (httpd.conf:5) does not grant FileInfo: httpd answers 500 Internal Server Error to every request this .htaccess file applies to
        "#]]
        .assert_eq(&htaccess_with_root(
            "<Directory />\n  AllowOverride None\n</Directory>\n<Directory /srv/www>\n  AllowOverride AuthConfig\n</Directory>\n",
            "Require valid-user\nOptions -Indexes\n<Files x>\n  Header set X y\n</Files>\n",
        ));
    }

    #[test]
    fn htaccess_that_httpd_never_reads() {
        expect![[r#"
            1: Warning[htaccess-ignored]: httpd never reads this file: AllowOverride None (httpd.conf:2) for its directory, so nothing here takes effect
        "#]]
        .assert_eq(&htaccess_with_root(
            "<Directory />\n  AllowOverride None\n</Directory>\n",
            "Options -Indexes\n",
        ));
    }

    /// Without any AllowOverride (not even `<Directory />`'s) httpd reads the file and grants
    /// nothing: each directive is a 500 (context_vs_httpd confirms it on the real server).
    #[test]
    fn htaccess_without_any_allow_override_grants_nothing() {
        expect![[r#"
            1: Error[directive-context]: Options not allowed here; no AllowOverride applies to its directory, and httpd then reads the file granting nothing in it: httpd answers 500 Internal Server Error to every request this .htaccess file applies to
        "#]]
        .assert_eq(&htaccess_with_root("ServerName x\n", "Options -Indexes\n"));
    }

    /// Two virtual hosts serving the file's directory under different AllowOverride, and a
    /// third that never reads it: each refusal is one finding naming the servers that answer
    /// 500 and those that do not; an error, as some do.
    #[test]
    fn htaccess_read_by_servers_that_disagree() {
        let root = "<Directory />\n  AllowOverride None\n</Directory>\n\
<VirtualHost *:80>\n  ServerName a.test\n  DocumentRoot /srv/www\n  <Directory /srv/www>\n    AllowOverride AuthConfig\n  </Directory>\n</VirtualHost>\n\
<VirtualHost *:80>\n  ServerName b.test\n  DocumentRoot /srv/www\n  <Directory /srv/www>\n    AllowOverride AuthConfig Options\n  </Directory>\n</VirtualHost>\n\
<VirtualHost *:80>\n  DocumentRoot /srv/www\n</VirtualHost>\n";
        expect![[r#"
            1: Information[htaccess-partly-read]: only some of the servers serving this directory read this file. It is never read under the <VirtualHost> at httpd.conf:18 (AllowOverride None (httpd.conf:2)). It is read under a.test (AllowOverride AuthConfig (httpd.conf:8)); under b.test (AllowOverride AuthConfig Options (httpd.conf:15)), and what is said of it holds for their requests
            2: Error[directive-context]: Options not allowed here: for a.test (AllowOverride AuthConfig (httpd.conf:8) does not grant Options), httpd answers 500 Internal Server Error to every request this .htaccess file applies to; for b.test (AllowOverride AuthConfig Options (httpd.conf:15)), it is allowed; for the <VirtualHost> at httpd.conf:18 (AllowOverride None (httpd.conf:2)), httpd never reads this file
            3: Error[directive-context]: ServerName not allowed here: for a.test and b.test, httpd answers 500 Internal Server Error to every request this .htaccess file applies to; for the <VirtualHost> at httpd.conf:18 (AllowOverride None (httpd.conf:2)), httpd never reads this file
        "#]]
        .assert_eq(&htaccess_with_root(root, "Require valid-user\nOptions -Indexes\nServerName x\n"));
        // Both read it and agree: as for one server.
        let agree = root
            .replace("AuthConfig Options", "AuthConfig")
            .replace("<VirtualHost *:80>\n  DocumentRoot /srv/www\n</VirtualHost>\n", "");
        expect![[r#"
            2: Error[directive-context]: ServerName not allowed here: httpd answers 500 Internal Server Error to every request this .htaccess file applies to
        "#]]
        .assert_eq(&htaccess_with_root(&agree, "Require valid-user\nServerName x\n"));
        // None reads it: said once.
        let none = root.replace("AuthConfig Options", "None").replace("AuthConfig", "None");
        expect![[r#"
            1: Warning[htaccess-ignored]: httpd never reads this file: for its directory under a.test (AllowOverride None (httpd.conf:8)); under b.test (AllowOverride None (httpd.conf:15)); under the <VirtualHost> at httpd.conf:18 (AllowOverride None (httpd.conf:2)), so nothing here takes effect
        "#]]
        .assert_eq(&htaccess_with_root(&none, "Options -Indexes\n"));
    }
}

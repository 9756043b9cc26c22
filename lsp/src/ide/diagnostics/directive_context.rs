//! Check: directives where httpd refuses them — `DocumentRoot` inside
//! `<Directory>`, `MaxRequestWorkers` inside `<VirtualHost>`, `ServerName` in an
//! .htaccess file, `Options` in an .htaccess file whose AllowOverride does not
//! grant `Options` — with httpd's own message and what it costs: in a
//! configuration file httpd does not start; in an .htaccess file every request
//! the file applies to is answered 500.
//!
//! The rules are [`catalogue::context`]'s; this file walks the loaded tree with
//! them. Directives httpd will not know at all are the unknown-directive check's.
//! An .htaccess file under an AllowOverride that grants nothing is never read:
//! that is said once, and nothing inside is checked.

use super::Diagnostic;
use crate::ide::access::wildcard_match;
use crate::ide::catalogue;
use crate::ide::catalogue::context::{Overrides, Refusal, Refused, Scope};
use crate::ide::config::{Config, HtaccessOverrides, Node, NodeKind, Severity, TopLevel};
use apache_syntax::{TextRange, TextSize};
use std::path::Path;

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
/// entered, made once (the nodes refer to it by position).
pub(super) struct Walk {
    scopes: Vec<Scope>,
    known: Option<HtaccessOverrides>,
}

impl Walk {
    /// The position of the top level's scope.
    pub(super) const TOP: usize = 0;

    /// `None` when nothing in the configuration is checked (an .htaccess file httpd
    /// never reads, which is said once).
    pub(super) fn start(cfg: &Config, out: &mut Vec<Diagnostic>) -> Option<Walk> {
        let read = overrides_read(cfg);
        let known = read.as_ref().map(|(h, _)| h.clone());
        let top = match &cfg.top {
            TopLevel::Main => Scope::server_config(),
            TopLevel::Fragment => Scope::fragment(),
            TopLevel::Htaccess => {
                let overrides = read.map(|(_, o)| o);
                if let (Some(h), Some(o)) = (&known, &overrides) {
                    if !o.reads_htaccess() {
                        if let Some(file) = cfg.nodes.first().map(|n| n.loc.file) {
                            out.push(Diagnostic::new(
                                file,
                                TextRange::empty(TextSize::from(0)),
                                Severity::Warning,
                                "htaccess-ignored",
                                format!(
                                    "httpd never reads this file: {} for its directory, so nothing here takes effect",
                                    allow_override_text(h)
                                ),
                            ));
                        }
                        return None;
                    }
                }
                Scope::htaccess(overrides.as_ref())
            }
        };
        Some(Walk { scopes: vec![top], known })
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
        let scope = &self.scopes[at];
        if let Some(refused) = scope.check(d) {
            out.push(diagnostic(cfg, node, d, &refused, self.known.as_ref()));
        }
        if node.kind != NodeKind::Section {
            return None;
        }
        if Scope::transparent(node.name()) {
            return Some(at);
        }
        let inner = scope.enter(node.name())?;
        self.scopes.push(inner);
        Some(self.scopes.len() - 1)
    }
}

fn diagnostic(
    cfg: &Config,
    node: &Node,
    d: &catalogue::Directive,
    refused: &Refused,
    known: Option<&HtaccessOverrides>,
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
                Some(h) if refused.by_allow_override => format!(
                    "; {} does not grant {}",
                    allow_override_text(h),
                    if d.override_class.is_empty() { "it" } else { d.override_class }
                ),
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
        Refusal::Warning => (Severity::Warning, format!("{}; httpd logs a warning and ignores it", refused.message)),
    };
    Diagnostic::new(node.loc.file, name_range(cfg, node), severity, "directive-context", message)
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

/// For an .htaccess file read under a known server configuration
/// ([`Config::enclosing`]): the AllowOverride in force for its directory.
pub fn overrides_in_force(cfg: &Config) -> Option<HtaccessOverrides> {
    if cfg.top != TopLevel::Htaccess {
        return None;
    }
    let dir = cfg.files.first()?.path.parent()?.to_path_buf();
    htaccess_overrides(cfg.enclosing.as_deref()?, &dir)
}

/// [`overrides_in_force`] with what httpd makes of them.
pub(super) fn overrides_read(cfg: &Config) -> Option<(HtaccessOverrides, Overrides)> {
    overrides_in_force(cfg).map(|h| {
        let o = Overrides::parse(h.allow_override.as_deref(), h.allow_override_list.as_deref());
        (h, o)
    })
}

/// The AllowOverride and AllowOverrideList in force for the .htaccess file in
/// `dir`, from the main server's `<Directory>` sections (without regular
/// expressions, as httpd reads .htaccess files during that part of its walk):
/// those matching `dir` or a parent of it, shorter paths first, the last one
/// setting each directive winning. `None` when a virtual host has its own
/// `<Directory>` for the same place (which applies depends on the request).
pub fn htaccess_overrides(root: &Config, dir: &Path) -> Option<HtaccessOverrides> {
    let dir = dir.to_string_lossy();
    let comps: Vec<&str> = dir.split('/').filter(|c| !c.is_empty()).collect();
    let matches = |n: &Node| {
        if !n.is("Directory") {
            return false;
        }
        let Some(p) = n.args().first().filter(|a| *a != "~") else { return false };
        let pc: Vec<&str> = p.split('/').filter(|c| !c.is_empty()).collect();
        pc.len() <= comps.len()
            && wildcard_match(&format!("/{}", pc.join("/")), &format!("/{}", comps[..pc.len()].join("/")), true)
    };
    let in_vhost = root
        .nodes
        .iter()
        .filter(|n| n.is("VirtualHost"))
        .flat_map(|v| v.walk())
        .any(|n| matches(n) && n.children.iter().any(|c| c.is("AllowOverride") || c.is("AllowOverrideList")));
    if in_vhost {
        return None;
    }
    let mut sections: Vec<&Node> = root.nodes.iter().filter(|n| matches(n)).collect();
    sections.sort_by_key(|n| n.arg(0).unwrap_or_default().split('/').filter(|c| !c.is_empty()).count());
    let mut out = HtaccessOverrides::default();
    for s in sections {
        for c in &s.children {
            if c.is("AllowOverride") {
                out.allow_override = Some(c.arg_strings());
                out.set_at = Some((root.file(c.loc.file).path.to_path_buf(), root.line(&c.loc)));
            } else if c.is("AllowOverrideList") {
                out.allow_override_list = Some(c.arg_strings());
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config::{load, load_fragment, load_in_context};
    use crate::ide::diagnostics::tests::{render_diagnostics, Fixture};
    use expect_test::expect;

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
}

//! Check: an .htaccess `<IfModule>`/`<IfDefine>`/… section where the AllowOverride in force
//! grants no class at all ([`nonfatal::refused_conditional`]): httpd refuses it while it reads
//! the file, so every request the file applies to is answered 500, under `Nonfatal=Override`
//! too (the header is skipped, the closer then matches nothing). The loader splices these
//! sections' bodies in, so the directive-context walk never meets them.

use super::{directive_context, Diagnostic};
use crate::ide::config::{Config, Severity, TopLevel};
use crate::ide::nonfatal;

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    if cfg.top != TopLevel::Htaccess {
        return;
    }
    let Some(groups) = directive_context::overrides_read(cfg) else { return };
    let Some(fd) = cfg.files.first() else { return };
    // Said when every server reading the file refuses it alike.
    let mut verdicts =
        groups.iter().filter(|(_, o)| o.reads_htaccess()).map(|(_, o)| nonfatal::refused_conditional(fd, cfg, o));
    let Some(Some(first)) = verdicts.next() else { return };
    if verdicts.all(|v| v.as_ref() == Some(&first)) {
        let (range, message) = first;
        let header = fd.text[usize::from(range.start())..].lines().next().map_or(0, str::len);
        out.push(Diagnostic::new(
            0,
            apache_syntax::TextRange::at(range.start(), (header as u32).into()),
            Severity::Error,
            "directive-context",
            format!("{message}: {}", super::consequence(cfg)),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::config::load_in_context;
    use crate::ide::diagnostics::tests::Fixture;
    use std::path::Path;

    fn errors(allow: &str, htaccess: &str) -> Vec<String> {
        let root = format!("LoadModule authz_core_module m\nDocumentRoot /srv/www\n<Directory /srv/www>\n  AllowOverride {allow}\n</Directory>\n");
        let fx = Fixture::parse(&format!("//- /etc/httpd/httpd.conf\n{root}//- /srv/www/.htaccess\n{htaccess}"));
        let root = crate::ide::config::load(Path::new("/etc/httpd/httpd.conf"), &fx);
        let cfg = load_in_context(Path::new("/srv/www/.htaccess"), &fx, std::sync::Arc::new(root));
        let mut out = Vec::new();
        super::check(&cfg, &mut out);
        out.into_iter().map(|d| d.message.split(':').next().unwrap_or("").to_string()).collect()
    }

    /// Round 11b finding 1b: refused while httpd reads the file, whatever Nonfatal says.
    #[test]
    fn conditionals_where_no_class_is_granted_are_refused() {
        let ifdefine = "<IfDefine X>\n  Require all denied\n</IfDefine>\n";
        assert_eq!(errors("Nonfatal=Override", ifdefine), ["</IfDefine> without matching <IfDefine> section"]);
        assert_eq!(errors("Nonfatal=Unknown", ifdefine), ["<IfDefine not allowed here"]);
        assert!(errors("Limit Nonfatal=Override", ifdefine).is_empty());
        assert!(errors("None\n  AllowOverrideList Require", "Require all granted\n").is_empty());
        assert_eq!(
            errors("None\n  AllowOverrideList Require", "<IfModule x>\n</IfModule>\n"),
            ["<IfModule not allowed here"]
        );
    }
}

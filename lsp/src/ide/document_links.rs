//! Feature: document links — each path a directive names becomes a link to the
//! file it leads to: Include'd configuration files, password and group files,
//! modules, certificates, logs.
//!
//! Only files that exist are linked (an editor cannot open the rest), and
//! directories are not (they are documents to no editor; Go to Definition leads
//! from a DocumentRoot to its `<Directory>` instead). A wildcard Include that
//! matches several files links to the first, and says how many there are: a link
//! has one target, Go to Definition lists them all.

use crate::ide::config::{Config, FileId, FileSource};
use crate::ide::navigation::{self, PathRole};
use apache_syntax::TextRange;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentLink {
    /// The argument, quotes excluded.
    pub range: TextRange,
    pub target: PathBuf,
    pub tooltip: String,
}

pub fn document_links(cfg: &Config, file: FileId, fs: &dyn FileSource) -> Vec<DocumentLink> {
    let mut out = Vec::new();
    for arg in navigation::path_args(cfg, file) {
        match arg.role {
            PathRole::Include => {
                let targets = navigation::include_targets(cfg, &arg, fs);
                let Some(first) = targets.first() else { continue };
                let tooltip = if targets.len() == 1 {
                    format!("{} includes {}", arg.directive, first.display())
                } else {
                    let names: Vec<String> = targets
                        .iter()
                        .take(5)
                        .map(|t| t.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
                        .collect();
                    let more = if targets.len() > 5 { ", …" } else { "" };
                    format!(
                        "The first of the {} files this pattern includes ({}{more}); Go to Definition lists them all",
                        targets.len(),
                        names.join(", ")
                    )
                };
                out.push(DocumentLink { range: arg.range, target: first.clone(), tooltip });
            }
            PathRole::File => {
                let path = navigation::absolute_path(cfg, &arg);
                if fs.exists(&path) {
                    let tooltip = format!("{} {}", arg.directive, path.display());
                    out.push(DocumentLink { range: arg.range, target: path, tooltip });
                }
            }
            PathRole::Directory => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::navigation::tests::load_fixture;
    use expect_test::{expect, Expect};

    fn check(fixture: &str, expect: Expect) {
        let l = load_fixture(fixture);
        let text = &l.cfg.file(l.file).text;
        let got: String = document_links(&l.cfg, l.file, &l.fx)
            .iter()
            .map(|d| format!("{:?} → {} ({})\n", &text[d.range], d.target.display(), d.tooltip))
            .collect();
        expect.assert_eq(&got);
    }

    #[test]
    fn include_links_to_the_file_it_reads_relative_to_server_root() {
        check(
            r#"
//- /etc/apache2/apache2.conf
ServerRoot /etc/apache2
Include ports.conf
IncludeOptional "conf-enabled/missing.conf"
//- /etc/apache2/ports.conf
Listen 80
"#,
            expect![[r#"
                "ports.conf" → /etc/apache2/ports.conf (Include includes /etc/apache2/ports.conf)
            "#]],
        );
    }

    #[test]
    fn variables_are_substituted_before_the_path_is_resolved() {
        check(
            r#"
//- /srv/httpd.conf
Define CONF /srv/conf
Include ${CONF}/vhosts.conf
AuthUserFile ${CONF}/htpasswd
//- /srv/conf/vhosts.conf
//- /srv/conf/htpasswd
alice:x
"#,
            expect![[r#"
                "${CONF}/vhosts.conf" → /srv/conf/vhosts.conf (Include includes /srv/conf/vhosts.conf)
                "${CONF}/htpasswd" → /srv/conf/htpasswd (AuthUserFile /srv/conf/htpasswd)
            "#]],
        );
    }

    #[test]
    fn auth_files_module_and_log_link_only_when_they_exist() {
        check(
            r#"
//- /srv/httpd.conf
ServerRoot /srv
LoadModule auth_basic_module modules/mod_auth_basic.so
<Directory /srv/www>
  AuthGroupFile "groups"
  AuthUserFile /srv/missing
  AuthDBMUserFile /srv/users.dbm
</Directory>
ErrorLog "|/usr/bin/logger"
//- /srv/modules/mod_auth_basic.so
//- /srv/groups
//- /srv/users.dbm
"#,
            expect![[r#"
                "modules/mod_auth_basic.so" → /srv/modules/mod_auth_basic.so (LoadModule /srv/modules/mod_auth_basic.so)
                "groups" → /srv/groups (AuthGroupFile /srv/groups)
                "/srv/users.dbm" → /srv/users.dbm (AuthDBMUserFile /srv/users.dbm)
            "#]],
        );
    }

    #[test]
    fn include_inside_a_false_conditional_is_still_linked() {
        check(
            r#"
//- /srv/httpd.conf
<IfModule mod_nonexistent.c>
  Include /srv/extra.conf
</IfModule>
//- /srv/extra.conf
"#,
            expect![[r#"
                "/srv/extra.conf" → /srv/extra.conf (Include includes /srv/extra.conf)
            "#]],
        );
    }

    #[test]
    fn wildcard_include_links_to_the_first_match_and_counts_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("é conf");
        std::fs::create_dir_all(root.join("sites")).unwrap();
        for n in ["b.conf", "a.conf", "c.txt"] {
            std::fs::write(root.join("sites").join(n), "").unwrap();
        }
        let main = root.join("httpd.conf");
        std::fs::write(&main, "Include sites/*.conf\nIncludeOptional sites/\n").unwrap();
        let cfg = crate::ide::config::load(&main, &crate::ide::config::RealFs);
        let links = document_links(&cfg, 0, &crate::ide::config::RealFs);
        let got: Vec<(String, String)> = links
            .iter()
            .map(|l| (l.target.strip_prefix(&root).unwrap().display().to_string(), l.tooltip.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "sites/a.conf".into(),
                    "The first of the 2 files this pattern includes (a.conf, b.conf); Go to Definition lists them all"
                        .into()
                ),
                (
                    "sites/a.conf".into(),
                    "The first of the 3 files this pattern includes (a.conf, b.conf, c.txt); Go to Definition lists them all".into()
                ),
            ]
        );
    }
}

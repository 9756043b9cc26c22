//! Feature: go to definition.
//!
//! - `${VAR}`, `<IfDefine VAR>`, `UnDefine VAR` → the `Define` that sets it (in
//!   any file of the tree; the ones the load applied when there are any), else
//!   the `export VAR=` line of Debian's `envvars` beside the main configuration;
//! - an `Include`/`IncludeOptional` argument → every file it reads, in httpd's order;
//! - a file argument (`AuthUserFile`, `AuthGroupFile`, `LoadModule`…) → the file;
//! - a `DocumentRoot` or `Alias` target → the `<Directory>` sections of that
//!   directory; a `<Directory>` path → the DocumentRoot and Alias lines serving it.

use crate::ide::config::{Config, FileId, FileSource};
use crate::ide::navigation::{self, NavTarget, PathRole, Subject};
use apache_syntax::{TextRange, TextSize};
use std::path::Path;

/// The targets of the thing at `offset`, with the range the cursor was on.
pub fn goto_definition(
    cfg: &Config,
    file: FileId,
    offset: TextSize,
    fs: &dyn FileSource,
) -> Option<(TextRange, Vec<NavTarget>)> {
    match navigation::subject_at(cfg, file, offset)? {
        Subject::Variable { name, range, substituted } => {
            // `${V}` reads the Define in force on its line; the others lead to every Define.
            let in_force = substituted.then(|| navigation::define_in_force(cfg, file, offset, &name)).flatten();
            let mut targets = in_force.unwrap_or_else(|| navigation::variable_definitions(cfg, &name));
            if targets.is_empty() {
                targets.extend(navigation::envvars_definition(cfg, &name, fs));
            }
            Some((range, targets))
        }
        Subject::Path(arg) => {
            let targets = match arg.role {
                PathRole::Include => {
                    navigation::include_targets(cfg, &arg, fs).iter().map(|p| NavTarget::whole_file(p)).collect()
                }
                PathRole::File => {
                    let p = navigation::absolute_path(cfg, &arg);
                    if fs.exists(&p) {
                        vec![NavTarget::whole_file(&p)]
                    } else {
                        vec![]
                    }
                }
                PathRole::Directory if arg.directive.eq_ignore_ascii_case("Directory") => {
                    serving_directives(cfg, &navigation::absolute_path(cfg, &arg))
                }
                PathRole::Directory => navigation::directory_sections(cfg, &navigation::absolute_path(cfg, &arg)),
            };
            Some((arg.range, targets))
        }
    }
}

/// DocumentRoot, Alias and ScriptAlias lines whose target is `dir`.
fn serving_directives(cfg: &Config, dir: &Path) -> Vec<NavTarget> {
    let want = dir.to_string_lossy().trim_end_matches('/').to_string();
    let mut out = Vec::new();
    for f in 0..cfg.files.len() {
        for arg in navigation::path_args(cfg, f) {
            if arg.role == PathRole::Directory && !arg.directive.eq_ignore_ascii_case("Directory") {
                let p = navigation::absolute_path(cfg, &arg);
                if p.to_string_lossy().trim_end_matches('/') == want {
                    let fd = cfg.files[f].clone();
                    let text = &fd.text[arg.directive_range];
                    let lead = (text.len() - text.trim_start().len()) as u32;
                    let len = text.trim().len() as u32;
                    let full = TextRange::at(arg.directive_range.start() + TextSize::from(lead), TextSize::from(len));
                    out.push(NavTarget {
                        path: fd.path.clone(),
                        file: Some(fd),
                        full_range: full,
                        focus_range: arg.range,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::navigation::tests::{load_fixture, render_target};
    use expect_test::{expect, Expect};

    fn check(fixture: &str, expect: Expect) {
        let l = load_fixture(fixture);
        let got = match goto_definition(&l.cfg, l.file, l.offset, &l.fx) {
            None => "no subject\n".to_string(),
            Some((range, targets)) => {
                let mut s = format!("from {:?}\n", &l.cfg.file(l.file).text[range]);
                for t in targets {
                    s.push_str(&render_target(&t));
                    s.push('\n');
                }
                s
            }
        };
        expect.assert_eq(&got);
    }

    #[test]
    fn variable_use_goes_to_its_define_in_another_file() {
        check(
            r#"
//- /etc/apache2/apache2.conf
ServerRoot /etc/apache2
Include conf/vars.conf
Include sites/é.conf
//- /etc/apache2/conf/vars.conf
  Define WEB_ROOT "/srv/wëb"
//- /etc/apache2/sites/é.conf
<Directory ${WEB_R█OOT}/public>
</Directory>
"#,
            expect![[r#"
                from "WEB_ROOT"
                /etc/apache2/conf/vars.conf:1:10: Define WEB_ROOT "/srv/wëb" [WEB_ROOT]
            "#]],
        );
    }

    #[test]
    fn applied_define_wins_over_one_in_a_false_conditional() {
        check(
            r#"
//- /srv/httpd.conf
<IfDefine NEVER>
Define PORT 8080
</IfDefine>
Define PORT 80
Listen ${PORT█}
"#,
            expect![[r#"
                from "PORT"
                /srv/httpd.conf:4:8: Define PORT 80 [PORT]
            "#]],
        );
    }

    #[test]
    fn variable_use_goes_to_the_define_in_force_on_its_line() {
        let tree = |lines: &str| format!("//- /srv/httpd.conf\n{lines}");
        // The last Define before the use, not a later one.
        check(
            &tree("Define V /a\nDefine V /b\nDocumentRoot ${█V}\nDefine V /c\n"),
            expect![[r#"
                from "V"
                /srv/httpd.conf:2:8: Define V /b [V]
            "#]],
        );
        // After an UnDefine: none (httpd leaves `${V}` as it is).
        check(
            &tree("Define V /a\nUnDefine V\nDocumentRoot ${█V}\n"),
            expect![[r#"
                from "V"
            "#]],
        );
        // In a section's header, before the Define in its body.
        check(
            &tree("Define V /a\n<Directory ${█V}>\nDefine V /b\n</Directory>\n"),
            expect![[r#"
                from "V"
                /srv/httpd.conf:1:8: Define V /a [V]
            "#]],
        );
    }

    #[test]
    fn ifdefine_and_undefine_lead_to_the_define() {
        check(
            "//- /srv/httpd.conf\nDefine TLS\n<IfDefine !T█LS>\n</IfDefine>\n",
            expect![[r#"
                from "TLS"
                /srv/httpd.conf:1:8: Define TLS [TLS]
            "#]],
        );
    }

    #[test]
    fn undefined_variable_falls_back_to_debian_envvars() {
        check(
            r#"
//- /etc/apache2/apache2.conf
ErrorLog ${APACHE_LO█G_DIR}/error.log
//- /etc/apache2/envvars
# envvars - default environment variables for apache2ctl
export APACHE_RUN_USER=www-data
export APACHE_LOG_DIR=/var/log/apache2$SUFFIX
"#,
            expect![[r#"
                from "APACHE_LOG_DIR"
                /etc/apache2/envvars:3:8: export APACHE_LOG_DIR=/var/log/apache2$SUFFIX [APACHE_LOG_DIR]
            "#]],
        );
    }

    #[test]
    fn wildcard_include_goes_to_every_file_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("conf.d")).unwrap();
        for n in ["20-b.conf", "10-a.conf", ".hidden.conf"] {
            std::fs::write(root.join("conf.d").join(n), "").unwrap();
        }
        let main = root.join("httpd.conf");
        let text = "ServerRoot \"ROOT\"\nInclude conf.d/*.conf\n".replace("ROOT", &root.to_string_lossy());
        std::fs::write(&main, &text).unwrap();
        let cfg = crate::ide::config::load(&main, &crate::ide::config::RealFs);
        let at = TextSize::from(text.find("conf.d").unwrap() as u32);
        let (_, targets) = goto_definition(&cfg, 0, at, &crate::ide::config::RealFs).unwrap();
        let names: Vec<String> =
            targets.iter().map(|t| t.path.strip_prefix(root).unwrap().display().to_string()).collect();
        assert_eq!(names, vec!["conf.d/10-a.conf", "conf.d/20-b.conf"]);
    }

    #[test]
    fn auth_user_file_goes_to_the_file() {
        check(
            "//- /srv/httpd.conf\nServerRoot /srv\n<Location />\nAuthUserFile pass█words\n</Location>\n//- /srv/passwords\n",
            expect![[r#"
                from "passwords"
                /srv/passwords
            "#]],
        );
    }

    #[test]
    fn document_root_goes_to_its_directory_sections_and_back() {
        let fixture = r#"
//- /srv/httpd.conf
DocumentRoot "/srv/www/█"
<Directory /srv/www>
  Require all granted
</Directory>
<Directory /srv>
</Directory>
Alias /static /srv/www
"#;
        check(
            fixture,
            expect![[r#"
                from "/srv/www/"
                /srv/httpd.conf:2:1: <Directory /srv/www> … [<Directory /srv/www>]
            "#]],
        );
        check(
            &fixture.replace("/srv/www/█", "/srv/www/").replace("<Directory /srv/www>", "<Directory /srv/w█ww>"),
            expect![[r#"
                from "/srv/www"
                /srv/httpd.conf:1:15: DocumentRoot "/srv/www/" [/srv/www/]
                /srv/httpd.conf:7:15: Alias /static /srv/www [/srv/www]
            "#]],
        );
    }

    #[test]
    fn plain_argument_has_no_definition() {
        check(
            "//- /srv/httpd.conf\nServerName exam█ple.com\n",
            expect![[r#"
            no subject
        "#]],
        );
    }
}

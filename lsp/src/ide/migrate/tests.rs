//! Tests of the migration: fixture trees (`//- $ROOT/path` starts a file, `█` marks the
//! cursor), written to a temporary directory because .htaccess files are read per request;
//! the expected actions and rewritten files are snapshots.

use super::*;
use crate::ide::config::RealFs;
use expect_test::{expect, Expect};

struct Tree {
    dir: tempfile::TempDir,
    files: Vec<(PathBuf, String)>,
    cursor: Option<(PathBuf, u32)>,
}

impl Tree {
    fn new(fixture: &str) -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().display().to_string();
        let mut files = Vec::new();
        let mut cursor = None;
        for chunk in fixture.split("//- ").filter(|c| !c.trim().is_empty()) {
            let (path, body) = chunk.split_once('\n').unwrap_or((chunk, ""));
            let path = PathBuf::from(path.trim().replace("$ROOT", &root));
            let mut body = body.replace("$ROOT", &root);
            if let Some(at) = body.find('█') {
                cursor = Some((path.clone(), at as u32));
                body = body.replacen('█', "", 1);
            }
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &body).unwrap();
            files.push((path, body));
        }
        Tree { dir, files, cursor }
    }

    fn ws(&self) -> Workspace<'_> {
        let main = &self.files[0].0;
        let is_main = !main.to_string_lossy().contains("htaccess");
        Workspace { main, is_main, fs: &RealFs }
    }

    fn show(&self, s: &str) -> String {
        s.replace(&self.dir.path().display().to_string(), "$ROOT")
    }

    /// Every file an edit list touches, as it reads afterwards.
    fn after(&self, edits: &[Edit]) -> String {
        let mut out = String::new();
        let paths: BTreeSet<&Arc<Path>> = edits.iter().map(|e| &e.path).collect();
        for p in paths {
            let text = std::fs::read_to_string(p).unwrap();
            let mine: Vec<&Edit> = edits.iter().filter(|e| e.path == *p).collect();
            out.push_str(&format!("//- {}\n{}", p.display(), apply(&text, &mine).replace('\r', "␍")));
        }
        self.show(&out)
    }
}

/// The quick fixes at the cursor, each with its title and the files it rewrites.
fn check_fixes(fixture: &str, expect: Expect) {
    let t = Tree::new(fixture);
    let (path, at) = t.cursor.clone().expect("a cursor");
    let fixes = quick_fixes(&t.ws(), &path, TextRange::empty(at.into()));
    let mut out = String::new();
    for f in fixes {
        out.push_str(&format!("## {}{}\n", if f.preferred { "[preferred] " } else { "" }, t.show(&f.title)));
        out.push_str(&t.after(&f.edits));
    }
    expect.assert_eq(&out);
}

/// The whole tree migrated: rewritten files, then what is left.
fn check_migrate(fixture: &str, expect: Expect) {
    check_migrate_with(fixture, false, expect)
}

/// The whole tree migrated, with or without `--allow-changes`: rewritten files, what is left, and
/// the access changes accepted.
fn check_migrate_with(fixture: &str, allow_changes: bool, expect: Expect) {
    let t = Tree::new(fixture);
    let m = migrate(&t.ws(), Scope::Tree, allow_changes);
    let mut out = t.after(&m.edits);
    for l in &m.left {
        out.push_str(&format!("left: {}\n", t.show(l)));
    }
    for c in &m.changes {
        out.push_str(&format!("change: {}\n", t.show(c)));
    }
    expect.assert_eq(&out);
}

const MODULES: &str = "LoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nLoadModule authz_user_module m\nLoadModule authn_core_module m\nLoadModule auth_basic_module m\nLoadModule authn_file_module m\nLoadModule status_module m\n";

fn conf(body: &str) -> String {
    format!("//- $ROOT/httpd.conf\n{MODULES}DocumentRoot $ROOT/htdocs\n{body}")
}

#[test]
fn a_child_defeated_today_keeps_the_inherited_denial() {
    // The seed's trap: <Directory /> denies with old-style rules, so the Location's
    // `Require local` never takes effect. The preferred fix carries the denial into the
    // children; the upgrade guide's rewrite opens /server-status to local clients.
    check_fixes(
        &conf("<Directory />\n    Order deny,allow\n    Deny fr█om all\n</Directory>\n<Directory $ROOT/htdocs>\n    Require all granted\n</Directory>\n<Location /server-status>\n    SetHandler server-status\n    Require local\n</Location>\n"),
        expect![[r#"
            ## [preferred] Rewrite as Require, carrying the inherited old-style restrictions into 2 sections (1 file): <Directory />
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory />
                Require all denied
            </Directory>
            <Directory $ROOT/htdocs>
                <RequireAll>
                  Require all denied
                  Require all granted
                </RequireAll>
            </Directory>
            <Location /server-status>
                SetHandler server-status
                <RequireAll>
                  Require all denied
                  Require local
                </RequireAll>
            </Location>
            ## Rewrite <Directory /> as the upgrade guide intends (changes access: / from any client (anonymous): 403 → 200, /server-status from local clients (anonymous): 403 → 200)
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory />
                Require all denied
            </Directory>
            <Directory $ROOT/htdocs>
                Require all granted
            </Directory>
            <Location /server-status>
                SetHandler server-status
                Require local
            </Location>
        "#]],
    );
}

#[test]
fn an_old_style_child_inheriting_require_lines_is_rewritten_with_its_parent() {
    check_fixes(
        &conf("<Directory $ROOT/htdocs>\n    AuthType Basic\n    AuthName x\n    AuthUserFile $ROOT/htpasswd\n    Require valid-user\n    Order deny,allow\n    Deny from █all\n    Allow from 10.0.0.0/8\n</Directory>\n<Directory $ROOT/htdocs/pub>\n    Order allow,deny\n    Allow from all\n</Directory>\n"),
        expect![[r#"
            ## [preferred] Rewrite as Require together with <Directory $ROOT/htdocs/pub> ($ROOT/httpd.conf:19): <Directory $ROOT/htdocs>
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                AuthType Basic
                AuthName x
                AuthUserFile $ROOT/htpasswd
                <RequireAll>
                  Require ip 10.0.0.0/8
                  Require valid-user
                </RequireAll>
            </Directory>
            <Directory $ROOT/htdocs/pub>
                Require valid-user
            </Directory>
            ## Rewrite <Directory $ROOT/htdocs> as the upgrade guide intends (changes access: /pub/ from any other client (anonymous): 401 → 403, /pub/ from any other client (user someone-unnamed): 200 → 403, /pub/ from any other client (wrong password): 401 → 403)
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                AuthType Basic
                AuthName x
                AuthUserFile $ROOT/htpasswd
                <RequireAll>
                  Require ip 10.0.0.0/8
                  Require valid-user
                </RequireAll>
            </Directory>
            <Directory $ROOT/htdocs/pub>
                Order allow,deny
                Allow from all
            </Directory>
        "#]],
    );
}

#[test]
fn removing_a_neutraliser_rewrites_the_denial_it_neutralised() {
    // Upgrade-guide row "host control switched off": dropping the lines would re-expose
    // the parent's Deny from all (fact sheet §7.3, U3).
    check_fixes(
        &conf("<Directory />\n    Order deny,allow\n    Deny from all\n</Directory>\n<Directory $ROOT/htdocs>\n    AuthType Basic\n    AuthName x\n    AuthUserFile $ROOT/htpasswd\n    Require valid-user\n    Order Deny,Allow\n    Allow from █all\n</Directory>\n"),
        expect![[r#"
            ## [preferred] Rewrite as Require together with <Directory /> ($ROOT/httpd.conf:10): <Directory $ROOT/htdocs>
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory />
                Require all denied
            </Directory>
            <Directory $ROOT/htdocs>
                AuthType Basic
                AuthName x
                AuthUserFile $ROOT/htpasswd
                Require valid-user
            </Directory>
            ## Rewrite <Directory $ROOT/htdocs> as the upgrade guide intends (changes access: / from any client (anonymous): 401 → 403, / from any client (user someone-unnamed): 200 → 403, / from any client (wrong password): 401 → 403)
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory />
                Order deny,allow
                Deny from all
            </Directory>
            <Directory $ROOT/htdocs>
                AuthType Basic
                AuthName x
                AuthUserFile $ROOT/htpasswd
                Require valid-user
            </Directory>
        "#]],
    );
}

#[test]
fn per_method_rules_become_limit_blocks() {
    check_fixes(
        &conf("<Directory $ROOT/htdocs>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.1\n    <Limit POST PUT>\n        Order allow,deny\n        Deny fr█om all\n    </Limit>\n</Directory>\n"),
        expect![[r#"
            ## [preferred] Rewrite as Require: <Directory $ROOT/htdocs>
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                <Limit POST PUT>
                  Require all denied
                </Limit>
                <LimitExcept POST PUT>
                  Require ip 127.0.0.1
                </LimitExcept>
            </Directory>
            ## Rewrite <Directory $ROOT/htdocs> as the upgrade guide intends (changes access: POST / from 127.0.0.1 (anonymous): 403 → 200, PUT / from 127.0.0.1 (anonymous): 403 → 200)
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                Require ip 127.0.0.1
            </Directory>
        "#]],
    );
}

#[test]
fn guide_auth_and_address_rows() {
    check_fixes(
        &conf("<Directory $ROOT/htdocs>\n    AuthType Basic\n    AuthName x\n    AuthUserFile $ROOT/htpasswd\n    Require valid-user\n    Order allow,deny\n    Deny from all\n    Allow from 127.0.0.1\n    Satisfy A█ny\n</Directory>\n"),
        expect![[r#"
            ## [preferred] Rewrite as Require: <Directory $ROOT/htdocs>
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                AuthType Basic
                AuthName x
                AuthUserFile $ROOT/htpasswd
                Require valid-user
            </Directory>
            ## Rewrite <Directory $ROOT/htdocs> as the upgrade guide intends (changes access: / from 127.0.0.1 (anonymous): 401 → 200, / from 127.0.0.1 (wrong password): 401 → 200)
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                AuthType Basic
                AuthName x
                AuthUserFile $ROOT/htpasswd
                Require ip 127.0.0.1
                Require valid-user
            </Directory>
        "#]],
    );
}

#[test]
fn htaccess_under_a_root_that_allows_only_limit_is_not_preferred() {
    check_fixes(
        &format!(
            "{}//- $ROOT/htdocs/sub/.htaccess\nOrder deny,allow\nDeny fr█om all\nAllow from 127.0.0.1\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride Limit\n    Require all granted\n</Directory>\n")
        ),
        expect![[r#"
            ## Rewrite as Require (AllowOverride Limit (from <Directory $ROOT/htdocs> at $ROOT/httpd.conf:10) does not allow AuthConfig, so Require lines in $ROOT/htdocs/sub/.htaccess would answer every request with 500; add AuthConfig to that AllowOverride first): $ROOT/htdocs/sub/.htaccess
            //- $ROOT/htdocs/sub/.htaccess
            Require ip 127.0.0.1
        "#]],
    );
}

#[test]
fn allow_changes_never_writes_require_where_httpd_would_answer_500() {
    check_migrate_with(
        &format!(
            "{}//- $ROOT/htdocs/sub/.htaccess\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.1\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride Limit\n    Require all granted\n</Directory>\n")
        ),
        true,
        expect![[r#"
            left: $ROOT/htdocs/sub/.htaccess:1: $ROOT/htdocs/sub/.htaccess: AllowOverride Limit (from <Directory $ROOT/htdocs> at $ROOT/httpd.conf:10) does not allow AuthConfig, so Require lines in $ROOT/htdocs/sub/.htaccess would answer every request with 500; add AuthConfig to that AllowOverride first
        "#]],
    );
}

#[test]
fn htaccess_under_a_wildcard_directory_that_allows_authconfig() {
    check_fixes(
        &format!(
            "{}//- $ROOT/htdocs/sub/.htaccess\nOrder deny,allow\nDeny fr█om all\nAllow from 127.0.0.1\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride Limit\n</Directory>\n<Directory $ROOT/htdocs/s*/>\n    AllowOverride AuthConfig Limit\n</Directory>\n<Directory ~ \"/htdocs/x\">\n    Require all granted\n</Directory>\n")
        ),
        expect![[r#"
            ## [preferred] Rewrite as Require: $ROOT/htdocs/sub/.htaccess (proven for today's .htaccess files; one written later in $ROOT/htdocs or below is merged otherwise)
            //- $ROOT/htdocs/sub/.htaccess
            Require ip 127.0.0.1
        "#]],
    );
}

#[test]
fn htaccess_under_a_root_that_allows_authconfig() {
    check_fixes(
        &format!(
            "{}//- $ROOT/htdocs/sub/.htaccess\n# keep\r\nOrder deny,allow\r\nDeny fr█om all\r\nAllow from 127.0.0.1\r\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride AuthConfig Limit\n    Require all granted\n</Directory>\n")
        ),
        expect![[r#"
            ## [preferred] Rewrite as Require: $ROOT/htdocs/sub/.htaccess (proven for today's .htaccess files; one written later in $ROOT/htdocs or below is merged otherwise)
            //- $ROOT/htdocs/sub/.htaccess
            # keep␍
            Require ip 127.0.0.1␍
        "#]],
    );
}

#[test]
fn whole_tree_migration() {
    check_migrate(
        &conf("<Directory />\n    Order deny,allow\n    Deny from all\n</Directory>\n<Directory $ROOT/htdocs>\n    Order allow,deny\n    Allow from all\n</Directory>\n<Directory $ROOT/htdocs/private>\n    Order deny,allow\n    Deny from all\n    Allow from 127.0.0.1 ::1\n    Satisfy any\n    AuthType Basic\n    AuthName x\n    AuthUserFile $ROOT/htpasswd\n    Require valid-user\n</Directory>\n<Location /server-status>\n    SetHandler server-status\n    Require local\n</Location>\n"),
        expect![[r#"
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory />
                Require all denied
            </Directory>
            <Directory $ROOT/htdocs>
                Require all granted
            </Directory>
            <Directory $ROOT/htdocs/private>
                Require ip 127.0.0.1 ::1
                Require valid-user
                AuthType Basic
                AuthName x
                AuthUserFile $ROOT/htpasswd
            </Directory>
            <Location /server-status>
                SetHandler server-status
                Require local
            </Location>
        "#]],
    );
}

#[test]
fn a_file_that_is_not_utf8_is_rewritten_only_where_its_bytes_are_clean() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let main = dir.path().join("httpd.conf");
    let text = format!(
        "# caf\u{e9} @FF@\n<Directory {d}/a>\n  Order deny,allow\n  Deny from all\n</Directory>\n<Directory {d}/b>\n  # @FE@\n  Order allow,deny\n  Allow from all\n</Directory>\n"
    );
    // @FF@ and @FE@ stand for single bytes that are not UTF-8.
    let bytes = text.replace("@FF@", "\u{1}").replace("@FE@", "\u{2}").into_bytes();
    let bytes: Vec<u8> = bytes
        .into_iter()
        .map(|b| match b {
            1 => 0xff,
            2 => 0xfe,
            b => b,
        })
        .collect();
    std::fs::create_dir_all(dir.path().join("a")).unwrap();
    std::fs::create_dir_all(dir.path().join("b")).unwrap();
    std::fs::write(&main, &bytes).unwrap();
    let ws = Workspace { main: &main, is_main: true, fs: &RealFs };
    let m = migrate(&ws, Scope::Tree, false);
    let (_, new) = &m.changed[&main];
    assert!(new.contains(&format!("<Directory {d}/a>\n  Require all denied\n</Directory>")), "{new}");
    assert!(new.contains("  Order allow,deny\n  Allow from all\n"), "{new}");
    assert_eq!(m.left.len(), 1, "{:?}", m.left);
    assert!(m.left[0].contains("bytes that are not UTF-8"), "{:?}", m.left);
    // check's warning on the file says what migrate does with it (round 13, C4: it said the
    // file would never be rewritten).
    let cfg = crate::ide::config::load(&main, &RealFs);
    let warned = cfg.problems.iter().find(|p| p.code == "not-utf8").expect("a not-utf8 warning");
    assert!(warned.message.contains("rewrites only blocks whose lines are valid UTF-8"), "{}", warned.message);
    assert!(!warned.message.contains("never"), "{}", warned.message);
}

#[test]
fn old_style_lines_no_rewrite_reaches_are_listed_as_left() {
    let t = Tree::new(
        "//- $ROOT/httpd.conf
DocumentRoot $ROOT/www
<Directory $ROOT/www>
    AllowOverride All
</Directory>
<IfModule !mod_authz_core.c>
    <Directory />
        Order allow,deny
    </Directory>
</IfModule>
<VirtualHost *:80>
    Order allow,deny
</VirtualHost>
//- $ROOT/www/.htaccess
Order deny,allow
Deny from all
<Files a/b.txt>
    Order allow,deny
    Allow from all
</Files>
",
    );
    let m = migrate(&t.ws(), Scope::Tree, false);
    // (No file name holds a slash: no request reaches <Files a/b.txt>.)
    expect![[r#"
        $ROOT/httpd.conf:11: Order: in <VirtualHost *:80>: the migration does not rewrite old-style rules here; rewrite it by hand
        $ROOT/www/.htaccess:4: Order: in <Files a/b.txt>: no request the configuration can receive reaches it, so no rewrite of it can be proven"#]].assert_eq(&t.show(&m.left.join("\n")));
    assert!(m.changed.keys().any(|p| p.ends_with("www/.htaccess")), "the top level is still rewritten");
}

#[test]
fn sections_of_an_htaccess_file_are_rewritten_with_its_top_level() {
    // httpd merges an .htaccess file's <Files> after the file's own lines, for files in its
    // directory and below; mod_access_compat's last section with rules decides.
    check_migrate(
        &format!(
            "{}//- $ROOT/htdocs/app/.htaccess\nOrder deny,allow\nDeny from all\n<Files \"public.html\">\n    Order allow,deny\n    Allow from all\n</Files>\n<IfModule mod_authz_host.c>\n  <FilesMatch \"\\.(ini|log)$\">\n    # never served\n    Order allow,deny\n    Deny from all\n  </FilesMatch>\n</IfModule>\n<Files \".ht*\">\n  <Limit GET>\n    Order allow,deny\n    Deny from all\n  </Limit>\n</Files>\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride All\n    Require all granted\n</Directory>\n")
        ),
        expect![[r#"
            //- $ROOT/htdocs/app/.htaccess
            Require all denied
            <Files "public.html">
                Require all granted
            </Files>
            <IfModule mod_authz_host.c>
              <FilesMatch "\.(ini|log)$">
                # never served
                Require all denied
              </FilesMatch>
            </IfModule>
            <Files ".ht*">
              <Limit GET>
                Require all denied
              </Limit>
              <LimitExcept GET>
                Require all granted
              </LimitExcept>
            </Files>
        "#]],
    );
}

#[test]
fn quick_fix_inside_an_htaccess_files_section() {
    check_fixes(
        &format!(
            "{}//- $ROOT/htdocs/.htaccess\n<Files \".ht*\">\n    Order allow,deny\n    Deny fr█om all\n</Files>\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride All\n    Require all granted\n</Directory>\n")
        ),
        expect![[r###"
            ## [preferred] Rewrite as Require: <Files ".ht*"> (proven for today's .htaccess files; one written later in $ROOT/htdocs or below is merged otherwise)
            //- $ROOT/htdocs/.htaccess
            <Files ".ht*">
                Require all denied
            </Files>
        "###]],
    );
}

#[test]
fn an_htaccess_files_section_keeps_the_require_of_directories_below() {
    // httpd merges htdocs/.htaccess's <Files a.txt> for every a.txt beneath htdocs, after
    // sub/.htaccess: with no Require lines it leaves `Require valid-user` in force for
    // /sub/a.txt, so its own Require lines must merge with what each directory has instead of
    // replacing it (written without AuthMerging, /sub/a.txt went 401 → 200).
    check_fixes(
        &format!(
            "{}//- $ROOT/htdocs/.htaccess\n<Files a.txt>\n    Order allow,deny\n    Allow from all\n    Deny fr█om 127.0.0.2\n</Files>\n//- $ROOT/htdocs/sub/.htaccess\nAuthType Basic\nAuthName x\nAuthUserFile $ROOT/htpasswd\nRequire valid-user\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride All\n    Require all granted\n</Directory>\n")
        ),
        expect![[r#"
            ## [preferred] Rewrite as Require: <Files a.txt> (proven for today's .htaccess files; one written later in $ROOT/htdocs or below is merged otherwise)
            //- $ROOT/htdocs/.htaccess
            <Files a.txt>
                AuthMerging And
                <RequireAll>
                  Require all granted
                  <RequireNone>
                    Require ip 127.0.0.2
                  </RequireNone>
                </RequireAll>
            </Files>
        "#]],
    );
}

#[test]
fn htaccess_conditionals_follow_the_trees_modules() {
    // The tree does not load mod_status: httpd skips the .htaccess file's <IfModule
    // mod_status.c> body (Debian's defaults would not), so nothing in it is rewritten; and
    // the file is left whole, as Require lines written beside those old-style lines would meet
    // them once mod_status is loaded (migrate/startup.rs).
    let tree = "//- $ROOT/httpd.conf\nLoadModule authz_core_module m\nLoadModule authz_host_module m\nLoadModule access_compat_module m\nDocumentRoot $ROOT/htdocs\n<Directory $ROOT/htdocs>\n    AllowOverride All\n</Directory>\n//- $ROOT/htdocs/.htaccess\n<IfModule mod_status.c>\n    Order deny,allow\n    Deny from all\n</IfModule>\n<IfModule mod_access_compat.c>\n    Order allow,deny\n    Allow from all\n</IfModule>\n";
    check_migrate(
        tree,
        expect![[r#"
            left: $ROOT/htdocs/.htaccess:1: $ROOT/htdocs/.htaccess: its access line 2 sits inside <IfModule mod_status.c> (line 1), whose test depends on the modules httpd loads: the proof holds for this configuration as httpd starts with it, and a rewrite would answer otherwise once the test turns; rewrite it by hand
            left: $ROOT/htdocs/.htaccess:2: Order: inside <IfModule mod_status.c>, which httpd skips with this configuration, so no rewrite of it can be proven; rewrite or remove it by hand
            left: $ROOT/htdocs/.htaccess:5: <IfModule mod_access_compat.c>: httpd reads the lines in it (Order, Allow) only while mod_access_compat is loaded and drops them once it is unloaded; move them out of the block, or remove it, by hand
        "#]],
    );
}

#[test]
fn a_skipped_conditional_is_named_not_the_one_nested_in_it() {
    let left = unaccounted_old_style(
        "<IfModule !mod_authz_core.c>\n<IfModule mod_access_compat.c>\nOrder allow,deny\n</IfModule>\n</IfModule>\n",
        // Both bodies are skipped: the outer one decides.
        &[TextRange::new(28.into(), 92.into()), TextRange::new(60.into(), 78.into())],
        |_| false,
    );
    expect![[r#"
        [
            (
                3,
                "Order: inside <IfModule !mod_authz_core.c>, which httpd skips with this configuration, so no rewrite of it can be proven; rewrite or remove it by hand",
            ),
        ]
    "#]].assert_debug_eq(&left);
}

#[test]
fn dead_22_branches_are_removed_and_the_24_branch_kept() {
    check_migrate(
        &format!(
            "{}//- $ROOT/htdocs/.htaccess\n<IfModule mod_authz_core.c>\n    Require all denied\n</IfModule>\n<IfModule !mod_authz_core.c>\n    Order allow,deny\n    Deny from all\n</IfModule>\n<Files \"*.ini\">\n  <IfVersion < 2.3>\n    Order allow,deny\n    Deny from all\n  </IfVersion>\n  <IfVersion >= 2.3>\n    Require all denied\n  </IfVersion>\n</Files>\n<IfModule mod_ssl.c>\n    Order allow,deny\n</IfModule>\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride All\n    <IfModule !mod_authz_core.c>\n        Order allow,deny\n        Allow from all\n    </IfModule>\n    <IfModule mod_authz_core.c>\n        Require all granted\n    </IfModule>\n</Directory>\n")
        ),
        expect![[r#"
            //- $ROOT/htdocs/.htaccess
            <IfModule mod_authz_core.c>
                Require all denied
            </IfModule>
            <Files "*.ini">
              <IfVersion >= 2.3>
                Require all denied
              </IfVersion>
            </Files>
            <IfModule mod_ssl.c>
                Order allow,deny
            </IfModule>
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                AllowOverride All
                <IfModule mod_authz_core.c>
                    Require all granted
                </IfModule>
            </Directory>
            left: $ROOT/htdocs/.htaccess:18: Order: inside <IfModule mod_ssl.c>, which httpd skips with this configuration, so no rewrite of it can be proven; rewrite or remove it by hand
        "#]],
    );
}

#[test]
fn quick_fix_removes_a_dead_22_branch() {
    check_fixes(
        &conf("<Directory $ROOT/htdocs>\n    <IfVersion < 2.3>\n        Order allow,deny\n        Allow fr█om all\n    </IfVersion>\n    <IfVersion >= 2.3>\n        Require all granted\n    </IfVersion>\n</Directory>\n"),
        expect![[r#"
            ## [preferred] Remove the dead 2.2 branch <IfVersion < 2.3> (httpd 2.4 skips it)
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                <IfVersion >= 2.3>
                    Require all granted
                </IfVersion>
            </Directory>
        "#]],
    );
}

/// Two pattern sections meet where both apply: `/sub/deeper` under `<DirectoryMatch "/deeper">`
/// and `<DirectoryMatch "/sub">`, or a wildcard filled with a name another section gives. There
/// httpd merges both, so the later one's Require replaces the rewritten one's: the proof must ask
/// there, and refuse. (A rewrite here once let 127.0.0.2 in; httpd confirmed it.)
#[test]
fn pattern_sections_are_proven_where_they_meet() {
    let old = "  Order deny,allow\n  Deny from 127.0.0.2\n";
    let later = "  Require ip 127.0.0.1 127.0.0.2\n";
    for (first, second) in [
        ("<DirectoryMatch \"/deeper\">", "<DirectoryMatch \"/sub\">"),
        ("<Directory $ROOT/htdocs/*/deeper>", "<DirectoryMatch \"sub\">"),
    ] {
        let close = |open: &str| if open.starts_with("<DirectoryMatch") { "</DirectoryMatch>" } else { "</Directory>" };
        let t = Tree::new(&conf(&format!("{first}\n{old}{}\n{second}\n{later}{}\n", close(first), close(second))));
        let m = migrate(&t.ws(), Scope::Tree, false);
        assert!(m.changed.is_empty(), "{first} then {second}: rewritten:\n{}", t.after(&m.edits));
        assert!(
            m.left.iter().any(|l| l.contains("would change access") && l.contains("from 127.0.0.2")),
            "{first} then {second}: {:?}",
            m.left
        );
    }
}

/// A regex `<Directory>` is matched against the whole file name: `\.txt$` governs files, and its
/// rewrite is proven on them.
#[test]
fn a_directory_regex_naming_files_is_rewritten() {
    check_migrate(
        &conf("<DirectoryMatch \"\\.txt$\">\n  Order deny,allow\n  Deny from 127.0.0.2\n</DirectoryMatch>\n"),
        expect![[r#"
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <DirectoryMatch "\.txt$">
              <RequireAll>
                Require all granted
                <RequireNone>
                  Require ip 127.0.0.2
                </RequireNone>
              </RequireAll>
            </DirectoryMatch>
        "#]],
    );
}

/// A body left because its rules would have to be carried into a later section's Require lines
/// names that section: the URLs the refusal cites are reached through it, not through the body.
/// A request the proof cannot decide is not called a change.
#[test]
fn refusals_name_the_section_a_carry_would_change() {
    let t = Tree::new(&conf(
        "<Directory $ROOT/htdocs>\n  Require all granted\n</Directory>\n<LocationMatch \"^/sub/(a|b)\\.txt$\">\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.2\n</LocationMatch>\n<Location /sub>\n  Require ip 127.0.0.1 127.0.0.2\n</Location>\n",
    ));
    let m = migrate(&t.ws(), Scope::Tree, false);
    assert!(m.changed.is_empty(), "rewritten:\n{}", t.after(&m.edits));
    let left = m.left.iter().find(|l| l.contains("<LocationMatch")).expect("the LocationMatch is left");
    assert!(left.contains("carried into") && left.contains("<Location /sub>"), "{left}");
    assert!(!left.contains("the rewrite would change access"), "{left}");

    let t = Tree::new(&conf(
        "<Directory $ROOT/htdocs>\n  Require all granted\n</Directory>\n<If \"%{REQUEST_URI} =~ /secret/\">\n  Require all denied\n</If>\n<LocationMatch \"^/sub/(a|b)\\.txt$\">\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.2\n</LocationMatch>\n",
    ));
    let m = migrate(&t.ws(), Scope::Tree, false);
    let left = m.left.iter().find(|l| l.contains("<LocationMatch")).expect("the LocationMatch is left");
    assert!(left.contains("the proof cannot decide") && !left.contains("would change access"), "{left}");
}

/// A server-level `<FilesMatch>` with Satisfy any meets a `<LocationMatch>` regex wherever the
/// regex reaches a file it names (/sub/deeper/a.txt for `^/sub/d`), where httpd merges the
/// Location's Require after it: dropping Satisfy any let that Require decide (black-box round
/// 10 bug 1: 200 → 403 from 127.0.0.2). The FilesMatch is left, naming the change.
#[test]
fn a_files_pattern_is_proven_where_a_location_regex_reaches_its_names() {
    check_migrate(
        &conf(
            "<Directory />\n  Require all granted\n</Directory>\n<FilesMatch \"\\.(txt|php)$\">\n  Allow from 127.0\n  Deny from 127.0.0\n  Satisfy any\n  AuthType Basic\n  AuthName area\n  AuthUserFile $ROOT/htpasswd\n  Require user alice\n</FilesMatch>\n<LocationMatch \"^/sub/d\">\n  <RequireAll>\n    Require all granted\n    Require not ip 127.0.0.2\n  </RequireAll>\n</LocationMatch>\n",
        ),
        expect![[r#"
            left: $ROOT/httpd.conf:13: <FilesMatch "\.(txt|php)$">: its rules would also have to be carried into the Require lines of sections it shares requests with, and that would change access there: <LocationMatch "^/sub/d"> ($ROOT/httpd.conf:22): /sub/d from 127.0.0.2 (anonymous): 403 → 200
        "#]],
    );
}

/// A server-level `<Files>` section is asked in every directory the other sections name, however
/// many come before them in name order: here /sub/, where the `<Directory>`'s Require all
/// denied decides only while the Files section's Satisfy All stands (round 10 bug 2, random
/// tree 849: the rewrite to `Require valid-user` took /sub/a.txt 403 → 401/200; the proof had
/// asked a.txt in the first eight directories only).
#[test]
fn a_server_files_section_is_asked_in_every_named_directory() {
    check_migrate(
        &conf(
            "<Directory />\n  Order deny,allow\n  Allow from all\n  Satisfy any\n  AuthType Basic\n  AuthName area\n  AuthUserFile $ROOT/htpasswd\n  Require valid-user\n</Directory>\n<Files \"a.txt\">\n  Order deny,allow\n  Allow from 127.0.0.0/30\n  Satisfy All\n</Files>\n<Directory $ROOT/htdocs/a1>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a2>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a3>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a4>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a5>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a6>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a7>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a8>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/sub>\n  Require all denied\n</Directory>\n",
        ),
        expect![[r#"
            left: $ROOT/httpd.conf:10: <Directory />: the rewrite would change access: /a.txt/ from any other client, clients in 127.0.0.0/30 (anonymous): 401 → 200, /a.txt/ from any other client, clients in 127.0.0.0/30 (wrong password): 401 → 200
            left: $ROOT/httpd.conf:19: <Files "a.txt">: the rewrite would change access: /a.txt/ from any other client, clients in 127.0.0.0/30 (anonymous): 401 → 200, /a.txt/ from any other client, clients in 127.0.0.0/30 (wrong password): 401 → 200, /sub/a.txt from any other client, clients in 127.0.0.0/30 (anonymous): 403 → 200 and 2 more
        "#]],
    );
}

/// The same for a `<Files "*.php">` with Satisfy any, left old-style: while it stands, rewriting
/// `<Directory sub>` (Order Allow,Deny without Allow) to Require all denied refuses /sub/a.php,
/// which the Files section's Satisfy any let through before (round 10 bug 3, random tree 661:
/// 200 → 403 from ::1).
#[test]
fn a_directory_is_proven_with_a_server_files_section_left_old_style() {
    check_migrate(
        &conf(
            "<Directory />\n  AllowOverride None\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a1>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a2>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a3>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a4>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a5>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a6>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a7>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/a8>\n  Require all granted\n</Directory>\n<Directory $ROOT/htdocs/sub>\n  Order Allow,Deny\n  Satisfy All\n  <Limit POST>\n    Require ip 127.0.0.2 ::1\n  </Limit>\n</Directory>\n<Files \"*.php\">\n  Order deny,allow\n  Deny from all\n  Satisfy any\n</Files>\n",
        ),
        expect![[r#"
            left: $ROOT/httpd.conf:45: <Files "*.php">: the rewrite would change access: GET /sub/x.php from any other client, 127.0.0.2, ::1 (anonymous): 200 → 403, POST /sub/x.php from 127.0.0.2, ::1 (anonymous): 200 → 403, PUT /sub/x.php from any other client, 127.0.0.2, ::1 (anonymous): 200 → 403
            left: $ROOT/httpd.conf:38: <Directory $ROOT/htdocs/sub>: the rewrite would change access: GET /sub/x.php from any other client, 127.0.0.2, ::1 (anonymous): 200 → 403, POST /sub/x.php from 127.0.0.2, ::1 (anonymous): 200 → 403, PUT /sub/x.php from any other client, 127.0.0.2, ::1 (anonymous): 200 → 403
        "#]],
    );
}

/// A `<LocationMatch>` meets a plain `<Location>` below its own witness (`/c150/sub/index`, which
/// neither section's URL gives): its per-method Satisfy combines there with the Location's Require
/// lines. A rewrite proven without asking there let PUT through (403 → 405 on httpd, found by
/// migrate_generated with seed 24112026).
#[test]
fn a_location_pattern_is_proven_where_it_meets_a_location() {
    let t = Tree::new(&conf(
        "<Location /c150/sub>\n    <RequireAny>\n        Require method POST\n    </RequireAny>\n    Require env GEN_POST IS_TWO\n</Location>\n<LocationMatch \"/c150/.*index\">\n    Order deny,allow\n    <LimitExcept POST PUT>\n        Satisfy any\n    </LimitExcept>\n</LocationMatch>\n",
    ));
    let m = migrate(&t.ws(), Scope::Tree, false);
    assert!(m.changed.is_empty(), "rewritten:\n{}", t.after(&m.edits));
    assert!(m.left.iter().any(|l| l.contains("<LocationMatch \"/c150/.*index\">")), "{:?}", m.left);
}

/// A `<Location>` path that is no directory here may be one on the server, or become one: then
/// a server-level `<Files>` section applies to the files asked for below it and merges before
/// the Location. With the Files section's lines left old-style (they come from an included
/// file), a Location rewritten to Require lines no longer has the last word on its old-style
/// rules there (httpd, `migrate_httpd::location_paths_that_become_directories_later`:
/// /admin/composer.json from 127.0.0.1 200 → 403 once htdocs/admin/ exists).
#[test]
fn a_location_path_is_proven_as_a_directory_files_sections_apply_in() {
    let body = "<Directory $ROOT/htdocs>\n  Require all granted\n</Directory>\n<Location /admin>\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.1\n</Location>\n<Files \"composer.json\">\n  Include $ROOT/deny.inc\n</Files>\n";
    let tree = format!("{}//- $ROOT/deny.inc\nOrder allow,deny\nDeny from all\n", conf(body));
    check_fixes(
        &tree.replace("<Location /admin>", "<Location /ad█min>"),
        expect![[r###"
            ## Cannot rewrite <Location /admin> as Require without changing access: <Files "composer.json"> ($ROOT/httpd.conf:18): some of its access lines come from an included file
            ## Rewrite <Location /admin> as the upgrade guide intends (changes access: /admin/composer.json from 127.0.0.1 once /admin/ is a directory (anonymous): 200 → 403)
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
              Require all granted
            </Directory>
            <Location /admin>
              Require ip 127.0.0.1
            </Location>
            <Files "composer.json">
              Include $ROOT/deny.inc
            </Files>
        "###]],
    );
    // Where the Files section is rewritten with it, the Location is too.
    let t = Tree::new(&conf(&body.replace("  Include $ROOT/deny.inc\n", "  Order allow,deny\n  Deny from all\n")));
    let m = migrate(&t.ws(), Scope::Tree, false);
    assert!(m.left.is_empty(), "{:?}", m.left);
    let after = t.after(&m.edits);
    assert!(after.contains("<Location /admin>\n  Require ip 127.0.0.1\n</Location>"), "{after}");
    assert!(after.contains("<Files \"composer.json\">\n  Require all denied\n</Files>"), "{after}");
}

/// Two Locations left for the same old-style `<Files>` section: each is told the request below
/// its own path that shows it.
#[test]
fn each_location_left_names_the_file_below_its_own_path() {
    let body = "<Directory $ROOT/htdocs>\n  Order deny,allow\n  Allow from all\n</Directory>\n<Location /admin>\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.1\n</Location>\n<Location /upload>\n  Order deny,allow\n  Deny from all\n  Allow from 127.0.0.2\n</Location>\n<FilesMatch \"\\.bak$\">\n  Include $ROOT/deny.inc\n</FilesMatch>\n";
    let t = Tree::new(&format!("{}//- $ROOT/deny.inc\nOrder allow,deny\nDeny from all\n", conf(body)));
    let m = migrate(&t.ws(), Scope::Tree, false);
    for (at, below) in [("<Location /admin>", "/admin/"), ("<Location /upload>", "/upload/")] {
        let left = m.left.iter().find(|l| l.contains(at)).unwrap_or_else(|| panic!("{at} rewritten: {:?}", m.left));
        assert!(left.contains(&format!("once {below} is a directory")), "{left}");
    }
}

#[test]
fn an_htaccess_read_alone_gets_no_rewrite_called_behaviour_preserving() {
    // With no root configuration, what the file inherits (a `Require valid-user` with its
    // AuthType in the server's <Directory>) and its AllowOverride are unknown: httpd answers
    // 401 for 127.0.0.2 here under such a root, and `Require all granted` (what the proof finds
    // alone) would answer 200. Nothing is rewritten, and the quick fixes say why.
    let fixture = "//- $ROOT/htdocs/sub/.htaccess\nOrder deny,allow\nDeny fr█om all\nAllow from 127.0.0.1\nSatisfy Any\n<IfModule !mod_authz_core.c>\n    Order allow,deny\n</IfModule>\n";
    let t = Tree::new(fixture);
    for scope in [Scope::Tree, Scope::File(&t.files[0].0)] {
        let m = migrate(&t.ws(), scope, false);
        assert!(m.edits.is_empty() && m.changed.is_empty(), "{:?}", m.edits);
        expect![[r#"
            $ROOT/htdocs/sub/.htaccess:1: $ROOT/htdocs/sub/.htaccess: no root configuration names this .htaccess file, so what it inherits from the server configuration is not known: a rewrite may drop an inherited Require or AuthType (opening password-protected content), and whether AllowOverride allows AuthConfig (which Require lines need, else every request is a 500) is not known either; open it in a workspace holding the main configuration, or set rootConfig
            $ROOT/htdocs/sub/.htaccess:6: Order: inside <IfModule !mod_authz_core.c>, which httpd skips with this configuration, so no rewrite of it can be proven; rewrite or remove it by hand"#]]
        .assert_eq(&t.show(&m.left.join("\n")));
        assert!(m.notes.iter().any(|n| n.contains("nothing in it is rewritten")), "{:?}", m.notes);
    }
    let (path, at) = t.cursor.clone().unwrap();
    let fixes = quick_fixes(&t.ws(), &path, TextRange::empty(at.into()));
    assert!(!fixes.is_empty());
    for f in &fixes {
        assert!(!f.preferred, "{}", f.title);
        assert!(f.title.contains("not proven") && f.title.contains("inherited Require or AuthType"), "{}", f.title);
    }
    let whole = TextRange::new(0.into(), (t.files[0].1.len() as u32).into());
    let dead = quick_fixes(&t.ws(), &path, whole);
    let removal = dead.iter().find(|f| f.title.starts_with("Remove the 2.2 branch")).expect("the dead-branch removal");
    assert!(!removal.preferred && removal.title.contains("not proven"), "{}", removal.title);
}

#[test]
fn an_htaccess_under_its_root_still_gets_the_proven_rewrite() {
    // The same file under the root that serves it: the inherited Require is kept.
    let t = Tree::new(&conf("<Directory $ROOT/htdocs>\n    AllowOverride AuthConfig Limit\n    AuthType Basic\n    AuthName x\n    AuthUserFile $ROOT/htpasswd\n    Require valid-user\n</Directory>\n//- $ROOT/htdocs/sub/.htaccess\nOrder deny,allow\nDeny from all\nAllow from 127.0.0.1\nSatisfy Any\n"));
    let ht = t.files[1].0.clone();
    let m = migrate(&t.ws(), Scope::File(&ht), false);
    expect![[r#"
        //- $ROOT/htdocs/sub/.htaccess
        Require ip 127.0.0.1
        Require valid-user
    "#]]
    .assert_eq(&t.after(&m.edits));
}

/// A fragment read without the main configuration that includes it: that configuration's
/// sections apply with its own (an inherited `Require valid-user`, a `<Location />` merged after
/// its `<Directory>`), so what the proof finds alone is not proven under the server. Nothing is
/// rewritten, the quick fixes say so and are not preferred.
#[test]
fn a_fragment_read_alone_gets_no_rewrite_called_behaviour_preserving() {
    let t = Tree::new("//- $ROOT/sites/site.conf\n<Directory $ROOT/htdocs>\n    Order deny,allow\n    Deny fr█om all\n    Allow from 127.0.0.1\n</Directory>\n");
    let ws = Workspace { main: &t.files[0].0, is_main: false, fs: &RealFs };
    let m = migrate(&ws, Scope::Tree, false);
    assert!(m.edits.is_empty(), "{}", t.after(&m.edits));
    assert!(m.left.iter().any(|l| l.contains("read without the main configuration")), "{:?}", m.left);
    assert!(m.notes.iter().any(|n| n.contains("nothing in it is rewritten")), "{:?}", m.notes);
    let (path, at) = t.cursor.clone().unwrap();
    let fixes = quick_fixes(&ws, &path, TextRange::empty(at.into()));
    assert!(!fixes.is_empty());
    assert!(
        fixes.iter().all(|f| !f.preferred && f.title.contains("not proven")),
        "{:?}",
        fixes.iter().map(|f| &f.title).collect::<Vec<_>>()
    );
    // With --allow-changes, the guide's rewrite, as for an .htaccess file read alone.
    assert!(!migrate(&ws, Scope::Tree, true).edits.is_empty());
}

/// An .htaccess file that begins with a byte-order mark: httpd reads `\xef\xbb\xbfOrder`, an
/// invalid command, and answers 500 to every request; no rewrite of it is offered or made.
const BOM_HTACCESS: &str = "//- $ROOT/htdocs/sub/.htaccess\n\u{feff}Order deny,allow\r\nDeny fr█om 127.0.0.2\r\n";

fn bom_tree() -> String {
    format!(
        "{}{BOM_HTACCESS}",
        conf("<Directory $ROOT/htdocs>\n    AllowOverride All\n    Require all granted\n</Directory>\n")
    )
}

#[test]
fn a_file_beginning_with_a_byte_order_mark_is_not_rewritten() {
    check_fixes(
        &bom_tree(),
        expect![[r#"
            ## Cannot rewrite $ROOT/htdocs/sub/.htaccess as Require: it has lines in a file that begins with a UTF-8 byte-order mark, which httpd reads as part of the first directive's name (Invalid command '\xef\xbb\xbfOrder'), so it evaluates nothing in that file: httpd answers 500 to every request this .htaccess file applies to; remove the byte-order mark first (migrate --remove-bom, or the editor's quick fix), which changes what httpd does
        "#]],
    );
    check_migrate(
        &bom_tree().replace('█', ""),
        expect![[r#"
        left: $ROOT/htdocs/sub/.htaccess:1: $ROOT/htdocs/sub/.htaccess: it has lines in a file that begins with a UTF-8 byte-order mark, which httpd reads as part of the first directive's name (Invalid command '\xef\xbb\xbfOrder'), so it evaluates nothing in that file: httpd answers 500 to every request this .htaccess file applies to; remove the byte-order mark first (migrate --remove-bom, or the editor's quick fix), which changes what httpd does
    "#]],
    );
}

#[test]
fn migrate_removing_the_byte_order_mark_rewrites_the_file_as_httpd_will_read_it() {
    let t = Tree::new(&bom_tree().replace('█', ""));
    let m = migrate_removing_bom(&t.ws(), Scope::Tree, false);
    let mut out = t.after(&m.edits);
    assert_eq!(m.changed.len(), 1);
    for (p, (old, new)) in &m.changed {
        // The text as it was (what --write checks the disk against), and the edits apply to it.
        assert!(old.starts_with('\u{feff}') && !new.contains('\u{feff}'));
        assert_eq!(apply(old, &m.edits.iter().filter(|e| *e.path == **p).collect::<Vec<_>>()), *new);
    }
    out.extend(m.left.iter().map(|l| format!("left: {}\n", t.show(l))));
    out.extend(m.changes.iter().map(|c| format!("change: {}\n", t.show(c))));
    expect![[r#"
        //- $ROOT/htdocs/sub/.htaccess
        <RequireAll>␍
          Require all granted␍
          <RequireNone>␍
            Require ip 127.0.0.2␍
          </RequireNone>␍
        </RequireAll>␍
        change: $ROOT/htdocs/sub/.htaccess: removed the UTF-8 byte-order mark it began with: httpd read it as part of the first directive's name and refused the file; it now reads the file
    "#]].assert_eq(&out);
}

/// A file mixing CRLF and LF: each replaced line keeps its own ending where the block has as many
/// lines as it replaces, else the first replaced line's; a file without a final line break gets none.
#[test]
fn rewritten_lines_keep_the_file_s_own_line_endings() {
    // Lines that become fewer or more take the first one's ending (LF, CRLF, LF); one line that
    // becomes one keeps its own (LF, in a section of CRLF lines).
    check_migrate(
        &conf("<Directory $ROOT/htdocs/c>\r\n    Allow from all\n</Directory>\r\n<Directory $ROOT/htdocs>\r\n    Order allow,deny\n    Allow from 127.0.0.1\r\n</Directory>\r\n<Directory $ROOT/htdocs/a>\r\n    Order deny,allow\r\n    Deny from all\n    Allow from 127.0.0.2\n</Directory>\n<Directory $ROOT/htdocs/b>\n    Order deny,allow\n    Deny from 127.0.0.3\r\n</Directory>"),
        expect![[r#"
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs/c>␍
                Require all granted
            </Directory>␍
            <Directory $ROOT/htdocs>␍
                Require ip 127.0.0.1
            </Directory>␍
            <Directory $ROOT/htdocs/a>␍
                Require ip 127.0.0.2␍
            </Directory>
            <Directory $ROOT/htdocs/b>
                <RequireAll>
                  Require all granted
                  <RequireNone>
                    Require ip 127.0.0.3
                  </RequireNone>
                </RequireAll>
            </Directory>"#]],
    );
}

/// The last lines of a file without a final line break: the rewrite ends the file as it was.
#[test]
fn a_file_without_a_final_line_break_gets_none() {
    let tree = |ht: &str| {
        format!(
            "{}//- $ROOT/htdocs/sub/.htaccess\n{ht}",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride All\n    Require all granted\n</Directory>\n")
        )
    };
    // The block replaces the first line; the last one, deleted, took the file's end.
    check_migrate(
        &tree("Order deny,allow\r\nDeny from 127.0.0.2"),
        expect![[r#"
        //- $ROOT/htdocs/sub/.htaccess
        <RequireAll>␍
          Require all granted␍
          <RequireNone>␍
            Require ip 127.0.0.2␍
          </RequireNone>␍
        </RequireAll>"#]],
    );
    // A kept line between: the deletion takes that line's break.
    check_migrate(
        &tree("Order deny,allow\n# keep\nDeny from 127.0.0.2"),
        expect![[r#"
        //- $ROOT/htdocs/sub/.htaccess
        <RequireAll>
          Require all granted
          <RequireNone>
            Require ip 127.0.0.2
          </RequireNone>
        </RequireAll>
        # keep"#]],
    );
    // The block is the last line itself.
    check_migrate(
        &tree("# keep\r\nDeny from 127.0.0.2"),
        expect![[r#"
        //- $ROOT/htdocs/sub/.htaccess
        # keep␍
        <RequireAll>␍
          Require all granted␍
          <RequireNone>␍
            Require ip 127.0.0.2␍
          </RequireNone>␍
        </RequireAll>"#]],
    );
}

/// Two Listen addresses on one port and the virtual hosts set for them (round 7, bug 1).
const LISTENS: &str = "Listen 127.0.0.1:8080\nListen [::1]:8080\n";
const AUTH_ALICE: &str = "    AuthType Basic\n    AuthName x\n    AuthUserFile $ROOT/users\n    Require user alice\n";

#[test]
fn the_main_server_answering_an_address_no_virtual_host_takes_is_proven_too() {
    // Only 127.0.0.1:8080 has a virtual host, so httpd gives connections to [::1]:8080 to the
    // main server, where <Directory sub> inherits `Require user alice`: `Require all granted`
    // alone would open it. The inherited rule is carried in.
    check_migrate(
        &conf(&format!("{LISTENS}<Directory $ROOT/htdocs>\n{AUTH_ALICE}</Directory>\n<Directory $ROOT/htdocs/sub>\n    Order deny,allow\n    Allow from all\n</Directory>\n<VirtualHost 127.0.0.1:8080>\n    ServerName a.test\n    <Location />\n        Require all granted\n    </Location>\n</VirtualHost>\n")),
        expect![[r#"
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            Listen 127.0.0.1:8080
            Listen [::1]:8080
            <Directory $ROOT/htdocs>
                AuthType Basic
                AuthName x
                AuthUserFile $ROOT/users
                Require user alice
            </Directory>
            <Directory $ROOT/htdocs/sub>
                Require user alice
            </Directory>
            <VirtualHost 127.0.0.1:8080>
                ServerName a.test
                <Location />
                    Require all granted
                </Location>
            </VirtualHost>
        "#]],
    );
}

#[test]
fn a_star_virtual_host_beside_one_for_an_address_answers_the_other_addresses() {
    // [::1]:8080 goes to the `*` host (no host is set for ::1), 127.0.0.1:8080 to b.test: both
    // are proven, and a.test's <Location> is reached.
    check_migrate(
        &conf(&format!("{LISTENS}<Directory $ROOT/htdocs>\n{AUTH_ALICE}</Directory>\n<Directory $ROOT/htdocs/sub>\n    Order deny,allow\n    Allow from all\n</Directory>\n<VirtualHost *:8080>\n    ServerName a.test\n    <Location /private>\n        Order allow,deny\n        Allow from all\n    </Location>\n</VirtualHost>\n<VirtualHost 127.0.0.1:8080>\n    ServerName b.test\n    <Location />\n        Require all granted\n    </Location>\n</VirtualHost>\n")),
        expect![[r#"
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            Listen 127.0.0.1:8080
            Listen [::1]:8080
            <Directory $ROOT/htdocs>
                AuthType Basic
                AuthName x
                AuthUserFile $ROOT/users
                Require user alice
            </Directory>
            <Directory $ROOT/htdocs/sub>
                Require user alice
            </Directory>
            <VirtualHost *:8080>
                ServerName a.test
                <Location /private>
                    Require user alice
                </Location>
            </VirtualHost>
            <VirtualHost 127.0.0.1:8080>
                ServerName b.test
                <Location />
                    Require all granted
                </Location>
            </VirtualHost>
        "#]],
    );
}

#[test]
fn a_listen_on_every_address_leaves_the_unnamed_ones_to_the_main_server() {
    // `Listen 8080` accepts connections on every address; the host takes only 127.0.0.1's.
    check_migrate(
        &conf(&format!("Listen 8080\n<Directory $ROOT/htdocs>\n{AUTH_ALICE}</Directory>\n<Directory $ROOT/htdocs/sub>\n    Order deny,allow\n    Allow from all\n</Directory>\n<VirtualHost 127.0.0.1:8080>\n    <Location />\n        Require all granted\n    </Location>\n</VirtualHost>\n")),
        expect![[r#"
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            Listen 8080
            <Directory $ROOT/htdocs>
                AuthType Basic
                AuthName x
                AuthUserFile $ROOT/users
                Require user alice
            </Directory>
            <Directory $ROOT/htdocs/sub>
                Require user alice
            </Directory>
            <VirtualHost 127.0.0.1:8080>
                <Location />
                    Require all granted
                </Location>
            </VirtualHost>
        "#]],
    );
}

#[test]
fn an_htaccess_read_by_two_servers_is_proven_under_each() {
    // The host's own <Directory> asks for alice; the main server (on [::1]) asks for nothing
    // and has no AuthType there: a Require user carried into the .htaccess file would answer
    // the main server's requests with 500 (seed 207).
    check_migrate(
        &format!(
            "{}//- $ROOT/htdocs/sub/.htaccess\nOrder allow,deny\nAllow from all\n",
            conf(&format!("{LISTENS}<Directory $ROOT/htdocs>\n    AllowOverride All\n    Require all granted\n</Directory>\n<VirtualHost 127.0.0.1:8080>\n    ServerName a.test\n    <Directory $ROOT/htdocs>\n{AUTH_ALICE}    </Directory>\n</VirtualHost>\n"))
        ),
        expect![[r#"
            //- $ROOT/htdocs/sub/.htaccess
            AuthMerging And
            Require all granted
        "#]],
    );
}

#[test]
fn require_lines_are_never_written_inside_a_mod_access_compat_guard() {
    // Unloading the module (the point of migrating) would drop them (round 7, bug 3): they go
    // before the guard, and a guard left holding nothing goes whole.
    check_migrate(
        &conf("<Directory $ROOT/htdocs>\n    <IfModule mod_access_compat.c>\n        # old rules\n        Order deny,allow\n        Deny from 127.0.0.2\n    </IfModule>\n</Directory>\n<Directory $ROOT/htdocs/sub>\n    Options None\n    <IfModule access_compat_module>\n        <IfModule mod_authz_host.c>\n            Order allow,deny\n            Allow from 127.0.0.1\n        </IfModule>\n    </IfModule>\n</Directory>\n<Directory $ROOT/htdocs/keep>\n    <IfModule mod_access_compat.c>\n        Order allow,deny\n        Allow from all\n        DirectoryIndex start.html\n    </IfModule>\n</Directory>\n"),
        expect![[r#"
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                <RequireAll>
                  Require all granted
                  <RequireNone>
                    Require ip 127.0.0.2
                  </RequireNone>
                </RequireAll>
            </Directory>
            <Directory $ROOT/htdocs/sub>
                Options None
                Require ip 127.0.0.1
            </Directory>
            <Directory $ROOT/htdocs/keep>
                Require all granted
                <IfModule mod_access_compat.c>
                    DirectoryIndex start.html
                </IfModule>
            </Directory>
            left: $ROOT/httpd.conf:27: <IfModule mod_access_compat.c>: httpd reads the lines in it (DirectoryIndex) only while mod_access_compat is loaded and drops them once it is unloaded; move them out of the block, or remove it, by hand
        "#]],
    );
}

#[test]
fn a_guard_for_the_module_being_absent_is_left_with_its_reason() {
    // httpd skips the `!` block while mod_access_compat is loaded and reads it once it is not:
    // what the tree then does is not what was proven.
    check_migrate(
        &conf("<Directory $ROOT/htdocs>\n    <IfModule mod_access_compat.c>\n        Order allow,deny\n        Allow from all\n    </IfModule>\n    <IfModule !mod_access_compat.c>\n        Require ip 127.0.0.1\n    </IfModule>\n</Directory>\n"),
        expect![[r#"
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                Require all granted
                <IfModule !mod_access_compat.c>
                    Require ip 127.0.0.1
                </IfModule>
            </Directory>
            left: $ROOT/httpd.conf:15: <IfModule !mod_access_compat.c>: httpd skips the lines in it (Require) while mod_access_compat is loaded and reads them once it is unloaded, so what the tree does without the module is not what the migration proved; merge them with the rules beside it, or remove the block, by hand
        "#]],
    );
}

#[test]
fn an_htaccess_files_section_is_proven_under_a_location_pattern() {
    // httpd merges htdocs/.htaccess's <Files a.txt> (which replaces the Allow list) for
    // /sub/deeper/a.txt, then the <LocationMatch>: folding the .htaccess's top-level Allow
    // list into the LocationMatch's Require refused /sub/deeper/a.txt to 127.0.0.1 (200 → 403).
    check_migrate(
        &format!(
            "{}//- $ROOT/htdocs/.htaccess\nOrder allow,deny\nAllow from 127.0.0.3\n<Files a.txt>\n  Allow from 127.0.0.1 ::1\n</Files>\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride All\n    Require all granted\n</Directory>\n<LocationMatch \"^/sub/d\">\n    Require local\n</LocationMatch>\n")
        ),
        expect![[r#"
            //- $ROOT/htdocs/.htaccess
            Require ip 127.0.0.3
            <Files a.txt>
              Require all granted
            </Files>
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                AllowOverride All
                Require all granted
            </Directory>
            <LocationMatch "^/sub/d">
                AuthMerging And
                Require local
            </LocationMatch>
        "#]],
    );
}

#[test]
fn a_server_files_section_is_proven_under_an_alias() {
    // The host's <Location /> replaces the <FilesMatch>'s Order/Deny for its requests; only
    // under /al (the document root's .htaccess is broken: 500 everywhere) does rewriting either
    // change anything, and the proof must ask there (it did not: both were rewritten and
    // POST /al/x.txt went 401 → 403).
    check_migrate(
        &format!(
            "{}//- $ROOT/htdocs/.htaccess\nNoSuchDirective here\n//- $ROOT/other/x.txt\nx\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride AuthConfig\n</Directory>\n<FilesMatch \"\\.txt$\">\n    AuthType Basic\n    AuthName x\n    AuthUserFile $ROOT/htpasswd\n    Require valid-user\n    <LimitExcept PUT DELETE>\n        Order allow,deny\n        Deny from ::1\n    </LimitExcept>\n</FilesMatch>\n<VirtualHost 127.0.0.1:80>\n    ServerName b.test\n    Alias /al $ROOT/other\n    <Location />\n        Order deny,allow\n        Deny from 127.0.0.2\n    </Location>\n</VirtualHost>\n")
        ),
        expect![[r#"
            left: $ROOT/httpd.conf:13: <FilesMatch "\.txt$">: the rewrite would change access: GET /al/.txt on b.test from any other client (anonymous): 401 → 403, GET /al/.txt on b.test from any other client (user someone-unnamed): 200 → 403, GET /al/.txt on b.test from any other client (wrong password): 401 → 403 and 3 more
            left: $ROOT/httpd.conf:26: <Location />: the rewrite would change access: GET /al/.txt on b.test from any other client (anonymous): 401 → 403, GET /al/.txt on b.test from any other client (user someone-unnamed): 200 → 403, GET /al/.txt on b.test from any other client (wrong password): 401 → 403 and 3 more
        "#]],
    );
}

#[test]
fn a_root_directory_denial_is_proven_under_a_host_alias() {
    // The 1 000-vhost bench tree's shape: under /media/ no section but <Directory /> has
    // Order/Deny, so it refuses there (403); rewritten, the later Require all granted on $ROOT
    // replaces its Require all denied (httpd: 200). Only the alias leads there; the denial is
    // carried into <Directory $ROOT> instead.
    check_migrate(
        &format!(
            "{}//- $ROOT/media/x.txt\nx\n//- $ROOT/htdocs/x.txt\nx\n",
            conf("<Directory />\n    Order deny,allow\n    Deny from all\n</Directory>\n<Directory $ROOT>\n    Require all granted\n</Directory>\n<Directory $ROOT/htdocs>\n    Order allow,deny\n    Allow from all\n</Directory>\n<VirtualHost 127.0.0.1:80>\n    ServerName a.test\n    Alias /media/ \"$ROOT/media/\"\n</VirtualHost>\n")
        ),
        expect![[r#"
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory />
                Require all denied
            </Directory>
            <Directory $ROOT>
                <RequireAll>
                  Require all denied
                  Require all granted
                </RequireAll>
            </Directory>
            <Directory $ROOT/htdocs>
                Require all granted
            </Directory>
            <VirtualHost 127.0.0.1:80>
                ServerName a.test
                Alias /media/ "$ROOT/media/"
            </VirtualHost>
        "#]],
    );
}

/// [`check_migrate`] after making symbolic links (link, target: both relative to the root).
fn check_migrate_linked(fixture: &str, links: &[(&str, &str)], expect: Expect) {
    let t = Tree::new(fixture);
    for (link, target) in links {
        let l = t.dir.path().join(link);
        std::fs::create_dir_all(l.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(t.dir.path().join(target), l).unwrap();
    }
    let m = migrate(&t.ws(), Scope::Tree, false);
    let mut out = t.after(&m.edits);
    for l in &m.left {
        out.push_str(&format!("left: {}\n", t.show(l)));
    }
    expect.assert_eq(&out);
}

#[test]
fn htaccess_behind_a_directory_link_is_proven_where_the_link_leads() {
    // httpd's walk of /link/f.html merges <Directory htdocs> (and its Require valid-user), then
    // htdocs/link/.htaccess, which is shared/.htaccess: the rewrite must keep the password
    // there, not only under <Directory shared> (black-box round 11a bug 1).
    check_migrate_linked(
        &format!(
            "{}//- $ROOT/shared/.htaccess\nOrder deny,allow\nDeny from 127.0.0.2\n//- $ROOT/shared/f.html\nf\n",
            conf("Alias /shared $ROOT/shared\n<Directory $ROOT/htdocs>\n  Options FollowSymLinks\n  AllowOverride All\n  AuthType Basic\n  AuthName x\n  AuthUserFile $ROOT/users\n  Require valid-user\n</Directory>\n<Directory $ROOT/shared>\n  AllowOverride All\n  Require all granted\n</Directory>\n")
        ),
        &[("htdocs/link", "shared")],
        expect![[r#"
            //- $ROOT/shared/.htaccess
            AuthMerging And
            <RequireAll>
              Require all granted
              <RequireNone>
                Require ip 127.0.0.2
              </RequireNone>
            </RequireAll>
        "#]],
    );
}

#[test]
fn htaccess_read_only_through_a_link_is_migrated() {
    // No section and no Alias names shared/: httpd reads its .htaccess only as
    // htdocs/link/.htaccess (round 11a bug 1b: it was never seen, exit 0 with Order/Deny left).
    check_migrate_linked(
        &format!(
            "{}//- $ROOT/shared/.htaccess\nOrder deny,allow\nDeny from 127.0.0.2\n",
            conf("<Directory $ROOT/htdocs>\n  AllowOverride AuthConfig Limit\n  AuthType Basic\n  AuthName x\n  AuthUserFile $ROOT/users\n  Require valid-user\n</Directory>\n")
        ),
        &[("htdocs/link", "shared")],
        expect![[r#"
            //- $ROOT/shared/.htaccess
            <RequireAll>
              <RequireAll>
                Require all granted
                <RequireNone>
                  Require ip 127.0.0.2
                </RequireNone>
              </RequireAll>
              Require valid-user
            </RequireAll>
        "#]],
    );
}

#[test]
fn a_link_back_up_leaves_the_htaccess_files_it_repeats() {
    // htdocs/sub/up -> htdocs: httpd reads htdocs/.htaccess again below sub/.htaccess at
    // /sub/up/, and again at every depth below (round 11a bug 1c).
    check_migrate_linked(
        &format!(
            "{}//- $ROOT/htdocs/.htaccess\nOrder deny,allow\nDeny from 127.0.0.2\n//- $ROOT/htdocs/sub/.htaccess\nAuthType Basic\nAuthName x\nAuthUserFile $ROOT/users\nRequire valid-user\n",
            conf("<Directory $ROOT/htdocs>\n  Options FollowSymLinks\n  AllowOverride All\n  Require all granted\n</Directory>\n")
        ),
        &[("htdocs/sub/up", "htdocs")],
        expect![[r#"
            left: $ROOT/htdocs/.htaccess:1: $ROOT/htdocs/.htaccess: the symbolic link $ROOT/htdocs/sub/up leads back to $ROOT/htdocs, above itself: httpd reads $ROOT/htdocs/.htaccess again at every depth below the link, where no finite set of requests proves a rewrite; remove the link, or rewrite by hand
        "#]],
    );
}

#[test]
fn one_htaccess_file_under_two_names_is_one_body() {
    // shared/.htaccess -> htdocs/.htaccess: one file, read under <Directory shared>'s password
    // too; one rewrite valid under both, written once (round 11a bug 2).
    check_migrate_linked(
        &format!(
            "{}//- $ROOT/htdocs/.htaccess\nOrder deny,allow\nDeny from 127.0.0.2\n//- $ROOT/shared/f.html\nf\n",
            conf("Alias /shared $ROOT/shared\n<Directory $ROOT/htdocs>\n  AllowOverride All\n  Require all granted\n</Directory>\n<Directory $ROOT/shared>\n  AllowOverride All\n  AuthType Basic\n  AuthName x\n  AuthUserFile $ROOT/users\n  Require valid-user\n</Directory>\n")
        ),
        &[("shared/.htaccess", "htdocs/.htaccess")],
        expect![[r#"
            //- $ROOT/htdocs/.htaccess
            AuthMerging And
            <RequireAll>
              Require all granted
              <RequireNone>
                Require ip 127.0.0.2
              </RequireNone>
            </RequireAll>
        "#]],
    );
}

#[test]
fn an_included_file_under_two_names_is_written_once() {
    // Debian's sites-enabled links: app-link.conf -> app.conf, included by two servers whose
    // rules differ; one rewrite valid in both (round 11a bug 2c).
    check_migrate_linked(
        &format!(
            "{}//- $ROOT/app.conf\n<Directory $ROOT/htdocs/app>\n  Order deny,allow\n  Deny from 127.0.0.2\n</Directory>\n",
            conf("Listen 127.0.0.1:80\nListen [::1]:80\n<Directory $ROOT/htdocs>\n  AuthType Basic\n  AuthName x\n  AuthUserFile $ROOT/users\n  Require valid-user\n</Directory>\nInclude $ROOT/app-link.conf\n<VirtualHost 127.0.0.1:80>\n  <Directory $ROOT/htdocs>\n    Require all granted\n  </Directory>\n  Include $ROOT/app.conf\n</VirtualHost>\n")
        ),
        &[("app-link.conf", "app.conf")],
        expect![[r#"
            //- $ROOT/app.conf
            <Directory $ROOT/htdocs/app>
              AuthMerging And
              <RequireAll>
                Require all granted
                <RequireNone>
                  Require ip 127.0.0.2
                </RequireNone>
              </RequireAll>
            </Directory>
        "#]],
    );
}

#[test]
fn user_directories_through_userdir() {
    // A file-system UserDir: the users' directories on disk are scanned and asked as /~user/
    // (round 11a bug 5); a home-relative one needs the passwd database: left, with why.
    let body = "LoadModule userdir_module m\nUserDir $ROOT/home/*/public_html\n<Directory $ROOT/home/*/public_html>\n  AllowOverride AuthConfig Limit\n  Require all granted\n</Directory>\n";
    let files = "//- $ROOT/home/alice/public_html/sub/.htaccess\nOrder deny,allow\nDeny from 127.0.0.2\n";
    check_migrate(
        &format!("{}{files}", conf(body)),
        expect![[r#"
            //- $ROOT/home/alice/public_html/sub/.htaccess
            <RequireAll>
              Require all granted
              <RequireNone>
                Require ip 127.0.0.2
              </RequireNone>
            </RequireAll>
        "#]],
    );
    check_migrate(
        &format!("{}{files}", conf(&body.replace("$ROOT/home/*/public_html\n<", "public_html\n<"))),
        expect![[r#"
            left: $ROOT/home/alice/public_html/sub/.htaccess:1: httpd reads this file for /~user/ requests (UserDir public_html), which only the passwd database maps to users' directories; migrate does not look users up, so no rewrite of it can be proven; rewrite it by hand
        "#]],
    );
}

#[test]
fn an_htaccess_search_stopped_short_is_said_to_leave_what_it_did_not_see() {
    // Deeper than the search goes, an .htaccess file is not seen: exit 0 would claim that no
    // old-style line is left, which nothing proves.
    let deep = (0..30).map(|i| format!("d{i}")).collect::<Vec<_>>().join("/");
    check_migrate(
        &format!(
            "{}//- $ROOT/htdocs/{deep}/.htaccess\nOrder deny,allow\nDeny from 127.0.0.2\n",
            conf("<Directory $ROOT/htdocs>\n  AllowOverride All\n</Directory>\n")
        ),
        expect![[r#"
            left: $ROOT/htdocs: the search for .htaccess files below this directory stopped short (too many directories, or too deep): old-style lines in files beyond it are not seen: they are not rewritten, and nothing proves none is left
        "#]],
    );
}

/// Black-box round 13 (S1): a directory asked without its slash. httpd checks access on the
/// directory itself (its .htaccess applies, `<LocationMatch "^/a/">` does not) before mod_dir
/// redirects: GET /a was 401 under the Directory's Require, and an .htaccess rewrite to the
/// Location's `Require all granted` would have made it a 301. The rewrite keeps the password.
#[test]
fn a_directory_is_proven_without_its_slash() {
    check_migrate(
        &format!(
            "{}//- $ROOT/htdocs/a/.htaccess\nOrder deny,allow\nAllow from all\n//- $ROOT/htdocs/a/f.txt\nf\n",
            conf("<Directory $ROOT/htdocs>\n  AllowOverride All\n  AuthType Basic\n  AuthName z\n  AuthUserFile $ROOT/htpasswd\n  Require user bob\n</Directory>\n<LocationMatch \"^/a/\">\n  Require all granted\n</LocationMatch>\n")
        ),
        expect![[r#"
            //- $ROOT/htdocs/a/.htaccess
            Require user bob
        "#]],
    );
}

/// S2: `<LocationMatch "\.txt$">` and `<Files "q.*">` both apply to /q.x.txt only, which neither
/// witness names: the Location's rewrite must not replace the Files section's Require valid-user
/// there (/q.txt 401 → 200).
#[test]
fn a_location_pattern_is_proven_joined_to_a_files_name() {
    check_migrate(
        &conf("<LocationMatch \"\\.txt$\">\n    Allow from 127.1.2.3\n</LocationMatch>\n<Files \"q.*\">\n    AuthType Basic\n    AuthName z\n    AuthUserFile $ROOT/htpasswd\n    Require valid-user\n</Files>\n"),
        expect![[r#"
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <LocationMatch "\.txt$">
                AuthMerging And
                Require all granted
            </LocationMatch>
            <Files "q.*">
                AuthType Basic
                AuthName z
                AuthUserFile $ROOT/htpasswd
                Require valid-user
            </Files>
        "#]],
    );
}

/// S3: every branch of an .htaccess `<FilesMatch "\.(txt|php)$">` is asked: at .txt the server's
/// `<LocationMatch "\.txt$">` sets the rules, at .php the Directory's Require valid-user does
/// (a rewrite proven at .txt alone opened /y.php: 401 → 200).
#[test]
fn each_branch_of_an_htaccess_files_pattern_is_proven() {
    check_migrate(
        &format!(
            "{}//- $ROOT/htdocs/.htaccess\n<FilesMatch \"\\.(txt|php)$\">\n  Allow from all\n</FilesMatch>\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride All\n    AuthType Basic\n    AuthName z\n    AuthUserFile $ROOT/htpasswd\n    Require valid-user\n</Directory>\n<LocationMatch \"\\.txt$\">\n    Order deny,allow\n</LocationMatch>\n")
        ),
        expect![[r#"
            //- $ROOT/htdocs/.htaccess
            <FilesMatch "\.(txt|php)$">
              Require valid-user
            </FilesMatch>
            //- $ROOT/httpd.conf
            LoadModule authz_core_module m
            LoadModule authz_host_module m
            LoadModule access_compat_module m
            LoadModule authz_user_module m
            LoadModule authn_core_module m
            LoadModule auth_basic_module m
            LoadModule authn_file_module m
            LoadModule status_module m
            DocumentRoot $ROOT/htdocs
            <Directory $ROOT/htdocs>
                AllowOverride All
                AuthType Basic
                AuthName z
                AuthUserFile $ROOT/htpasswd
                Require valid-user
            </Directory>
            <LocationMatch "\.txt$">
                Require valid-user
            </LocationMatch>
        "#]],
    );
}

/// S4, S5: a `<LocationMatch>` on file names is asked below each directory holding an
/// .htaccess file, where httpd merges it after that file (/c/x.txt 200 → 403 with the Location
/// rewritten to `AuthMerging And`; /c/q.txt 403 → 200 with the .htaccess file's Order/Allow
/// rewritten to a Require ip the Location's Require all granted then replaces).
#[test]
fn a_location_pattern_is_proven_below_htaccess_directories() {
    check_migrate(
        &format!(
            "{}//- $ROOT/htdocs/c/.htaccess\nDeny from all\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride All\n</Directory>\n<Location /a/>\n    AuthType Basic\n    AuthName z\n    AuthUserFile $ROOT/htpasswd\n    Require user bob\n</Location>\n<LocationMatch \"\\.txt$\">\n    Allow from 127.0.0.2\n</LocationMatch>\n")
        ),
        expect![[r#"
            left: $ROOT/httpd.conf:19: <LocationMatch "\.txt$">: the rewrite would change access: /c/.txt from any other client, 127.0.0.2 (anonymous): 200 → 403
            left: $ROOT/htdocs/c/.htaccess:1: $ROOT/htdocs/c/.htaccess: the rewrite would change access: /c/.txt from any other client, 127.0.0.2 (anonymous): 200 → 403
        "#]],
    );
    check_migrate(
        &format!(
            "{}//- $ROOT/htdocs/c/.htaccess\nOrder allow,deny\nAllow from 127.0.0.1\n",
            conf("<Directory $ROOT/htdocs>\n    AllowOverride All\n    Require all granted\n</Directory>\n<LocationMatch \"\\.txt$\">\n    Require all granted\n</LocationMatch>\n")
        ),
        expect![[r#"
            left: $ROOT/htdocs/c/.htaccess:1: $ROOT/htdocs/c/.htaccess: its rules would also have to be carried into the Require lines of sections it shares requests with, and that would change access there: <LocationMatch "\.txt$"> ($ROOT/httpd.conf:14): /.txt from any other client (anonymous): 200 → 403
        "#]],
    );
}

//! Each syntax error the reader reports is compared with what `apache2 -t` says
//! of the same file: same line, and an error at all only where httpd has one.

use std::path::Path;
use std::process::Command;

/// (name, configuration text) — one construct each.
const CASES: &[(&str, &str)] = &[
    ("unclosed", "ServerName localhost\n<Directory /srv>\n  Options None\n"),
    ("stray_closer", "ServerName localhost\n\n</Directory>\n"),
    ("mismatched_closer", "ServerName localhost\n<Directory /srv>\n</Location>\n"),
    ("closer_trailing_space", "ServerName localhost\n<Directory /srv>\n</Directory >\n"),
    ("missing_gt", "ServerName localhost\n<Directory /srv\n</Directory>\n"),
    ("no_argument", "ServerName localhost\n<Directory>\n</Directory>\n"),
    ("two_paths", "ServerName localhost\n<Directory /a /b>\n</Directory>\n"),
    ("continued_opener_unclosed", "ServerName localhost\n<Directory \\\n /srv>\n"),
    ("nested_unclosed", "ServerName localhost\n<VirtualHost *:80>\n<Directory /srv>\n</Directory>\n"),
    ("fine", "ServerName localhost\n<Directory /srv>\n  # comment \\\n  continued\n</Directory>\n<IfModule !mod_nothing.c>\n</IfModule>\n"),
    ("fine_crlf_no_final_newline", "ServerName localhost\r\n<Location /x>\r\n</Location>"),
];

fn httpd_line(file: &Path) -> Option<u32> {
    let out = Command::new("/usr/sbin/apache2")
        .arg("-t")
        .arg("-f")
        .arg(file)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    if out.status.success() {
        return None;
    }
    let f = file.display().to_string();
    for l in text.lines() {
        if let Some(rest) = l.split("Syntax error on line ").nth(1) {
            return rest.split_whitespace().next().and_then(|n| n.parse().ok());
        }
        if let Some(rest) = l.strip_prefix(&format!("{f}:")) {
            return rest.split(':').next().and_then(|n| n.parse().ok());
        }
    }
    panic!("apache2 -t failed without a line: {text}");
}

#[test]
fn check_reports_syntax_errors_on_the_line_httpd_names() {
    if !Path::new("/usr/sbin/apache2").exists() {
        eprintln!("note: apache2 is not installed (scripts/test installs it); comparison skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in CASES {
        let file = dir.path().join(format!("{name}.conf"));
        // An MPM must be loaded, or httpd stops before running the section handlers
        // that report most of these errors.
        let pre = format!(
            "LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\nErrorLog {}/error.log\n",
            dir.path().display()
        );
        std::fs::write(&file, format!("{pre}{text}")).unwrap();
        let httpd = httpd_line(&file);
        let reported = apache_lsp::cli::check_paths(std::slice::from_ref(&file)).unwrap();
        let errors: Vec<u32> =
            reported.iter().filter(|r| r.severity == "error" && r.code == "syntax").map(|r| r.line).collect();
        match httpd {
            None => assert!(errors.is_empty(), "{name}: httpd accepts, we report {reported:?}"),
            Some(line) => assert!(errors.contains(&line), "{name}: httpd names line {line}, we report {reported:?}"),
        }
    }
}

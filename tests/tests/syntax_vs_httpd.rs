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

/// What `apache2 -t -f file` printed when it refused the file; None when it accepts it.
fn apache2_t(file: &Path) -> Option<String> {
    let out = Command::new("/usr/sbin/apache2")
        .arg("-t")
        .arg("-f")
        .arg(file)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    (!out.status.success()).then_some(text)
}

fn httpd_line(file: &Path) -> Option<u32> {
    let text = apache2_t(file)?;
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

/// Lines continued with backslashes, and section openers without their `>`, as httpd reads
/// them: (name, configuration text). httpd names the last physical line of a continued line,
/// whatever the fault; mod_version finds an `<IfVersion` opener's `>` at the end of a word,
/// not anywhere on the line; `<Name` alone is read as `<Name>`.
const LINE_CASES: &[(&str, &str)] = &[
    ("continued_argument_count", "ServerName \\\n  localhost \\\n  extra\n"),
    ("continued_unknown_directive", "Foo \\\n bar\n"),
    ("continued_option", "<Directory /srv>\nOptions \\\n  Bogus\n</Directory>\n"),
    ("continued_fine", "ServerName \\\n  localhost\nServerAdmin a@b \\\n\n"),
    ("continued_opener_mismatched_closer", "<Directory \\\n /srv>\n</Location>\n"),
    (
        "continued_opener_nested_mismatched_closer",
        "<VirtualHost *:80>\n<Directory \\\n /srv>\n</Location>\n</VirtualHost>\n",
    ),
    ("mismatched_closer_alone", "<Directory /srv>\n</Location>\n"),
    ("continued_closer_without_gt", "<Directory /srv>\n</Directory \\\n >\n"),
    ("continued_opener_unclosed", "<Directory \\\n /srv>\n  Options None\n"),
    ("if_version_without_gt", "<IfVersion >= 2.4\n</IfVersion>\n"),
    ("if_version_one_word_without_gt", "<IfVersion 2.4\n</IfVersion>\n"),
    ("if_version_gt_inside_a_word", "<IfVersion >= 2.4>x\n</IfVersion>\n"),
    ("if_version_gt_after_a_word", "<IfVersion >= 2.4 x>\n</IfVersion>\n"),
    ("if_version_empty_version", "<IfVersion >= \"\">\n</IfVersion>\n"),
    ("if_version_gt_alone_third", "<IfVersion >= 2.4 >\n</IfVersion>\n"),
    ("if_version_gt_quoted", "<IfVersion >= \"2.4>\"\n</IfVersion>\n"),
    ("if_version_bare", "<IfVersion\n</IfVersion>\n"),
    ("if_version_gt_alone", "<IfVersion >\n</IfVersion>\n"),
    ("if_version_four_words", "<IfVersion a b c d>\n</IfVersion>\n"),
    ("if_version_empty_first_word", "<IfVersion \"\" >\n</IfVersion>\n"),
    ("if_version_bad_version", "<IfVersion !>= 2x>\n</IfVersion>\n"),
    ("if_version_four_numbers", "<IfVersion 2.4.1.5>\n</IfVersion>\n"),
    ("if_version_three_numbers_and_a_dot", "<IfVersion !< 2.4.1.>\n</IfVersion>\n"),
    ("if_version_negation_alone", "<IfVersion ! 2.4>\n</IfVersion>\n"),
    ("if_version_tilde_equals", "<IfVersion ~= 2.4>\n</IfVersion>\n"),
    ("if_version_regex_undelimited", "<IfVersion == /2>\n</IfVersion>\n"),
    ("if_version_regexes", "<IfVersion = /2/>\n</IfVersion>\n<IfVersion ~ ^2 >\n</IfVersion>\n"),
    ("if_version_skipped", "<IfDefine NOPE>\n<IfVersion >= 2.4\n</IfVersion>\n</IfDefine>\n"),
    ("location_bare", "<Location\n</Location>\n"),
    ("if_module_bare", "<IfModule \n</IfModule>\n"),
    ("virtual_host_without_gt", "<VirtualHost *:80\n</VirtualHost>\n"),
    ("if_without_gt_but_one_inside", "<If \"1 > 0\"\n</If>\n"),
    // `<Else>` takes nothing before its `>` (black-box round 14, F3).
    ("else_with_a_word", "<If \"true\">\n</If>\n<Else x>\n</Else>\n"),
    ("else_with_an_empty_word", "<If \"true\">\n</If>\n<Else \"\">\n</Else>\n"),
    ("else_with_a_second_gt", "<If \"true\">\n</If>\n<ELSE > >\n</ELSE>\n"),
    (
        "else_with_a_condition_in_a_directory",
        "<Directory /srv>\n<If \"true\">\n</If>\n<Else \"%{REMOTE_ADDR} == '1.2.3.4'\">\n</Else>\n</Directory>\n",
    ),
    ("else_without_if_with_a_word", "<Else x>\n</Else>\n"),
    ("else_with_blanks", "<If \"true\">\n</If>\n<Else  \t>\n</Else>\n<If \"true\">\n</If>\n<Else\n</Else>\n"),
    // `<Name> words`: the words are the opener's arguments, which then lack their `>`.
    ("else_gt_then_a_comment", "<If \"true\">\n</If>\n<Else> # otherwise\n</Else>\n"),
    ("directory_gt_then_a_path", "<Directory> /srv\n</Directory>\n"),
    ("if_module_gt_then_a_name", "<IfModule> mod_alias.c\n</IfModule>\n"),
    ("if_version_gt_then_words", "<IfVersion> >= 2.4\n</IfVersion>\n"),
    // ... and with a `>` after them, the opener's arguments, as for `<Name words>`.
    ("directory_gt_then_a_path_and_gt", "<Directory> /srv>\n</Directory>\n"),
    ("if_version_gt_then_words_and_gt", "<IfVersion> < 2.4>\nFoo\n</IfVersion>\n"),
    ("else_gt_then_a_word_and_gt", "<If \"true\">\n</If>\n<Else> x>\n</Else>\n"),
    // The closer of a true conditional section alone on its line (F9), without its `>` too.
    ("if_module_true_closer_with_a_comment", "<IfModule mpm_prefork_module>\n</IfModule> # end\n"),
    ("if_module_true_closer_without_gt", "<IfModule mpm_prefork_module>\n</IfModule\n"),
    ("if_module_true_closer_with_a_blank_before_gt", "<IfModule mpm_prefork_module>\n</IfModule >\n"),
    ("if_version_true_closer_with_a_word", "<IfVersion >= 2.4>\n</IfVersion> x\n"),
    // In the body of a false conditional section httpd's skipping reader stops at a closer of
    // another name, or at the end of the file, and names the false section's line (F8).
    ("false_closer_of_another_section", "<IfModule mod_nosuch.c>\n<Limit GET>\n</Files>\n</Limit>\n</IfModule>\n"),
    ("false_closer_of_another_name_alone", "<IfModule mod_nosuch.c>\n</Files>\n</IfModule>\n"),
    ("false_section_closed_by_the_conditional", "<IfDefine NOPE>\n<Limit GET>\n</IfDefine>\n"),
    ("false_closer_without_gt", "<IfDefine NOPE>\n<Limit GET>\n</Limit\n</IfDefine>\n"),
    ("false_closer_with_another_last_byte", "<IfModule mod_nosuch.c>\n<limit GET>\n</LIMITx\n</IfModule>\n"),
    ("false_section_unclosed", "<IfModule mod_nosuch.c>\n<Directory /srv>\n"),
    (
        "false_in_true_closer_of_another_section",
        "<IfModule mpm_prefork_module>\n<IfDefine NOPE>\n<Files x>\n</Limit>\n</Files>\n</IfDefine>\n</IfModule>\n",
    ),
    ("false_in_a_directory", "<Directory /srv>\n<IfModule mod_nosuch.c>\n</Files>\n</IfModule>\n</Directory>\n"),
    // `<Name> words>` there names a section `Name>`, which only `</Name>>` closes.
    (
        "false_directory_gt_then_a_path_and_gt",
        "<IfModule mod_nosuch.c>\n<Directory> /srv>\n</Directory>\n</IfModule>\n",
    ),
    ("false_files_gt_then_a_word_and_gt", "<IfDefine NOPE>\n<Files> x>\n</Files>\n</IfDefine>\n"),
    (
        "false_directory_gt_closed_by_its_gt_gt",
        "<IfModule mod_nosuch.c>\n<Directory> /srv>\n</directory>>\n</IfModule>\n",
    ),
];

#[test]
fn check_reports_errors_on_the_line_httpd_names_in_httpd_s_words() {
    if !Path::new("/usr/sbin/apache2").exists() {
        eprintln!("note: apache2 is not installed (scripts/test installs it); comparison skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut failures = vec![];
    for (name, text) in LINE_CASES {
        let file = dir.path().join(format!("{name}.conf"));
        let pre = format!(
            "LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\nErrorLog {}/error.log\n",
            dir.path().display()
        );
        std::fs::write(&file, format!("{pre}{text}")).unwrap();
        let httpd = httpd_error(&file);
        let reported = apache_lsp::cli::check_paths(std::slice::from_ref(&file)).unwrap();
        let errors: Vec<(u32, &str)> =
            reported.iter().filter(|r| r.severity == "error").map(|r| (r.line, r.message.as_str())).collect();
        let agrees = match &httpd {
            None => errors.is_empty(),
            // Every error on httpd's line (httpd stops at its first), one of them in its words.
            Some(((_, line), message)) => {
                !errors.is_empty()
                    && errors.iter().all(|(l, _)| l == line)
                    && errors.iter().any(|(_, m)| message.contains(m) || m.contains(message.as_str()))
            }
        };
        if !agrees {
            failures.push(format!("{name}: httpd {httpd:?}; check {errors:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `<Else>`/`<ElseIf>` sections httpd refuses for want of an `<If>` before them in the same
/// scope: check's `else-without-if` errors against `apache2 -t`, which stops at the first
/// (the fixtures hold one each, or none). (name, main text, included file's text.)
const ELSE_CASES: &[(&str, &str, &str)] = &[
    ("alone", "<Else>\n</Else>\n", ""),
    ("directives_and_sections_between", "<If \"true\">\n</If>\nServerName x\n<Directory /x>\n</Directory>\n<Else>\n</Else>\n", ""),
    ("main_servers_if_not_the_vhosts", "<If \"true\">\n</If>\n<VirtualHost *:80>\n<Else>\n</Else>\n</VirtualHost>\n", ""),
    ("after_an_else", "<If \"true\">\n</If>\n<Else>\n</Else>\n<ElseIf \"true\">\n</ElseIf>\n", ""),
    ("another_directory_section", "<Directory /x>\n<If \"true\">\n</If>\n</Directory>\n<Directory /x>\n<Else>\n</Else>\n</Directory>\n", ""),
    ("ifmodule_body_spliced", "<IfModule !mod_nothing.c>\n<If \"true\">\n</If>\n</IfModule>\n<Else>\n</Else>\n", ""),
    ("inside_the_if", "<If \"true\">\n<Else>\n</Else>\n</If>\n", ""),
    ("chain_around_a_files_section", "<Directory /x>\n<If \"true\">\n</If>\n<Files y>\n</Files>\n<ElseIf \"false\">\n</ElseIf>\n<Else>\n</Else>\n</Directory>\n", ""),
    ("files_in_directory", "<Directory /x>\n<Files y>\n<Else>\n</Else>\n</Files>\n</Directory>\n", ""),
    ("if_in_included_file", "<If \"true\">\n</If>\nInclude INC\n", "# included\n<Else>\n</Else>\n"),
    ("else_in_included_file", "Include INC\n", "<Else>\n</Else>\n"),
];

#[test]
fn check_refuses_else_sections_where_httpd_does() {
    if !Path::new("/usr/sbin/apache2").exists() {
        eprintln!("note: apache2 is not installed (scripts/test installs it); comparison skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, text, included) in ELSE_CASES {
        let file = dir.path().join(format!("{name}.conf"));
        let inc = dir.path().join(format!("{name}.inc"));
        std::fs::write(&inc, included).unwrap();
        let pre = format!(
            "LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\nErrorLog {}/error.log\n",
            dir.path().display()
        );
        std::fs::write(&file, format!("{pre}{}", text.replace("INC", &inc.display().to_string()))).unwrap();
        let httpd = httpd_error(&file);
        let reported = apache_lsp::cli::check_paths(std::slice::from_ref(&file)).unwrap();
        let ours: Vec<(String, u32)> = reported
            .iter()
            .filter(|r| r.severity == "error" && r.code == "else-without-if")
            .map(|r| (r.file.clone(), r.line))
            .collect();
        match httpd {
            None => assert!(ours.is_empty(), "{name}: httpd accepts, we report {ours:?}"),
            Some((at, message)) => {
                assert!(
                    message.contains("without previous <If>"),
                    "{name}: httpd refuses for another reason: {message}"
                );
                assert_eq!(ours, [at], "{name}: httpd: {message}");
            }
        }
    }
}

/// The file, line and message of the error `apache2 -t` stops at, None when it starts. httpd
/// prints the message after the file name, or on the next line (`AH00526`).
fn httpd_error(file: &Path) -> Option<((String, u32), String)> {
    let text = apache2_t(file)?;
    let mut lines = text.lines().skip_while(|l| !l.contains("Syntax error on line "));
    let head = lines.next().unwrap_or_else(|| panic!("apache2 -t failed without a line: {text}"));
    let rest = head.split("Syntax error on line ").nth(1).unwrap();
    let (line, after) = rest.split_once(" of ").unwrap();
    let (at, message) = match after.split_once(": ") {
        Some((f, m)) => (f, m.to_string()),
        None => (after.trim_end_matches(':'), lines.next().unwrap_or_default().to_string()),
    };
    Some(((at.to_string(), line.parse().unwrap()), message))
}

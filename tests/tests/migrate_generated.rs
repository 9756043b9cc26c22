//! `apache-lsp migrate --write` over generated configurations, each run by the real httpd before
//! and after the migration over the same request matrix: every status must stay the same.
//!
//! The configurations are the differential suite's seeded random grammar
//! ([`apache_lsp_e2e::differential::generate_cases`]: Directory, Location, Files, DirectoryMatch,
//! LocationMatch sections, virtual hosts and .htaccess files with random mixtures of
//! Order/Allow/Deny/Satisfy, Require and its containers, Limit blocks, authentication and
//! SetEnvIf). Where the migration cannot prove a rewrite it must leave the section alone; where it
//! rewrites, httpd must answer every request of the matrix — each source address × credentials ×
//! methods × URLs, with and without the headers SetEnvIf looks at — exactly as before, and
//! `apache2 -t` must accept the result. Cases httpd refuses to start with are left out (the
//! differential suite checks that the engine refuses them too).
//!
//! The diff `apache-lsp migrate` prints (without `--write`) for a second copy of each batch is
//! applied there by `patch -p1`: it must apply cleanly and give the files `--write` wrote, with
//! the same exit status.
//!
//! `APACHE_LSP_MIGRATE_CASES` (default 150) and `APACHE_LSP_MIGRATE_SEED` choose the cases. The
//! test skips (with a note) when apache2 is not installed.

use apache_lsp_e2e::differential::{generate_cases, Case, GENERATED_COMMON};
use apache_lsp_e2e::httpd::{self, config_test, Httpd, HttpdConfig};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Where the generated part of the main file starts: the text after it is what the test
/// carries from the migrated file into the server started after the migration.
const GENERATED_START: &str = "# ---- generated configuration\n";

fn case_marker(c: &Case) -> String {
    format!("# ---- case {}\n", c.name)
}

/// A server for `cases`: the shared SetEnvIf lines, then each case's body and files.
fn config_for(cases: &[&Case]) -> HttpdConfig {
    let mut body = format!("{GENERATED_START}{GENERATED_COMMON}");
    for c in cases {
        body.push_str(&case_marker(c));
        body.push_str(&c.body);
        body.push('\n');
    }
    let mut cfg = HttpdConfig::new(body);
    for c in cases {
        for (f, text) in &c.files {
            cfg = cfg.file(f, text.as_str());
        }
    }
    cfg
}

/// The cases of `batch` httpd starts with (all of them when the batch starts as a whole).
fn startable<'c>(batch: &[&'c Case]) -> Vec<&'c Case> {
    if config_test(&config_for(batch)).0 {
        return batch.to_vec();
    }
    batch.iter().copied().filter(|c| config_test(&config_for(&[c])).0).collect()
}

/// httpd's status for every probe of every case, in order.
fn statuses(h: &Httpd, cases: &[&Case]) -> Vec<u16> {
    let mut out = Vec::new();
    for c in cases {
        for p in &c.probes {
            let status = h.send(&p.to_request()).unwrap_or_else(|e| panic!("case {}: request: {e}", c.name));
            out.push(status);
        }
    }
    out
}

/// The text of one case in a (migrated or original) configuration body: from its marker to the
/// next case's.
fn case_text<'t>(body: &'t str, c: &Case) -> &'t str {
    let marker = case_marker(c);
    let Some(start) = body.find(&marker) else { return "" };
    let rest = &body[start + marker.len()..];
    &rest[..rest.find("# ---- case ").unwrap_or(rest.len())]
}

/// `apache-lsp migrate MAIN` (a diff on stdout, nothing written).
fn migrate_diff(main: &Path) -> Output {
    Command::new(apache_lsp_e2e::lsp::server_binary())
        .arg("migrate")
        .arg(main)
        .output()
        .expect("run apache-lsp migrate")
}

/// Applies a diff of absolute paths (`a/…` and `b/…` names) with `patch -p1` from `/`; None when
/// patch is not installed, else its failure.
fn patch(diff: &[u8]) -> Option<Result<(), String>> {
    use std::io::Write as _;
    let mut child = Command::new("patch")
        .args(["-p1", "-d", "/", "--batch", "--forward", "--no-backup-if-mismatch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take().expect("patch's stdin").write_all(diff).expect("write the diff to patch");
    let out = child.wait_with_output().expect("wait for patch");
    Some(match out.status.success() {
        true => Ok(()),
        false => Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))),
    })
}

/// A file of a batch's root as the other root would hold it: its own root and port replaced.
fn normalized(root: &Path, port: u16, rel: &str) -> String {
    let text = std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"));
    text.replace(&root.display().to_string(), "@ROOT@").replace(&format!(":{port}"), ":@PORT@")
}

/// What one batch found: cases run, cases the migration changed, and the mismatches.
#[derive(Default)]
struct Found {
    cases: usize,
    requests: usize,
    rewritten: usize,
    left_old_style: usize,
    problems: Vec<String>,
}

fn run_batch(batch: &[&Case], found: &mut Found) {
    let cases = startable(batch);
    if cases.is_empty() {
        return;
    }
    found.cases += cases.len();
    let before = Httpd::start(config_for(&cases)).expect("httpd starts with the original configuration");
    let a = statuses(&before, &cases);
    drop(before);

    // The same configuration in a root of its own, migrated in place by the real binary.
    let migrated = config_for(&cases);
    let main = migrated.write().expect("write the configuration");
    let out = apache_lsp_e2e::lsp::migrate_write(&main);
    assert!(out.status.code() != Some(2), "migrate --write failed:\n{}", String::from_utf8_lossy(&out.stderr));
    // The printed diff, applied to a second copy, gives the same files.
    let diffed = config_for(&cases);
    let diffed_main = diffed.write().expect("write the configuration");
    let printed = migrate_diff(&diffed_main);
    assert_eq!(printed.status.code(), out.status.code(), "migrate exits otherwise with --write");
    match patch(&printed.stdout) {
        None => eprintln!("note: patch is not installed; the printed diff is not checked"),
        Some(Err(e)) => found.problems.push(format!(
            "=== patch -p1 refuses the diff migrate printed:\n{e}\n{}",
            String::from_utf8_lossy(&printed.stdout)
        )),
        Some(Ok(())) => {
            let rels = std::iter::once("httpd.conf".to_string())
                .chain(cases.iter().flat_map(|c| c.files.iter().map(|(f, _)| f.clone())));
            for rel in rels {
                let (w, d) = (
                    normalized(migrated.root(), migrated.port(), &rel),
                    normalized(diffed.root(), diffed.port(), &rel),
                );
                if w != d {
                    found.problems.push(format!(
                        "=== {rel}: the printed diff, applied, differs from what --write wrote:\n--- written:\n{w}--- patched:\n{d}"
                    ));
                }
            }
        }
    }
    let root = migrated.root().display().to_string();
    let back = |text: String| text.replace(&root, "@ROOT@");
    let written = std::fs::read_to_string(&main).expect("read the migrated main file");
    let body = back(written.split(GENERATED_START).nth(1).expect("the generated part is kept").to_owned())
        .replace(&format!(":{}>", migrated.port()), ":@PORT@>");
    let mut after_cfg = HttpdConfig::new(format!("{GENERATED_START}{body}"));
    let mut files_after: BTreeMap<String, String> = BTreeMap::new();
    for c in &cases {
        for (f, _) in &c.files {
            let text = back(std::fs::read_to_string(migrated.root().join(f)).expect("read a migrated file"));
            after_cfg = after_cfg.file(f, text.as_str());
            files_after.insert(f.clone(), text);
        }
    }
    let original = config_for(&cases);
    let original_body = original.main_config_text();
    let original_body = back(original_body.replace(&original.root().display().to_string(), "@ROOT@"));
    let changed: Vec<bool> = cases
        .iter()
        .map(|c| {
            let files_changed = c
                .files
                .iter()
                .any(|(f, t)| files_after.get(f).is_some_and(|now| *now != t.replace("@DOCROOT@", "@ROOT@/htdocs")));
            case_text(&body, c) != case_text(&original_body, c) || files_changed
        })
        .collect();
    found.rewritten += changed.iter().filter(|c| **c).count();
    found.left_old_style += cases
        .iter()
        .filter(|c| {
            let old = regex::Regex::new(r"(?im)^[ \t]*(order|allow|deny|satisfy)[ \t]").unwrap();
            old.is_match(case_text(&body, c)) || c.files.iter().any(|(f, _)| old.is_match(&files_after[f]))
        })
        .count();
    if !changed.iter().any(|c| *c) {
        found.requests += a.len();
        return;
    }
    let (ok, output) = config_test(&after_cfg);
    if !ok {
        found.problems.push(format!("=== apache2 -t rejects the migrated batch:\n{output}\n{body}"));
        return;
    }
    let after = Httpd::start(after_cfg).expect("httpd starts with the migrated configuration");
    let b = statuses(&after, &cases);
    found.requests += a.len();
    let mut i = 0;
    for (c, changed) in cases.iter().zip(&changed) {
        let mut diffs = Vec::new();
        for p in &c.probes {
            if a[i] != b[i] {
                diffs.push(format!("    {}: {} before, {} after", p.describe(), a[i], b[i]));
            }
            i += 1;
        }
        if !diffs.is_empty() {
            let files: String = c
                .files
                .iter()
                .map(|(f, t)| format!("--- {f} before:\n{t}--- {f} after:\n{}", files_after[f]))
                .collect();
            found.problems.push(format!(
                "=== case {} (rewritten: {changed}): httpd answers differently after the migration\n{}\n\
                 --- before:\n{}--- after:\n{}{files}",
                c.name,
                diffs.join("\n"),
                case_text(&original_body, c),
                case_text(&body, c),
            ));
        }
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn migrated_generated_configurations_answer_as_before() {
    if !httpd::require_apache2() {
        return;
    }
    let count = env_number("APACHE_LSP_MIGRATE_CASES", 150) as usize;
    let seed = env_number("APACHE_LSP_MIGRATE_SEED", 0x319_2024);
    let cases = generate_cases(seed, count);
    let mut found = Found::default();
    for batch in cases.chunks(30) {
        let batch: Vec<&Case> = batch.iter().collect();
        run_batch(&batch, &mut found);
    }
    eprintln!(
        "{} generated cases (seed {seed:#x}) started by httpd, {} requests before and after; the migration \
         rewrote {} cases, {} keep old-style lines (left alone or partly migrated)",
        found.cases, found.requests, found.rewritten, found.left_old_style
    );
    assert!(found.cases > count / 2, "httpd started only {} of {count} cases", found.cases);
    // (A floor against a migration that stops rewriting, not a target: the cases share one
    // configuration, and an unanchored `<LocationMatch>` of one case also applies below other
    // cases' URLs, where the proof rightly refuses rewrites it cannot show alike. A fifth of the
    // default seed's cases are rewritten: 29 of 117.)
    assert!(found.rewritten > found.cases / 5, "the migration rewrote only {} cases", found.rewritten);
    assert!(
        found.problems.is_empty(),
        "{} problem(s):\n{}",
        found.problems.len(),
        found.problems.iter().take(8).cloned().collect::<Vec<_>>().join("\n")
    );
}

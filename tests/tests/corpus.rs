//! The shared corpus (../shared/corpus): every file must parse losslessly, and
//! the syntax errors we report must be the ones httpd's own reader reports.
//!
//! Needs `../shared` beside the project (present in CI); skips with a note otherwise.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if dir.join("SOURCES.tsv").is_file() {
        Some(dir)
    } else {
        eprintln!("note: ../shared/corpus is not present beside the project; corpus tests skipped");
        None
    }
}

fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let tsv = std::fs::read_to_string(dir.join("SOURCES.tsv")).unwrap();
    tsv.lines().skip(1).filter_map(|l| l.split('\t').next()).map(|p| dir.join(p)).collect()
}

#[test]
fn every_corpus_file_round_trips_byte_for_byte() {
    let Some(dir) = corpus_dir() else { return };
    let files = corpus_files(&dir);
    assert!(files.len() >= 300, "SOURCES.tsv lists {} files", files.len());
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let text = String::from_utf8(bytes.clone()).expect("corpus files are UTF-8");
        let parse = apache_syntax::parse(&text);
        assert_eq!(parse.syntax_node().text().to_string().as_bytes(), &bytes[..], "{}", f.display());
    }
}

/// What httpd's reader (the parse-tree phase of `apache2 -t`) says of a file.
enum Verdict {
    Accepted,
    /// A nesting or section-syntax error on this 1-based line.
    SyntaxError(u32, String),
    /// A read-time directive failed (Include, LoadModule, Define…): says nothing of syntax.
    Inconclusive,
}

fn httpd_reader_verdict(file: &Path, scratch: &Path) -> Verdict {
    let out = Command::new("/usr/sbin/apache2")
        .arg("-t")
        .arg("-d")
        .arg(scratch)
        .arg("-f")
        .arg(file)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("run apache2");
    let text = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    let fname = file.to_string_lossy().to_string();
    for line in text.lines() {
        // Parse-tree errors are one line: "apache2: Syntax error on line N of FILE: MSG".
        if let Some(rest) = line.strip_prefix("apache2: Syntax error on line ") {
            let (n, rest) = rest.split_once(" of ").unwrap();
            let msg = rest.strip_prefix(&fname).and_then(|r| r.strip_prefix(": ")).unwrap_or(rest);
            let n: u32 = n.parse().unwrap();
            let section_error = msg.contains("was not closed")
                || msg.contains("without matching")
                || msg.starts_with("Expected </")
                || msg.contains("missing closing '>'")
                || msg.contains("requires additional arguments")
                || msg.contains("doesn't take additional arguments")
                || msg.contains("Multiple <");
            return if section_error && rest.starts_with(fname.as_str()) {
                Verdict::SyntaxError(n, msg.to_string())
            } else {
                Verdict::Inconclusive
            };
        }
        if line.contains(": Syntax error on line ") && line.contains("was not closed") {
            // "FILE:N: <X> was not closed." form
            return Verdict::Inconclusive;
        }
        if line.ends_with("was not closed.") {
            let n = line
                .strip_prefix(&fname)
                .and_then(|r| r.strip_prefix(':'))
                .and_then(|r| r.split(':').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            return Verdict::SyntaxError(n, line.to_string());
        }
    }
    Verdict::Accepted
}

#[test]
fn syntax_errors_match_httpds_reader_on_the_corpus() {
    let Some(dir) = corpus_dir() else { return };
    if !Path::new("/usr/sbin/apache2").exists() {
        eprintln!("note: apache2 is not installed; run scripts/test to install it. Comparison with httpd skipped");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let (mut agree, mut inconclusive) = (0, 0);
    let mut disagreements = Vec::new();
    for f in corpus_files(&dir) {
        let text = std::fs::read_to_string(&f).unwrap();
        let parse = apache_syntax::parse(&text);
        let index = apache_syntax::LineIndex::new(&text);
        let ours: Vec<(u32, String)> = parse
            .errors
            .iter()
            .filter(|e| e.is_error)
            .map(|e| (index.human(e.range.start(), &text).0, e.message.clone()))
            .collect();
        match httpd_reader_verdict(&f, scratch.path()) {
            Verdict::Accepted => {
                if ours.is_empty() {
                    agree += 1
                } else {
                    disagreements.push(format!("{}: httpd accepts, we report {:?}", f.display(), ours))
                }
            }
            Verdict::SyntaxError(line, msg) => {
                if ours.iter().any(|(l, _)| *l == line) {
                    agree += 1
                } else {
                    disagreements.push(format!("{}: httpd says line {line}: {msg}; we report {:?}", f.display(), ours))
                }
            }
            Verdict::Inconclusive => inconclusive += 1,
        }
    }
    eprintln!(
        "corpus vs httpd reader: {agree} agree, {inconclusive} inconclusive (read-time directive failed), {} disagree",
        disagreements.len()
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert!(agree > 200, "too few conclusive comparisons: {agree}");
}

#[test]
fn mutated_corpus_text_never_panics_and_round_trips() {
    let Some(dir) = corpus_dir() else { return };
    // Deterministic mutations: delete, duplicate and insert bytes that matter to the lexer.
    let mut seed: u64 = 0x9E3779B97F4A7C15;
    let mut rnd = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    let inserts = ["<", ">", "</", "\\\n", "\"", "'", "#", "\r\n", "${", "}", "<Directory", "\n"];
    for f in corpus_files(&dir) {
        let text = std::fs::read_to_string(&f).unwrap();
        for _ in 0..4 {
            let mut t = text.clone();
            for _ in 0..8 {
                let mut at = rnd(t.len() + 1);
                while !t.is_char_boundary(at) {
                    at -= 1;
                }
                match rnd(3) {
                    0 => {
                        let mut end = (at + rnd(6)).min(t.len());
                        while !t.is_char_boundary(end) {
                            end -= 1;
                        }
                        t.replace_range(at..end, "");
                    }
                    _ => t.insert_str(at, inserts[rnd(inserts.len())]),
                }
            }
            let p = apache_syntax::parse(&t);
            assert_eq!(p.syntax_node().text().to_string(), t);
            let _ = apache_lsp::ide::document_symbols::document_symbols(&p);
        }
    }
}

/// Every ap_expr condition of the corpus (`<If>`, `<ElseIf>`, `Require expr`, `SetEnvIfExpr`,
/// `RewriteCond expr`) against `apache2 -t`: our parser refuses exactly those httpd refuses
/// (set in an `<If>` with the harness's modules), and in httpd's words.
#[test]
fn corpus_expressions_parse_as_httpd_parses_them() {
    use apache_lsp::ide::policy::expr::{parse_bool, Lookups};
    use apache_lsp_e2e::httpd::{config_test, require_apache2, HttpdConfig};
    let Some(dir) = corpus_dir() else { return };
    if !require_apache2() {
        return;
    }
    let pattern = regex::Regex::new(
        r#"(?i)^\s*(?:<(?:If|ElseIf)\s+|Require\s+(?:not\s+)?expr\s+|SetEnvIfExpr\s+|RewriteCond\s+expr\s+)"([^"]*)""#,
    )
    .unwrap();
    let mut expressions = std::collections::BTreeSet::new();
    for f in corpus_files(&dir) {
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines() {
            if let Some(c) = pattern.captures(line) {
                expressions.insert(c[1].to_string());
            }
        }
    }
    assert!(expressions.len() >= 5, "{expressions:?}");
    for expr in expressions {
        let cfg = HttpdConfig::new(format!("<Directory /srv>\n  <If \"{expr}\">\n  </If>\n</Directory>\n"));
        let (ok, output) = config_test(&cfg);
        let ours = parse_bool(&expr, Lookups::default());
        match ours {
            Ok(()) => assert!(ok, "{expr:?}: we accept, apache2 -t says {output}"),
            Err(e) => assert!(
                !ok && output.contains(&format!("Cannot parse condition clause: {e}")),
                "{expr:?}: we say {e:?}, apache2 -t says {output}"
            ),
        }
    }
}

//! Line diffs of rewritten files: the runs of kept, removed and added lines turning a file's
//! old text into its new one, and the unified diff `apache-lsp migrate` prints from them.
//!
//! The runs come from `similar`'s Myers diff, whose clean-up pass can shift a removal across
//! a kept line without updating the position it states in the new text: a hunk headed
//! `@@ -1,15 +20,6 @@` over 25 new lines, which `patch` rejects as malformed. So the runs are
//! numbered again here from their lengths alone, and checked: every kept run must hold the
//! same lines on both sides, and the runs must cover both texts exactly. Runs that fail the
//! check are replaced by the diff without the clean-up, and, should that fail too, by one run
//! replacing everything. Whatever is printed or written then agrees with the two texts.

use similar::{Algorithm, DiffOp, DiffTag};

/// The runs turning `old` into `new` (lines as `split_inclusive('\n')` gives them), numbered
/// consecutively and checked against both texts.
pub fn line_ops<T: std::hash::Hash + Ord + ?Sized>(old: &[&T], new: &[&T]) -> Vec<DiffOp> {
    if let Some(ops) = renumbered(&similar::capture_diff_slices(Algorithm::Myers, old, new), old, new) {
        return ops;
    }
    let mut plain = similar::algorithms::Replace::new(similar::algorithms::Capture::new());
    let done = similar::algorithms::diff(Algorithm::Myers, &mut plain, old, 0..old.len(), new, 0..new.len());
    if let Some(ops) = done.ok().and_then(|()| renumbered(plain.into_inner().ops(), old, new)) {
        return ops;
    }
    whole(old.len(), new.len())
}

/// One run replacing all of `old` by all of `new` (nothing when both are empty).
fn whole(old_len: usize, new_len: usize) -> Vec<DiffOp> {
    match (old_len, new_len) {
        (0, 0) => vec![],
        (0, n) => vec![DiffOp::Insert { old_index: 0, new_index: 0, new_len: n }],
        (o, 0) => vec![DiffOp::Delete { old_index: 0, old_len: o, new_index: 0 }],
        (o, n) => vec![DiffOp::Replace { old_index: 0, old_len: o, new_index: 0, new_len: n }],
    }
}

/// `ops` numbered again from their lengths, in order; None when a kept run differs between the
/// texts or the runs do not cover both texts exactly.
fn renumbered<T: Eq + ?Sized>(ops: &[DiffOp], old: &[&T], new: &[&T]) -> Option<Vec<DiffOp>> {
    let (mut i, mut j) = (0usize, 0usize);
    let mut out = Vec::with_capacity(ops.len());
    for op in ops {
        let (tag, o, n) = op.as_tag_tuple();
        let (ol, nl) = (o.len(), n.len());
        out.push(match tag {
            DiffTag::Equal => {
                if ol != nl || old.get(i..i + ol)? != new.get(j..j + nl)? {
                    return None;
                }
                DiffOp::Equal { old_index: i, new_index: j, len: ol }
            }
            DiffTag::Delete => DiffOp::Delete { old_index: i, old_len: ol, new_index: j },
            DiffTag::Insert => DiffOp::Insert { old_index: i, new_index: j, new_len: nl },
            DiffTag::Replace => DiffOp::Replace { old_index: i, old_len: ol, new_index: j, new_len: nl },
        });
        i += ol;
        j += nl;
    }
    (i == old.len() && j == new.len()).then_some(out)
}

/// A hunk range as diff(1) writes it: `start,count` from 1, `start` alone for one line, and
/// for no line the line before it with a count of 0.
fn range(start: usize, end: usize) -> String {
    match end - start {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        n => format!("{},{n}", start + 1),
    }
}

/// The unified diff from `old` to `new` with `context` lines around each change, headed
/// `--- old_name` / `+++ new_name`; empty when the texts are equal. A last line without a
/// newline is followed by `\ No newline at end of file`, as diff(1) and patch(1) expect.
pub fn unified(old_name: &str, new_name: &str, old: &str, new: &str, context: usize) -> String {
    let out = unified_bytes(old_name, new_name, old.as_bytes(), new.as_bytes(), context);
    // Every byte of it is a name's, a number's or a line's of the two texts: valid UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`unified`] of two files' bytes: every line is copied byte for byte (bytes that are not
/// UTF-8 too), so that patch(1) and `git apply` find the file's own lines in the context.
pub fn unified_bytes(old_name: &str, new_name: &str, old: &[u8], new: &[u8], context: usize) -> Vec<u8> {
    let old_lines: Vec<&[u8]> = old.split_inclusive(|b| *b == b'\n').collect();
    let new_lines: Vec<&[u8]> = new.split_inclusive(|b| *b == b'\n').collect();
    let ops = line_ops(&old_lines, &new_lines);
    let mut out: Vec<u8> = Vec::new();
    for group in similar::group_diff_ops(ops, context) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        if group.iter().all(|op| op.tag() == DiffTag::Equal) {
            continue;
        }
        if out.is_empty() {
            out.extend_from_slice(format!("--- {old_name}\n+++ {new_name}\n").as_bytes());
        }
        let header = format!(
            "@@ -{} +{} @@\n",
            range(first.old_range().start, last.old_range().end),
            range(first.new_range().start, last.new_range().end)
        );
        out.extend_from_slice(header.as_bytes());
        let mut line = |sign: u8, l: &[u8]| {
            out.push(sign);
            out.extend_from_slice(l);
            if !l.ends_with(b"\n") {
                out.extend_from_slice(b"\n\\ No newline at end of file\n");
            }
        };
        for op in &group {
            let (tag, o, n) = op.as_tag_tuple();
            match tag {
                DiffTag::Equal => old_lines[o].iter().for_each(|l| line(b' ', l)),
                DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
                    old_lines[o].iter().for_each(|l| line(b'-', l));
                    new_lines[n].iter().for_each(|l| line(b'+', l));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    /// Applies a unified diff printed by [`unified`] to `old` as patch(1) reads it: each hunk's
    /// header (where it starts and how many lines it holds on each side) and its body. Panics
    /// when a header disagrees with its body or with where the hunk lands, or when a context
    /// or removed line is not the old text's.
    fn apply(old: &str, diff: &str) -> String {
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let mut hunks: Vec<(&str, Vec<(char, String)>)> = Vec::new();
        for l in diff.split_inclusive('\n').skip(2) {
            if l.starts_with("@@ ") {
                hunks.push((l, Vec::new()));
                continue;
            }
            let body = &mut hunks.last_mut().expect("a hunk header first").1;
            if l == "\\ No newline at end of file\n" {
                assert_eq!(body.last_mut().and_then(|(_, t)| t.pop()), Some('\n'));
                continue;
            }
            let (sign, text) = l.split_at(1);
            body.push((sign.chars().next().unwrap(), text.to_string()));
        }
        let (mut out, mut at, mut written) = (String::new(), 0usize, 0usize);
        for (h, body) in hunks {
            let side = |k: usize| -> (usize, usize) {
                let r = &h.split(' ').nth(k).unwrap()[1..];
                match r.split_once(',') {
                    Some((s, c)) => (s.parse().unwrap(), c.parse().unwrap()),
                    None => (r.parse().unwrap(), 1),
                }
            };
            let ((old_start, old_count), (new_start, new_count)) = (side(1), side(2));
            let from = if old_count == 0 { old_start } else { old_start - 1 };
            assert!(from >= at, "{h:?} goes back");
            old_lines[at..from].iter().for_each(|l| out.push_str(l));
            written += from - at;
            at = from;
            assert_eq!(new_start, if new_count == 0 { written } else { written + 1 }, "{h:?}: new start");
            let counts =
                (body.iter().filter(|(s, _)| *s != '+').count(), body.iter().filter(|(s, _)| *s != '-').count());
            assert_eq!(counts, (old_count, new_count), "{h:?} against its body");
            for (sign, text) in body {
                if sign != '+' {
                    assert_eq!(old_lines[at], text, "context or removed line");
                    at += 1;
                }
                if sign != '-' {
                    out.push_str(&text);
                    written += 1;
                }
            }
        }
        old_lines[at..].iter().for_each(|l| out.push_str(l));
        out
    }

    /// The shape of random tree 100 (round 7, bug 7): a `<RequireAny>` moved into new
    /// `<Limit>`/`<LimitExcept>` blocks, no final newline. The clean-up pass shifts the first
    /// removal across the kept `<Limit POST PUT>` without renumbering it.
    const OLD: &str = "<RequireAny>\n  Require ip 127.1.2.3\n  Require valid-user\n</RequireAny>\n<Limit POST PUT>\n  # old rules\n  ALLOW from fe80::/10\n  ALLOW from 127.0\n  Deny from ::1/128\n  Satisfy Any\n</Limit>\n<Files index.html>\n  Order allow,deny\n  Satisfy any\n</Files>";
    const NEW: &str = "<Limit POST PUT>\n  Require ip fe80::/10 127.0\n  <RequireAll>\n    Require all granted\n    <RequireNone>\n      Require ip ::1/128\n    </RequireNone>\n  </RequireAll>\n  <RequireAny>\n    Require ip 127.1.2.3\n    Require valid-user\n  </RequireAny>\n</Limit>\n<LimitExcept POST PUT>\n  <RequireAny>\n    Require ip 127.1.2.3\n    Require valid-user\n  </RequireAny>\n</LimitExcept>\n<Limit POST PUT>\n  # old rules\n</Limit>\n<Files index.html>\n  Require all granted\n</Files>";

    #[test]
    fn hunk_headers_count_the_lines_of_their_bodies() {
        let d = unified("a/x", "b/x", OLD, NEW, 3);
        assert_eq!(apply(OLD, &d), NEW);
        expect![[r#"
            --- a/x
            +++ b/x
            @@ -1,15 +1,25 @@
            -<RequireAny>
            -  Require ip 127.1.2.3
            -  Require valid-user
            -</RequireAny>
             <Limit POST PUT>
            +  Require ip fe80::/10 127.0
            +  <RequireAll>
            +    Require all granted
            +    <RequireNone>
            +      Require ip ::1/128
            +    </RequireNone>
            +  </RequireAll>
            +  <RequireAny>
            +    Require ip 127.1.2.3
            +    Require valid-user
            +  </RequireAny>
            +</Limit>
            +<LimitExcept POST PUT>
            +  <RequireAny>
            +    Require ip 127.1.2.3
            +    Require valid-user
            +  </RequireAny>
            +</LimitExcept>
            +<Limit POST PUT>
               # old rules
            -  ALLOW from fe80::/10
            -  ALLOW from 127.0
            -  Deny from ::1/128
            -  Satisfy Any
             </Limit>
             <Files index.html>
            -  Order allow,deny
            -  Satisfy any
            +  Require all granted
             </Files>
            \ No newline at end of file
        "#]]
        .assert_eq(&d);
    }

    #[test]
    fn runs_agree_with_both_texts() {
        let old: Vec<&str> = OLD.split_inclusive('\n').collect();
        let new: Vec<&str> = NEW.split_inclusive('\n').collect();
        let (mut i, mut j) = (0, 0);
        for op in line_ops(&old, &new) {
            let (tag, o, n) = op.as_tag_tuple();
            assert_eq!((o.start, n.start), (i, j), "{op:?}");
            if tag == DiffTag::Equal {
                assert_eq!(old[o.clone()], new[n.clone()]);
            }
            (i, j) = (o.end, n.end);
        }
        assert_eq!((i, j), (old.len(), new.len()));
    }

    /// Small random texts over a few lines (with and without final newlines): every printed
    /// diff applies to the old text and gives the new one.
    #[test]
    fn every_diff_applies() {
        let pool = ["a\n", "b\n", "<Limit GET>\n", "</Limit>\n", "  Require all granted\n", "\n", "c"];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..3000 {
            let text = |next: &mut dyn FnMut(usize) -> usize| {
                let len = next(14);
                let mut s = String::new();
                for k in 0..len {
                    let l = pool[next(pool.len())];
                    // A line without a newline can only be the last.
                    if !l.ends_with('\n') && k + 1 != len {
                        continue;
                    }
                    s.push_str(l);
                }
                s
            };
            let (old, new) = (text(&mut next), text(&mut next));
            let d = unified("a/x", "b/x", &old, &new, 1 + next(3));
            assert_eq!(apply(&old, &d), new, "{old:?} → {new:?}:\n{d}");
            assert_eq!(d.is_empty(), old == new);
        }
    }

    #[test]
    fn ranges_as_diff_writes_them() {
        assert_eq!(range(0, 0), "0,0");
        assert_eq!(range(4, 4), "4,0");
        assert_eq!(range(4, 5), "5");
        assert_eq!(range(4, 7), "5,3");
    }
}

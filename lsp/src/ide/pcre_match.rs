//! Regular expressions compiled and matched by PCRE2 itself, with the options httpd's
//! `ap_regcomp` (server/util_pcre.c) gives it: `PCRE2_DUPNAMES`, and, from the default
//! compile flags `AP_REG_DEFAULT`, `PCRE2_DOTALL` and `PCRE2_DOLLAR_ENDONLY`; `PCRE2_CASELESS`
//! for case-insensitive patterns. No `PCRE2_UTF` nor `PCRE2_UCP`: subjects are bytes, so `\w`
//! or a caseless letter never matches a non-ASCII character, as in httpd. Matching uses PCRE2's
//! interpreter with its default limits, as `ap_regexec` does (no JIT).

use pcre2_sys as ffi;

/// A compiled pattern and the match data its searches fill in.
pub(crate) struct Pcre {
    code: *mut ffi::pcre2_code_8,
    data: *mut ffi::pcre2_match_data_8,
}

impl Drop for Pcre {
    fn drop(&mut self) {
        // SAFETY: both were created by PCRE2 in `compile`, are not null, and are freed once here.
        unsafe {
            ffi::pcre2_match_data_free_8(self.data);
            ffi::pcre2_code_free_8(self.code);
        }
    }
}

impl Pcre {
    /// Compiles `pattern` as httpd does; None when PCRE2 refuses it (httpd: "Regex could not
    /// be compiled"), or the pattern holds a NUL byte (httpd passes it NUL-terminated).
    pub(crate) fn compile(pattern: &str, case_insensitive: bool) -> Option<Pcre> {
        if pattern.as_bytes().contains(&0) {
            return None;
        }
        let mut options = ffi::PCRE2_DUPNAMES | ffi::PCRE2_DOTALL | ffi::PCRE2_DOLLAR_ENDONLY;
        if case_insensitive {
            options |= ffi::PCRE2_CASELESS;
        }
        let mut error: libc::c_int = 0;
        let mut offset: usize = 0;
        // SAFETY: the pattern pointer and length describe a live byte slice; the error outputs
        // point to locals; a null compile context selects the defaults.
        let code = unsafe {
            ffi::pcre2_compile_8(
                pattern.as_ptr(),
                pattern.len(),
                options,
                &mut error,
                &mut offset,
                std::ptr::null_mut(),
            )
        };
        if code.is_null() {
            return None;
        }
        // SAFETY: `code` is a valid compiled pattern; a null general context selects malloc.
        let data = unsafe { ffi::pcre2_match_data_create_from_pattern_8(code, std::ptr::null_mut()) };
        if data.is_null() {
            // SAFETY: `code` was created above and is not used after this.
            unsafe { ffi::pcre2_code_free_8(code) };
            return None;
        }
        Some(Pcre { code, data })
    }

    /// Searches `subject`: Some(true) when the pattern matches somewhere in it, Some(false) when
    /// nowhere, None when PCRE2 gave up (a match or depth limit: httpd then takes it as no
    /// match but logs an error, so the answer is not known from the pattern alone).
    pub(crate) fn is_match(&self, subject: &[u8]) -> Option<bool> {
        self.search(subject).map(|n| n > 0)
    }

    /// Searches `subject` and returns the byte ranges of the whole match and each capture group
    /// (None for a group that did not take part); Some(empty) when it does not match, None when
    /// PCRE2 gave up.
    pub(crate) fn captures(&self, subject: &[u8]) -> Option<Vec<Option<(usize, usize)>>> {
        let n = self.search(subject)?;
        if n == 0 {
            return Some(Vec::new());
        }
        // SAFETY: `data` holds the results of the search just made; its ovector has
        // `pcre2_get_ovector_count_8` pairs.
        let pairs = unsafe {
            let count = ffi::pcre2_get_ovector_count_8(self.data) as usize;
            std::slice::from_raw_parts(ffi::pcre2_get_ovector_pointer_8(self.data), count * 2)
        };
        Some(
            pairs
                .chunks_exact(2)
                .map(|p| (p[0] != ffi::PCRE2_UNSET && p[1] >= p[0] && p[1] <= subject.len()).then_some((p[0], p[1])))
                .collect(),
        )
    }

    /// The pattern's named groups: (group number, name), in the order of PCRE2's name table
    /// (sorted by name; a name given twice under `PCRE2_DUPNAMES` comes once per group).
    pub(crate) fn named_groups(&self) -> Vec<(usize, String)> {
        let (mut count, mut size): (u32, u32) = (0, 0);
        let mut table: *const u8 = std::ptr::null();
        // SAFETY: `code` is a valid compiled pattern; each call writes one value of the type
        // PCRE2 documents for the item (uint32_t, uint32_t, PCRE2_SPTR) into a local.
        let ok = unsafe {
            ffi::pcre2_pattern_info_8(self.code, ffi::PCRE2_INFO_NAMECOUNT, (&mut count as *mut u32).cast()) == 0
                && ffi::pcre2_pattern_info_8(self.code, ffi::PCRE2_INFO_NAMEENTRYSIZE, (&mut size as *mut u32).cast())
                    == 0
                && ffi::pcre2_pattern_info_8(
                    self.code,
                    ffi::PCRE2_INFO_NAMETABLE,
                    (&mut table as *mut *const u8).cast(),
                ) == 0
        };
        if !ok || count == 0 || size < 3 || table.is_null() {
            return Vec::new();
        }
        // SAFETY: the name table has `count` entries of `size` bytes each, owned by `code`.
        let bytes = unsafe { std::slice::from_raw_parts(table, count as usize * size as usize) };
        bytes
            .chunks_exact(size as usize)
            .map(|e| {
                let number = (usize::from(e[0]) << 8) | usize::from(e[1]);
                let name = &e[2..];
                let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
                (number, String::from_utf8_lossy(&name[..end]).into_owned())
            })
            .collect()
    }

    /// The number of pairs set by a match (at least 1), 0 when there is none, None on an error.
    fn search(&self, subject: &[u8]) -> Option<usize> {
        // SAFETY: `code` and `data` are valid and owned by `self`; the subject pointer and length
        // describe a live byte slice; a null match context selects the default limits.
        let rc = unsafe {
            ffi::pcre2_match_8(self.code, subject.as_ptr(), subject.len(), 0, 0, self.data, std::ptr::null_mut())
        };
        match rc {
            ffi::PCRE2_ERROR_NOMATCH => Some(0),
            // 0: the ovector was too small, which cannot happen with match data sized from the
            // pattern; counted as a match of the whole pattern.
            0 => Some(1),
            n if n > 0 => Some(n as usize),
            _ => None,
        }
    }
}

/// httpd's `ap_pregsub`: `$0`…`$9` are replaced by the match and its groups (nothing for a
/// group that did not take part), `\c` is `c`, anything else is kept. `caps` are the ranges
/// [`Pcre::captures`] gives over `source`.
pub(crate) fn pregsub(template: &str, source: &[u8], caps: &[Option<(usize, usize)>]) -> String {
    let mut out: Vec<u8> = Vec::new();
    let t = template.as_bytes();
    let mut i = 0;
    while i < t.len() {
        let c = t[i];
        i += 1;
        if c == b'$' && i < t.len() && t[i].is_ascii_digit() {
            let no = usize::from(t[i] - b'0');
            i += 1;
            if let Some(Some((start, end))) = caps.get(no) {
                out.extend_from_slice(&source[*start..*end]);
            }
        } else if c == b'\\' && i < t.len() {
            out.push(t[i]);
            i += 1;
        } else {
            out.push(c);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::{pregsub, Pcre};

    fn m(pattern: &str, text: &str) -> Option<bool> {
        Pcre::compile(pattern, false).and_then(|p| p.is_match(text.as_bytes()))
    }

    #[test]
    fn pcre_only_constructs_match_as_in_httpd() {
        assert_eq!(m("^(?!index).*\\.(txt|sql)$", "a.txt"), Some(true));
        assert_eq!(m("^(?!index).*\\.(txt|sql)$", "index.txt"), Some(false));
        assert_eq!(m("(?<!robots)\\.txt$", "robots.txt"), Some(false));
        assert_eq!(m("(?<!robots)\\.txt$", "CHANGELOG.txt"), Some(true));
        assert_eq!(m("^(?>a|ab)\\.txt$", "ab.txt"), Some(false));
        assert_eq!(m("^(a)\\1?\\.txt$", "aa.txt"), Some(true));
        assert_eq!(m("^\\Qa.b\\E$", "a.b"), Some(true));
        assert_eq!(m("^\\Qa.b\\E$", "axb"), Some(false));
        assert_eq!(m("\\.txt\\Z", "a.txt\n"), Some(true));
    }

    #[test]
    fn compiled_with_httpd_default_options() {
        // DOTALL: `.` matches a newline; DOLLAR_ENDONLY: `$` only at the very end.
        assert_eq!(m("^a.b$", "a\nb"), Some(true));
        assert_eq!(m("^a$", "a\n"), Some(false));
        // No UTF: `\w` is ASCII and a non-ASCII letter is two bytes.
        assert_eq!(m("^\\w+$", "caf\u{e9}"), Some(false));
        assert_eq!(m("^caf..$", "caf\u{e9}"), Some(true));
        // DUPNAMES: a name may be used twice.
        assert_eq!(m("(?<n>a)|(?<n>b)", "b"), Some(true));
        assert!(Pcre::compile("(", false).is_none());
        let ci = Pcre::compile("^ABC$", true).unwrap();
        assert_eq!(ci.is_match(b"abc"), Some(true));
        assert_eq!(ci.is_match("\u{c9}".as_bytes()), Some(false));
    }

    #[test]
    fn captures_give_group_ranges() {
        let p = Pcre::compile("^(a)(x)?(b)", false).unwrap();
        assert_eq!(p.captures(b"abc"), Some(vec![Some((0, 2)), Some((0, 1)), None, Some((1, 2))]));
        assert_eq!(p.captures(b"zzz"), Some(vec![]));
        let caps = p.captures(b"abc").unwrap();
        // `&` is not special in httpd 2.4's ap_pregsub; `\$` is a dollar; `$2` unset is empty.
        assert_eq!(pregsub("[$0|$1|$2|$3|&|\\$1|$x]", b"abc", &caps), "[ab|a||b|&|$1|$x]");
    }
}

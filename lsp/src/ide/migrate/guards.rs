//! `<IfModule mod_access_compat.c>` (or `access_compat_module`, either with `!`) around lines:
//! what they hold applies only while mod_access_compat is loaded (or only once it is not), so a
//! migration, whose point is that the module can be unloaded, never writes its Require lines
//! inside one, removes one it leaves holding nothing, and names those still holding lines.

use super::body::whole_lines;
use apache_syntax::ast::{self, AstNode};
use apache_syntax::{TextRange, TextSize};

/// A conditional section testing mod_access_compat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CompatGuard {
    /// The whole lines from its header to its closer.
    pub lines: TextRange,
    /// Its header as written (`<IfModule mod_access_compat.c>`).
    pub header: String,
    /// `<IfModule !…>`: its lines apply only while the module is not loaded.
    pub negated: bool,
    /// The whole lines between the header and the closer.
    pub inner: TextRange,
}

/// Whether `<IfModule arg>` tests mod_access_compat (httpd matches the source file name or the
/// identifier exactly, `server/core.c: find_module`): Some(negated).
pub(super) fn tests_compat(arg: &str) -> Option<bool> {
    let (negated, name) = match arg.strip_prefix('!') {
        Some(n) => (true, n),
        None => (false, arg),
    };
    matches!(name, "mod_access_compat.c" | "access_compat_module").then_some(negated)
}

/// The guards in `text[within]` (the whole text when None), outermost first.
pub(super) fn compat_guards(text: &str, within: Option<TextRange>) -> Vec<CompatGuard> {
    let within = within.unwrap_or_else(|| TextRange::up_to(TextSize::of(text)));
    let slice = &text[within];
    // (Nothing to parse in the usual configuration.)
    if !slice.contains("access_compat") {
        return vec![];
    }
    let base = within.start();
    let root = apache_syntax::parse(slice).syntax_node();
    let mut out = Vec::new();
    for s in root.descendants().filter_map(ast::Section::cast) {
        if !s.name_text().eq_ignore_ascii_case("IfModule") {
            continue;
        }
        let (Some(header), Some(closer)) = (s.header(), s.closer()) else { continue };
        let args = apache_syntax::split_words(&header.raw_args());
        let Some(negated) = args.first().and_then(|a| tests_compat(a)) else { continue };
        // The whole lines of a node (which may run past its line break: trimmed first).
        let lines_of = |r: TextRange| {
            let r = r + base;
            whole_lines(text, TextRange::at(r.start(), TextSize::of(text[r].trim_end())))
        };
        let lines = lines_of(s.syntax().text_range());
        let head = lines_of(header.syntax().text_range());
        let close = lines_of(closer.syntax().text_range());
        let inner = TextRange::new(head.end(), close.start().max(head.end()));
        let header = text[header.syntax().text_range() + base].trim().to_string();
        out.push(CompatGuard { lines, header, negated, inner });
    }
    out
}

impl CompatGuard {
    /// Whether nothing is left in it once `deleted` (whole lines) are gone: every other line
    /// blank, a comment, or the delimiter of a conditional section.
    pub fn emptied_by(&self, text: &str, deleted: &[TextRange]) -> bool {
        let mut at = self.inner.start();
        for line in text[self.inner].split_inclusive('\n') {
            let r = TextRange::at(at, TextSize::of(line));
            at = r.end();
            let t = line.trim().to_ascii_lowercase();
            let gone = deleted.iter().any(|d| d.contains_range(r));
            if !(gone || t.is_empty() || t.starts_with('#') || t.starts_with("<if") || t.starts_with("</if")) {
                return false;
            }
        }
        true
    }

    /// The directives `inner` (the text between its header and closer) holds, by name, each
    /// once, in order.
    pub fn held(inner: &str) -> Vec<String> {
        let root = apache_syntax::parse(inner).syntax_node();
        let mut names: Vec<String> = Vec::new();
        for d in root.descendants().filter_map(ast::Directive::cast) {
            if let Some(n) = d.name().map(|n| n.text().to_string()) {
                if !names.iter().any(|x| x.eq_ignore_ascii_case(&n)) {
                    names.push(n);
                }
            }
        }
        names
    }

    /// Why the block keeps the tree from working the same once mod_access_compat is unloaded,
    /// when it holds directives (`inner`: the text between its header and closer, as the
    /// migration leaves it; `loaded`: the configuration loads the module today; if it does not,
    /// unloading it changes nothing).
    pub fn left_reason(&self, inner: &str, loaded: bool) -> Option<String> {
        let held = Self::held(inner);
        if held.is_empty() || !loaded {
            return None;
        }
        let mut names = held.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
        if held.len() > 4 {
            names.push_str(", …");
        }
        Some(if self.negated {
            format!(
                "{}: httpd skips the lines in it ({names}) while mod_access_compat is loaded and reads them once it is unloaded, so what the tree does without the module is not what the migration proved; merge them with the rules beside it, or remove the block, by hand",
                self.header
            )
        } else {
            format!(
                "{}: httpd reads the lines in it ({names}) only while mod_access_compat is loaded and drops them once it is unloaded; move them out of the block, or remove it, by hand",
                self.header
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_by_source_name_or_identifier_either_way() {
        let text = "<Directory /x>\n  <IfModule mod_access_compat.c>\n    Order deny,allow\n  </IfModule>\n  <IfModule !access_compat_module>\n    # only without\n    Require all denied\n  </IfModule>\n  <IfModule mod_access_compat>\n    Deny from all\n  </IfModule>\n</Directory>\n";
        let g = compat_guards(text, None);
        let shown: Vec<(String, bool, &str)> =
            g.iter().map(|g| (g.header.clone(), g.negated, &text[g.lines])).collect();
        assert_eq!(
            shown,
            vec![
                (
                    "<IfModule mod_access_compat.c>".to_string(),
                    false,
                    "  <IfModule mod_access_compat.c>\n    Order deny,allow\n  </IfModule>\n"
                ),
                (
                    "<IfModule !access_compat_module>".to_string(),
                    true,
                    "  <IfModule !access_compat_module>\n    # only without\n    Require all denied\n  </IfModule>\n"
                ),
            ],
            "(`mod_access_compat` alone names no module)"
        );
        assert_eq!(&text[g[0].inner], "    Order deny,allow\n");
        let order = TextRange::at(g[0].inner.start(), TextSize::of("    Order deny,allow\n"));
        assert!(g[0].emptied_by(text, &[order]));
        assert!(!g[0].emptied_by(text, &[]));
        assert_eq!(CompatGuard::held(&text[g[1].inner]), vec!["Require"]);
        assert!(g[1].left_reason(&text[g[1].inner], true).unwrap().contains("reads them once it is unloaded"));
        assert_eq!(g[1].left_reason(&text[g[1].inner], false), None);
        assert_eq!(g[0].left_reason("    # nothing\n", true), None);
    }
}

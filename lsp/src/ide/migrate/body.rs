//! One body of access rules as text — a section, or the top level of an .htaccess file: which
//! of its lines hold old-style rules, which hold Require elements, and the edits that put a new
//! block in their place, keeping indentation, comments, other directives, conditional guards
//! and line endings.

use super::Edit;
use crate::ide::access::body_items;
use crate::ide::config::{Config, FileId, Node, NodeKind};
use crate::ide::policy::{self, AuthMerging, Item, MethodId, PolicyCtx, SectionPolicy};
use apache_syntax::{TextRange, TextSize};
use std::path::Path;
use std::sync::Arc;

pub(super) fn is_compat(name: &str) -> bool {
    matches!(name.to_ascii_lowercase().as_str(), "order" | "allow" | "deny" | "satisfy")
}

fn is_require_element(n: &Node) -> bool {
    (n.kind == NodeKind::Directive && n.is("Require"))
        || (n.is_section() && (n.is("RequireAll") || n.is("RequireAny") || n.is("RequireNone")))
}

fn is_limit(n: &Node) -> bool {
    n.is_section() && (n.is("Limit") || n.is("LimitExcept"))
}

/// A body of access rules.
pub(super) struct Body<'a> {
    /// The configuration that owns the nodes (the root one, or an .htaccess fragment).
    pub cfg: &'a Config,
    pub file: FileId,
    /// The section, or None for an .htaccess top level.
    pub node: Option<&'a Node>,
    pub children: &'a [Node],
    pub htaccess: bool,
}

/// What a `<Limit>` block holding old-style lines becomes.
enum LimitFate {
    /// Only old-style lines: the block goes.
    Delete,
    /// Require elements remain: the block moves into the new block, without its old-style lines.
    Moves,
    /// Other directives remain: only its old-style lines go.
    Strip,
}

/// The parts of a body that a rewrite touches.
pub(super) struct Parts<'a> {
    pub compat: Vec<&'a Node>,
    /// Require elements: top-level Require lines and containers, and `<Limit>` blocks holding
    /// nothing but Require elements (once old-style lines are gone).
    pub rules: Vec<&'a Node>,
    limits: Vec<(&'a Node, LimitFate)>,
}

impl<'a> Body<'a> {
    pub fn path(&self) -> Arc<Path> {
        self.cfg.file(self.file).path.clone()
    }

    pub fn text(&self) -> &str {
        &self.cfg.file(self.file).text
    }

    /// `<Directory /x>` (as written) or the .htaccess file's path.
    pub fn label(&self) -> String {
        match self.node {
            Some(n) => {
                let fd = self.cfg.file(n.loc.file);
                fd.text[usize::from(n.loc.focus.start())..usize::from(n.loc.focus.end())].trim().to_string()
            }
            None => self.path().display().to_string(),
        }
    }

    /// `file:line`.
    pub fn place(&self) -> String {
        let line = self.node.map(|n| n.loc.line).unwrap_or(1);
        format!("{}:{line}", self.path().display())
    }

    pub fn items(&self) -> Vec<Item> {
        match self.node {
            Some(n) => body_items(self.cfg, n),
            None => {
                let top = Node {
                    kind: NodeKind::Section,
                    name: ".htaccess".into(),
                    args: vec![],
                    raw_args: String::new(),
                    loc: crate::ide::config::Loc {
                        file: self.file,
                        range: TextRange::default(),
                        focus: TextRange::default(),
                        line: 1,
                    },
                    children: self.children.to_vec(),
                };
                body_items(self.cfg, &top)
            }
        }
    }

    pub fn policy(&self, ctx: &PolicyCtx) -> SectionPolicy {
        let mut ctx = ctx.clone();
        ctx.htaccess = self.htaccess;
        policy::section_from_items(&self.items(), &ctx)
    }

    /// Methods named by the `<Limit>`/`<LimitExcept>` blocks holding old-style lines.
    pub fn limit_methods(&self, ctx: &PolicyCtx) -> Vec<(MethodId, String)> {
        let mut out = Vec::new();
        for n in self.children.iter().filter(|n| is_limit(n)) {
            if n.walk().any(|d| d.kind == NodeKind::Directive && is_compat(&d.name)) {
                for a in &n.args {
                    out.push((MethodId::resolve(a, &ctx.registered_methods), a.clone()));
                }
            }
        }
        out
    }

    /// Whether the body sets AuthMerging.
    pub fn sets_authmerging(&self, ctx: &PolicyCtx) -> bool {
        self.policy(ctx).authz.is_some_and(|a| a.op != AuthMerging::Unset)
    }

    pub fn parts(&self) -> Result<Parts<'a>, String> {
        if self.cfg.file(self.file).not_utf8.is_some() {
            return Err("the file is not valid UTF-8; it is never rewritten".into());
        }
        let mut parts = Parts { compat: vec![], rules: vec![], limits: vec![] };
        for c in self.children {
            if c.kind == NodeKind::Directive && is_compat(&c.name) {
                parts.compat.push(c);
            } else if is_require_element(c) {
                parts.rules.push(c);
            } else if is_limit(c) {
                let old = c.children.iter().any(|d| d.kind == NodeKind::Directive && is_compat(&d.name));
                let rest: Vec<&Node> = c.children.iter().filter(|d| !is_compat(&d.name)).collect();
                if c.children.iter().any(|d| is_limit(d) && d.walk().any(|x| is_compat(&x.name))) {
                    return Err("it nests <Limit> blocks inside <Limit>; rewrite those by hand".into());
                }
                let all_rules = !rest.is_empty() && rest.iter().all(|d| is_require_element(d));
                let any_rules = rest.iter().any(|d| is_require_element(d));
                match (old, all_rules, any_rules) {
                    (true, _, _) if rest.is_empty() => parts.limits.push((c, LimitFate::Delete)),
                    (_, true, _) => {
                        parts.rules.push(c);
                        if old {
                            parts.limits.push((c, LimitFate::Moves));
                        }
                    }
                    (_, false, true) => {
                        return Err(format!(
                            "its <{} {}> block mixes Require lines with other directives; rewrite it by hand",
                            c.name,
                            c.args.join(" ")
                        ))
                    }
                    (true, false, false) => parts.limits.push((c, LimitFate::Strip)),
                    (false, false, false) => {}
                }
            }
        }
        let everything = parts.compat.iter().chain(&parts.rules).chain(parts.limits.iter().map(|(n, _)| n));
        for n in everything {
            if n.walk().any(|d| d.loc.file != self.file) {
                return Err("some of its access lines come from an included file".into());
            }
        }
        Ok(parts)
    }

    /// The text of a Require element, dedented, without old-style lines (for `<Limit>` blocks).
    pub fn element_text(&self, n: &Node) -> String {
        let text = self.text();
        let r = whole_lines(text, self.cfg.trimmed(&n.loc));
        let mut cut: Vec<TextRange> = n
            .children
            .iter()
            .filter(|d| d.kind == NodeKind::Directive && is_compat(&d.name))
            .map(|d| whole_lines(text, self.cfg.trimmed(&d.loc)))
            .collect();
        cut.sort_by_key(|r| r.start());
        let mut s = String::new();
        let mut at = r.start();
        for c in cut {
            s.push_str(&text[usize::from(at)..usize::from(c.start())]);
            at = c.end();
        }
        s.push_str(&text[usize::from(at)..usize::from(r.end())]);
        dedent(s.trim_end_matches(['\n', '\r']))
    }

    /// Edits replacing the body's old-style lines and its Require elements (which `block`
    /// holds, combined) with `block`, placed where the first of them was.
    pub fn rewrite(&self, parts: &Parts, block: &[String]) -> Vec<Edit> {
        let text = self.text();
        let mut targets: Vec<(TextRange, String)> = Vec::new();
        for n in &parts.compat {
            targets.push((whole_lines(text, self.cfg.trimmed(&n.loc)), String::new()));
        }
        for (n, fate) in &parts.limits {
            match fate {
                LimitFate::Delete => targets.push((whole_lines(text, self.cfg.trimmed(&n.loc)), String::new())),
                LimitFate::Moves => {}
                LimitFate::Strip => {
                    for d in n.children.iter().filter(|d| d.kind == NodeKind::Directive && is_compat(&d.name)) {
                        targets.push((whole_lines(text, self.cfg.trimmed(&d.loc)), String::new()));
                    }
                }
            }
        }
        for n in &parts.rules {
            targets.push((whole_lines(text, self.cfg.trimmed(&n.loc)), String::new()));
        }
        self.place_block(targets, block)
    }

    /// Edits replacing the Require elements with `block` (carrying rules into this body).
    pub fn replace_rules(&self, parts: &Parts, block: &[String]) -> Vec<Edit> {
        let text = self.text();
        let targets =
            parts.rules.iter().map(|n| (whole_lines(text, self.cfg.trimmed(&n.loc)), String::new())).collect();
        self.place_block(targets, block)
    }

    fn place_block(&self, mut targets: Vec<(TextRange, String)>, block: &[String]) -> Vec<Edit> {
        let text = self.text();
        targets.sort_by_key(|(r, _)| r.start());
        targets.dedup_by_key(|(r, _)| r.start());
        let path = self.path();
        let Some(first) = targets.first() else { return vec![] };
        let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let pad = line_indent(text, first.0.start());
        let mut out = Vec::new();
        for (i, (r, rest)) in targets.iter().enumerate() {
            let mut new_text = String::new();
            if i == 0 {
                let ends_nl = text[usize::from(r.start())..usize::from(r.end())].ends_with('\n');
                let lines: Vec<String> =
                    block.iter().flat_map(|b| b.lines().map(|l| format!("{pad}{l}")).collect::<Vec<_>>()).collect();
                new_text.push_str(&lines.join(nl));
                if ends_nl || !rest.is_empty() {
                    new_text.push_str(nl);
                }
            }
            new_text.push_str(rest);
            out.push(Edit { path: path.clone(), range: *r, new_text });
        }
        out
    }
}

/// `range` extended to whole lines (with the final line break).
pub(super) fn whole_lines(text: &str, range: TextRange) -> TextRange {
    let start = text[..usize::from(range.start())].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let end = match text[usize::from(range.end())..].find('\n') {
        Some(i) => usize::from(range.end()) + i + 1,
        None => text.len(),
    };
    TextRange::new(TextSize::from(start as u32), TextSize::from(end as u32))
}

fn line_indent(text: &str, at: TextSize) -> String {
    let start = text[..usize::from(at)].rfind('\n').map(|i| i + 1).unwrap_or(0);
    text[start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
}

fn dedent(s: &str) -> String {
    let s = s.replace("\r\n", "\n");
    let pad = s.lines().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    s.lines().map(|l| if l.len() >= pad { &l[pad..] } else { l.trim_start() }).collect::<Vec<_>>().join("\n")
}

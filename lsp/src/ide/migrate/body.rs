//! One body of access rules as text — a section, or the top level of an .htaccess file: which
//! of its lines hold old-style rules, which hold Require elements, and the edits that put a new
//! block in their place, keeping indentation, comments, other directives, conditional guards
//! and line endings.

use super::formula::{LimitSpec, Rule};
use super::guards::{compat_guards, CompatGuard};
use super::Edit;
use crate::ide::access::body_items;
use crate::ide::config::{Config, FileId, Node, NodeKind};
use crate::ide::policy::{self, AuthMerging, Item, MethodId, PolicyCtx, SectionPolicy};
use apache_syntax::{TextRange, TextSize};
use std::path::Path;
use std::sync::Arc;

pub(super) fn is_compat(name: &str) -> bool {
    crate::ide::policy::is_compat_directive(name)
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

/// The parts of a body that a rewrite touches.
pub(super) struct Parts {
    /// Lines of old-style rules to delete (directives, and `<Limit>` blocks holding nothing else).
    pub compat: Vec<TextRange>,
    /// The Require elements as text (dedented): top-level Require lines and containers, and
    /// `<Limit>` blocks reduced to their Require elements.
    pub rules: Vec<Rule>,
    /// Lines those elements occupy (deleted when they move into a new block).
    pub rule_lines: Vec<TextRange>,
    /// Some Require element is limited to some methods.
    pub rules_have_limit: bool,
    /// Where a new block goes: before the first top-level element the rewrite touches.
    anchors: Vec<TextSize>,
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
        let line = self.node.map(|n| self.cfg.line(&n.loc)).unwrap_or(1);
        format!("{}:{line}", self.path().display())
    }

    pub fn items(&self) -> Vec<Item> {
        match self.node {
            Some(n) => body_items(self.cfg, n),
            None => {
                let loc = crate::ide::config::Loc {
                    file: self.file,
                    range: TextRange::default(),
                    focus: TextRange::default(),
                };
                let top = Node::new(NodeKind::Section, ".htaccess", [""; 0], "", loc, self.children.to_vec());
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
            if n.walk().any(|d| d.kind == NodeKind::Directive && is_compat(d.name())) {
                for a in &n.args() {
                    out.push((MethodId::resolve(a, &ctx.registered_methods), a.to_string()));
                }
            }
        }
        out
    }

    /// Whether the body sets AuthMerging.
    pub fn sets_authmerging(&self, ctx: &PolicyCtx) -> bool {
        self.policy(ctx).authz.is_some_and(|a| a.op != AuthMerging::Unset)
    }

    pub fn parts(&self) -> Result<Parts, String> {
        let text = self.text();
        // A file that is not UTF-8 is read decoded (each bad sequence as U+FFFD); the body is
        // rewritten only when none of its own lines holds such bytes, and the writer keeps the
        // other lines' bytes as they are.
        if self.cfg.file(self.file).not_utf8.is_some() {
            let whole = match self.node {
                Some(n) => &text[n.loc.range],
                None => text,
            };
            if whole.contains('\u{FFFD}') {
                return Err("its lines hold bytes that are not UTF-8; it is never rewritten".into());
            }
        }
        // Access lines in a conditional whose test depends on how httpd is started: a rewrite
        // would move them out of it, or write Require lines beside old-style lines it skips.
        if let Some(why) = super::startup::startup_dependent(text, self.node.map(|n| n.loc.range)) {
            return Err(why);
        }
        let lines = |n: &Node| whole_lines(text, self.cfg.trimmed(&n.loc));
        let mut parts =
            Parts { compat: vec![], rules: vec![], rule_lines: vec![], rules_have_limit: false, anchors: vec![] };
        for c in self.children {
            if c.walk().any(|d| d.loc.file != self.file)
                && (is_require_element(c) || is_compat(c.name()) || is_limit(c))
            {
                return Err("some of its access lines come from an included file".into());
            }
            if c.kind == NodeKind::Directive && is_compat(c.name()) {
                parts.compat.push(lines(c));
                parts.anchors.push(lines(c).start());
            } else if is_require_element(c) {
                parts.rules.push(Rule { text: self.element_text(c), limit: None });
                parts.rule_lines.push(lines(c));
                parts.anchors.push(lines(c).start());
            } else if is_limit(c) {
                if c.children.iter().any(|d| is_limit(d) && d.walk().any(|x| is_compat(x.name()) || x.is("Require"))) {
                    return Err("it nests <Limit> blocks inside <Limit>; rewrite those by hand".into());
                }
                let old: Vec<&Node> =
                    c.children.iter().filter(|d| d.kind == NodeKind::Directive && is_compat(d.name())).collect();
                let reqs: Vec<&Node> = c.children.iter().filter(|d| is_require_element(d)).collect();
                let block_text = &text[usize::from(lines(c).start())..usize::from(lines(c).end())];
                let comments = block_text.lines().filter(|l| l.trim_start().starts_with('#')).count();
                let others = c.children.len() - old.len() - reqs.len() + comments;
                if old.is_empty() && reqs.is_empty() {
                    continue;
                }
                parts.anchors.push(lines(c).start());
                if !reqs.is_empty() {
                    parts.rules_have_limit = true;
                    let header = text[usize::from(lines(c).start())..].lines().next().unwrap_or("").trim();
                    let body: Vec<String> = reqs.iter().map(|r| self.element_text(r)).collect();
                    let spec = LimitSpec { except: c.is("LimitExcept"), methods: c.arg_strings() };
                    parts.rules.push(Rule {
                        text: format!(
                            "{header}\n{}\n</{}>",
                            super::formula::indent_block(&body.join("\n"), "  "),
                            c.name()
                        ),
                        limit: Some((spec, body)),
                    });
                }
                if others == 0 {
                    // Nothing but access rules: the whole block goes (or moves).
                    if reqs.is_empty() {
                        parts.compat.push(lines(c));
                    } else {
                        parts.rule_lines.push(lines(c));
                    }
                } else {
                    // Other directives stay in the block; only the access lines leave it.
                    parts.compat.extend(old.iter().map(|d| lines(d)));
                    parts.rule_lines.extend(reqs.iter().map(|d| lines(d)));
                }
            }
        }
        Ok(parts)
    }

    /// The text of a Require element, dedented.
    fn element_text(&self, n: &Node) -> String {
        let text = self.text();
        let r = whole_lines(text, self.cfg.trimmed(&n.loc));
        dedent(text[usize::from(r.start())..usize::from(r.end())].trim_end_matches(['\n', '\r']))
    }

    /// Edits replacing the body's old-style lines and its Require elements (which `block`
    /// holds, combined) with `block`.
    pub fn rewrite(&self, parts: &Parts, block: &[String]) -> Vec<Edit> {
        let mut del = parts.compat.clone();
        del.extend(parts.rule_lines.iter().copied());
        self.place_block(del, &parts.anchors, block)
    }

    /// Edits replacing the Require elements with `block` (carrying rules into this body).
    pub fn replace_rules(&self, parts: &Parts, block: &[String]) -> Vec<Edit> {
        self.place_block(parts.rule_lines.clone(), &parts.anchors, block)
    }

    /// An edit inserting `line` before the body's first Require element.
    pub fn insert_before_rules(&self, parts: &Parts, line: &str) -> Vec<Edit> {
        let anchors: Vec<TextSize> = parts.rule_lines.iter().map(|r| r.start()).collect();
        self.place_block(vec![], &anchors, &[line.to_string()])
    }

    /// Edits deleting `del` (whole lines) and writing `block` at the first anchor: in place of the
    /// deleted lines starting there, else inserted before that line.
    ///
    /// Line endings are the file's own: where the block has as many lines as the deleted lines
    /// it takes the place of (those running on from its place), each keeps the ending of the line
    /// it replaces; otherwise every line takes the ending of
    /// the first one replaced (or of the line it is inserted before). A file without a final
    /// line break gets none.
    fn place_block(&self, mut del: Vec<TextRange>, anchors: &[TextSize], block: &[String]) -> Vec<Edit> {
        let text = self.text();
        del.sort_by_key(|r| r.start());
        del.dedup_by_key(|r| r.start());
        let path = self.path();
        let Some(mut anchor) = anchors.iter().min().copied() else { return vec![] };
        // Never inside a block testing mod_access_compat: lines written there would apply only
        // while the module the migration lets go of is loaded. The block goes before the
        // outermost such guard, and a guard left holding nothing goes whole.
        let guards: Vec<CompatGuard> =
            compat_guards(text, self.node.map(|n| n.loc.range)).into_iter().filter(|g| !g.negated).collect();
        if let Some(g) = guards.iter().find(|g| g.lines.contains(anchor)) {
            anchor = g.lines.start();
        }
        for g in &guards {
            let touched = del.iter().any(|r| g.inner.contains_range(*r));
            if touched && g.emptied_by(text, &del) && !del.iter().any(|r| r.contains_range(g.lines)) {
                del.retain(|r| !g.lines.contains_range(*r));
                del.push(g.lines);
            }
        }
        del.sort_by_key(|r| r.start());
        let pad = line_indent(text, anchor);
        let lines: Vec<String> =
            block.iter().flat_map(|b| b.lines().map(|l| format!("{pad}{l}")).collect::<Vec<_>>()).collect();
        let replaced = del.iter().position(|r| r.start() == anchor);
        // The lines the block takes the place of, or the one it goes before.
        let old = match replaced {
            Some(i) => &text[usize::from(del[i].start())..usize::from(del[i].end())],
            None => {
                let at = usize::from(anchor);
                &text[at..text[at..].find('\n').map_or(text.len(), |i| at + i + 1)]
            }
        };
        // The lines replaced: the deleted lines that run on from the block's place (each
        // directive is its own range).
        let run = match replaced {
            Some(i) => {
                let mut end = del[i].end();
                for r in &del[i + 1..] {
                    if r.start() != end {
                        break;
                    }
                    end = r.end();
                }
                &text[usize::from(del[i].start())..usize::from(end)]
            }
            None => old,
        };
        let endings: Vec<&str> = run.split_inclusive('\n').map(line_ending).collect();
        let fallback = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let first = endings.first().copied().filter(|e| !e.is_empty()).unwrap_or(fallback);
        let one_to_one = endings.len() == lines.len();
        let mut new_block = String::new();
        for (i, l) in lines.iter().enumerate() {
            new_block.push_str(l);
            // (Only the file's last line lacks an ending: the block's last line then gets none,
            // unless it goes before that line.)
            let ending = endings.get(i).copied().filter(|e| one_to_one && !e.is_empty()).unwrap_or(first);
            if i + 1 < lines.len() || replaced.is_none() || old.ends_with('\n') {
                new_block.push_str(ending);
            }
        }
        let mut out = Vec::new();
        match replaced {
            Some(i) => {
                out.push(Edit { path: path.clone(), range: del[i], new_text: new_block });
                del.remove(i);
            }
            None if !new_block.is_empty() => {
                out.push(Edit { path: path.clone(), range: TextRange::empty(anchor), new_text: new_block });
            }
            None => {}
        }
        out.extend(del.into_iter().map(|r| Edit { path: path.clone(), range: r, new_text: String::new() }));
        keep_missing_final_break(text, &mut out);
        out
    }
}

/// The line break `line` ends with ("" for a file's last line without one).
fn line_ending(line: &str) -> &str {
    if line.ends_with("\r\n") {
        "\r\n"
    } else if line.ends_with('\n') {
        "\n"
    } else {
        ""
    }
}

/// When `text` has no final line break and `edits` delete its last line, what comes to end the
/// file loses its break instead: the text written just before (the block), else the last line
/// kept (the deletion takes that line's break with it).
fn keep_missing_final_break(text: &str, edits: &mut [Edit]) {
    if text.is_empty() || text.ends_with('\n') {
        return;
    }
    let at_end = |e: &Edit| usize::from(e.range.end()) == text.len() && !e.range.is_empty() && e.new_text.is_empty();
    let Some(mut cur) = edits.iter().position(at_end) else { return };
    loop {
        let start = edits[cur].range.start();
        if start == TextSize::from(0) {
            return;
        }
        match edits.iter().position(|e| e.range.end() == start && e.range != edits[cur].range) {
            Some(j) if edits[j].new_text.is_empty() => cur = j,
            Some(j) => {
                let t = &mut edits[j].new_text;
                let cut = line_ending(t).len();
                t.truncate(t.len() - cut);
                return;
            }
            None => {
                let s = usize::from(start);
                let cut = line_ending(&text[..s]).len() as u32;
                edits[cur].range = TextRange::new(start - TextSize::from(cut), edits[cur].range.end());
                return;
            }
        }
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

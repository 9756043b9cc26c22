//! What httpd skips in an .htaccess file under `AllowOverride … Nonfatal=Override|Unknown|All`.
//!
//! httpd executes an .htaccess file line by line (`server/config.c: ap_walk_config`). Under
//! `Nonfatal=Override` a directive the AllowOverride categories (and AllowOverrideList) do not
//! let in is logged (AH02295) and not run (`invoke_cmd` returns before the handler); under
//! `Nonfatal=Unknown` a directive no loaded module defines is logged (AH02296) and not run. A
//! section skipped that way is skipped whole: only its handler would have walked its body. What
//! is skipped never takes effect, so the request walk (explain, hover), migrate and check must
//! all read the file without it: [`executed`] is the file as httpd runs it, [`skipped`] says
//! what was left out and why.
//!
//! Sections httpd runs while it reads the file (`<IfModule>`, `<IfDefine>`, …: EXEC_ON_READ)
//! are not skipped here: refused, their body is read as lines of the enclosing level and their
//! closer fails the file, which is the walk's error, not a skip.
//!
//! Knows no LSP, reads no file: the tree and the AllowOverride in force are the caller's.

use crate::ide::catalogue;
use crate::ide::catalogue::context::{runs_while_read, Overrides, Refusal, Scope};
use crate::ide::config::{Config, FileData, FileId, Node, NodeKind};
use apache_syntax::TextRange;
use std::sync::Arc;

/// Why httpd skips a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The AllowOverride in force does not let it in (`Nonfatal=Override`, AH02295).
    Override,
    /// No loaded module defines it (`Nonfatal=Unknown`, AH02296).
    Unknown,
}

/// A line (with its body, for a section) httpd skips.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub file: FileId,
    /// The whole node: a section's header to its closer.
    pub range: TextRange,
    /// Its name as written (`<Files` for a section).
    pub name: String,
    pub why: Why,
    /// For a line skipped for the AllowOverride, the first of its module in its configuration
    /// vector (the file's, or a `<Files>`/`<If>` section's; `<Limit>` and the `<Require…>`
    /// sections share the one around them), when that module has no merger (mod_access_compat,
    /// or [`crate::ide::policy::authn::no_merger_module`]): the module. httpd made the module's
    /// configuration of that vector before refusing the line (`ap_walk_config_sub` calls
    /// `ap_set_config_vectors`, which creates it only where the vector has none yet, before
    /// `invoke_cmd`), with nothing set, and with no merger it replaces what the module
    /// inherited from the enclosing sections: the line takes no effect, its absence would (an
    /// inherited Order/Allow/Deny/Satisfy rule, AuthUserFile or AuthGroupFile no longer applies
    /// beneath). A later line of the module in that vector, run or skipped, finds the
    /// configuration made: skipped, it changes nothing.
    pub resets: Option<&'static str>,
    /// The configuration vector the line is in: 0 for the file's, else a section's.
    pub vector: usize,
}

impl Skipped {
    /// What httpd logs, and that it goes on.
    pub fn message(&self) -> String {
        let body = if self.name.starts_with('<') { " with everything inside it" } else { "" };
        match self.why {
            Why::Override => format!(
                "{} in .htaccess forbidden by AllowOverride: under Nonfatal=Override httpd logs a warning (AH02295) and skips it{body}",
                self.name
            ),
            Why::Unknown => format!(
                "{} is not a directive httpd knows here: under AllowOverride Nonfatal=Unknown httpd logs a warning (AH02296) and skips it{body}",
                self.name
            ),
        }
    }
}

/// The module of Order/Allow/Deny/Satisfy: no merger of its own (see [`Skipped::resets`]).
const COMPAT: &str = "access_compat_module";

/// The module without a merger whose configuration directive `d` (the line `n`) makes, when it
/// is loaded ([`Skipped::resets`]); sections make none.
fn no_merger(frag: &Config, n: &Node, d: &catalogue::Directive) -> Option<&'static str> {
    if n.is_section() {
        return None;
    }
    let module = if d.modules().any(|m| m == COMPAT) {
        Some(COMPAT)
    } else {
        crate::ide::policy::authn::no_merger_module(n.name())
    };
    module.filter(|m| frag.module_loaded(m))
}

/// Whether section `n` has a configuration vector of its own (core's `<Files>` and `<If>`
/// handlers make one), rather than running its body in the one around it (`<Limit>`, the
/// `<Require…>` sections).
fn own_vector(n: &Node) -> bool {
    matches!(n.known(), "Files" | "FilesMatch" | "If" | "ElseIf" | "Else")
}

/// Whether an AllowOverride can make httpd skip anything.
fn may_skip(overrides: &Overrides) -> bool {
    overrides.nonfatal() || overrides.nonfatal_unknown()
}

/// The lines of .htaccess file `frag` httpd skips under `overrides`, in file order; nothing
/// inside a skipped section is listed. Empty unless a `Nonfatal=` option is in force.
pub fn skipped(frag: &Config, overrides: &Overrides) -> Vec<Skipped> {
    let mut out = Vec::new();
    if !may_skip(overrides) {
        return out;
    }
    let top = Scope::htaccess(Some(overrides));
    // The (configuration vector (0: the file's), module without a merger) pairs made so far.
    let mut made: Vec<(usize, &'static str)> = Vec::new();
    let mut vectors = 0;
    // Depth first with an explicit stack: nesting depth is the file's to choose.
    let mut stack: Vec<(&Node, Scope, usize)> = frag.nodes.iter().rev().map(|n| (n, top.clone(), 0)).collect();
    while let Some((n, scope, vector)) = stack.pop() {
        if n.canonical().is_empty() {
            continue;
        }
        let name = || if n.is_section() { format!("<{}", n.name()) } else { n.name().to_string() };
        let skip = |why, resets| Skipped { file: n.loc.file, range: n.loc.range, name: name(), why, resets, vector };
        let d = n.directive().filter(|d| {
            d.status != catalogue::Status::Removed && d.modules().any(|m| m == "core" || frag.module_loaded(m))
        });
        let Some(d) = d else {
            // (Inside a `<RequireAll>`-type section httpd walks with AuthConfig alone: no Nonfatal.)
            if scope.skips_unknown() {
                out.push(skip(Why::Unknown, None));
            }
            continue;
        };
        // httpd makes the module's configuration of the vector whether it then runs the line or not.
        let resets = no_merger(frag, n, d).filter(|m| !made.contains(&(vector, m)));
        if let Some(m) = resets {
            made.push((vector, m));
        }
        if scope.check(d).is_some_and(|r| r.kind == Refusal::Warning) && !(n.is_section() && runs_while_read(d)) {
            out.push(skip(Why::Override, resets));
            continue;
        }
        if n.is_section() {
            if let Some(inner) = scope.enter(n.name()) {
                let inner_vector = if own_vector(n) {
                    vectors += 1;
                    vectors
                } else {
                    vector
                };
                stack.extend(n.children.iter().rev().map(|c| (c, inner.clone(), inner_vector)));
            }
        }
    }
    out
}

/// .htaccess file `frag` as httpd runs it under `overrides`: without the lines it skips
/// ([`skipped`]); `frag` itself when it skips none.
pub fn executed(frag: &Arc<Config>, overrides: &Overrides) -> Arc<Config> {
    let skips = skipped(frag, overrides);
    if skips.is_empty() {
        return frag.clone();
    }
    Arc::new(without(frag, &skips))
}

/// A copy of `cfg` without the nodes `skips` names, but those that reset a module without a
/// merger ([`Skipped::resets`]): a mod_access_compat line becomes `Satisfy All` at its place
/// (its words say so): what httpd made of it, the module's defaults (no host rule; `Satisfy All`
/// is what httpd reads an unset Satisfy as), replacing the inherited rules. A line of an
/// authentication module stays, its arguments replaced by words saying what it stands for
/// ([`crate::ide::policy::authn::skipped_line`]): that module's configuration with nothing set.
pub fn without(cfg: &Config, skips: &[Skipped]) -> Config {
    let mut pruned = cfg.clone();
    let find = |n: &Node| skips.iter().find(|s| s.file == n.loc.file && s.range == n.loc.range);
    let prune = |body: &mut thin_vec::ThinVec<Node>| {
        body.retain(|n| find(n).is_none_or(|s| s.resets.is_some()));
        for n in body.iter_mut() {
            match find(n).and_then(|s| s.resets) {
                None => {}
                Some(COMPAT) => {
                    // (The words shown for the line say what it stands for; the rule reads "All".)
                    let shown = format!(
                        "All (httpd skips `{} {}` here, AH02295: it only resets the inherited rules)",
                        n.name(),
                        n.raw_args()
                    );
                    *n = Node::new(NodeKind::Directive, "Satisfy", ["All"], &shown, n.loc, thin_vec::ThinVec::new());
                }
                Some(module) => {
                    let shown = format!(
                        "(httpd skips `{} {}` here, AH02295: it only leaves {module}'s defaults, replacing the inherited settings)",
                        n.name(),
                        n.raw_args()
                    );
                    let name = n.name().to_string();
                    *n =
                        Node::new(NodeKind::Directive, &name, [] as [&str; 0], &shown, n.loc, thin_vec::ThinVec::new());
                }
            }
        }
    };
    let mut stack: Vec<&mut thin_vec::ThinVec<Node>> = Vec::new();
    let mut top: thin_vec::ThinVec<Node> = std::mem::take(&mut pruned.nodes).into();
    prune(&mut top);
    pruned.nodes = top.into_iter().collect();
    for n in pruned.nodes.iter_mut() {
        stack.push(&mut n.children);
    }
    while let Some(body) = stack.pop() {
        prune(body);
        for n in body {
            stack.push(&mut n.children);
        }
    }
    pruned.nodes_changed();
    pruned
}

/// The first read-time conditional section (`<IfModule>`, `<IfDefine>`, …: run while httpd
/// reads the file, before any line executes) of .htaccess file `fd` that the AllowOverride in
/// force does not let in — one that grants no class at all (`AllowOverride Nonfatal=…` alone,
/// or `None` with an AllowOverrideList). httpd refuses it while reading the file: 500 with
/// `<IfDefine not allowed here`; under `Nonfatal=Override` it logs and skips the header
/// (AH02295), reads the body as lines of the level around, and then fails on the closer. (The
/// loader splices these sections' bodies in, so the walk of `frag`'s nodes never meets them.)
/// The header's range and httpd's message.
pub fn refused_conditional(fd: &FileData, frag: &Config, overrides: &Overrides) -> Option<(TextRange, String)> {
    use apache_syntax::ast::{AstNode, Section};
    fd.parse.syntax_node().descendants().filter_map(Section::cast).find_map(|s| {
        let written = s.name_text();
        let d = catalogue::directive(&written)?;
        let known = d.modules().any(|m| m == "core" || frag.module_loaded(m));
        if !Scope::transparent(&written) || !known || overrides.grants(d) {
            return None;
        }
        let message = if overrides.nonfatal() {
            format!("</{written}> without matching <{written}> section")
        } else {
            format!("{} not allowed here", d.httpd_name())
        };
        Some((s.syntax().text_range(), message))
    })
}

//! Feature: completion.
//!
//! * Directive names httpd accepts where the cursor is — the rules of
//!   [`catalogue::context`] followed through the sections around it, from the
//!   file's place in the configuration (the main server, a section an
//!   `Include` sits in, a fragment, an .htaccess file under its AllowOverride);
//!   deprecated ones tagged, those of modules the configuration does not load
//!   listed after the others.
//! * Section names, as a snippet with the closing tag where the client takes
//!   snippets; the closing tag of the section being closed after `</`.
//! * Arguments: `Require` providers and what they take (`all granted`, `method`
//!   names, `env` variables the configuration sets, `not`…), `Order`, `Satisfy`,
//!   `AuthMerging`, `AllowOverride` classes, `AllowOverrideList` names,
//!   `Options`, `Allow from`/`Deny from`, `On`/`Off` for flags, `LoadModule`
//!   identifiers and files, module names in `<IfModule>` (identifiers and
//!   source files), `Define` names in `<IfDefine>` and after `${`.
//!
//! Items carry the catalogue's one-line description and a link to the manual.

use crate::ide::catalogue::context::{Scope, OPTIONS, OVERRIDE_CLASSES};
use crate::ide::catalogue::{self, ArgKind, Directive, Status};
use crate::ide::config::{Config, FileId, Node, TopLevel};
use crate::ide::policy::authz::{provider_module, PROVIDERS};
use crate::ide::policy::method::BUILTIN_METHODS;
use apache_syntax::ast::{self, AstNode};
use apache_syntax::{SyntaxKind, SyntaxNode, SyntaxToken, TextRange, TextSize};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionKind {
    Directive,
    Section,
    /// A keyword-like argument value (`granted`, `allow,deny`, `On`).
    Value,
    Module,
    Variable,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    /// One line shown beside the label (a syntax line, a module).
    pub detail: Option<String>,
    /// Markdown.
    pub documentation: Option<String>,
    /// Replaces `range`; a snippet (`$1`, `$0`) when `snippet`.
    pub insert: String,
    pub snippet: bool,
    pub range: TextRange,
    pub deprecated: bool,
    pub sort_text: String,
    /// What the client matches the typed text against, when not the label.
    pub filter_text: Option<String>,
    /// The catalogue directive the item is about, whose documentation
    /// [`directive_documentation`] gives again on demand.
    pub directive: Option<&'static str>,
}

/// The documentation of a directive's completion item, by name.
pub fn directive_documentation(name: &str) -> Option<String> {
    catalogue::directive(name).map(crate::ide::hover::directive_doc)
}

impl CompletionItem {
    fn new(label: impl Into<String>, kind: CompletionKind, range: TextRange) -> CompletionItem {
        let label = label.into();
        CompletionItem {
            insert: label.clone(),
            sort_text: format!("0{}", label.to_ascii_lowercase()),
            label,
            kind,
            detail: None,
            documentation: None,
            snippet: false,
            range,
            deprecated: false,
            filter_text: None,
            directive: None,
        }
    }
    fn doc(mut self, markdown: impl Into<String>) -> Self {
        self.documentation = Some(markdown.into());
        self
    }
    fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

/// The completions at `offset` of `file`; `snippets` when the client accepts them.
pub fn completions(cfg: &Config, file: FileId, offset: TextSize, snippets: bool) -> Vec<CompletionItem> {
    let mut items = completions_here(cfg, file, offset, snippets);
    let is_else = |i: &CompletionItem| i.directive.is_some_and(|d| d == "Else" || d == "ElseIf");
    if items.iter().any(is_else) && !else_may_follow(cfg, file, offset) {
        items.retain(|i| !is_else(i));
    }
    items
}

/// Whether an `<Else>`/`<ElseIf>` may start at `offset`: httpd (core.c `ifsection`) refuses one
/// unless the last `<If>`-family section of the same scope (the enclosing section that makes a
/// configuration of its own; conditional sections are spliced in) is an `<If>` or `<ElseIf>`.
/// `true` when that scope is not all in this file (the top level of an included file).
fn else_may_follow(cfg: &Config, file: FileId, offset: TextSize) -> bool {
    let root = cfg.file(file).parse.syntax_node();
    let offset = offset.min(root.text_range().end());
    let token = cursor_token(&root, offset);
    // The nearest section around the cursor whose body is a scope (not the one whose header is
    // being written).
    let in_header = token.as_ref().and_then(|t| t.parent_ancestors().find(|n| n.kind() == SyntaxKind::SECTION_HEADER));
    let container = token.as_ref().and_then(|t| {
        t.parent_ancestors().filter(|n| n.kind() == SyntaxKind::SECTION).find(|n| {
            let s = ast::Section::cast(n.clone()).expect("section");
            let own_header = in_header.as_ref().is_some_and(|h| h.parent().as_ref() == Some(n));
            !own_header && !Scope::transparent(&s.name_text())
        })
    });
    let container = match container {
        Some(c) => c,
        None if cfg.included_from.iter().any(|(child, _, _)| *child == file) => return true,
        None => root,
    };
    let mut last: Option<String> = None;
    let mut stack: Vec<SyntaxNode> = container.children().collect();
    stack.reverse();
    while let Some(n) = stack.pop() {
        if n.text_range().start() >= offset {
            break;
        }
        if n.kind() != SyntaxKind::SECTION {
            continue;
        }
        let name = ast::Section::cast(n.clone()).expect("section").name_text();
        if ["If", "ElseIf", "Else"].iter().any(|k| name.eq_ignore_ascii_case(k)) {
            if n.text_range().end() <= offset {
                last = Some(name);
            }
        } else if Scope::transparent(&name) {
            stack.extend(n.children().collect::<Vec<_>>().into_iter().rev());
        }
    }
    last.is_some_and(|l| l.eq_ignore_ascii_case("If") || l.eq_ignore_ascii_case("ElseIf"))
}

fn completions_here(cfg: &Config, file: FileId, offset: TextSize, snippets: bool) -> Vec<CompletionItem> {
    let root = cfg.file(file).parse.syntax_node();
    let offset = offset.min(root.text_range().end());
    let cx = Ctx { cfg, file, offset, snippets };
    let token = cursor_token(&root, offset);
    if let Some(items) = token.as_ref().and_then(|t| cx.variables(t)) {
        return items;
    }
    let item = token.as_ref().and_then(|t| {
        t.parent_ancestors().find(|n| {
            matches!(
                n.kind(),
                SyntaxKind::DIRECTIVE
                    | SyntaxKind::SECTION_HEADER
                    | SyntaxKind::SECTION_CLOSER
                    | SyntaxKind::COMMENT
                    | SyntaxKind::ERROR
            )
        })
    });
    let Some(item) = item else {
        // A blank line (or blank part of one): anything that may start a line here.
        let at = token.and_then(|t| t.parent()).unwrap_or(root);
        return cx.names(cx.scope(&at, None).as_ref(), TextRange::empty(offset), NameMode::Line);
    };
    match item.kind() {
        SyntaxKind::DIRECTIVE => {
            let d = ast::Directive::cast(item.clone()).expect("directive");
            let scope = cx.scope(&item, None);
            match d.name() {
                Some(n) if n.range().start() >= offset => {
                    cx.names(scope.as_ref(), TextRange::empty(offset), NameMode::Line)
                }
                Some(n) if n.range().contains_inclusive(offset) => cx.names(scope.as_ref(), n.range(), NameMode::Line),
                Some(n) => cx.arguments(&n.text(), d.args(), false),
                None => vec![],
            }
        }
        SyntaxKind::SECTION_HEADER => {
            let h = ast::SectionHeader::cast(item.clone()).expect("header");
            let own = item.parent();
            let scope = cx.scope(&item, own.as_ref());
            let lt = item.children_with_tokens().find(|e| e.kind() == SyntaxKind::L_ANGLE);
            let Some(lt) = lt.filter(|lt| lt.text_range().end() <= offset) else { return vec![] };
            let name_end = h.name().map(|n| n.range().end()).unwrap_or(lt.text_range().end());
            if offset <= name_end {
                // Renaming an existing header keeps its arguments and closer: names only.
                let complete = h.r_angle().is_some() || h.args().next().is_some();
                let (range, mode) = if complete {
                    (TextRange::new(lt.text_range().end(), name_end), NameMode::SectionName)
                } else {
                    (TextRange::new(lt.text_range().start(), name_end), NameMode::Section)
                };
                return cx.names(scope.as_ref(), range, mode);
            }
            if h.r_angle().is_some_and(|r| r.text_range().start() < offset) {
                return vec![];
            }
            cx.arguments(&h.name().map(|n| n.text()).unwrap_or_default(), h.args(), true)
        }
        SyntaxKind::SECTION_CLOSER | SyntaxKind::ERROR => cx.closer(&item),
        _ => vec![],
    }
}

/// The token the cursor is after (or at, at the start of a line).
fn cursor_token(root: &SyntaxNode, offset: TextSize) -> Option<SyntaxToken> {
    match root.token_at_offset(offset) {
        rowan::TokenAtOffset::None => None,
        rowan::TokenAtOffset::Single(t) => Some(t),
        rowan::TokenAtOffset::Between(l, r) => Some(if l.kind() == SyntaxKind::NEWLINE { r } else { l }),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum NameMode {
    /// At the start of a line: directives, and sections as a whole.
    Line,
    /// After `<`: sections as a whole (tag, arguments, closer).
    Section,
    /// The name of a header that already has its arguments or `>`.
    SectionName,
}

struct Ctx<'a> {
    cfg: &'a Config,
    file: FileId,
    offset: TextSize,
    snippets: bool,
}

impl Ctx<'_> {
    /// The scope at `node`, from the file's place in the configuration through
    /// the sections around it (not `own`, the section whose header is being
    /// written). `None` when it cannot be known (inside `<Macro>` or an unknown section).
    fn scope(&self, node: &SyntaxNode, own: Option<&SyntaxNode>) -> Option<Scope> {
        let mut scope = match &self.cfg.top {
            TopLevel::Htaccess => {
                Scope::htaccess(crate::ide::diagnostics::directive_context::agreed_overrides(self.cfg).as_ref())
            }
            TopLevel::Fragment => Scope::fragment(),
            TopLevel::Main => {
                let mut s = Scope::server_config();
                for n in sections_enclosing_file(self.cfg, self.file) {
                    s = s.enter(&n)?;
                }
                s
            }
        };
        let mut names: Vec<String> = node
            .ancestors()
            .filter(|a| a.kind() == SyntaxKind::SECTION && Some(a) != own)
            .filter_map(ast::Section::cast)
            .map(|s| s.name_text())
            .collect();
        names.reverse();
        for n in names {
            scope = scope.enter(&n)?;
        }
        Some(scope)
    }

    fn loaded(&self, d: &Directive) -> bool {
        !self.cfg.modules_known || d.modules().any(|m| m == "core" || self.cfg.modules.contains(m))
    }

    /// Directive and section names accepted in `scope` (all of them when unknown).
    fn names(&self, scope: Option<&Scope>, range: TextRange, mode: NameMode) -> Vec<CompletionItem> {
        let mut out = Vec::new();
        for d in catalogue::directives() {
            // Names this httpd build has no command for ("Invalid command"): never offered.
            if d.status == Status::Removed || !d.in_build || (mode != NameMode::Line && !d.is_section) {
                continue;
            }
            if scope.is_some_and(|s| s.check(d).is_some()) {
                continue;
            }
            let mut item = CompletionItem::new(d.name, CompletionKind::Directive, range)
                .detail(d.syntax)
                .doc(crate::ide::hover::directive_doc(d));
            item.deprecated = d.deprecated;
            item.directive = Some(d.name);
            let loaded = self.loaded(d);
            if !loaded {
                item.detail = Some(format!("{} — {} is not loaded", d.syntax, d.module));
            } else if scope.is_some_and(Scope::is_htaccess) && !d.override_class.is_empty() {
                item.detail = Some(format!("{} — needs AllowOverride {}", d.syntax, d.override_class));
            }
            let tier = if !loaded {
                2
            } else if d.deprecated {
                1
            } else {
                0
            };
            item.sort_text = format!("{tier}{}", d.name.to_ascii_lowercase());
            if d.is_section {
                item.kind = CompletionKind::Section;
                item.label = format!("<{}>", d.name);
                match mode {
                    NameMode::SectionName => {
                        item.insert = d.name.to_string();
                        item.filter_text = Some(d.name.to_string());
                    }
                    NameMode::Line | NameMode::Section => {
                        item.filter_text =
                            Some(if mode == NameMode::Line { d.name.to_string() } else { format!("<{}", d.name) });
                        (item.insert, item.snippet) = self.section_text(d);
                    }
                }
            }
            out.push(item);
        }
        out
    }

    /// A whole section: `<Name args>`, a body line, `</Name>`.
    fn section_text(&self, d: &Directive) -> (String, bool) {
        // The manual's syntax line reads `<Name placeholder> ... </Name>`.
        let placeholder = d
            .syntax
            .split_once('>')
            .map(|(open, _)| open.split_once(char::is_whitespace).map(|(_, p)| p.trim()).unwrap_or(""))
            .unwrap_or("");
        if !self.snippets {
            let open = if placeholder.is_empty() { format!("<{}>", d.name) } else { format!("<{} ", d.name) };
            return (open, false);
        }
        let escape = |s: &str| s.replace('\\', "\\\\").replace('$', "\\$").replace('}', "\\}");
        let args = if placeholder.is_empty() { String::new() } else { format!(" ${{1:{}}}", escape(placeholder)) };
        (format!("<{name}{args}>\n\t$0\n</{name}>", name = d.name), true)
    }

    /// The closing tag of the section the cursor is in, after `</`.
    fn closer(&self, item: &SyntaxNode) -> Vec<CompletionItem> {
        let first = item.descendants_with_tokens().filter_map(|e| e.into_token()).find(|t| !t.kind().is_trivia());
        let Some(lt) = first.filter(|t| t.kind() == SyntaxKind::L_ANGLE_SLASH) else { return vec![] };
        if lt.text_range().end() > self.offset {
            return vec![];
        }
        // The tag: `</`, the name, and `>` when there is one; the cursor must be in it.
        let end = item
            .children_with_tokens()
            .filter(|e| matches!(e.kind(), SyntaxKind::NAME | SyntaxKind::R_ANGLE))
            .map(|e| e.text_range().end())
            .max()
            .unwrap_or(lt.text_range().end());
        if self.offset > end {
            return vec![];
        }
        let section = item.ancestors().filter(|a| a.kind() == SyntaxKind::SECTION).find(|s| {
            // The section this closer belongs to, or the innermost one still open around it.
            item.kind() == SyntaxKind::SECTION_CLOSER || s.children().all(|c| c.kind() != SyntaxKind::SECTION_CLOSER)
        });
        let Some(name) = section.and_then(ast::Section::cast).map(|s| s.name_text()) else { return vec![] };
        let range = TextRange::new(lt.text_range().start(), end);
        let mut item = CompletionItem::new(format!("</{name}>"), CompletionKind::Section, range);
        item.filter_text = Some(format!("</{name}"));
        vec![item]
    }

    /// `${NAME}`: the names `Define` gives, after `${`.
    fn variables(&self, t: &SyntaxToken) -> Option<Vec<CompletionItem>> {
        if !matches!(t.kind(), SyntaxKind::WORD | SyntaxKind::QUOTED) {
            return None;
        }
        let start = t.text_range().start();
        let before = t.text().get(..usize::from(self.offset.checked_sub(start)?))?;
        let open = before.rfind("${")?;
        if before[open..].contains('}') {
            return None;
        }
        let after = &t.text()[before.len()..];
        let name_len = after.find(|c: char| c == '}' || c.is_whitespace() || c == '"').unwrap_or(after.len());
        let closed = after[name_len..].starts_with('}');
        let range =
            TextRange::new(start + TextSize::from((open + 2) as u32), self.offset + TextSize::from(name_len as u32));
        let items = self
            .define_names()
            .into_iter()
            .map(|(name, value)| {
                let mut item = CompletionItem::new(name.clone(), CompletionKind::Variable, range);
                if !closed {
                    item.insert = format!("{name}}}");
                }
                match value {
                    Some(v) => item.detail(format!("Define {name} {v}")),
                    None => item.detail(format!("Define {name}")),
                }
            })
            .collect();
        Some(items)
    }

    /// Every name a `Define` in the configuration gives, with its value.
    fn define_names(&self) -> Vec<(String, Option<String>)> {
        let mut out: Vec<(String, Option<String>)> = Vec::new();
        for n in self.cfg.walk().filter(|n| n.is("Define")) {
            if let Some(name) = n.args().first().filter(|a| !a.contains(':')) {
                if !out.iter().any(|(k, _)| k == name) {
                    out.push((name.to_string(), n.arg(1).map(str::to_string)));
                }
            }
        }
        out
    }

    /// Values for the argument at the cursor of directive (or section) `name`.
    fn arguments(&self, name: &str, args: impl Iterator<Item = ast::Argument>, section: bool) -> Vec<CompletionItem> {
        let mut before = Vec::new();
        let mut range = TextRange::empty(self.offset);
        let mut partial = String::new();
        for a in args {
            let r = a.range();
            if r.end() < self.offset {
                before.push(a.value());
            } else if r.start() <= self.offset {
                // The word being typed: replace it up to where it ends on this line.
                let piece = a
                    .syntax()
                    .descendants_with_tokens()
                    .filter_map(|e| e.into_token())
                    .find(|t| t.text_range().contains_inclusive(self.offset) && !t.kind().is_trivia());
                // No word piece at the cursor (it is in a line continuation): the whole argument,
                // unless it goes on to the next line, where an edit must not reach.
                range = piece.map(|t| t.text_range()).unwrap_or_else(|| {
                    if a.syntax().text().contains_char('\n') {
                        TextRange::empty(self.offset)
                    } else {
                        r
                    }
                });
                partial = a.raw();
            }
        }
        let lname = name.to_ascii_lowercase();
        let d = catalogue::directive(name);
        let link = d.map(|d| format!("\n\n[{}]({})", d.name, d.url)).unwrap_or_default();
        let values = |list: &[(&str, &str)]| -> Vec<CompletionItem> {
            list.iter()
                .map(|(v, doc)| CompletionItem::new(*v, CompletionKind::Value, range).doc(format!("{doc}{link}")))
                .collect()
        };
        if section {
            let (negated, _) = match partial.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, partial.as_str()),
            };
            let items = match lname.as_str() {
                "ifmodule" if before.is_empty() => self.module_items(range, true),
                "ifdefine" if before.is_empty() => self
                    .define_names()
                    .into_iter()
                    .map(|(n, v)| {
                        CompletionItem::new(n.clone(), CompletionKind::Variable, range)
                            .detail(format!("Define {n} {}", v.unwrap_or_default()).trim_end().to_string())
                    })
                    .collect(),
                "ifdirective" | "ifsection" if before.is_empty() => catalogue::directives()
                    .iter()
                    .filter(|d| d.is_section == (lname == "ifsection") && d.status != Status::Removed)
                    .map(|d| CompletionItem::new(d.name, CompletionKind::Directive, range).detail(d.syntax))
                    .collect(),
                _ => vec![],
            };
            return items
                .into_iter()
                .map(|mut i| {
                    if negated {
                        i.insert = format!("!{}", i.insert);
                        i.filter_text = Some(format!("!{}", i.filter_text.as_deref().unwrap_or(&i.label)));
                    }
                    i
                })
                .collect();
        }
        match lname.as_str() {
            "require" => self.require(&before, range, &link),
            "order" if before.is_empty() => values(&[
                (
                    "deny,allow",
                    "Deny rules first; a request matching no rule is allowed. Allow rules win over Deny rules.",
                ),
                (
                    "allow,deny",
                    "Allow rules first; a request matching no rule is denied. Deny rules win over Allow rules.",
                ),
                ("mutual-failure", "Allowed only when an Allow rule matches and no Deny rule does."),
            ]),
            "satisfy" if before.is_empty() => values(&[
                ("All", "Both the host-based rules and the user-based rules must allow the request."),
                ("Any", "Either the host-based rules or the user-based rules suffice."),
            ]),
            "authmerging" if before.is_empty() => values(&[
                ("Off", "This section's Require rules replace the inherited ones."),
                ("And", "The inherited rules and this section's must both grant (RequireAll)."),
                ("Or", "Either the inherited rules or this section's may grant (RequireAny)."),
            ]),
            "allowoverride" => OVERRIDE_CLASSES
                .iter()
                .copied()
                .chain(["Options=", "Nonfatal=Override", "Nonfatal=Unknown", "Nonfatal=All"])
                .filter(|c| !before.iter().any(|b| b.eq_ignore_ascii_case(c)))
                .map(|c| CompletionItem::new(c, CompletionKind::Value, range).doc(override_doc(c).to_string() + &link))
                .collect(),
            "allowoverridelist" => catalogue::directives()
                .iter()
                .filter(|d| {
                    d.contexts.htaccess() && !d.is_section && !before.iter().any(|b| b.eq_ignore_ascii_case(d.name))
                })
                .map(|d| CompletionItem::new(d.name, CompletionKind::Directive, range).detail(d.syntax))
                .collect(),
            "allow" | "deny" if before.is_empty() => {
                values(&[("from", "Followed by the hosts, networks or `env=` variables the rule names.")])
            }
            "allow" | "deny" if before.len() == 1 => values(&[
                ("all", "Every client."),
                ("env=", "Clients whose request has this environment variable set (`env=!VAR`: unset)."),
            ]),
            "options" => {
                // Only words set_options takes after those before (no signed and plain mix, None
                // and All first): the typed sign's form, else the plain one, else the signed ones.
                let sign = partial.chars().next().filter(|c| *c == '+' || *c == '-');
                let takes = |w: &str| {
                    crate::ide::catalogue::context::options_refusal(before.iter().map(String::as_str).chain([w]))
                        .is_none()
                };
                let mut items = Vec::new();
                for (o, doc) in OPTIONS {
                    let forms: Vec<String> = match sign {
                        Some(s) => vec![format!("{s}{o}")],
                        None if takes(o) => vec![o.to_string()],
                        None => vec![format!("+{o}"), format!("-{o}")],
                    };
                    for form in forms.into_iter().filter(|f| takes(f)) {
                        let mut item =
                            CompletionItem::new(*o, CompletionKind::Value, range).doc(format!("{doc}{link}"));
                        if form != *o {
                            if sign.is_none() {
                                item.label = form.clone();
                            }
                            item.insert = form.clone();
                            item.filter_text = Some(form);
                        }
                        items.push(item);
                    }
                }
                items
            }
            "loadmodule" if before.is_empty() => self.module_items(range, false),
            "loadmodule" if before.len() == 1 => catalogue::module_by_identifier(&before[0])
                .and_then(|m| m.debian_so)
                .map(|so| {
                    let path = format!("/usr/lib/apache2/modules/{so}");
                    vec![CompletionItem::new(path, CompletionKind::Value, range).detail("Debian's shared object")]
                })
                .unwrap_or_default(),
            _ if before.is_empty() && d.is_some_and(|d| d.args == ArgKind::Flag) => {
                values(&[("On", "Turns it on."), ("Off", "Turns it off.")])
            }
            _ => vec![],
        }
    }

    /// Whether the authorization container at the cursor is a `<RequireAll>` or `<RequireNone>`:
    /// mod_authz_core refuses a negated Require in a `<RequireAny>` and at a directory's top,
    /// whose implicit container is one (`negative Require directive has no effect in
    /// <RequireAny> directive`). `<Limit>` and the conditional sections make no container.
    fn in_and_container(&self) -> bool {
        let root = self.cfg.file(self.file).parse.syntax_node();
        let Some(token) = cursor_token(&root, self.offset) else { return false };
        token
            .parent_ancestors()
            .filter(|n| n.kind() == SyntaxKind::SECTION)
            .filter_map(ast::Section::cast)
            .map(|s| s.name_text())
            .find(|n| {
                !Scope::transparent(n) && !n.eq_ignore_ascii_case("Limit") && !n.eq_ignore_ascii_case("LimitExcept")
            })
            .is_some_and(|n| n.eq_ignore_ascii_case("RequireAll") || n.eq_ignore_ascii_case("RequireNone"))
    }

    fn require(&self, before: &[String], range: TextRange, link: &str) -> Vec<CompletionItem> {
        let words: Vec<&String> = before.iter().skip_while(|w| w.eq_ignore_ascii_case("not")).collect();
        let negated = before.len() > words.len();
        let Some(provider) = words.first() else {
            let available = PROVIDERS
                .iter()
                .filter(|(_, m)| *m == "authz_core_module" || !self.cfg.modules_known || self.cfg.modules.contains(m));
            let mut items: Vec<CompletionItem> = available
                .filter(|(p, _)| !(negated && *p == "all"))
                .map(|(p, m)| {
                    CompletionItem::new(*p, CompletionKind::Value, range)
                        .detail(format!("authorization provider of {m}"))
                        .doc(format!("{}{link}", provider_doc(p)))
                })
                .collect();
            if !negated && self.in_and_container() {
                items.push(
                    CompletionItem::new("not", CompletionKind::Value, range)
                        .doc(format!("Negates the rule that follows; only inside `<RequireAll>` or `<RequireNone>`, where it can refuse but never grant.{link}")),
                );
            }
            return items;
        };
        let args = &words[1..];
        let value =
            |v: &str, doc: &str| CompletionItem::new(v, CompletionKind::Value, range).doc(format!("{doc}{link}"));
        match provider_module(provider).map(|_| provider.as_str()) {
            Some("all") if args.is_empty() => {
                vec![value("granted", "Every request is allowed."), value("denied", "Every request is refused (403).")]
            }
            Some("method") => BUILTIN_METHODS
                .iter()
                .map(|(m, _)| *m)
                .filter(|m| !args.iter().any(|a| a.eq_ignore_ascii_case(m)))
                .map(|m| value(m, "An HTTP method the rule matches."))
                .collect(),
            Some("env") => {
                let mut names: Vec<String> = self.cfg.walk().flat_map(env_names_set).collect();
                names.sort();
                names.dedup();
                names.into_iter().map(|n| value(&n, "An environment variable the configuration sets.")).collect()
            }
            _ => vec![],
        }
    }

    /// `<IfModule>` and `LoadModule` names: identifiers (and source files for `<IfModule>`).
    fn module_items(&self, range: TextRange, with_sources: bool) -> Vec<CompletionItem> {
        let mut out = Vec::new();
        for m in catalogue::modules() {
            let id = if m.identifier == "core" { "core_module" } else { m.identifier };
            let loaded = self.cfg.modules.contains(id);
            let mut doc = m.description.to_string();
            if !m.url.is_empty() {
                doc.push_str(&format!("\n\n[{}]({})", m.source_file, m.url));
            }
            let state = if loaded { "loaded" } else { "not loaded" };
            let tier = if loaded { 0 } else { 1 };
            let names: &[&str] = if with_sources { &[id, m.source_file] } else { &[id] };
            for name in names {
                let mut item = CompletionItem::new(*name, CompletionKind::Module, range)
                    .detail(format!("{} ({state})", m.source_file))
                    .doc(doc.clone());
                item.sort_text = format!("{tier}{name}");
                out.push(item);
            }
        }
        out
    }
}

/// Names of the sections around the first thing `file` contributes to the
/// configuration (an included file inherits the place of its `Include`).
fn sections_enclosing_file(cfg: &Config, file: FileId) -> Vec<String> {
    let include = cfg.included_from.iter().find(|(child, _, _)| *child == file).map(|(_, parent, r)| (*parent, *r));
    let is_target = |n: &Node| n.loc.file == file || include.is_some_and(|(p, r)| n.loc.file == p && n.loc.range == r);
    // Depth first, remembering the path of sections.
    let mut stack: Vec<(&Node, usize)> = cfg.nodes.iter().rev().map(|n| (n, 0)).collect();
    let mut path: Vec<&Node> = Vec::new();
    while let Some((n, depth)) = stack.pop() {
        path.truncate(depth);
        if is_target(n) {
            return path.iter().map(|s| s.name().to_string()).collect();
        }
        if n.is_section() {
            path.push(n);
            stack.extend(n.children.iter().rev().map(|c| (c, depth + 1)));
        }
    }
    vec![]
}

/// Variables a directive sets for requests (`SetEnv`, `SetEnvIf`, `BrowserMatch`…).
fn env_names_set(n: &Node) -> Vec<String> {
    let assignments = match n.known() {
        "SetEnv" => return n.arg(0).map(str::to_string).into_iter().collect(),
        "SetEnvIf" | "SetEnvIfNoCase" => n.args().skip(2),
        "BrowserMatch" | "BrowserMatchNoCase" | "SetEnvIfExpr" => n.args().skip(1),
        _ => return vec![],
    };
    assignments
        .map(|a| a.trim_start_matches('!').split('=').next().unwrap_or("").to_string())
        .filter(|a| !a.is_empty())
        .collect()
}

fn provider_doc(p: &str) -> &'static str {
    match p {
        "all" => "`all granted` or `all denied`: every request.",
        "env" => "Requests with one of these environment variables set.",
        "method" => "Requests using one of these HTTP methods.",
        "expr" => "Requests for which this ap_expr expression is true.",
        "ip" => "Clients from these addresses or networks (`10.0.0.0/8`, `2001:db8::/32`, `192.168`).",
        "host" => "Clients whose double-reverse-resolved host name ends with one of these names.",
        "forward-dns" => "Clients whose address one of these host names resolves to.",
        "local" => "Clients on the loopback interface (127.0.0.0/8, ::1) or connecting to their own address.",
        "user" => "These authenticated users.",
        "valid-user" => "Any authenticated user.",
        "group" => "Members of these groups of the AuthGroupFile.",
        "file-owner" => "The user owning the requested file.",
        "file-group" => "Members of the group owning the requested file.",
        "dbm-group" | "dbm-file-group" => "Members of these groups in a DBM group file.",
        "dbd-group" => "Members of these groups in an SQL database.",
        _ => "An authorization provider.",
    }
}

fn override_doc(class: &str) -> &'static str {
    match class {
        "All" => "Every class below.",
        "None" => "Nothing: httpd does not even read .htaccess files here.",
        "AuthConfig" => "Authentication and authorization: AuthType, AuthName, Require…",
        "FileInfo" => "Document types and metadata, redirects, rewriting: Header, RewriteRule, ErrorDocument…",
        "Indexes" => "Directory listings: DirectoryIndex, IndexOptions…",
        "Limit" => "Old-style host access: Order, Allow, Deny.",
        "Options" => "Options and XBitHack.",
        "Options=" => "Options, limited to the listed ones (`Options=Indexes,MultiViews`).",
        "Nonfatal=Override" => {
            "A directive AllowOverride does not grant is logged and ignored instead of failing with 500."
        }
        "Nonfatal=Unknown" => "An unknown directive is logged and ignored instead of failing with 500.",
        _ => "Both Nonfatal=Override and Nonfatal=Unknown.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config::{load, load_fragment};
    use crate::ide::diagnostics::tests::Fixture;
    use expect_test::{expect, Expect};
    use std::path::Path;

    /// Completions at `█` in the first file of a fixture (a main configuration when
    /// named httpd.conf, else a fragment or .htaccess file).
    fn complete(fixture: &str, snippets: bool) -> Vec<CompletionItem> {
        let marker = fixture.find('█').expect("cursor marker");
        let fx = Fixture::parse(&fixture.replace('█', ""));
        let path = Path::new(&fx.0[0].0);
        let cfg = if path.ends_with("httpd.conf") { load(path, &fx) } else { load_fragment(path, &fx) };
        let header_end = fixture.find('\n').unwrap() + 1;
        let file = cfg.file_id(path).unwrap();
        let mut items = completions(&cfg, file, TextSize::from((marker - header_end) as u32), snippets);
        items.sort_by(|a, b| a.sort_text.cmp(&b.sort_text));
        items
    }

    /// Like a client: only items whose filter text starts with what the range
    /// replaces (case-insensitively), in sort order.
    fn check(fixture: &str, limit: usize, expect: Expect) {
        let text = fixture[fixture.find('\n').unwrap() + 1..].replace('█', "");
        let items: Vec<CompletionItem> = complete(fixture, true)
            .into_iter()
            .filter(|i| {
                let typed = text[i.range].to_ascii_lowercase();
                i.filter_text.as_deref().unwrap_or(&i.label).to_ascii_lowercase().starts_with(&typed)
            })
            .collect();
        let mut out = String::new();
        for i in items.iter().take(limit) {
            let replaced = &text[i.range];
            let dep = if i.deprecated { " [deprecated]" } else { "" };
            out.push_str(&format!("{:?} {} {:?} -> {:?}{dep}\n", i.kind, i.label, replaced, i.insert));
        }
        if items.len() > limit {
            out.push_str(&format!("… {} in all\n", items.len()));
        }
        expect.assert_eq(&out);
    }

    fn labels(fixture: &str) -> Vec<String> {
        complete(fixture, true).into_iter().map(|i| i.label).collect()
    }

    #[test]
    fn directive_names_follow_the_context() {
        let in_directory = labels("//- /etc/httpd/httpd.conf\n<Directory /srv>\n  █\n</Directory>\n");
        assert!(in_directory.contains(&"Require".to_string()));
        assert!(in_directory.contains(&"Options".to_string()));
        assert!(!in_directory.contains(&"DocumentRoot".to_string()), "httpd refuses DocumentRoot in <Directory>");
        assert!(!in_directory.contains(&"<VirtualHost>".to_string()));
        assert!(in_directory.contains(&"<Files>".to_string()));
        let top = labels("//- /etc/httpd/httpd.conf\n█\n");
        assert!(top.contains(&"DocumentRoot".to_string()));
        assert!(top.contains(&"<VirtualHost>".to_string()));
        assert!(!top.contains(&"Require".to_string()), "Require is not allowed at the top level");
        let vhost = labels("//- /etc/httpd/httpd.conf\n<VirtualHost *:80>\n  █\n</VirtualHost>\n");
        assert!(vhost.contains(&"ServerName".to_string()));
        assert!(!vhost.contains(&"MaxRequestWorkers".to_string()));
        assert!(!vhost.contains(&"AuthzUserAuthoritative".to_string()), "removed directives are never offered");
        // <Else>/<ElseIf> only after an <If> or <ElseIf> of the same scope (httpd's ifsection).
        assert!(!top.contains(&"<Else>".to_string()) && !top.contains(&"<ElseIf>".to_string()));
        let after_if = labels(
            "//- /etc/httpd/httpd.conf\n<If \"true\">\n</If>\n# c\nServerName a\n<IfModule x>\n</IfModule>\n█\n",
        );
        assert!(after_if.contains(&"<Else>".to_string()) && after_if.contains(&"<ElseIf>".to_string()));
        let after_elseif = labels("//- /etc/httpd/httpd.conf\n<IfModule x>\n<If \"a\">\n</If>\n</IfModule>\n<ElseIf \"b\">\n</ElseIf>\n<El█\n");
        assert!(after_elseif.contains(&"<Else>".to_string()), "{after_elseif:?}");
        let after_else = labels("//- /etc/httpd/httpd.conf\n<If \"a\">\n</If>\n<Else>\n</Else>\n█\n");
        assert!(!after_else.contains(&"<Else>".to_string()));
        let other_scope = labels("//- /etc/httpd/httpd.conf\n<If \"a\">\n</If>\n<Directory /srv>\n█\n</Directory>\n");
        assert!(!other_scope.contains(&"<ElseIf>".to_string()));
        let inside_if = labels("//- /etc/httpd/httpd.conf\n<If \"a\">\n█\n</If>\n");
        assert!(!inside_if.contains(&"<Else>".to_string()));
        // Handlers' own checks (GLOBAL_ONLY in mod_unixd) and names no command table of this
        // build has (httpd: "Invalid command").
        for refused in ["User", "Group", "ScoreBoardFile", "MDCertificateMonitor", "LuaHookPreTranslate", "UNCList"] {
            assert!(!vhost.contains(&refused.to_string()), "{refused} offered in <VirtualHost>");
        }
        assert!(vhost.contains(&"LuaHookPreTranslateName".to_string()));
        assert!(!top.contains(&"ISAPICacheFile".to_string()), "Debian has no mod_isapi");
        assert!(top.contains(&"User".to_string()));
        let in_limit = labels(
            "//- /etc/httpd/httpd.conf
<Directory /srv>
<Limit GET>
  █
</Limit>
</Directory>
",
        );
        assert!(!in_limit.contains(&"MultiviewsMatch".to_string()));
        assert!(in_directory.contains(&"IdentityCheckTimeout".to_string()));
        assert!(!in_directory.contains(&"RemoteIPTrustedProxyList".to_string()));
        let in_require_all =
            labels("//- /etc/httpd/httpd.conf\n<Directory /srv>\n<RequireAll>\n  █\n</RequireAll>\n</Directory>\n");
        assert!(in_require_all.contains(&"Require".to_string()));
        assert!(!in_require_all.contains(&"Options".to_string()));
    }

    #[test]
    fn htaccess_names_follow_allow_override_when_known() {
        let alone = labels("//- /srv/www/.htaccess\n█\n");
        assert!(alone.contains(&"Options".to_string()));
        assert!(!alone.contains(&"ServerName".to_string()));
        let items = complete("//- /srv/www/.htaccess\nRewr█\n", true);
        let rewrite = items.iter().find(|i| i.label == "RewriteEngine").unwrap();
        assert_eq!(rewrite.detail.as_deref(), Some("RewriteEngine on|off — needs AllowOverride FileInfo"));
    }

    #[test]
    fn a_typed_prefix_is_replaced_and_documented() {
        check(
            "//- /etc/httpd/httpd.conf\nLoadModule authz_core_module m.so\nLoadModule access_compat_module m.so\n<Directory /srv>\n  Ord█\n</Directory>\n",
            3,
            expect![[r#"
                Directive Order "Ord" -> "Order" [deprecated]
            "#]],
        );
        let items = complete(
            "//- /etc/httpd/httpd.conf\nLoadModule access_compat_module m.so\n<Directory /srv>\n  Ord█\n</Directory>\n",
            true,
        );
        let order = items.iter().find(|i| i.label == "Order").unwrap();
        assert!(order.deprecated);
        let doc = order.documentation.as_deref().unwrap();
        assert!(doc.contains("https://httpd.apache.org/docs/2.4/mod/mod_access_compat.html#order"), "{doc}");
        assert!(doc.contains(catalogue::directive("Order").unwrap().description), "{doc}");
        let rewrite = items.iter().find(|i| i.label == "RewriteEngine").unwrap();
        assert!(rewrite.detail.as_deref().unwrap().ends_with("rewrite_module is not loaded"));
        assert!(rewrite.sort_text.starts_with('2'));
    }

    #[test]
    fn sections_as_snippets_with_their_closing_tag() {
        let items = complete("//- /etc/httpd/httpd.conf\n<VirtualHost *:80>\n  <Dir█\n</VirtualHost>\n", true);
        let dir = items.iter().find(|i| i.label == "<Directory>").unwrap();
        assert_eq!(dir.insert, "<Directory ${1:directory-path}>\n\t$0\n</Directory>");
        assert!(dir.snippet);
        assert!(items.iter().all(|i| i.kind == CompletionKind::Section));
        let items = complete("//- /etc/httpd/httpd.conf\n<Directory /srv>\n<Req█\n</Directory>\n", false);
        let all = items.iter().find(|i| i.label == "<RequireAll>").unwrap();
        assert_eq!((all.insert.as_str(), all.snippet), ("<RequireAll>", false));
        // Renaming the name of a complete header keeps the rest.
        check(
            "//- /etc/httpd/httpd.conf\n<Locat█ion /x>\n</Location>\n",
            2,
            expect![[r#"
                Section <Location> "Location" -> "Location"
                Section <LocationMatch> "Location" -> "LocationMatch"
            "#]],
        );
    }

    #[test]
    fn closing_tag_of_the_open_section() {
        check(
            "//- /etc/httpd/httpd.conf\n<VirtualHost *:80>\n<Directory /srv/é>\n  Require all granted\n</Di█\n</VirtualHost>\n",
            5,
            expect![[r#"
                Section </Directory> "</Di" -> "</Directory>"
            "#]],
        );
    }

    #[test]
    fn require_providers_and_their_arguments() {
        let main = "//- /etc/httpd/httpd.conf\nLoadModule authz_core_module m.so\nLoadModule authz_host_module m.so\nSetEnvIf User-Agent bot is_bot=1\n<Directory /srv>\n";
        check(
            &format!("{main}  Require █\n</Directory>\n"),
            20,
            expect![[r#"
                Value all "" -> "all"
                Value env "" -> "env"
                Value expr "" -> "expr"
                Value forward-dns "" -> "forward-dns"
                Value host "" -> "host"
                Value ip "" -> "ip"
                Value local "" -> "local"
                Value method "" -> "method"
            "#]],
        );
        // `not` only where the container is a <RequireAll>/<RequireNone> (<IfModule> makes none).
        check(
            &format!("{main}  <RequireAll>\n<IfModule x>\n  Require █\n</IfModule>\n</RequireAll>\n</Directory>\n"),
            20,
            expect![[r#"
                Value all "" -> "all"
                Value env "" -> "env"
                Value expr "" -> "expr"
                Value forward-dns "" -> "forward-dns"
                Value host "" -> "host"
                Value ip "" -> "ip"
                Value local "" -> "local"
                Value method "" -> "method"
                Value not "" -> "not"
            "#]],
        );
        check(
            &format!("{main}  <RequireNone>\n<RequireAny>\n  Require █\n</RequireAny>\n</RequireNone>\n</Directory>\n"),
            20,
            expect![[r#"
                Value all "" -> "all"
                Value env "" -> "env"
                Value expr "" -> "expr"
                Value forward-dns "" -> "forward-dns"
                Value host "" -> "host"
                Value ip "" -> "ip"
                Value local "" -> "local"
                Value method "" -> "method"
            "#]],
        );
        check(
            &format!("{main}  Require all g█\n</Directory>\n"),
            5,
            expect![[r#"
                Value granted "g" -> "granted"
            "#]],
        );
        check(
            &format!("{main}  Require method GET P█\n</Directory>\n"),
            3,
            expect![[r#"
                Value PATCH "P" -> "PATCH"
                Value POST "P" -> "POST"
                Value PROPFIND "P" -> "PROPFIND"
                … 5 in all
            "#]],
        );
        check(
            &format!("{main}  Require not env █\n</Directory>\n"),
            5,
            expect![[r#"
                Value is_bot "" -> "is_bot"
            "#]],
        );
    }

    #[test]
    fn keyword_values_of_access_directives() {
        let d = "//- /etc/httpd/httpd.conf\n<Directory /srv>\n";
        check(
            &format!("{d}  Order █\n</Directory>\n"),
            5,
            expect![[r#"
                Value allow,deny "" -> "allow,deny"
                Value deny,allow "" -> "deny,allow"
                Value mutual-failure "" -> "mutual-failure"
            "#]],
        );
        check(
            &format!("{d}  Satisfy █\n</Directory>\n"),
            5,
            expect![[r#"
                Value All "" -> "All"
                Value Any "" -> "Any"
            "#]],
        );
        check(
            &format!("{d}  AuthMerging █\n</Directory>\n"),
            5,
            expect![[r#"
                Value And "" -> "And"
                Value Off "" -> "Off"
                Value Or "" -> "Or"
            "#]],
        );
        check(
            &format!("{d}  AllowOverride AuthConfig █\n</Directory>\n"),
            20,
            expect![[r#"
                Value All "" -> "All"
                Value FileInfo "" -> "FileInfo"
                Value Indexes "" -> "Indexes"
                Value Limit "" -> "Limit"
                Value None "" -> "None"
                Value Nonfatal=All "" -> "Nonfatal=All"
                Value Nonfatal=Override "" -> "Nonfatal=Override"
                Value Nonfatal=Unknown "" -> "Nonfatal=Unknown"
                Value Options "" -> "Options"
                Value Options= "" -> "Options="
            "#]],
        );
        check(
            &format!("{d}  Options -Ind█\n</Directory>\n"),
            2,
            expect![[r#"
                Value Indexes "-Ind" -> "-Indexes"
            "#]],
        );
        // set_options: no signed and plain mix, None and All only first.
        check(
            &format!("{d}  Options +Indexes █\n</Directory>\n"),
            3,
            expect![[r#"
                Value +ExecCGI "" -> "+ExecCGI"
                Value -ExecCGI "" -> "-ExecCGI"
                Value +FollowSymLinks "" -> "+FollowSymLinks"
                … 14 in all
            "#]],
        );
        check(
            &format!("{d}  Options Indexes █\n</Directory>\n"),
            20,
            expect![[r#"
                Value ExecCGI "" -> "ExecCGI"
                Value FollowSymLinks "" -> "FollowSymLinks"
                Value Includes "" -> "Includes"
                Value IncludesNOEXEC "" -> "IncludesNOEXEC"
                Value Indexes "" -> "Indexes"
                Value MultiViews "" -> "MultiViews"
                Value SymLinksIfOwnerMatch "" -> "SymLinksIfOwnerMatch"
            "#]],
        );
        check(
            &format!("{d}  RewriteEngine █\n</Directory>\n"),
            5,
            expect![[r#"
                Value Off "" -> "Off"
                Value On "" -> "On"
            "#]],
        );
    }

    #[test]
    fn module_names_in_ifmodule_and_defines() {
        let items = complete(
            "//- /etc/httpd/httpd.conf\nLoadModule rewrite_module m.so\n<IfModule !mod_rew█>\n</IfModule>\n",
            true,
        );
        let ids: Vec<(&str, &str)> = items
            .iter()
            .filter(|i| i.label.contains("rewrite"))
            .map(|i| (i.label.as_str(), i.insert.as_str()))
            .collect();
        assert_eq!(ids, vec![("mod_rewrite.c", "!mod_rewrite.c"), ("rewrite_module", "!rewrite_module")]);
        assert!(items[0].detail.as_deref().unwrap().contains("(loaded)"), "loaded modules first: {:?}", items[0]);
        check(
            "//- /etc/httpd/httpd.conf\nDefine docroot /srv/é\nDefine TLS\nDocumentRoot ${doc█}/htdocs\n",
            5,
            expect![[r#"
                Variable docroot "doc" -> "docroot"
            "#]],
        );
        check(
            "//- /etc/httpd/httpd.conf\nDefine TLS\n<IfDefine █\n",
            5,
            expect![[r#"
                Variable TLS "" -> "TLS"
            "#]],
        );
    }

    #[test]
    fn nothing_in_comments_or_after_a_header() {
        assert!(complete("//- /etc/httpd/httpd.conf\n# Requ█\n", true).is_empty());
        assert!(complete("//- /etc/httpd/httpd.conf\n<Directory /x> █\n</Directory>\n", true).is_empty());
    }

    #[test]
    fn an_included_file_is_completed_in_the_place_of_its_include() {
        let fixture = "//- /etc/httpd/httpd.conf\n<VirtualHost *:80>\n  Include /etc/httpd/site.conf\n</VirtualHost>\n//- /etc/httpd/site.conf\nServerName x\n";
        let fx = Fixture::parse(fixture);
        let cfg = load(Path::new("/etc/httpd/httpd.conf"), &fx);
        let file = cfg.file_id(Path::new("/etc/httpd/site.conf")).unwrap();
        let names: Vec<String> =
            completions(&cfg, file, TextSize::from(0), true).into_iter().map(|i| i.label).collect();
        assert!(names.contains(&"ServerAlias".to_string()));
        assert!(!names.contains(&"<VirtualHost>".to_string()), "already inside one");
    }

    proptest::proptest! {
        #[test]
        fn items_replace_a_range_on_the_cursors_line((text, offset) in crate::ide::test_support::text_and_offset()) {
            let fx = Fixture(vec![("/etc/httpd/httpd.conf".into(), text.clone())]);
            let cfg = load(Path::new("/etc/httpd/httpd.conf"), &fx);
            let at = TextSize::from(offset as u32);
            for item in completions(&cfg, 0, at, true) {
                let r = item.range;
                proptest::prop_assert!(r.start() <= at && at <= r.end(), "{item:?} at {offset}");
                proptest::prop_assert!(text.is_char_boundary(r.start().into()) && text.is_char_boundary(r.end().into()));
                proptest::prop_assert!(!text[r].contains('\n'), "{item:?}");
            }
        }
    }
}

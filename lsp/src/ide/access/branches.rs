//! The `<If>`/`<ElseIf>`/`<Else>` chains on a request's way whose branches hold something the
//! request's answer reads (access rules, or a directive of the handler, mod_dir, mod_setenvif,
//! ErrorDocument…), and the combinations of their branches.
//!
//! httpd evaluates each chain's expressions per request and merges the first branch whose
//! expression holds (an `<Else>` when none does) after the Location phase
//! (`server/request.c: ap_if_walk`). A walk is told which branch of each chain applies
//! ([`Decided`]), and the request walked once per combination ([`combinations`]), the answers
//! possible being those of every combination. Each condition is first evaluated against what is
//! known of the request ([`condition`]): a chain whose conditions are known offers only the branch
//! httpd takes, one with unknown conditions every branch they leave possible.

use super::RequestSpec;
use crate::ide::config::{Config, Node, SecId};
use crate::ide::policy::expr_eval::{self, ExprRequest};
use crate::ide::setenvif::EnvInputs;
use std::path::Path;
use std::sync::Arc;

/// An `<If>`-family section: of the configuration, or of an .htaccess file read for the request
/// (its path, the file loaded, and the section's id in that file's own index). Two branches of
/// .htaccess files are the same when their files' paths and ids are: each walk reads the file
/// again.
#[derive(Debug, Clone)]
pub enum Branch {
    Section(SecId),
    Htaccess(Arc<Path>, Arc<Config>, SecId),
}

impl PartialEq for Branch {
    fn eq(&self, other: &Branch) -> bool {
        match (self, other) {
            (Branch::Section(a), Branch::Section(b)) => a == b,
            (Branch::Htaccess(p, _, a), Branch::Htaccess(q, _, b)) => a == b && p == q,
            _ => false,
        }
    }
}

impl Eq for Branch {}

impl Branch {
    /// The configuration the section is written in (`cfg`, or the .htaccess file's), and its id
    /// there.
    pub fn within<'a>(&'a self, cfg: &'a Config) -> (&'a Config, SecId) {
        match self {
            Branch::Section(id) => (cfg, *id),
            Branch::Htaccess(_, frag, id) => (frag, *id),
        }
    }

    /// The section's node.
    pub fn node<'a>(&'a self, cfg: &'a Config) -> &'a Node {
        let (c, id) = self.within(cfg);
        c.index().node(c, id)
    }

    /// The `<If>`-family section whose body holds this one, if any.
    fn enclosing(&self, cfg: &Config) -> Option<Branch> {
        let (c, id) = self.within(cfg);
        let parent =
            c.index().parent(id).filter(|&p| matches!(c.index().node(c, p).known(), "If" | "ElseIf" | "Else"))?;
        Some(match self {
            Branch::Section(_) => Branch::Section(parent),
            Branch::Htaccess(path, frag, _) => Branch::Htaccess(path.clone(), frag.clone(), parent),
        })
    }
}

/// The `<If>`-family sections a walk takes as decided, and the ones among them that apply.
/// Sections not considered are walked as without it (their expressions untold).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decided {
    /// Every section whose branch is given (the sections of whole chains).
    pub considered: Vec<Branch>,
    /// Those that apply: at most one per chain.
    pub applying: Vec<Branch>,
}

/// An `<If>`, the `<ElseIf>` sections after it and the `<Else>` closing it, in order.
pub type Chain = Vec<Branch>;

/// Most combinations of branches tried for one request.
pub const MAX_COMBINATIONS: usize = 16;

/// The chains of `ifs`, the `<If>`-family sections of one section's body (or of one server's
/// level), in order: an `<ElseIf>`/`<Else>` continues the chain before it, as httpd attaches it
/// to the previous `<If>`/`<ElseIf>` of the same scope (`server/core.c: ifsection`).
pub(super) fn chains(cfg: &Config, ifs: &[SecId]) -> Vec<Vec<SecId>> {
    let ix = cfg.index();
    let mut out: Vec<Vec<SecId>> = Vec::new();
    for &id in ifs {
        let continues = !ix.node(cfg, id).is("If") && out.last().is_some_and(|c| !closed(cfg, c));
        match out.last_mut() {
            Some(chain) if continues => chain.push(id),
            _ => out.push(vec![id]),
        }
    }
    out
}

/// Whether the chain ends with an `<Else>`: one of its branches always applies.
fn closed(cfg: &Config, chain: &[SecId]) -> bool {
    chain.last().is_some_and(|&id| cfg.index().node(cfg, id).is("Else"))
}

/// Whether `<If>`-family section `id` holds a directive the request's answer reads: an access
/// directive, or one the other request features read per directory ([`super::is_per_dir_input`]).
pub(super) fn relevant(cfg: &Config, id: SecId) -> bool {
    cfg.index().node(cfg, id).walk().skip(1).any(|d| read(d.name()))
}

/// Whether `<If>`-family section `n` holds an access directive at any depth.
pub(super) fn holds_access(n: &Node) -> bool {
    n.walk().skip(1).any(|d| super::is_access_directive(d.name()))
}

/// The directive names [`relevant`] looks for.
fn read(name: &str) -> bool {
    super::is_access_directive(name) || super::is_per_dir_input(name)
}

/// The directives of section `id` the answer reads, each named once, in order.
pub fn holding(cfg: &Config, b: &Branch) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for d in b.node(cfg).walk().skip(1).filter(|d| !d.is_section() && read(d.name())) {
        if !names.iter().any(|n| n.eq_ignore_ascii_case(d.name())) {
            names.push(d.name().to_string());
        }
    }
    names
}

/// What the `<If>` conditions can know of request `spec` (with headers `inputs`): the client's
/// address, the method, the path, the headers given; `%{HTTPS}` is off where mod_ssl is not
/// loaded. (mod_dir's subrequests, with their own URI and the method GET, evaluate the
/// conditions again: [`crate::ide::subrequest`].)
pub fn expr_request<'a>(cfg: &Config, spec: &'a RequestSpec, inputs: &'a EnvInputs) -> ExprRequest<'a> {
    let not_loaded = |m: &str| cfg.modules_known && !cfg.modules.contains(m);
    let path = &spec.path[..spec.path.find(['?', '#']).unwrap_or(spec.path.len())];
    // `r->uri` is the path decoded and normalized: known as written when there is nothing to do.
    let plain = path.starts_with('/')
        && !path.contains(['%', '\\'])
        && !path.contains("//")
        && !path.contains("/./")
        && !path.contains("/../")
        && !path.ends_with("/.")
        && !path.ends_with("/..");
    let method = spec.request.method.as_str();
    ExprRequest {
        client: Some(spec.request.client),
        peer: not_loaded("remoteip_module").then_some(spec.request.client),
        method: Some(method),
        uri: plain.then_some(path),
        headers: &inputs.headers,
        headers_complete: inputs.headers_complete,
        https: not_loaded("ssl_module").then_some(false),
    }
}

/// The value of `<If>`/`<ElseIf>` section `id`'s condition for request `r`: None when unknown
/// (or when httpd refuses it).
pub fn condition(cfg: &Config, b: &Branch, r: &ExprRequest) -> Option<bool> {
    let (c, id) = b.within(cfg);
    let n = c.index().node(c, id);
    let text = n.args().first()?;
    expr_eval::eval_text(text, crate::ide::diagnostics::expr_syntax::lookups(c), r)
}

/// The branches of `chain` httpd may take, given each condition's value (`value`, None when
/// unknown): it evaluates the `<If>`, then each `<ElseIf>` in order, and takes the first true
/// one, the `<Else>` (or none) when none is. None stands for "no branch applies".
fn choices<'c>(cfg: &Config, chain: &'c [Branch], value: &dyn Fn(&Branch) -> Option<bool>) -> Vec<Option<&'c Branch>> {
    let mut out = Vec::new();
    let mut all_may_be_false = true;
    for id in chain {
        if id.node(cfg).is("Else") {
            out.push(Some(id));
            all_may_be_false = false;
            break;
        }
        match value(id) {
            Some(true) => {
                out.push(Some(id));
                all_may_be_false = false;
                break;
            }
            Some(false) => {}
            None => out.push(Some(id)),
        }
    }
    if all_may_be_false {
        out.insert(0, None);
    }
    out
}

/// Every combination of the chains' branches httpd may take, given each condition's value
/// (`value`, None when unknown; `&|_| None` for every combination): in each chain one section
/// applies, or none (when it has no `<Else>`). A chain nested in an `<If>`-family section (listed
/// after it, as the walk lists them) has a branch only where that section applies: httpd walks the
/// sections nested in the branches it took, and no other (`server/request.c: ap_if_walk_sub`).
/// None when there are more than [`MAX_COMBINATIONS`].
pub fn combinations(cfg: &Config, chains: &[Chain], value: &dyn Fn(&Branch) -> Option<bool>) -> Option<Vec<Decided>> {
    let considered: Vec<Branch> = chains.iter().flatten().cloned().collect();
    let mut partial: Vec<Vec<Branch>> = vec![Vec::new()];
    for chain in chains {
        let enclosing = chain.first().and_then(|b| b.enclosing(cfg)).filter(|p| considered.contains(p));
        let choices = choices(cfg, chain, value);
        let mut next = Vec::with_capacity(partial.len());
        // The earlier chains' branches vary fastest, each combination kept once where the
        // chain has no branch.
        for (i, c) in choices.iter().enumerate() {
            for applying in &partial {
                let open = enclosing.as_ref().is_none_or(|p| applying.contains(p));
                if open || i == 0 {
                    let mut a = applying.clone();
                    if open {
                        a.extend(c.cloned());
                    }
                    next.push(a);
                }
            }
            if next.len() > MAX_COMBINATIONS {
                return None;
            }
        }
        partial = next;
    }
    Some(partial.into_iter().map(|applying| Decided { considered: considered.clone(), applying }).collect())
}

/// Where section `id` is written: `<If> at file:line`.
pub fn place(cfg: &Config, b: &Branch) -> String {
    let (c, id) = b.within(cfg);
    let n = c.index().node(c, id);
    format!("<{}> at {}:{}", n.name(), c.file(n.loc.file).path.display(), c.line(&n.loc))
}

/// A combination in words: the branches that apply, or that none does.
pub fn describe(cfg: &Config, d: &Decided) -> String {
    if d.applying.is_empty() {
        return "with no branch applying".into();
    }
    let short = |b: &Branch| {
        let (c, id) = b.within(cfg);
        let n = c.index().node(c, id);
        match b {
            Branch::Section(_) => format!("<{}> at line {}", n.name(), c.line(&n.loc)),
            Branch::Htaccess(path, ..) => format!("<{}> at {}:{}", n.name(), path.display(), c.line(&n.loc)),
        }
    };
    format!("with {} applying", d.applying.iter().map(short).collect::<Vec<_>>().join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn as_branches(ids: Vec<Vec<SecId>>) -> Vec<Chain> {
        ids.into_iter().map(|c| c.into_iter().map(Branch::Section).collect()).collect()
    }

    fn config(body: &str) -> Config {
        let fx = crate::ide::diagnostics::tests::Fixture::parse(&format!("//- /etc/httpd/httpd.conf\n{body}"));
        crate::ide::config::load(std::path::Path::new("/etc/httpd/httpd.conf"), &fx)
    }

    /// Chains split at each `<If>`; a chain with an `<Else>` has no "none applies" choice.
    #[test]
    fn combinations_take_one_branch_of_each_chain() {
        let cfg = config(
            "<Directory /srv>\n<If \"true\">\nOptions +Indexes\n</If>\n<ElseIf \"false\">\nDirectorySlash Off\n</ElseIf>\n<Else>\nRequire all denied\n</Else>\n<If \"true\">\nRedirect 410\n</If>\n<If \"true\">\nHeader set X y\n</If>\n</Directory>\n",
        );
        let ix = cfg.index();
        let dir = (0..ix.len() as SecId).find(|&id| ix.node(&cfg, id).is("Directory")).unwrap();
        let ids = chains(&cfg, ix.ifs_in(dir));
        let lines = |ids: &[SecId]| ids.iter().map(|&id| cfg.line(&ix.node(&cfg, id).loc)).collect::<Vec<_>>();
        assert_eq!(ids.iter().map(|c| lines(c)).collect::<Vec<_>>(), vec![vec![2, 5, 8], vec![11], vec![14]]);
        assert_eq!(ids.iter().map(|c| relevant(&cfg, c[0])).collect::<Vec<_>>(), [true, true, false]);
        let chains = as_branches(ids);
        let combos = combinations(&cfg, &chains[..2], &|_| None).unwrap();
        let said: Vec<String> = combos.iter().map(|d| describe(&cfg, d)).collect();
        expect![[r#"
            [
                "with <If> at line 2 applying",
                "with <ElseIf> at line 5 applying",
                "with <Else> at line 8 applying",
                "with <If> at line 2 and <If> at line 11 applying",
                "with <ElseIf> at line 5 and <If> at line 11 applying",
                "with <Else> at line 8 and <If> at line 11 applying",
            ]
        "#]]
        .assert_debug_eq(&said);
        assert_eq!(holding(&cfg, &chains[0][0]), ["Options"]);
        // Too many: 2^5 combinations of five lone <If> sections.
        let five: Vec<Chain> = (0..5).map(|_| vec![chains[1][0].clone()]).collect();
        assert!(combinations(&cfg, &five, &|_| None).is_none());
        // Known conditions leave only the branches httpd may take: the <If> false and the
        // <ElseIf> unknown, the <ElseIf> or the <Else>; the lone <If> true, it alone.
        let known = |b: &Branch| match cfg.line(&b.node(&cfg).loc) {
            2 => Some(false),
            11 => Some(true),
            _ => None,
        };
        let combos = combinations(&cfg, &chains[..2], &known).unwrap();
        let said: Vec<String> = combos.iter().map(|d| describe(&cfg, d)).collect();
        expect![[r#"
            [
                "with <ElseIf> at line 5 and <If> at line 11 applying",
                "with <Else> at line 8 and <If> at line 11 applying",
            ]
        "#]]
        .assert_debug_eq(&said);
        // Every condition false: the <Else>, and no branch of the lone <If>.
        let combos = combinations(&cfg, &chains[..2], &|_| Some(false)).unwrap();
        assert_eq!(combos.iter().map(|d| describe(&cfg, d)).collect::<Vec<_>>(), ["with <Else> at line 8 applying"]);
    }

    /// A chain nested in a branch has branches only in the combinations taking that branch.
    #[test]
    fn nested_chains_branch_only_inside_the_branch_enclosing_them() {
        let cfg = config(
            "<Directory /srv>\n<If \"true\">\n<If \"true\">\nRequire all denied\n</If>\n<Else>\nRedirect 410\n</Else>\n</If>\n</Directory>\n",
        );
        let ix = cfg.index();
        let dir = (0..ix.len() as SecId).find(|&id| ix.node(&cfg, id).is("Directory")).unwrap();
        let outer = chains(&cfg, ix.ifs_in(dir));
        let inner = chains(&cfg, ix.ifs_in(outer[0][0]));
        let all = as_branches(outer.into_iter().chain(inner).collect());
        let said: Vec<String> =
            combinations(&cfg, &all, &|_| None).unwrap().iter().map(|d| describe(&cfg, d)).collect();
        expect![[r#"
            [
                "with no branch applying",
                "with <If> at line 2 and <If> at line 3 applying",
                "with <If> at line 2 and <Else> at line 6 applying",
            ]
        "#]]
        .assert_debug_eq(&said);
    }
}

//! The proof of a plan: every context reaching an edited body is walked again on the edited
//! configuration and every request class compared; and the bodies to blame when a request
//! changes.

use super::{walk_ctx, Analysis, Cluster, Key, Setup, Views, Walk, CLASSES};
use crate::ide::access::Resolved;
use crate::ide::config::Config;
use crate::ide::migrate::classes::{self, Dims};
use crate::ide::migrate::describe::{self, Change};
use crate::ide::migrate::Edit;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

impl<'c> Analysis<'c> {
    /// Bodies that `edits` touch, each with a hash of its edits.
    fn edited_secs(&self, edits: &[Edit]) -> BTreeMap<usize, u64> {
        use std::hash::{Hash, Hasher};
        let mut by_path: HashMap<&Path, Vec<&Edit>> = HashMap::new();
        for e in edits {
            by_path.entry(&e.path).or_default().push(e);
        }
        let mut out = BTreeMap::new();
        for (s, sec) in self.secs.iter().enumerate() {
            let b = self.body(s);
            let Some(mine) = by_path.get(&*b.path()) else { continue };
            let range = match &sec.key {
                Key::Node(..) | Key::HtaccessSection(..) => b.node.map(|n| n.loc.range),
                Key::Htaccess(_) => None,
            };
            let mut h = std::collections::hash_map::DefaultHasher::new();
            let mut any = false;
            for e in mine.iter().filter(|e| range.is_none_or(|r| r.contains_range(e.range))) {
                any = true;
                (e.range.start(), e.range.end(), &e.new_text).hash(&mut h);
            }
            if any {
                out.insert(s, h.finish());
            }
        }
        out
    }

    /// The proof: every context reaching an edited body, every request class, before and after.
    /// Returns the requests that change (empty: proven) and, per walk, the ones there.
    /// `proven` remembers the walks already proven for the same edits of their bodies (across
    /// the rounds of one migration), which are not walked again.
    pub fn verify(
        &self,
        after: &Config,
        after_fs: &Views,
        edits: &[Edit],
        proven: &mut HashMap<usize, u64>,
    ) -> (Vec<Change>, BTreeMap<usize, Vec<Change>>) {
        use std::hash::{Hash, Hasher};
        let edited = self.edited_secs(edits);
        let walk_ids: BTreeSet<usize> = edited.keys().flat_map(|s| self.by_sec[*s].iter().copied()).collect();
        let sig = |w: usize| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            for s in &self.walks[w].secs {
                edited.get(s).hash(&mut h);
            }
            h.finish()
        };
        let gone_fs = after_fs.last_missing();
        let todo: Vec<(usize, u64)> =
            walk_ids.into_iter().map(|w| (w, sig(w))).filter(|(w, h)| proven.get(w) != Some(h)).collect();
        // Walk each context again on the edited configuration; paths whose configurations
        // read the same before and after (up to where their lines are) are decided alike, so
        // each distinct pair is evaluated once.
        let walked: Vec<(usize, u64, Resolved, String)> = todo
            .into_par_iter()
            .map(|(w, hash)| {
                let walk = &self.walks[w];
                let e2 = walk_ctx(after, if walk.gone { &gone_fs } else { after_fs }, &walk.ctx);
                let key = format!("{}#{}#{:?}", canonical(&walk.eff), canonical(&e2), walk.ctx.local);
                (w, hash, e2, key)
            })
            .collect();
        let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, (_, _, _, key)) in walked.iter().enumerate() {
            groups.entry(key.as_str()).or_default().push(i);
        }
        let groups: Vec<Vec<usize>> = groups.into_values().collect();
        // Per group: its members, the dimensions found, and each class with its status before
        // and after.
        type Decided = (Vec<usize>, Dims, Vec<(classes::Class, Option<u16>, Option<u16>)>);
        let decided: Vec<Decided> = groups
            .into_par_iter()
            .map(|members| {
                let (w, _, e2, _) = &walked[members[0]];
                let walk = &self.walks[*w];
                let mut dims = Dims::default();
                dims.add_resolved(&walk.eff);
                dims.add_resolved(e2);
                let reqs = dims.requests(walk.ctx.local.map(|l| l.0));
                CLASSES.fetch_add(reqs.len(), std::sync::atomic::Ordering::Relaxed);
                let mut differ = Vec::new();
                for class in reqs {
                    let a = classes::status(&walk.eff, self.cfg, &class.request);
                    let b = classes::status(e2, after, &class.request);
                    if a != b || a.is_none() {
                        differ.push((class, a, b));
                    }
                }
                (members, dims, differ)
            })
            .collect();
        let mut changes = Vec::new();
        let mut failing = BTreeMap::new();
        for (members, dims, differ) in decided {
            for i in members {
                let (w, hash, _, _) = &walked[i];
                if differ.is_empty() {
                    proven.insert(*w, *hash);
                    continue;
                }
                let walk = &self.walks[*w];
                let c: Vec<Change> =
                    differ.iter().map(|(class, a, b)| self.change(walk, &dims, class, *a, *b)).collect();
                changes.extend(c.iter().cloned());
                failing.insert(*w, c);
            }
        }
        (changes, failing)
    }

    fn change(&self, walk: &Walk, dims: &Dims, class: &classes::Class, a: Option<u16>, b: Option<u16>) -> Change {
        let r = &class.request;
        let mut extra: Vec<String> = Setup::located_note(&walk.ctx).into_iter().collect();
        if class.host_split {
            extra.push(describe::host_extra(&r.client_host));
        }
        if class.env_split {
            let set: Vec<&String> = r.env.vars.keys().collect();
            extra.push(if set.is_empty() {
                "with none of the tested variables set".into()
            } else {
                format!("with {} set", set.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))
            });
        }
        Change {
            host: walk.ctx.host.clone(),
            url: if walk.gone {
                format!("{} (no such file)", self.setup.display_url(&walk.ctx.url))
            } else {
                self.setup.display_url(&walk.ctx.url)
            },
            method: class.method_split.then(|| r.method.clone()),
            client: describe::client_class(r.client, &dims.nets, dims.local),
            extra,
            who: describe::who(r.user.as_deref(), r.bad_credentials),
            before: a,
            after: b,
        }
    }

    /// Bodies to blame for a failing walk: the rewritten body whose old-style rules were in
    /// effect there, else the sources of rules carried into it, else every rewritten body on it.
    /// Each blamed body with the changes on the walks it is blamed for.
    pub fn culprits(&self, failing: &BTreeMap<usize, Vec<Change>>, c: &Cluster) -> BTreeMap<usize, Blame> {
        let mut out: BTreeMap<usize, Blame> = BTreeMap::new();
        for (&w, changes) in failing {
            let secs = &self.walks[w].secs;
            let mut blamed: Vec<(usize, Option<usize>)> = Vec::new();
            if let Some(x) = secs.iter().rev().find(|s| self.secs[**s].compat).filter(|x| c.rewrite.contains(x)) {
                blamed.push((*x, None));
            } else {
                for s in secs {
                    if let Some(carry) = c.carry.get(s) {
                        blamed.extend(carry.sources().into_iter().map(|b| (b, Some(*s))));
                    }
                }
                if blamed.is_empty() {
                    blamed.extend(secs.iter().filter(|s| c.rewrite.contains(s)).map(|s| (*s, None)));
                }
            }
            for (b, through) in blamed {
                let blame = out.entry(b).or_default();
                match through {
                    Some(t) if t != b => blame.through.entry(t).or_default().extend(changes.iter().cloned()),
                    _ => blame.own.extend(changes.iter().cloned()),
                }
            }
        }
        out
    }
}

/// What a rewrite of one body would change, in [`Analysis::culprits`]: on the walks where its own
/// rewritten rules decide, and on walks reaching only the other bodies its rules are carried
/// into (whose Require lines the rewrite must change too).
#[derive(Debug, Clone, Default)]
pub(crate) struct Blame {
    pub own: Vec<Change>,
    /// Carried-into body → the changes on walks that reach it.
    pub through: BTreeMap<usize, Vec<Change>>,
}

/// What decides requests on a walked path, as text without where each rule is written:
/// two paths with the same text answer every request alike.
fn canonical(r: &Resolved) -> String {
    let s = format!(
        "{:?}|{:?}|{:?}|{}|{}|{}",
        r.compat(),
        r.authz,
        r.authn,
        r.errors.is_empty(),
        r.unknown.is_empty(),
        r.htaccess_error().is_some()
    );
    // Drop every `Loc { … }` (file, line and range of a rule).
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    while let Some(i) = rest.find("Loc {") {
        out.push_str(&rest[..i]);
        let mut depth = 0usize;
        let mut end = rest.len();
        for (j, ch) in rest[i..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push('L');
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

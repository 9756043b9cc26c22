//! Planning a rewrite: the set of bodies that must change together ([`Analysis::cluster`],
//! as the parent module's docs describe) and the edits that rewrite them and carry host rules
//! into the Require lines that replace theirs.

use super::{Analysis, Blocked, Carry, Cluster, Setup};
use crate::ide::migrate::formula::{self, Reading, Rules};
use crate::ide::migrate::Edit;
use std::collections::{BTreeMap, BTreeSet};

/// How the Require lines in effect are written into a rewritten body.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mode {
    Own,
    /// The Require lines every path had in effect, copied.
    Copy(Vec<formula::Rule>),
    Nothing,
    Inherited,
}

impl<'c> Analysis<'c> {
    fn neutral(&self, s: usize) -> bool {
        let b = self.body(s);
        let p = b.policy(&self.ctx);
        match p.compat {
            Some(c) => formula::is_neutral(&formula::classes(&c, &b.limit_methods(&self.ctx), Reading::Exact)),
            None => true,
        }
    }

    /// Grows `seeds` into the set of bodies that must change together (module docs).
    pub fn cluster(&self, seeds: &BTreeSet<usize>, excluded: &BTreeSet<usize>) -> Result<Cluster, Blocked> {
        let mut m = seeds.clone();
        let blocked = |who: usize, why: String| Blocked::new([who].into(), why);
        if let Some(x) = m.iter().find(|x| excluded.contains(x)) {
            return Err(blocked(*x, format!("{} cannot be rewritten", self.label(*x))));
        }
        if let Some(why) = &self.unsampled {
            return Err(Blocked::new(m, why.clone()));
        }
        for _ in 0..10_000 {
            let mut carry: BTreeMap<usize, Carry> = BTreeMap::new();
            let mut blocked = Blocked::new(BTreeSet::new(), String::new());
            let mut grew = false;
            let walk_ids: BTreeSet<usize> = m.iter().flat_map(|s| self.by_sec[*s].iter().copied()).collect();
            // Carries first: they decide which walks the other rules look at. A body reached
            // under different old-style rules on different paths cannot hold one carried
            // formula; it is left alone and the proof decides.
            let mut sources: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
            for &w in &walk_ids {
                let secs = &self.walks[w].secs;
                let Some(px) = secs.iter().rposition(|s| self.secs[*s].compat) else { continue };
                let x = secs[px];
                if !m.contains(&x) {
                    continue;
                }
                if let Some(pl) = secs.iter().rposition(|s| self.secs[*s].replaces) {
                    if pl > px {
                        sources.entry(secs[pl]).or_default().insert(x);
                    }
                }
            }
            for (l, xs) in sources {
                let needed: Vec<usize> = xs.iter().copied().filter(|x| self.carry_needed(l, *x)).collect();
                if needed.is_empty() {
                    continue;
                }
                if xs.len() == 1 {
                    carry.insert(l, Carry::Text(needed[0]));
                } else if let Some(any) = self.common_satisfy(&xs) {
                    carry.insert(l, Carry::Merge { any, sources: xs });
                }
            }
            let walk_ids: BTreeSet<usize> =
                m.iter().chain(carry.keys()).flat_map(|s| self.by_sec[*s].iter().copied()).collect();
            for &w in &walk_ids {
                let secs = &self.walks[w].secs;
                let px = secs.iter().rposition(|s| self.secs[*s].compat);
                // Who decides the Require lines once the rewrite is done.
                let pl_after = secs.iter().rposition(|s| self.secs[*s].replaces || m.contains(s));
                let edited_l = pl_after.map(|p| secs[p]).filter(|l| m.contains(l) || carry.contains_key(l));
                match px {
                    Some(px) if m.contains(&secs[px]) => {
                        // The old-style rules that would be in effect once X's are gone. (One
                        // that cannot be rewritten stays; the proof then decides.)
                        for &y in secs[..px].iter().rev() {
                            if !self.secs[y].compat || m.contains(&y) {
                                continue;
                            }
                            if self.neutral(y) {
                                break;
                            }
                            if excluded.contains(&y) {
                                let x = secs[px];
                                let why = format!(
                                    "{} keeps its old-style rules, which would then take effect where it applies",
                                    self.label(y)
                                );
                                if blocked.reason.is_empty() {
                                    blocked.reason = why.clone();
                                }
                                if blocked.culprits.insert(x) {
                                    // (Where only a file below a Location path shows it, which one.)
                                    let ctx = &self.walks[w].ctx;
                                    if let Some(note) = Setup::located_note(ctx) {
                                        let url = self.setup.display_url(&ctx.url);
                                        blocked.why.insert(x, format!("{why} ({url}, {note})"));
                                    } else if why != blocked.reason {
                                        blocked.why.insert(x, why);
                                    }
                                }
                                break;
                            }
                            m.insert(y);
                            grew = true;
                        }
                    }
                    Some(px) => {
                        // X keeps its old-style rules but would inherit edited Require lines.
                        let x = secs[px];
                        if edited_l.is_some() && !excluded.contains(&x) {
                            m.insert(x);
                            grew = true;
                        }
                    }
                    None => {}
                }
            }
            if !blocked.culprits.is_empty() {
                return Err(blocked);
            }
            if !grew {
                return Ok(Cluster { rewrite: m, carry });
            }
        }
        Err(Blocked::new(seeds.clone(), "the rewrite does not settle".into()))
    }

    /// The Satisfy (Any: true) every method of every one of `xs` has, if they agree.
    fn common_satisfy(&self, xs: &BTreeSet<usize>) -> Option<bool> {
        let mut seen = BTreeSet::new();
        for x in xs {
            for c in self.classes_of(*x, Reading::Exact).ok()? {
                seen.insert(c.any);
            }
        }
        (seen.len() == 1).then(|| seen.into_iter().next().unwrap())
    }

    /// Whether `l`'s Require lines need `x`'s host rules written into them to keep their
    /// outcome: not when the rules let everyone through the host check (and do not bypass
    /// Require), nor when the Require lines deny everyone anyway (under Satisfy All).
    fn carry_needed(&self, l: usize, x: usize) -> bool {
        let Ok(classes) = self.classes_of(x, Reading::Exact) else { return true };
        if formula::is_neutral(&classes) {
            return false;
        }
        let denies_all =
            self.rules_of(l).is_ok_and(|r| r.len() == 1 && r[0].limit.is_none() && r[0].text == "Require all denied");
        !(denies_all && classes.iter().all(|c| !c.any))
    }

    /// How the Require lines in effect are written into rewritten body `x`.
    fn mode(&self, x: usize) -> Mode {
        if self.secs[x].replaces {
            return Mode::Own;
        }
        // What each path had in effect where x's old-style rules decided, as Require text:
        // the last replacing section's lines, or for none at all (without AuthType: httpd then
        // grants) `Require all granted`.
        let granted = || vec![formula::Rule { text: "Require all granted".into(), limit: None }];
        let mut seen: BTreeMap<Vec<String>, Vec<formula::Rule>> = BTreeMap::new();
        for &w in &self.by_sec[x] {
            let walk = &self.walks[w];
            let secs = &walk.secs;
            let Some(px) = secs.iter().rposition(|s| self.secs[*s].compat) else { continue };
            if secs[px] != x {
                continue;
            }
            if secs.iter().any(|s| self.secs[*s].merging) {
                return Mode::Inherited;
            }
            let rules = match secs.iter().rposition(|s| self.secs[*s].replaces) {
                Some(pl) if pl > px => continue,
                Some(pl) => match self.rules_of(secs[pl]) {
                    Ok(r) => r,
                    Err(_) => return Mode::Inherited,
                },
                None if walk.eff.authn.auth_type_kind() == crate::ide::policy::AuthTypeKind::None => granted(),
                None => return Mode::Inherited,
            };
            seen.insert(rules.iter().map(|r| r.text.clone()).collect(), rules);
        }
        match seen.len() {
            0 => Mode::Nothing,
            1 => Mode::Copy(seen.into_values().next().unwrap()),
            _ => Mode::Inherited,
        }
    }

    fn rules_of(&self, s: usize) -> Result<Vec<formula::Rule>, String> {
        Ok(self.body(s).parts()?.rules)
    }

    fn classes_of(&self, x: usize, reading: Reading) -> Result<Vec<formula::Class>, String> {
        let b = self.body(x);
        let p = b.policy(&self.ctx);
        if let Some(e) = p.errors.first() {
            return Err(format!("httpd rejects its lines: {}", e.message));
        }
        let c = p.compat.ok_or("it has no old-style rules")?;
        Ok(formula::classes(&c, &b.limit_methods(&self.ctx), reading))
    }

    /// The edits rewriting body `x` (without carrying anything anywhere).
    pub fn rewrite_edits(&self, x: usize, reading: Reading) -> Result<Vec<Edit>, String> {
        let b = self.body(x);
        if b.sets_authmerging(&self.ctx) {
            return Err("it already sets AuthMerging; combine by hand".into());
        }
        let parts = b.parts()?;
        let classes = self.classes_of(x, reading)?;
        let mode = self.mode(x);
        let rules = match &mode {
            Mode::Own => self.rules_of(x)?,
            Mode::Copy(r) => r.clone(),
            Mode::Nothing | Mode::Inherited => vec![],
        };
        let rules = match mode {
            // Inherited lines that cannot change the outcome are left out.
            Mode::Inherited | Mode::Copy(_) if formula::decides_alone(&classes) => Rules::None,
            // A copied `Require all granted` adds nothing to H.
            Mode::Copy(r) if r.len() == 1 && r[0].limit.is_none() && r[0].text == "Require all granted" => Rules::None,
            Mode::Inherited => Rules::Inherited,
            _ if rules.is_empty() => Rules::None,
            _ => Rules::Lines(rules),
        };
        let block = formula::block(&classes, &rules, &self.ctx.registered_methods)?;
        Ok(b.rewrite(&parts, &block))
    }

    /// The edits carrying host rules into `l`'s Require lines.
    fn carry_edits(&self, l: usize, carry: &Carry) -> Result<Vec<Edit>, String> {
        let b = self.body(l);
        if b.sets_authmerging(&self.ctx) {
            return Err(format!("{} sets AuthMerging", self.label(l)));
        }
        let parts = b.parts().map_err(|e| format!("{}: {e}", self.label(l)))?;
        if parts.rules.is_empty() {
            return Err(format!("{} has no Require lines to carry the rules into", self.label(l)));
        }
        let x = match carry {
            Carry::Text(x) => *x,
            Carry::Merge { any, .. } => {
                let line = if *any { "AuthMerging Or" } else { "AuthMerging And" };
                return Ok(b.insert_before_rules(&parts, line));
            }
        };
        let rules = self.rules_of(l)?;
        let classes = self.classes_of(x, Reading::Exact)?;
        let block = formula::block(&classes, &Rules::Lines(rules), &self.ctx.registered_methods)?;
        Ok(b.replace_rules(&parts, &block))
    }

    /// All edits of a cluster; Err names the body that cannot be written.
    pub fn cluster_edits(&self, c: &Cluster) -> Result<Vec<Edit>, Blocked> {
        let mut edits = Vec::new();
        for &x in &c.rewrite {
            edits.extend(
                self.rewrite_edits(x, Reading::Exact)
                    .map_err(|e| Blocked::new([x].into(), format!("{}: {e}", self.label(x))))?,
            );
        }
        for (&l, carry) in &c.carry {
            edits.extend(
                self.carry_edits(l, carry).map_err(|e| Blocked::new(carry.sources().into_iter().collect(), e))?,
            );
        }
        Ok(edits)
    }
}

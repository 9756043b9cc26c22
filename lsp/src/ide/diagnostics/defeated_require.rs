//! Check: the precedence trap — a `Require` that never takes effect because old-style
//! rules written elsewhere answer every request it could decide first (refuse it, or let it
//! through under `Satisfy Any`).

use super::{Diagnostic, Messages, Related};
use crate::ide::config::{Config, Node, SecId, Severity, TopLevel};
use crate::ide::defeated::{
    defeated_htaccess, defeated_require_among, holds_require, htaccess_view, DefeatedBatch, RecentWalks,
};

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    check_sections(cfg, &(0..cfg.index().len() as u32).collect::<Vec<_>>(), out);
    check_htaccess_top(cfg, out);
}

/// The trap in an .htaccess file's own lines (its top level), read under its server
/// configuration: every request of every server reading it is answered first by old-style
/// rules outside it ([`defeated_htaccess`]).
fn check_htaccess_top(cfg: &Config, out: &mut Vec<Diagnostic>) {
    let Some(server) = cfg.enclosing.as_deref().filter(|_| cfg.top == TopLevel::Htaccess) else { return };
    if super::never_read(cfg) {
        return;
    }
    let Some(dir) = cfg.files.first().and_then(|f| f.path.parent()) else { return };
    let batch = DefeatedBatch::new(&[server, cfg], htaccess_view(server)).under(dir);
    let Some(t) = defeated_htaccess(cfg, server, &batch, &mut RecentWalks::default()) else { return };
    let mut messages = Messages::default();
    for line in &t.lines {
        let message = match &t.let_through {
            None => messages.get(&format!(
                "{} (old and new rules must both pass)",
                t.sentence(line, |_| " written outside this file".into())
            )),
            Some(_) => messages.get(&t.sentence(line, |_| " written outside this file".into())),
        };
        out.push(Diagnostic::new(line.at.0, line.at.1, Severity::Warning, "defeated-require", message));
    }
}

/// [`check`] for some sections only.
pub(super) fn check_sections(cfg: &Config, sections: &[SecId], out: &mut Vec<Diagnostic>) {
    use rayon::prelude::*;
    let batch = DefeatedBatch::new(&[cfg], htaccess_view(cfg));
    let ix = cfg.index();
    // Only sections holding a Require can hold the trap; each is resolved once, in parallel.
    // Texts are shared per worker: many virtual hosts repeat the same Require and rule; so are
    // the last walks' answers.
    let found: Vec<Diagnostic> = sections
        .par_iter()
        .copied()
        .filter(|&id| holds_require(ix.node(cfg, id)))
        .map_init(
            || (Messages::default(), RecentWalks::default()),
            |(messages, recent), id| finding(cfg, &ix.chain(cfg, id), &batch, messages, recent),
        )
        .flatten()
        .collect();
    // Moved when nothing is there yet (the checker's case): extending would copy them.
    if out.is_empty() {
        *out = found;
    } else {
        out.extend(found);
    }
}

/// The trap in the innermost section of `chain`, as findings: one per Require line reported.
fn finding(
    cfg: &Config,
    chain: &[&Node],
    batch: &DefeatedBatch,
    messages: &mut Messages,
    recent: &mut RecentWalks,
) -> Vec<Diagnostic> {
    let Some(t) = defeated_require_among(cfg, chain, batch, recent) else { return Vec::new() };
    let related = t.deciding.as_ref().and_then(|l| {
        Some(Related {
            file: cfg.file_id(&l.file)?,
            range: apache_syntax::TextRange::new(l.range.0.into(), l.range.1.into()),
            message: messages.get(&format!("`{}` decides first", t.decided_by)),
        })
    });
    t.lines
        .iter()
        .map(|line| {
            // Refused: by rules inherited (a section's own old-style lines cancel the check); let
            // through: possibly by rules below it (an .htaccess file in its directory).
            let message = match &t.let_through {
                None => messages.get(&format!(
                    "{} (old and new rules must both pass)",
                    t.sentence(line, |_| " inherited from another section".into())
                )),
                Some(_) => messages.get(&t.sentence(line, |_| String::new())),
            };
            let mut d = Diagnostic::new(line.at.0, line.at.1, Severity::Warning, "defeated-require", message);
            d.related.extend(related.clone());
            d
        })
        .collect()
}

//! Check: the precedence trap — a `Require` that never takes effect because an
//! old-style rule inherited from another section refuses every request first.

use super::{Diagnostic, Related};
use crate::ide::access::FsView;
use crate::ide::config::{Config, Node, Severity};
use crate::ide::hover::{defeated_require_among, representative_clients};

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    let clients = representative_clients(cfg);
    let fs = FsView::cached();
    // Walk with the chain of enclosing sections (iteratively).
    let mut stack: Vec<(Vec<&Node>, &Node)> = cfg.nodes.iter().map(|n| (vec![], n)).collect();
    while let Some((mut chain, n)) = stack.pop() {
        if !n.is_section() {
            continue;
        }
        chain.push(n);
        if let Some(t) = defeated_require_among(cfg, &chain, &clients, &fs) {
            let mut d = Diagnostic::new(
                t.require.0,
                t.require.1,
                Severity::Warning,
                "defeated-require",
                format!("`{}` has no effect here: `{}` inherited from another section refuses every request first (old and new rules must both pass)", t.require_text, t.decided_by),
            );
            if let Some(l) = &t.deciding {
                if let Some(file) = cfg.file_id(&l.file) {
                    d.related.push(Related {
                        file,
                        range: apache_syntax::TextRange::new(l.range.0.into(), l.range.1.into()),
                        message: format!("`{}` decides first", t.decided_by),
                    });
                }
            }
            out.push(d);
        }
        for c in &n.children {
            stack.push((chain.clone(), c));
        }
    }
}

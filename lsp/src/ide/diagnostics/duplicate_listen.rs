//! Check: a `Listen` line for the address and port of an earlier one ("Cannot define multiple
//! Listeners on the same IP:port", `server/listen.c: alloc_listener`).
//!
//! httpd compares the host as written (after `*` is read as none) and the port, not the
//! addresses they stand for: `Listen 80` twice, or `Listen 80` and `Listen *:80`, are refused,
//! while `Listen 80` and `Listen 0.0.0.0:80`, or `Listen 127.0.0.1:80` and `Listen
//! localhost:80`, are not (binding them is another matter, not judged here). The protocol word
//! does not matter. Only the main server's top level counts: a `Listen` anywhere else is
//! refused for its place first. The finding depends on every `Listen` line, so it belongs to
//! the checks run again when one is edited (`Listen` is read by the engine group).

use super::Diagnostic;
use crate::ide::config::{Config, TopLevel};
use rustc_hash::FxHashMap;

pub(super) fn check(cfg: &Config, out: &mut Vec<Diagnostic>) {
    if cfg.top != TopLevel::Main || !cfg.modules_known {
        return;
    }
    type Key = (Option<String>, Option<String>, u16);
    let mut seen: FxHashMap<Key, &crate::ide::config::Node> = FxHashMap::default();
    for n in &cfg.nodes {
        if n.is_section() || !n.is("Listen") {
            continue;
        }
        // (Without an MPM, `Listen` is an unknown command: another check's.)
        if !n.directive().is_some_and(|d| d.modules().any(|m| cfg.modules.contains(m))) {
            continue;
        }
        let mut args = n.arg_strings();
        if args.last().is_some_and(String::is_empty) {
            args.pop();
        }
        if !(1..=2).contains(&args.len()) || args[0].contains("${") {
            continue;
        }
        let Ok((host, scope, port)) = super::argument_values::listen_address(&args[0]) else { continue };
        let key = (host.map(str::to_string), scope.map(str::to_string), port);
        match seen.get(&key) {
            Some(first) => {
                let mut d = super::refused_line(
                    cfg,
                    n,
                    "argument-value",
                    "Cannot define multiple Listeners on the same IP:port",
                );
                d.related.push(super::Related {
                    file: first.loc.file,
                    range: cfg.trimmed(&first.loc),
                    message: "the earlier Listen line for this address and port".into(),
                });
                out.push(d);
            }
            None => {
                seen.insert(key, n);
            }
        }
    }
}

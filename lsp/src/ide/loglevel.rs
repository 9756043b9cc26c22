//! Feature: whether httpd writes a predicted error-log entry, given the `LogLevel`s in force.
//!
//! `LogLevel` (`server/core.c: set_loglevel`) takes one or more arguments, applied in order: a
//! bare level sets the level and forgets every per-module level set so far; `module:level` sets
//! one module's. The main server starts at `warn`; a virtual host's settings are merged over
//! the main server's, and a section's over what it inherits (`server/config.c:
//! ap_merge_log_config`): a context that sets a bare level keeps only its own module levels,
//! otherwise it inherits the level and the module levels it does not set. A request logs with
//! the configuration of its sections (`r->log`, `server/request.c`), a DirectoryIndex subrequest
//! with its own.
//!
//! Invariants: no IO; unknown level words are ignored (httpd refuses to start on them, which
//! the diagnostics report).

use crate::ide::access::Effective;
use crate::ide::config::{level_directives, Config, Node};
use crate::ide::policy::{Item, LogEntry, LogLevel};
use std::collections::BTreeMap;

/// The directive this feature reads per directory.
pub fn reads(name: &str) -> bool {
    name.eq_ignore_ascii_case("LogLevel")
}

const LEVELS: &[&str] = &[
    "emerg", "alert", "crit", "error", "warn", "notice", "info", "debug", "trace1", "trace2", "trace3", "trace4",
    "trace5", "trace6", "trace7", "trace8",
];

fn parse_level(s: &str) -> Option<u8> {
    LEVELS.iter().position(|l| l.eq_ignore_ascii_case(s)).map(|p| p as u8)
}

fn level_name(l: u8) -> &'static str {
    LEVELS.get(l as usize).copied().unwrap_or("?")
}

/// The numeric level of an entry (`APLOG_ALERT` = 1 … `APLOG_INFO` = 6).
pub fn entry_level(l: LogLevel) -> u8 {
    match l {
        LogLevel::Alert => 1,
        LogLevel::Error => 3,
        LogLevel::Warning => 4,
        LogLevel::Info => 6,
    }
}

/// The short module name a `LogLevel module:level` argument designates (`authz_core`,
/// `mod_authz_core.c`, `authz_core_module` are the same module).
fn module_key(m: &str) -> String {
    let m = m.to_ascii_lowercase();
    if let Some(stem) = m.strip_suffix(".c") {
        return stem.strip_prefix("mod_").unwrap_or(stem).to_string();
    }
    m.strip_suffix("_module").unwrap_or(&m).to_string()
}

/// A level with the line that set it.
#[derive(Debug, Clone)]
struct Setting {
    level: u8,
    set_by: Option<String>,
}

/// One `ap_logconf`.
#[derive(Debug, Clone, Default)]
pub struct LogConfig {
    level: Option<Setting>,
    modules: BTreeMap<String, Setting>,
}

impl LogConfig {
    fn server_default() -> LogConfig {
        LogConfig { level: Some(Setting { level: 4, set_by: None }), modules: BTreeMap::new() }
    }

    fn apply<'a>(&mut self, args: impl IntoIterator<Item = &'a str>, set_by: &str) {
        for a in args {
            match a.rsplit_once(':') {
                None => {
                    if let Some(l) = parse_level(a) {
                        self.level = Some(Setting { level: l, set_by: Some(set_by.to_string()) });
                        self.modules.clear();
                    }
                }
                Some((m, l)) => {
                    if let Some(l) = parse_level(l) {
                        self.modules.insert(module_key(m), Setting { level: l, set_by: Some(set_by.to_string()) });
                    }
                }
            }
        }
    }

    /// `ap_merge_log_config(self, new)`.
    fn merged(&self, new: &LogConfig) -> LogConfig {
        if new.level.is_some() {
            return new.clone();
        }
        let mut out = self.clone();
        for (k, v) in &new.modules {
            out.modules.insert(k.clone(), v.clone());
        }
        out
    }

    /// The level in force for `module`, and the line that set it (None: the default `warn`).
    pub fn level_for(&self, module: &str) -> (u8, Option<String>) {
        let s = self.modules.get(&module_key(module)).or(self.level.as_ref());
        s.map(|s| (s.level, s.set_by.clone())).unwrap_or((4, None))
    }

    /// Why `entry` is not written, if it is not.
    pub fn suppresses(&self, entry: &LogEntry) -> Option<String> {
        let (level, by) = self.level_for(entry.module);
        let want = entry_level(entry.level);
        (want > level).then(|| {
            let by = by.map(|b| format!("; {b}")).unwrap_or_default();
            format!(
                "not logged at LogLevel {} (an entry of level {}{by})",
                if self.modules.contains_key(&module_key(entry.module)) {
                    format!("{}:{}", entry.module, level_name(level))
                } else {
                    level_name(level).to_string()
                },
                level_name(want)
            )
        })
    }
}

fn where_(cfg: &Config, n: &Node) -> String {
    format!("`LogLevel {}` at {}:{}", n.raw_args(), cfg.file(n.loc.file).path.display(), cfg.line(&n.loc))
}

fn context_config(cfg: &Config, nodes: &[Node]) -> LogConfig {
    let mut c = LogConfig::default();
    for n in level_directives(nodes).filter(|n| n.is("LogLevel")) {
        c.apply(n.args(), &where_(cfg, n));
    }
    c
}

/// The log configuration of a request (the main one, not a DirectoryIndex subrequest).
pub fn request_config(cfg: &Config, e: &Effective) -> LogConfig {
    let mut main = LogConfig::server_default();
    let top = context_config(cfg, &cfg.nodes);
    main = main.merged(&top);
    if let Some(v) = e.vhost_node.and_then(|i| cfg.nodes.get(i)) {
        main = main.merged(&context_config(cfg, &v.children));
    }
    let mut cur = main;
    let mut last: Option<usize> = None;
    let mut section = LogConfig::default();
    for (sec, item) in &e.per_dir {
        let Item::Directive { name, args, raw_args, loc } = item else { continue };
        if !reads(name) {
            continue;
        }
        if last.is_some() && last != Some(*sec) {
            cur = cur.merged(&section);
            section = LogConfig::default();
        }
        last = Some(*sec);
        section.apply(
            args.iter().map(|a| a.as_str()),
            &format!("`LogLevel {raw_args}` at {}:{}", loc.file.display(), loc.line),
        );
    }
    if last.is_some() {
        cur = cur.merged(&section);
    }
    cur
}

/// For each predicted entry of `e.outcome.log`, why httpd does not write it (None: written).
pub fn suppressed(cfg: &Config, e: &Effective) -> Vec<Option<String>> {
    let main = request_config(cfg, e);
    // Entries appended from DirectoryIndex subrequests log with the subrequest's configuration.
    let mut owners: Vec<&Effective> = Vec::new();
    if let Some(ix) = &e.index {
        for t in &ix.tries {
            if let Some(s) = &t.effective {
                owners.extend(std::iter::repeat_n(s, s.outcome.log.len()));
            }
        }
    }
    let main_len = e.outcome.log.len().saturating_sub(owners.len());
    e.outcome
        .log
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            if i < main_len {
                main.suppresses(entry)
            } else {
                request_config(cfg, owners[i - main_len]).suppresses(entry)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg_of(lines: &[&[&str]]) -> LogConfig {
        let mut c = LogConfig::server_default();
        for l in lines {
            let mut ctx = LogConfig::default();
            ctx.apply(l.iter().copied(), "here");
            c = c.merged(&ctx);
        }
        c
    }

    #[test]
    fn bare_level_resets_module_levels_in_order() {
        let c = cfg_of(&[&["warn", "authz_core:crit"]]);
        assert_eq!(c.level_for("authz_core").0, 2);
        assert_eq!(c.level_for("access_compat").0, 4);
        let c = cfg_of(&[&["authz_core:crit", "warn"]]);
        assert_eq!(c.level_for("authz_core").0, 4);
        let c = cfg_of(&[&["mod_authz_core.c:debug"], &["authz_core_module:crit"]]);
        assert_eq!(c.level_for("authz_core").0, 2);
    }

    #[test]
    fn a_context_setting_a_bare_level_forgets_inherited_module_levels() {
        let c = cfg_of(&[&["warn", "authz_core:crit"], &["info"]]);
        assert_eq!(c.level_for("authz_core").0, 6);
        let c = cfg_of(&[&["warn", "authz_core:crit"], &["access_compat:emerg"]]);
        assert_eq!(c.level_for("authz_core").0, 2);
        assert_eq!(c.level_for("access_compat").0, 0);
    }

    #[test]
    fn suppression_names_the_level() {
        let c = cfg_of(&[&["warn", "authz_core:crit"]]);
        let e = LogEntry { ah_code: "AH01630", module: "authz_core", level: LogLevel::Error, message: String::new() };
        assert_eq!(
            c.suppresses(&e).as_deref(),
            Some("not logged at LogLevel authz_core:crit (an entry of level error; here)")
        );
        let alert = LogEntry { ah_code: "", module: "core", level: LogLevel::Alert, message: String::new() };
        assert_eq!(c.suppresses(&alert), None);
    }
}

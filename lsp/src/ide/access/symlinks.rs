//! Symbolic links on the way of the directory walk: httpd lstat()s each path component below
//! the directory it has merged so far and refuses a link (403, AH00037) that the `Options` in
//! force there do not let it follow (`server/request.c: ap_directory_walk`, `resolve_symlink`).
//!
//! The bits are httpd's own, merged as the walk's own mini-merge does (`core_opts_merge`, the
//! same rule as `merge_core_dir_configs`: the `+`/`-` forms accumulating until a plain `Options`
//! line replaces them). The walk reads FollowSymLinks and SymLinksIfOwnerMatch; the handler
//! feature reads Indexes from the options merged for the whole request.

use super::fs::{ask_disk, FsView, Link};
use crate::ide::config::index::ServerId;
use crate::ide::config::{level_directives, Config, Node};
use std::path::Path;

use crate::ide::catalogue::options::{option_bits, OPT_INDEXES, OPT_MULTI, OPT_SYM_LINKS, OPT_SYM_OWNER, OPT_UNSET};

/// The `Options` of one configuration level, or merged so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SymlinkOptions {
    opts: u32,
    add: u32,
    remove: u32,
}

impl SymlinkOptions {
    /// The main server's defaults before its own `Options` (`core.c: create_core_dir_config`
    /// with no directory): FollowSymLinks.
    pub(crate) fn server() -> SymlinkOptions {
        SymlinkOptions { opts: OPT_UNSET | OPT_SYM_LINKS, add: 0, remove: 0 }
    }

    /// `base` with the `Options` lines among `nodes` (a level's own lines, in order).
    pub(crate) fn with_lines(base: SymlinkOptions, nodes: &[Node]) -> SymlinkOptions {
        let mut o = base;
        for n in level_directives(nodes).filter(|n| n.is("Options")) {
            o.set(n.args());
        }
        o
    }

    /// The `Options` lines among a section's (or an .htaccess file's) own `nodes`; None when
    /// it has none (merging it would change nothing).
    pub(crate) fn of_section(nodes: &[Node]) -> Option<SymlinkOptions> {
        let set = level_directives(nodes).any(|n| n.is("Options"));
        set.then(|| Self::with_lines(SymlinkOptions::unset(), nodes))
    }

    /// A level with no `Options` line of its own yet.
    pub(crate) fn unset() -> SymlinkOptions {
        SymlinkOptions { opts: OPT_UNSET, add: 0, remove: 0 }
    }

    /// This level with one more `Options` line (its words).
    pub(crate) fn with_line<'w>(mut self, words: impl IntoIterator<Item = &'w str>) -> SymlinkOptions {
        self.set(words);
        self
    }

    /// Whether `Options Indexes` is in force (what mod_autoindex asks).
    pub(crate) fn indexes(&self) -> bool {
        self.opts & OPT_INDEXES != 0
    }

    /// Whether `Options MultiViews` is in force (what mod_negotiation asks).
    pub(crate) fn multiviews(&self) -> bool {
        self.opts & OPT_MULTI != 0
    }

    /// One `Options` line (`core.c: set_options`; its errors are the options-syntax check's).
    fn set<'w>(&mut self, words: impl IntoIterator<Item = &'w str>) {
        let mut first = true;
        for w in words {
            let (action, word) = match w.as_bytes().first() {
                Some(b'+') => ('+', &w[1..]),
                Some(b'-') => ('-', &w[1..]),
                _ => (' ', w),
            };
            if action == ' ' && first {
                self.opts = 0;
            }
            // (A word that is no option is the options-syntax check's.)
            let opt = option_bits(word).unwrap_or(0);
            match action {
                '-' => {
                    self.remove |= opt;
                    self.add &= !opt;
                    self.opts &= !opt;
                }
                '+' => {
                    self.add |= opt;
                    self.remove &= !opt;
                    self.opts |= opt;
                }
                _ => self.opts |= opt,
            }
            first = false;
        }
    }

    /// `request.c: core_opts_merge` of a level onto what is merged so far.
    pub(crate) fn merge(&mut self, new: &SymlinkOptions) {
        if new.opts & OPT_UNSET != 0 {
            self.add = (self.add & !new.remove) | new.add;
            self.remove = (self.remove & !new.add) | new.remove;
            self.opts = (self.opts & !self.remove) | self.add;
        } else {
            *self = *new;
        }
    }

    /// Whether FollowSymLinks or SymLinksIfOwnerMatch is in force (what mod_rewrite asks before
    /// it runs per-directory rules).
    pub(crate) fn any_symlinks(&self) -> bool {
        self.opts & (OPT_SYM_LINKS | OPT_SYM_OWNER) != 0
    }

    /// Whether links are followed without a question (FollowSymLinks, no SymLinksIfOwnerMatch):
    /// httpd then skips the lstat() of a path that exists.
    pub(super) fn follows_all(&self) -> bool {
        self.opts & (OPT_SYM_LINKS | OPT_SYM_OWNER) == OPT_SYM_LINKS
    }

    /// Whether httpd follows `link` (`resolve_symlink`).
    fn follows(&self, link: Link) -> bool {
        if self.opts & (OPT_SYM_OWNER | OPT_SYM_LINKS) == 0 {
            false
        } else if self.opts & OPT_SYM_OWNER == 0 {
            link.target_reached
        } else {
            link.target_reached && link.same_owner
        }
    }
}

/// The `Options` a server's directory walk starts from: the main server's own lines over
/// httpd's default, merged with the virtual host's own (`ap_directory_walk` starts from the
/// server's per-directory defaults).
pub(crate) fn server_options(cfg: &Config, server: ServerId) -> SymlinkOptions {
    let ix = cfg.index();
    let mut options =
        *ix.main_symlinks.get_or_init(|| SymlinkOptions::with_lines(SymlinkOptions::server(), &cfg.nodes));
    if let ServerId::Vhost(v) = server {
        if let Some(o) =
            ix.vhosts.get(v as usize).and_then(|h| SymlinkOptions::of_section(&ix.node(cfg, h.id).children))
        {
            options.merge(&o);
        }
    }
    options
}

/// The `Options` in force for the entries of directory `dir` (absolute) under `server`, as the
/// directory walk has merged them when it looks at the component after `dir`: the server's,
/// then every plain and wildcard `<Directory>` section of `dir` and the directories above it,
/// by component count. (The .htaccess files on the way are not read here.) A lookup per
/// component, as [`crate::ide::allow_override::in_force`] is.
pub(crate) fn options_in_directory(cfg: &Config, server: ServerId, dir: &str) -> SymlinkOptions {
    let ix = cfg.index();
    let mut options = server_options(cfg, server);
    crate::ide::allow_override::directory_sections(cfg, server, dir, |id| {
        if let Some(o) = SymlinkOptions::of_section(&ix.node(cfg, id).children) {
            options.merge(&o);
        }
    });
    options
}

/// Whether httpd's walk goes on through the symbolic link at `link` under `options`
/// (`resolve_symlink`: FollowSymLinks, or SymLinksIfOwnerMatch with the link and its target
/// owned by the same user; never a link to nothing). False when `link` is no link.
pub(crate) fn follows_link(options: &SymlinkOptions, link: &Path) -> bool {
    ask_disk(link).1.is_some_and(|l| options.follows(l))
}

/// Whether the directory walk refuses path component `next` (a directory's child) under the
/// options in force in that directory; `last` when it is the walk's last component. With
/// FollowSymLinks only a link whose target is missing is refused, and only the last component
/// can be one (the others are directories).
pub(super) fn refuses(fs: &FsView, options: &SymlinkOptions, next: &Path, last: bool) -> bool {
    if options.follows_all() && !last {
        return false;
    }
    fs.symlink(next).is_some_and(|link| !options.follows(link))
}

/// [`refuses`] for the last component of a subrequest in its parent's directory (mod_dir's
/// DirectoryIndex lookups): httpd reuses the parent's walk and lstat()s only that component,
/// and only without FollowSymLinks (`ap_directory_walk`'s "familiar" path, AH00032).
pub(super) fn refuses_in_parent_directory(fs: &FsView, options: &SymlinkOptions, next: &Path) -> bool {
    options.opts & OPT_SYM_LINKS == 0 && fs.symlink(next).is_some_and(|link| !options.follows(link))
}

/// What httpd logs (AH00037, or AH00032 on the familiar path; level error) when it refuses the
/// link at `path`.
pub(super) fn refusal_message(path: &Path) -> String {
    format!("Symbolic link not allowed or link target not accessible: {}", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(levels: &[&str]) -> SymlinkOptions {
        let mut o = SymlinkOptions::server();
        for l in levels {
            let mut level = SymlinkOptions { opts: OPT_UNSET, add: 0, remove: 0 };
            level.set(l.split_whitespace());
            o.merge(&level);
        }
        o
    }

    #[test]
    fn options_merge_as_the_directory_walk_merges_them() {
        let reached = Link { target_reached: true, same_owner: false };
        let owned = Link { target_reached: true, same_owner: true };
        let missing = Link { target_reached: false, same_owner: false };
        // httpd's default follows links.
        assert!(opts(&[]).follows_all());
        assert!(!opts(&[]).follows(missing));
        assert!(!opts(&["None"]).follows(owned));
        assert!(opts(&["None", "+FollowSymLinks"]).follows(reached));
        // A plain line replaces the +/- forms before it; the signed ones accumulate.
        assert!(!opts(&["-FollowSymLinks", "+Indexes"]).follows(reached));
        assert!(opts(&["-FollowSymLinks", "Indexes FollowSymLinks"]).follows(reached));
        assert!(!opts(&["All", "-FollowSymLinks"]).follows(reached));
        assert!(opts(&["SymLinksIfOwnerMatch"]).follows(owned));
        assert!(!opts(&["SymLinksIfOwnerMatch"]).follows(reached));
        assert!(!opts(&["+SymLinksIfOwnerMatch"]).follows_all());
        // Indexes (mod_autoindex): off by default, All sets it, a later plain line clears it.
        assert!(!opts(&[]).indexes());
        assert!(opts(&["All"]).indexes());
        assert!(opts(&["+Indexes", "-FollowSymLinks"]).indexes());
        assert!(!opts(&["Indexes", "FollowSymLinks"]).indexes());
        assert!(!opts(&["All", "-Indexes"]).indexes());
        assert!(!opts(&["+MultiViews"]).indexes());
    }
}

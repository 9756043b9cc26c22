//! Feature: the AllowOverride and AllowOverrideList httpd applies to the .htaccess file of a
//! directory under one server (the main server, or one virtual host), and the servers whose
//! requests read the .htaccess files of a directory.
//!
//! httpd's directory walk (`server/request.c: ap_directory_walk`) goes down the path one
//! component at a time; at component count `k` it first merges every plain and wildcard
//! `<Directory>` section of `k` components matching the path so far (the server's sections
//! are the main server's followed by its virtual host's, sorted by component count, ties in
//! that order), then reads the .htaccess file there with the AllowOverride and
//! AllowOverrideList merged so far (the last section setting each wins). Regular-expression
//! sections come after the whole walk, so they never decide what an .htaccess file may do.
//! Built on the section index: a lookup per component and server.

use crate::ide::access::wildcard_match;
use crate::ide::config::index::{components, Index, Scope, ServerId};
use crate::ide::config::{Config, HtaccessOverrides, SecId};
use rustc_hash::FxHashMap as HashMap;
use std::path::{Path, PathBuf};

/// The sections setting the AllowOverride and the AllowOverrideList in force (`None`: none
/// on the way sets it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InForce {
    pub allow_override: Option<SecId>,
    pub allow_override_list: Option<SecId>,
}

impl InForce {
    /// Takes in section `id`, merged next on the way down.
    pub fn merge(&mut self, ix: &Index, id: SecId) {
        if ix.allow_override(id).is_some() {
            self.allow_override = Some(id);
        }
        if ix.allow_override_list(id).is_some() {
            self.allow_override_list = Some(id);
        }
    }

    /// The arguments of the AllowOverride in force; `None` when none applies.
    pub fn allow_override<'i>(&self, ix: &'i Index) -> Option<&'i [String]> {
        self.allow_override.and_then(|id| ix.allow_override(id))
    }

    /// The arguments of the AllowOverrideList in force.
    pub fn allow_override_list<'i>(&self, ix: &'i Index) -> Option<&'i [String]> {
        self.allow_override_list.and_then(|id| ix.allow_override_list(id))
    }

    /// Whether httpd reads the .htaccess file at all: AllowOverride or AllowOverrideList
    /// grants something, or no AllowOverride applies (httpd's `OR_UNSET`, which is not 0).
    pub fn reads_htaccess(&self, ix: &Index) -> bool {
        self.allow_override(ix).is_none_or(grants) || self.allow_override_list(ix).is_some_and(grants)
    }

    /// What they are, and where the AllowOverride is written, for `servers`.
    pub fn describe(&self, cfg: &Config, servers: Vec<ServerId>) -> HtaccessOverrides {
        let ix = cfg.index();
        HtaccessOverrides {
            allow_override: self.allow_override(ix).map(<[String]>::to_vec),
            allow_override_list: self.allow_override_list(ix).map(<[String]>::to_vec),
            set_at: self.allow_override.map(|id| {
                let n = ix.node(cfg, id);
                let line = crate::ide::config::level_directives(&n.children)
                    .filter(|c| c.is("AllowOverride"))
                    .last()
                    .map_or(&n.loc, |c| &c.loc);
                (cfg.file(line.file).path.to_path_buf(), cfg.line(line))
            }),
            servers,
        }
    }
}

/// Whether an AllowOverride or AllowOverrideList line grants something.
pub fn grants(args: &[String]) -> bool {
    !args.iter().all(|a| a.eq_ignore_ascii_case("None"))
}

/// The AllowOverride and AllowOverrideList in force for the .htaccess file of directory `dir`
/// (absolute) under `server`.
pub fn in_force(cfg: &Config, server: ServerId, dir: &str) -> InForce {
    let ix = cfg.index();
    let mut out = InForce::default();
    directory_sections(cfg, server, dir, |id| out.merge(ix, id));
    out
}

/// The plain and wildcard `<Directory>` sections of `server` that apply to `dir` (absolute)
/// and the directories above it, in the order httpd's directory walk merges them: by
/// component count, the main server's before the virtual host's. A lookup per component.
pub(crate) fn directory_sections(cfg: &Config, server: ServerId, dir: &str, mut each: impl FnMut(SecId)) {
    let ix = cfg.index();
    let comps = components(dir);
    let mut prefix = String::with_capacity(dir.len() + 1);
    prefix.push('/');
    for k in 0..=comps.len() {
        if k > 0 {
            if k > 1 {
                prefix.push('/');
            }
            prefix.push_str(comps[k - 1]);
        }
        for scope in server.scopes(ix) {
            for id in scope.dirs_at(k, &prefix, |pat, text| wildcard_match(pat, text, true)) {
                each(id);
            }
        }
    }
}

/// The servers of `servers` grouped by the AllowOverride and AllowOverrideList in force for
/// `dir` under each (set by the same sections: one group), in the order of their first server.
pub fn groups(cfg: &Config, servers: &[ServerId], dir: &str) -> Vec<HtaccessOverrides> {
    let mut found: Vec<(InForce, Vec<ServerId>)> = Vec::new();
    for &s in servers {
        let f = in_force(cfg, s, dir);
        match found.iter_mut().find(|(g, _)| *g == f) {
            Some((_, members)) => members.push(s),
            None => found.push((f, vec![s])),
        }
    }
    found.into_iter().map(|(f, members)| f.describe(cfg, members)).collect()
}

/// The AccessFileName names `server` reads, in order (`None`: httpd's default, `.htaccess`).
pub fn access_file_names(ix: &Index, server: ServerId) -> Option<&[String]> {
    match server {
        ServerId::Vhost(v) => ix.vhosts[v as usize].scope.access_file_name.as_deref(),
        ServerId::Main => None,
    }
    .or(ix.main.access_file_name.as_deref())
}

/// Which servers read the .htaccess files of a directory: those whose DocumentRoot or `Alias`
/// / `ScriptAlias` targets are the directory or one above it; for a directory none of them
/// serves, those whose plain `<Directory>` sections open it (or one above) to overrides; and
/// failing both, the main server. Built once per configuration; each question is a lookup per
/// component of the directory.
pub struct Readers {
    /// Whether any request reaches the main server ([`main_server_answers`]).
    main_answers: bool,
    /// Directory (absolute, no trailing slash) → servers serving it.
    served: HashMap<String, Vec<ServerId>>,
    /// Directory of a plain `<Directory>` granting overrides → servers whose configuration holds it.
    opened: HashMap<String, Vec<ServerId>>,
}

impl Readers {
    /// The readers of `cfg`, made once per configuration (kept in its index).
    pub fn of(cfg: &Config) -> &Readers {
        cfg.index().readers.get_or_init(|| Readers::new(cfg))
    }

    pub fn new(cfg: &Config) -> Readers {
        let ix = cfg.index();
        let mut served: HashMap<String, Vec<ServerId>> = HashMap::default();
        let mut opened: HashMap<String, Vec<ServerId>> = HashMap::default();
        let main_answers = main_server_answers(cfg);
        let servers =
            main_answers.then_some(ServerId::Main).into_iter().chain((0..ix.vhosts.len() as u32).map(ServerId::Vhost));
        for server in servers {
            let own: Option<&Scope> = match server {
                ServerId::Vhost(v) => Some(&ix.vhosts[v as usize].scope),
                ServerId::Main => None,
            };
            // (Users' directories through a file-system UserDir too: `/~user/` reaches them.)
            let users = crate::ide::access::user_directories(cfg, server);
            for dir in served_dirs(ix, server).map(|d| absolute(cfg, d)).chain(users) {
                let list = served.entry(dir).or_default();
                if list.last() != Some(&server) {
                    list.push(server);
                }
            }
            for d in own.unwrap_or(&ix.main).dirs.iter() {
                if !d.wild
                    && d.depth > 0
                    && (ix.allow_override(d.id).is_some_and(grants) || ix.allow_override_list(d.id).is_some_and(grants))
                {
                    let list = opened.entry(d.path.clone()).or_default();
                    if list.last() != Some(&server) {
                        list.push(server);
                    }
                }
            }
        }
        Readers { main_answers, served, opened }
    }

    /// The servers serving `dir` (absolute) or a directory above it, in order.
    pub fn serving(&self, dir: &str) -> Vec<ServerId> {
        Self::above(&self.served, dir)
    }

    /// The servers reading the .htaccess files of `dir` (absolute), in order; none when only the
    /// main server would and no request reaches it.
    pub fn servers(&self, dir: &str) -> Vec<ServerId> {
        let mut out = Self::above(&self.served, dir);
        if out.is_empty() {
            out = Self::above(&self.opened, dir);
        }
        if out.is_empty() && self.main_answers {
            out.push(ServerId::Main);
        }
        out
    }

    /// The servers `map` holds for `dir` and the directories above it, sorted, each once.
    fn above(map: &HashMap<String, Vec<ServerId>>, dir: &str) -> Vec<ServerId> {
        let mut out: Vec<ServerId> = Vec::new();
        let mut lists = 0;
        let mut at = dir.trim_end_matches('/');
        loop {
            if let Some(l) = map.get(if at.is_empty() { "/" } else { at }) {
                out.extend_from_slice(l);
                lists += 1;
            }
            match at.rsplit_once('/') {
                Some((up, _)) => at = up,
                None => break,
            }
        }
        if lists > 1 {
            out.sort_unstable();
            out.dedup();
        }
        out
    }
}

/// Whether some request reaches the main server. httpd gives a connection to the virtual
/// hosts set for its local address and port, else to the `*`/`_default_` ones for its port, and
/// to the main server only when there are none (`server/vhost.c: ap_update_vhost_given_ip`):
/// so the main server answers when there is no virtual host, when no `Listen` line is known,
/// or when some `Listen` address and port has no virtual host (a `Listen` on every address is
/// covered only by a `*` or `_default_` one: a host set for one address leaves the others to
/// the main server). Virtual hosts named by host name are not resolved: they cover nothing here.
pub fn main_server_answers(cfg: &Config) -> bool {
    let ix = cfg.index();
    if ix.vhosts.is_empty() {
        return true;
    }
    let listens = crate::ide::explain::listen_addresses(cfg);
    listens.is_empty()
        || listens.iter().any(|&(addr, port)| match addr {
            Some(ip) => ix.vhosts_for_address(ip, port).is_empty(),
            None => !ix.vhosts.iter().any(|v| v.addrs.iter().any(|&(ip, p)| ip.is_none() && (p == port || p == 0))),
        })
}

/// The directories `server` serves, as written: its DocumentRoot (the main server's when it sets
/// none), then the targets of its `Alias` and `ScriptAlias` lines (the main server's included).
pub fn served_dirs(ix: &Index, server: ServerId) -> impl Iterator<Item = &str> {
    let own = match server {
        ServerId::Vhost(v) => ix.vhosts.get(v as usize).map(|v| &v.scope),
        ServerId::Main => None,
    };
    let root = own.and_then(|v| v.document_root.as_deref()).or(ix.main.document_root.as_deref());
    let aliases =
        server.scopes(ix).flat_map(|s| s.aliases.iter().filter(|a| !a.kind.is_regex()).map(|a| a.to.as_str()));
    root.into_iter().chain(aliases)
}

/// Whether absolute directory `dir` is `root` or below it (both without a trailing slash).
pub fn at_or_below(dir: &str, root: &str) -> bool {
    root == "/" || dir == root || dir.strip_prefix(root).is_some_and(|rest| rest.starts_with('/'))
}

/// `dir` made absolute under ServerRoot, without a trailing slash (`/` stays itself).
pub fn absolute(cfg: &Config, dir: &str) -> String {
    let trimmed = dir.trim_end_matches('/');
    if trimmed.is_empty() && dir.starts_with('/') {
        return "/".to_string();
    }
    let p = Path::new(trimmed);
    let p: PathBuf = if p.is_absolute() { p.to_path_buf() } else { cfg.server_root.join(p) };
    p.to_string_lossy().into_owned()
}

/// How a server is named in a finding: the main server, or a virtual host's ServerName (its
/// `<VirtualHost>`'s file and line when it has none).
pub fn server_name(cfg: &Config, server: ServerId) -> String {
    match server {
        ServerId::Main => "the main server".to_string(),
        ServerId::Vhost(v) => {
            let ix = cfg.index();
            let n = ix.node(cfg, ix.vhosts[v as usize].id);
            let file = cfg.file(n.loc.file).path.file_name().map(|f| f.to_string_lossy()).unwrap_or_default();
            match n.children.iter().rfind(|c| c.is("ServerName")).and_then(|c| c.arg(0)) {
                Some(name) => name.to_string(),
                None => format!("the <VirtualHost> at {file}:{}", cfg.line(&n.loc)),
            }
        }
    }
}

/// A few servers by name, for a finding: the first three, and how many more.
pub fn server_names(cfg: &Config, servers: &[ServerId]) -> String {
    const SHOWN: usize = 3;
    let mut names: Vec<String> = servers.iter().take(SHOWN).map(|s| server_name(cfg, *s)).collect();
    if servers.len() > SHOWN {
        names.push(format!("{} more", servers.len() - SHOWN));
    }
    join_and(names)
}

/// `a`, `a and b`, `a, b and c`.
pub fn join_and(mut items: Vec<String>) -> String {
    match items.len() {
        0 => String::new(),
        1 => items.remove(0),
        n => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::diagnostics::tests::Fixture;

    fn load(conf: &str) -> Config {
        let fx = Fixture::parse(&format!("//- /etc/httpd/httpd.conf\n{conf}"));
        crate::ide::config::load(Path::new("/etc/httpd/httpd.conf"), &fx)
    }

    /// For each server reading `dir`'s files: its name and the AllowOverride / AllowOverrideList
    /// in force there (with the line setting the AllowOverride).
    fn render(conf: &str, dir: &str) -> String {
        let cfg = load(conf);
        let readers = Readers::new(&cfg);
        let servers = readers.servers(dir);
        let mut out = String::new();
        for g in groups(&cfg, &servers, dir) {
            let ao = g.allow_override.as_ref().map_or("unset".to_string(), |a| a.join(" "));
            let list = g.allow_override_list.as_ref().map_or("unset".to_string(), |a| a.join(" "));
            let line = g.set_at.as_ref().map_or(0, |(_, l)| *l);
            let reads = InForceText(&g).reads();
            out.push_str(&format!(
                "{}: AllowOverride {ao} (line {line}), AllowOverrideList {list}, {}\n",
                server_names(&cfg, &g.servers),
                if reads { "read" } else { "never read" }
            ));
        }
        out
    }

    /// Whether a described group reads the file (as the checks decide it).
    struct InForceText<'a>(&'a HtaccessOverrides);
    impl InForceText<'_> {
        fn reads(&self) -> bool {
            crate::ide::catalogue::context::Overrides::parse(
                self.0.allow_override.as_deref(),
                self.0.allow_override_list.as_deref(),
            )
            .reads_htaccess()
        }
    }

    #[test]
    fn main_server_only() {
        expect_test::expect![[r#"
            the main server: AllowOverride AuthConfig (line 6), AllowOverrideList unset, read
        "#]]
        .assert_eq(&render(
            "DocumentRoot /srv/www\n<Directory />\n  AllowOverride None\n</Directory>\n<Directory /srv/www>\n  AllowOverride AuthConfig\n</Directory>\n<Directory /srv/www/other>\n  AllowOverride All\n</Directory>\n",
            "/srv/www/a/b",
        ));
    }

    /// The Debian sites-available layout: `<Directory />` says None, the virtual host opens its
    /// own document root. Its requests read the file; the main server serves elsewhere.
    #[test]
    fn vhost_overriding_main() {
        expect_test::expect![[r#"
            b.test: AllowOverride Indexes (line 9), AllowOverrideList unset, read
        "#]]
        .assert_eq(&render(
            "DocumentRoot /srv/main\n<Directory />\n  AllowOverride None\n</Directory>\n<VirtualHost *:80>\n  ServerName b.test\n  DocumentRoot /srv/vb\n  <Directory /srv/vb>\n    AllowOverride Indexes\n  </Directory>\n</VirtualHost>\n",
            "/srv/vb",
        ));
    }

    /// A directory both serve: the main server under `<Directory />`'s None, the virtual host
    /// (which inherits the DocumentRoot) under its own section.
    #[test]
    fn vhost_only_directory() {
        expect_test::expect![[r#"
            the main server: AllowOverride None (line 3), AllowOverrideList unset, never read
            the <VirtualHost> at httpd.conf:5: AllowOverride FileInfo (line 7), AllowOverrideList unset, read
        "#]]
        .assert_eq(&render(
            "DocumentRoot /srv/www\n<Directory />\n  AllowOverride None\n</Directory>\n<VirtualHost *:80>\n  <Directory /srv/www/sub>\n    AllowOverride FileInfo\n  </Directory>\n</VirtualHost>\n",
            "/srv/www/sub/deeper",
        ));
    }

    /// Wildcard sections merge at their component count, after the plain ones of the same
    /// count written before them; regex sections never decide.
    #[test]
    fn wildcard_and_regex() {
        expect_test::expect![[r#"
            the main server: AllowOverride Limit (line 6), AllowOverrideList unset, read
        "#]]
        .assert_eq(&render(
            "DocumentRoot /srv/www\n<Directory /srv/*/site>\n  AllowOverride All\n</Directory>\n<Directory /srv/www/site>\n  AllowOverride Limit\n</Directory>\n<DirectoryMatch ^/srv/www>\n  AllowOverride None\n</DirectoryMatch>\n",
            "/srv/www/site",
        ));
        expect_test::expect![[r#"
            the main server: AllowOverride All (line 6), AllowOverrideList unset, read
        "#]]
        .assert_eq(&render(
            "DocumentRoot /srv/www\n<Directory /srv/www/site>\n  AllowOverride Limit\n</Directory>\n<Directory /srv/*/site>\n  AllowOverride All\n</Directory>\n",
            "/srv/www/site",
        ));
    }

    /// AllowOverrideList alone makes httpd read the file, under AllowOverride None.
    #[test]
    fn allow_override_list() {
        expect_test::expect![[r#"
            the main server: AllowOverride None (line 3), AllowOverrideList Require Header, read
        "#]]
        .assert_eq(&render(
            "DocumentRoot /srv/www\n<Directory />\n  AllowOverride None\n</Directory>\n<Directory /srv/www>\n  AllowOverrideList Require Header\n</Directory>\n",
            "/srv/www",
        ));
    }

    /// Each server's AccessFileName: its own, else the main server's, else httpd's default.
    #[test]
    fn access_file_name_per_vhost() {
        let cfg = load(
            "AccessFileName .acl\n<VirtualHost *:80>\n  AccessFileName .web .htaccess\n</VirtualHost>\n<VirtualHost *:80>\n</VirtualHost>\n",
        );
        let ix = cfg.index();
        assert_eq!(access_file_names(ix, ServerId::Main), Some(&[".acl".to_string()][..]));
        assert_eq!(access_file_names(ix, ServerId::Vhost(0)), Some(&[".web".to_string(), ".htaccess".to_string()][..]));
        assert_eq!(access_file_names(ix, ServerId::Vhost(1)), Some(&[".acl".to_string()][..]));
        assert_eq!(access_file_names(load("ServerName x\n").index(), ServerId::Main), None);
    }

    /// Two name-based virtual hosts sharing a document root under different AllowOverride; an
    /// Alias of the main server reaches the directory for every server.
    #[test]
    fn two_vhosts_disagreeing() {
        let conf = "<Directory />\n  AllowOverride None\n</Directory>\n\
<VirtualHost *:80>\n  ServerName a.test\n  DocumentRoot /srv/shared\n</VirtualHost>\n\
<VirtualHost *:80>\n  ServerName b.test\n  DocumentRoot /srv/shared\n  <Directory /srv/shared>\n    AllowOverride AuthConfig\n  </Directory>\n</VirtualHost>\n\
<VirtualHost *:80>\n  ServerName c.test\n  DocumentRoot /srv/c\n  <Directory /srv/shared>\n    AllowOverride AuthConfig\n  </Directory>\n</VirtualHost>\n";
        expect_test::expect![[r#"
            a.test: AllowOverride None (line 2), AllowOverrideList unset, never read
            b.test: AllowOverride AuthConfig (line 12), AllowOverrideList unset, read
        "#]]
        .assert_eq(&render(conf, "/srv/shared/x"));
        let conf = format!("Alias /s /srv/shared\n{conf}");
        expect_test::expect![[r#"
            the main server and a.test: AllowOverride None (line 3), AllowOverrideList unset, never read
            b.test: AllowOverride AuthConfig (line 13), AllowOverrideList unset, read
            c.test: AllowOverride AuthConfig (line 20), AllowOverrideList unset, read
        "#]]
        .assert_eq(&render(&conf, "/srv/shared"));
    }

    /// A directory no server serves: the servers whose `<Directory>` opens it, else the main server.
    #[test]
    fn directory_only_and_nothing() {
        let conf = "<VirtualHost *:80>\n  ServerName v.test\n  <Directory /opt/app>\n    AllowOverride All\n  </Directory>\n</VirtualHost>\n";
        expect_test::expect![[r#"
            v.test: AllowOverride All (line 4), AllowOverrideList unset, read
        "#]]
        .assert_eq(&render(conf, "/opt/app/x"));
        expect_test::expect![[r#"
            the main server: AllowOverride unset (line 0), AllowOverrideList unset, read
        "#]]
        .assert_eq(&render(conf, "/elsewhere"));
    }
}

//! Feature: the URLs that reach a section — a plain section's own path (a `<Directory>` through
//! the DocumentRoot or an Alias, a `<Files>` name under its directory), and for a wildcard or
//! regex section strings its pattern matches, or directories on disk it matches. The hover
//! evaluates a section at one of them; the precedence check asks at them whether a Require
//! decides anything.

use crate::ide::access::{self, FsView};
use crate::ide::config::{Config, Node, NodeKind};
use std::path::Path;

/// Request-matching sections (the ones a hover explains).
pub(crate) fn is_container(n: &Node) -> bool {
    ["Directory", "DirectoryMatch", "Location", "LocationMatch", "Files", "FilesMatch", "VirtualHost"]
        .iter()
        .any(|k| n.canonical().eq_ignore_ascii_case(k))
}

/// How many URLs [`section_urls`] gives at most.
const MAX_SECTION_URLS: usize = 16;

/// The first of [`section_urls`]: for a plain section, the URL it applies to.
pub fn url_for(cfg: &Config, chain: &[&Node]) -> Option<(String, Option<String>)> {
    section_urls(cfg, chain).into_iter().next()
}

/// URLs that may reach the innermost request section of `chain`, each with the virtual host name
/// to ask for: a plain section's own path (a `<Directory>` through the DocumentRoot or an Alias,
/// a `<Files>` name under the directory holding it); for a pattern, strings it matches (a
/// wildcard filled in, each branch of a regular expression, a `<DirectoryMatch>` tried beneath
/// the document root and alias targets, where requests reach it). Whether a pattern's URL really
/// reaches the section is for the walk to say ([`access::Walked::applies`]).
pub fn section_urls(cfg: &Config, chain: &[&Node]) -> Vec<(String, Option<String>)> {
    let vhost = chain.iter().find(|n| n.is("VirtualHost"));
    let host =
        vhost.and_then(|v| v.children.iter().find(|c| c.is("ServerName")).and_then(|c| c.arg(0).map(str::to_string)));
    let Some(pos) = chain.iter().rposition(|n| is_container(n) && !n.is("VirtualHost")) else { return vec![] };
    let section = chain[pos];
    let ix = cfg.index();
    let docroot = vhost
        .and_then(|v| v.children.iter().find(|c| c.is("DocumentRoot")))
        .map(|d| d.arg(0).map(str::to_string))
        .unwrap_or_else(|| ix.main.document_root.clone())
        .map(|d| d.trim_end_matches('/').to_string());
    // The directories URLs map to, where a regex `<Directory>` is tried.
    let roots = || {
        let scope = vhost.and_then(|v| ix.id(v)).and_then(|id| ix.vhosts.iter().find(|h| h.id == id)).map(|h| &h.scope);
        let mut roots: Vec<&str> = docroot.as_deref().into_iter().collect();
        for s in std::iter::once(&ix.main).chain(scope) {
            roots.extend(s.aliases.iter().filter(|a| !a.kind.is_regex()).map(|a| a.to.as_str()));
        }
        roots
    };
    let dir_urls = |n: &Node| -> Vec<String> {
        let mut out = Vec::new();
        let regex = matches!(access::section_pattern(n), Some(access::SectionPattern::Regex(_)));
        for d in access::witnesses::directory_examples(n, &if regex { roots() } else { vec![] }) {
            if let Some(u) = directory_url(cfg, &docroot, &d) {
                out.push(u);
            }
        }
        out
    };
    use access::SectionPattern::{Plain, Regex, Wildcard};
    let pattern = access::section_pattern(section);
    let mut urls: Vec<String> = match (section.known(), pattern) {
        ("Location" | "LocationMatch", None) => vec!["/".into()],
        ("Location" | "LocationMatch", Some(Plain(p))) => vec![p.to_string()],
        ("Location" | "LocationMatch", Some(Wildcard(p))) => {
            access::witnesses::wildcard_witness(p, true).into_iter().collect()
        }
        ("Location" | "LocationMatch", Some(Regex(p))) => access::witnesses::regex_witnesses(p)
            .into_iter()
            .map(|w| if w.starts_with('/') { w } else { format!("/{w}") })
            .filter(|w| access::witnesses::regex_is_match(p, w))
            .collect(),
        ("Directory" | "DirectoryMatch", None) => directory_url(cfg, &docroot, "").into_iter().collect(),
        ("Directory" | "DirectoryMatch", Some(Plain(_) | Wildcard(_))) => dir_urls(section),
        // A regex `<Directory>` is matched against file names too: each witness is also asked
        // as a file.
        ("Directory" | "DirectoryMatch", Some(Regex(_))) => dir_urls(section)
            .into_iter()
            .flat_map(|u| [u.trim_end_matches('/').to_string(), u].into_iter().filter(|u| !u.is_empty()))
            .collect(),
        ("Files" | "FilesMatch", _) => {
            // A witness of an unanchored regex such as `\.txt$` is `.txt`, a hidden file's name
            // that other sections often refuse: `x.txt` is asked first when it matches too.
            let names: Vec<String> = access::witnesses::files_witnesses(section)
                .into_iter()
                .map(|w| match pattern {
                    Some(Regex(p)) if w.starts_with('.') && access::witnesses::regex_is_match(p, &format!("x{w}")) => {
                        format!("x{w}")
                    }
                    _ => w,
                })
                .collect();
            let dirs = match chain[..pos].iter().rev().find(|n| n.is("Directory") || n.is("DirectoryMatch")) {
                Some(d) => dir_urls(d),
                None => vec!["/".to_string()],
            };
            dirs.iter().flat_map(|d| names.iter().map(move |n| format!("{}/{n}", d.trim_end_matches('/')))).collect()
        }
        _ => vec![],
    };
    let mut seen = std::collections::HashSet::new();
    urls.retain(|u| seen.insert(u.clone()));
    urls.truncate(MAX_SECTION_URLS);
    urls.into_iter().map(|u| (if u.is_empty() { "/".into() } else { u }, host.clone())).collect()
}

/// The first of [`section_urls`] whose walk merges the innermost section of `chain`; else, for a
/// pattern `<Directory>`, the first directory on disk below the document root and alias targets
/// that it matches ([`disk_examples`]): a wildcard filled with `x` names no real directory (and,
/// for a `<Files>` inside such a section, its names under that directory).
pub(crate) fn reaching_url(cfg: &Config, chain: &[&Node], fs: &FsView) -> Option<(String, Option<String>)> {
    let pos = chain.iter().rposition(|n| is_container(n) && !n.is("VirtualHost"))?;
    let id = cfg.index().id(chain[pos])?;
    let reaches = |(u, h): &(String, Option<String>)| access::walk_request(cfg, fs, u, h.as_deref(), None).applies(id);
    let urls = section_urls(cfg, chain);
    let section = chain[pos];
    // A `<Files>`-type section: files on disk it applies to come before its made-up names (a
    // witness such as `x.php` names no real file, where httpd's walk stops short).
    if section.is("Files") || section.is("FilesMatch") {
        if let Some(u) = disk_files(cfg, fs, section, &urls).into_iter().find(|u| reaches(u)) {
            return Some(u);
        }
    }
    if let Some(u) = urls.iter().find(|u| reaches(u)) {
        return Some(u.clone());
    }
    let is_dir = |n: &Node| n.is("Directory") || n.is("DirectoryMatch");
    // A `<Files>` inside a pattern `<Directory>`: its names under a directory on disk the pattern
    // matches (a wildcard filled with `x` names none, and the file becomes path info there).
    let (dir, names): (&Node, Vec<&str>) = if is_dir(section) {
        (section, vec![])
    } else if section.is("Files") || section.is("FilesMatch") {
        let dir = chain[..pos].iter().rev().find(|n| is_dir(n))?;
        (dir, urls.iter().filter_map(|(u, _)| u.rsplit('/').next().filter(|n| !n.is_empty())).collect())
    } else {
        return None;
    };
    let host = chain
        .iter()
        .find(|n| n.is("VirtualHost"))
        .and_then(|v| v.children.iter().find(|c| c.is("ServerName")).and_then(|c| c.arg(0).map(str::to_string)));
    let (docroot, roots) = url_roots(cfg, chain);
    disk_examples(dir, &roots)
        .into_iter()
        .filter_map(|p| directory_url(cfg, &docroot, &p))
        .flat_map(|u| {
            if names.is_empty() {
                vec![u]
            } else {
                names.iter().map(|n| format!("{}/{n}", u.trim_end_matches('/'))).collect()
            }
        })
        .map(|u| (u, host.clone()))
        .find(|u| reaches(u))
}

/// How many entries of a directory [`disk_files`] reads, and how many names it keeps there.
const DISK_FILES_READ: usize = 1000;
const DISK_FILES_KEPT: usize = 4;

/// URLs of files on disk that the `<Files>`-type `section` applies to, in the directories its
/// witness URLs `urls` lead to (first names in byte order, within bounds): each is kept only
/// when its URL maps to that very file.
fn disk_files(
    cfg: &Config,
    fs: &FsView,
    section: &Node,
    urls: &[(String, Option<String>)],
) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut listed = std::collections::HashSet::new();
    for (u, host) in urls {
        let Some((dir_url, _)) = u.rsplit_once('/') else { continue };
        if !listed.insert((dir_url.to_string(), host.clone())) {
            continue;
        }
        let maps_to = |url: &str| access::resolve(cfg, fs, url, host.as_deref(), None).filesystem_path;
        let Some(dir) = maps_to(u).parent().map(Path::to_path_buf) else { continue };
        let names = listed_entries(&dir, DISK_FILES_READ, |e| e.path().is_file())
            .into_iter()
            .filter_map(|e| e.file_name().into_string().ok())
            // (Names a URL carries as they are: no escaping to get wrong.)
            .filter(|name| name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._~-".contains(&b)))
            .filter(|name| access::witnesses::files_applies(section, name));
        for name in names.take(DISK_FILES_KEPT) {
            let url = format!("{dir_url}/{name}");
            if maps_to(&url) == dir.join(&name) {
                out.push((url, host.clone()));
            }
        }
    }
    out
}

/// The entries of directory `dir` that `keep` keeps among the first `read` it lists, in byte
/// order of their names (none when it cannot be read).
fn listed_entries(dir: &Path, read: usize, keep: impl Fn(&std::fs::DirEntry) -> bool) -> Vec<std::fs::DirEntry> {
    let Ok(entries) = std::fs::read_dir(dir) else { return vec![] };
    let mut kept: Vec<std::fs::DirEntry> = entries.take(read).filter_map(|e| e.ok()).filter(keep).collect();
    kept.sort_unstable_by_key(std::fs::DirEntry::file_name);
    kept
}

/// The document root of the server `chain` is in, and the directories its URLs map to (the
/// document root, then the Alias and ScriptAlias targets).
pub(crate) fn url_roots(cfg: &Config, chain: &[&Node]) -> (Option<String>, Vec<String>) {
    let ix = cfg.index();
    let vhost = chain.iter().find(|n| n.is("VirtualHost"));
    let docroot = vhost
        .and_then(|v| v.children.iter().find(|c| c.is("DocumentRoot")))
        .map(|d| d.arg(0).map(str::to_string))
        .unwrap_or_else(|| ix.main.document_root.clone())
        .map(|d| d.trim_end_matches('/').to_string());
    let scope = vhost.and_then(|v| ix.id(v)).and_then(|id| ix.vhosts.iter().find(|h| h.id == id)).map(|h| &h.scope);
    let mut roots: Vec<String> = docroot.iter().cloned().collect();
    for sc in std::iter::once(&ix.main).chain(scope) {
        roots.extend(sc.aliases.iter().filter(|a| !a.kind.is_regex()).map(|a| a.to.trim_end_matches('/').to_string()));
    }
    (docroot, roots)
}

/// How many directories [`disk_examples`] reads at most, and how deep below a root.
const DISK_EXAMPLES_DIRS: usize = 500;
const DISK_EXAMPLES_DEPTH: usize = 4;

/// Directories below `roots` on disk that a wildcard or regex `<Directory>` section matches,
/// breadth first, within bounds (symbolic links not followed).
fn disk_examples(section: &Node, roots: &[String]) -> Vec<String> {
    let matches: Box<dyn Fn(&str) -> bool> = match access::section_pattern(section) {
        Some(access::SectionPattern::Wildcard(p)) => {
            let p = p.trim_end_matches('/').to_string();
            Box::new(move |d: &str| access::wildcard_match(&p, d, true))
        }
        Some(access::SectionPattern::Regex(p)) => {
            let p = p.to_string();
            Box::new(move |d: &str| access::witnesses::regex_is_match(&p, d))
        }
        _ => return vec![],
    };
    let mut out = Vec::new();
    let mut queue: std::collections::VecDeque<(std::path::PathBuf, usize)> =
        roots.iter().map(|r| (std::path::PathBuf::from(r), 0)).collect();
    let mut read = 0;
    while let Some((dir, depth)) = queue.pop_front() {
        if read == DISK_EXAMPLES_DIRS || depth > DISK_EXAMPLES_DEPTH {
            break;
        }
        read += 1;
        let subdirs = listed_entries(&dir, usize::MAX, |e| e.file_type().is_ok_and(|t| t.is_dir()));
        for d in subdirs.iter().map(std::fs::DirEntry::path) {
            if matches(&d.to_string_lossy()) {
                out.push(d.to_string_lossy().into_owned());
            }
            queue.push_back((d, depth + 1));
        }
    }
    out
}

/// The URL of a directory: through an Alias to it, or below the DocumentRoot (a
/// directory above the DocumentRoot is reached by `/`).
pub(crate) fn directory_url(cfg: &Config, docroot: &Option<String>, dir: &str) -> Option<String> {
    let p = dir.trim_end_matches('/').to_string();
    let via_alias = cfg.index().alias_to(&p).map(|(from, rest)| format!("{}{rest}/", from.trim_end_matches('/')));
    Some(match (docroot, via_alias) {
        (_, Some(u)) => u,
        (Some(d), None) if p.starts_with(d.as_str()) => format!("{}/", &p[d.len()..]),
        (Some(d), None) if d.starts_with(&p) || p.is_empty() => "/".into(),
        _ => return None,
    })
}

/// The URL an .htaccess file's directory is served at, and the virtual host to ask
/// for: through the main server's DocumentRoot or an Alias, else a virtual host's DocumentRoot.
pub(crate) fn access_file_url(server: &Config, dir: &Path) -> Option<(String, Option<String>)> {
    let dir = dir.to_string_lossy();
    let docroot_of = |nodes: &[Node]| {
        nodes
            .iter()
            .rev()
            .find(|c| c.kind == NodeKind::Directive && c.is("DocumentRoot"))
            .and_then(|d| d.args().first())
            .map(|d| d.trim_end_matches('/').to_string())
    };
    let main = docroot_of(&server.nodes);
    let vhosts = server.nodes.iter().filter(|n| n.is_section() && n.is("VirtualHost")).map(|v| {
        let host = v.children.iter().find(|c| c.is("ServerName")).and_then(|c| c.arg(0).map(str::to_string));
        (docroot_of(&v.children).or_else(|| main.clone()), host)
    });
    std::iter::once((main.clone(), None))
        .chain(vhosts)
        .find_map(|(root, host)| directory_url(server, &root, &dir).map(|u| (u, host)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::config::load;
    use crate::ide::diagnostics::tests::Fixture;

    /// The first URL each top-level section of the main server is asked at: patterns classified
    /// as the walk classifies them and filled in with a string they match (a wildcard `<Directory>`
    /// was once asked at its literal `/sub*/`); a section without an argument is its empty pattern.
    #[test]
    fn url_for_reads_patterns_as_the_walk_does() {
        let fx = Fixture::parse(
            "//- /etc/httpd/httpd.conf\nDocumentRoot /srv/www\n<Location /admin>\n</Location>\n<Location>\n</Location>\n<Location ~ ^/x>\n</Location>\n<Location /a*>\n</Location>\n<Directory /srv/www/sub*>\n</Directory>\n<Directory ~ ^/srv>\n</Directory>\n<Files a.php>\n</Files>\n<Files *.php>\n</Files>\n<LocationMatch ^/y>\n</LocationMatch>\n",
        );
        let cfg = load(Path::new(&fx.0[0].0), &fx);
        let urls: Vec<Option<String>> =
            cfg.nodes.iter().filter(|n| n.is_section()).map(|n| url_for(&cfg, &[n]).map(|(u, _)| u)).collect();
        let want = [
            Some("/admin"),
            Some("/"),
            Some("/x"),
            Some("/ax"),
            Some("/subx/"),
            Some("/"),
            Some("/a.php"),
            Some("/x.php"),
            Some("/y"),
        ];
        assert_eq!(urls, want.map(|u| u.map(str::to_string)));
    }
}

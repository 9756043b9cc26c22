//! startup-path: the paths httpd looks at on this machine while it reads the configuration
//! or checks it before starting, and refuses to start without.
//!
//! - `ServerRoot` must be a directory (`server/core.c: set_server_root`; a relative one is
//!   read from httpd's working directory and is not judged);
//! - the main server's `DocumentRoot` must be a directory (`set_document_root`; in a
//!   `<VirtualHost>` a missing one is only the AH00112 warning, and is not reported);
//! - mod_ssl's certificate, key, CA and similar files must be non-empty regular files
//!   (`ssl_engine_config.c: ssl_cmd_check_file`; `pkcs11:` URIs are not files);
//! - `LoadModule`'s file must exist and hold the named module (`mod_so.c: load_module`;
//!   a module already loaded is skipped before its file is opened);
//! - the directories of `ErrorLog` (`core_check_config`, AH02291; pipes and syslog aside)
//!   and of `CustomLog`/`TransferLog` files (mod_log_config `check_log_dir`, AH02297);
//! - the file a `RewriteMap` names must exist (`cmd_rewritemap`: a txt or rnd map, a dbm map's
//!   file, `.dir` for sdbm, or a prg map's program; whether it runs is not looked at), and a
//!   `dbm=TYPE` must be a DBM driver of this machine's APR (sdbm is built in, the others are
//!   `apr_dbm_TYPE.so` files);
//! - a `Mutex` `MECH:DIR` names a directory (`ap_set_mutex`; a relative one lies under the
//!   runtime directory, and is not judged; the name after `sem`/`posixsem` is kept as written,
//!   not put under the runtime directory, and must be a directory all the same: httpd 2.4.71
//!   refuses `Mutex sem:/nowhere`);
//! - `SSLRandomSeed`'s `file:`/`exec:` source (or a bare path) and `SSLPassPhraseDialog`'s
//!   `exec:` program must exist (`ssl_cmd_SSLRandomSeed`, `ssl_cmd_SSLPassPhraseDialog`).
//!
//! Only for a configuration whose paths are this machine's ([`Config::disk_paths`]), and
//! only paths without an unresolved `${VAR}` (Debian's envvars are resolved by the loader).
//! `DefaultRuntimeDir` is left alone: Debian's `apache2ctl` and systemd unit make it before
//! httpd starts. Each distinct path is looked at once, however many servers name it.

use super::argument_values::{in_main_server, Place};
use super::Diagnostic;
use crate::ide::config::{Config, Node, TopLevel};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::{Path, PathBuf};

/// What has been learnt of each path named so far, and the modules loaded so far.
#[derive(Default)]
pub(super) struct Seen {
    dirs: FxHashMap<PathBuf, bool>,
    files: FxHashMap<PathBuf, bool>,
    /// A module file's answer: None when it cannot be opened, else whether it holds the symbol.
    modules: FxHashMap<(PathBuf, String), Option<bool>>,
    loaded: FxHashSet<String>,
    exists: FxHashMap<PathBuf, bool>,
}

impl Seen {
    fn is_dir(&mut self, p: &Path) -> bool {
        *self.dirs.entry(p.to_path_buf()).or_insert_with(|| p.is_dir())
    }
    fn is_nonempty_file(&mut self, p: &Path) -> bool {
        *self
            .files
            .entry(p.to_path_buf())
            .or_insert_with(|| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() > 0))
    }
    fn exists(&mut self, p: &Path) -> bool {
        *self.exists.entry(p.to_path_buf()).or_insert_with(|| std::fs::metadata(p).is_ok())
    }
    fn module(&mut self, p: &Path, symbol: &str) -> Option<bool> {
        *self.modules.entry((p.to_path_buf(), symbol.to_string())).or_insert_with(|| {
            let bytes = std::fs::read(p).ok()?;
            // The dynamic symbol table names each symbol between NULs; a name found nowhere is
            // surely not there (one found elsewhere is taken as there).
            let needle = [&[0u8][..], symbol.as_bytes(), &[0u8][..]].concat();
            Some(memchr::memmem::find(&bytes, &needle).is_some())
        })
    }
}

/// mod_ssl's directives whose argument `ssl_cmd_check_file` checks.
const SSL_FILES: &[&str] = &[
    "SSLCertificateFile",
    "SSLCertificateKeyFile",
    "SSLCertificateChainFile",
    "SSLSessionTicketKeyFile",
    "SSLCACertificateFile",
    "SSLCADNRequestFile",
    "SSLCARevocationFile",
    "SSLProxyCACertificateFile",
    "SSLProxyCARevocationFile",
    "SSLProxyMachineCertificateFile",
    "SSLProxyMachineCertificateChainFile",
    "SSLSRPVerifierFile",
    "SSLOCSPResponderCertificateFile",
];

pub(super) fn node(cfg: &Config, node: &Node, place: Place, seen: &mut Seen, out: &mut Vec<Diagnostic>) {
    if !cfg.disk_paths || node.is_section() || cfg.top == TopLevel::Htaccess {
        return;
    }
    let name = node.known();
    let watched = matches!(
        name,
        "ServerRoot"
            | "DocumentRoot"
            | "LoadModule"
            | "ErrorLog"
            | "CustomLog"
            | "TransferLog"
            | "RewriteMap"
            | "Mutex"
            | "SSLRandomSeed"
            | "SSLPassPhraseDialog"
    ) || SSL_FILES.contains(&name);
    if !watched {
        return;
    }
    if let Some(refusal) = refusal(cfg, node, name, place, seen) {
        out.push(super::refused_line(cfg, node, "startup-path", &format!("{refusal} (on this machine)")));
    }
}

/// What httpd says of the path `node` names, if it refuses it.
fn refusal(cfg: &Config, node: &Node, name: &str, place: Place, seen: &mut Seen) -> Option<String> {
    let args = node.arg_strings();
    let first = args.first()?;
    match name {
        "ServerRoot" if cfg.top == TopLevel::Main && Path::new(first).is_absolute() => {
            let p = Path::new(first);
            (!p.as_os_str().is_empty() && !seen.is_dir(p)).then(|| "ServerRoot must be a valid directory".to_string())
        }
        "DocumentRoot" if in_main_server(cfg, place) => {
            let p = resolved(cfg, first)?;
            (!seen.is_dir(&p)).then(|| format!("DocumentRoot '{}' is not a directory, or is not readable", p.display()))
        }
        "LoadModule" => {
            let file = args.get(1)?;
            if !seen.loaded.insert(first.clone()) || crate::ide::config::modules::compiled_in_source(first).is_some() {
                return None;
            }
            let p = resolved(cfg, file)?;
            match seen.module(&p, first) {
                None => Some(format!(
                    "Cannot load {0} into server: {0}: cannot open shared object file: No such file or directory",
                    p.display()
                )),
                Some(false) => Some(format!("Can't locate API module structure `{first}' in file {}", p.display())),
                Some(true) => None,
            }
        }
        "ErrorLog" => {
            let file = match &args[..] {
                [one] if one.starts_with("syslog") || one.starts_with('|') => return None,
                [one] => one,
                [kind, file] if kind == "file" => file,
                _ => return None,
            };
            let dir = parent_dir(&resolved(cfg, file)?);
            let whose =
                if in_main_server(cfg, place) { "the main error log" } else { "the error log of its virtual host" };
            (!seen.is_dir(&dir)).then(|| format!("Cannot access directory '{}/' for {whose} (AH02291)", dir.display()))
        }
        "CustomLog" | "TransferLog" => {
            if first.starts_with('|') {
                return None;
            }
            let dir = parent_dir(&resolved(cfg, first)?);
            (!seen.is_dir(&dir))
                .then(|| format!("Cannot access directory '{}/' for log file '{first}' (AH02297)", dir.display()))
        }
        "RewriteMap" if cfg.module_loaded("rewrite_module") => rewrite_map(cfg, first, args.get(1)?, seen),
        "Mutex" => {
            let (mech, dir) = first.split_once(':')?;
            // A semaphore's name is kept as written, and looked at as a directory all the same.
            let names_a_dir = !["none", "no"].iter().any(|m| m.eq_ignore_ascii_case(mech));
            (names_a_dir && Path::new(dir).is_absolute() && !dir.contains("${") && !seen.is_dir(Path::new(dir)))
                .then(|| format!("Invalid Mutex directory in argument {first}"))
        }
        "SSLRandomSeed" if cfg.module_loaded("ssl_module") => {
            let source = args.get(1)?;
            let known_context = ["startup", "connect"].iter().any(|c| c.eq_ignore_ascii_case(first));
            let path = match source.as_str() {
                s if s.len() > 5 && (s.starts_with("file:") || s.starts_with("exec:")) => &s[5..],
                s if s.starts_with("egd:") || s.eq_ignore_ascii_case("builtin") => return None,
                s => s,
            };
            let p = resolved(cfg, path)?;
            (known_context && !seen.exists(&p))
                .then(|| format!("SSLRandomSeed: source path '{}' does not exist", p.display()))
        }
        "SSLPassPhraseDialog" if cfg.module_loaded("ssl_module") => {
            let program = first.strip_prefix("exec:").filter(|p| !p.is_empty())?;
            let p = resolved(cfg, program)?;
            (!seen.exists(&p)).then(|| format!("SSLPassPhraseDialog: file '{}' does not exist", p.display()))
        }
        _ if SSL_FILES.contains(&name) => {
            if first.starts_with("pkcs11:") || !cfg.module_loaded("ssl_module") {
                return None;
            }
            let p = resolved(cfg, first)?;
            (!seen.is_nonempty_file(&p))
                .then(|| format!("{}: file '{}' does not exist or is empty", node.name(), p.display()))
        }
        // (A virtual host's DocumentRoot, a relative ServerRoot: not judged.)
        _ => None,
    }
}

/// What mod_rewrite says of the map `spec` of `RewriteMap name spec` when the file it names
/// is missing or its DBM type unknown here (`dbd:`, `int:` and malformed maps are not files).
fn rewrite_map(cfg: &Config, name: &str, spec: &str, seen: &mut Seen) -> Option<String> {
    let prefix = |p: &str| spec.get(..p.len()).is_some_and(|s| s.eq_ignore_ascii_case(p));
    let not_found = |checked: &Path| format!("RewriteMap: file for map {name} not found:{}", checked.display());
    if prefix("txt:") || prefix("rnd:") {
        let p = resolved(cfg, &spec[4..])?;
        return (!seen.exists(&p)).then(|| not_found(&p));
    }
    if prefix("prg:") {
        // (The program is the first word of the command, quoted or not.)
        let command = spec[4..].trim_start();
        let program = match command.chars().next() {
            Some(q @ ('"' | '\'')) => command[1..].split(q).next()?,
            _ => command.split(char::is_whitespace).next()?,
        };
        let p = resolved(cfg, program)?;
        return (!seen.exists(&p)).then(|| not_found(&p));
    }
    if prefix("dbm") {
        let (kind, file) = match spec.as_bytes().get(3) {
            Some(b':') => ("default", &spec[4..]),
            Some(b'=') => spec[4..].split_once(':')?,
            _ => return None,
        };
        if !dbm_type_known(kind)? {
            return Some(format!("RewriteMap: dbm type {kind} is invalid"));
        }
        let p = resolved(cfg, file)?;
        let dir = PathBuf::from(format!("{}.dir", p.display()));
        // sdbm keeps `FILE.dir` and `FILE.pag`; the others `FILE`; the default is one of them.
        return match kind.to_ascii_lowercase().as_str() {
            "sdbm" => (!seen.exists(&dir)).then(|| not_found(&dir)),
            "default" => (!seen.exists(&p) && !seen.exists(&dir)).then(|| not_found(&p)),
            _ => (!seen.exists(&p)).then(|| not_found(&p)),
        };
    }
    if prefix("dbd:") || prefix("fastdbd:") || prefix("int:") {
        return None;
    }
    let p = resolved(cfg, spec)?;
    (!seen.exists(&p)).then(|| not_found(&p))
}

/// Whether APR knows the DBM type `kind` on this machine (any case): `default` and the built-in
/// `sdbm`, or a driver `apr_dbm_KIND.so` beside APR's other drivers. None when no driver
/// directory is found (the machine's APR is not known).
fn dbm_type_known(kind: &str) -> Option<bool> {
    let kind = kind.to_ascii_lowercase();
    if kind == "default" || kind == "sdbm" {
        return Some(true);
    }
    let mut dirs: Vec<PathBuf> = vec!["/usr/lib/apr-util-1".into(), "/usr/lib64/apr-util-1".into()];
    if let Ok(entries) = std::fs::read_dir("/usr/lib") {
        dirs.extend(entries.flatten().map(|e| e.path().join("apr-util-1")));
    }
    let dirs: Vec<PathBuf> = dirs.into_iter().filter(|d| d.is_dir()).collect();
    (!dirs.is_empty())
        .then(|| !kind.contains('/') && dirs.iter().any(|d| d.join(format!("apr_dbm_{kind}.so")).exists()))
}

/// `ap_server_root_relative`: an absolute path as written, else under ServerRoot (known only
/// for a main configuration); None where the path is not known.
fn resolved(cfg: &Config, written: &str) -> Option<PathBuf> {
    if written.is_empty() || written.contains("${") {
        return None;
    }
    let p = Path::new(written);
    if p.is_absolute() {
        Some(p.to_path_buf())
    } else {
        (cfg.top == TopLevel::Main).then(|| cfg.server_root.join(p))
    }
}

/// `ap_make_dirstr_parent`: what comes before the last `/`.
fn parent_dir(p: &Path) -> PathBuf {
    let s = p.to_string_lossy();
    match s.rfind('/') {
        Some(0) => PathBuf::from("/"),
        Some(i) => PathBuf::from(&s[..i]),
        None => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::config::{load, load_fragment, RealFs};
    use crate::ide::diagnostics::tests::{render, render_diagnostics};

    /// A main configuration in a temporary ServerRoot, read from the disk: its findings with
    /// the directory written `D`.
    fn on_disk(text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("htdocs")).unwrap();
        std::fs::write(dir.path().join("empty.pem"), "").unwrap();
        let d = dir.path().display().to_string();
        let main = dir.path().join("main.conf");
        let pre = "LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so\n";
        std::fs::write(&main, format!("ServerRoot {d}\n{pre}{}", text.replace("@D", &d))).unwrap();
        let cfg = load(&main, &RealFs);
        let found = render_diagnostics(&cfg, &crate::ide::diagnostics::all(&cfg));
        found.lines().filter(|l| l.contains("startup-path")).map(|l| l.replace(&d, "D") + "\n").collect()
    }

    #[test]
    fn paths_httpd_checks_as_it_starts() {
        expect_test::expect![[r#"
            D/main.conf:4: Error[startup-path]: httpd 2.4 will not start: DocumentRoot 'D/nowhere' is not a directory, or is not readable (on this machine)
            D/main.conf:7: Error[startup-path]: httpd 2.4 will not start: Cannot access directory 'D/logs/' for the main error log (AH02291) (on this machine)
            D/main.conf:8: Error[startup-path]: httpd 2.4 will not start: Cannot access directory 'D/nodir/' for log file 'nodir/a.log' (AH02297) (on this machine)
            D/main.conf:11: Error[startup-path]: httpd 2.4 will not start: Cannot access directory 'D/nodir/' for the error log of its virtual host (AH02291) (on this machine)
        "#]]
        .assert_eq(&on_disk(
            "DocumentRoot htdocs\nDocumentRoot nowhere\nErrorLog syslog:local7\nErrorLog \"|/bin/cat\"\nErrorLog logs/error.log\nCustomLog nodir/a.log combined\nCustomLog htdocs/a.log combined\n<VirtualHost *:80>\nErrorLog @D/nodir/e.log\nDocumentRoot @D/nowhere\nCustomLog ${UNDEFINED}/a.log combined\n</VirtualHost>\n",
        ));
    }

    #[test]
    fn a_module_is_looked_for_in_its_file_once_loaded_once() {
        expect_test::expect![[r#"
            D/main.conf:3: Error[startup-path]: httpd 2.4 will not start: Cannot load D/modules/mod_x.so into server: D/modules/mod_x.so: cannot open shared object file: No such file or directory (on this machine)
            D/main.conf:4: Error[startup-path]: httpd 2.4 will not start: Can't locate API module structure `php_module' in file /usr/lib/apache2/modules/mod_mpm_event.so (on this machine)
        "#]]
        .assert_eq(&on_disk(
            "LoadModule x_module modules/mod_x.so\nLoadModule php_module /usr/lib/apache2/modules/mod_mpm_event.so\nLoadModule mpm_event_module /nowhere.so\n",
        ));
    }

    #[test]
    fn ssl_files_must_be_files_with_something_in_them() {
        expect_test::expect![[r#"
            D/main.conf:4: Error[startup-path]: httpd 2.4 will not start: SSLCertificateFile: file 'D/empty.pem' does not exist or is empty (on this machine)
            D/main.conf:5: Error[startup-path]: httpd 2.4 will not start: SSLCertificateKeyFile: file 'D/none.key' does not exist or is empty (on this machine)
        "#]]
        .assert_eq(&on_disk(
            "LoadModule ssl_module /usr/lib/apache2/modules/mod_ssl.so\nSSLCertificateFile empty.pem\nSSLCertificateKeyFile @D/none.key\nSSLCertificateKeyFile pkcs11:token=x\nSSLCertificateFile main.conf\n<VirtualHost *:443>\nDocumentRoot @D/nowhere\n</VirtualHost>\n",
        ));
    }

    /// Files httpd opens or looks at as it reads RewriteMap, Mutex, SSLRandomSeed and
    /// SSLPassPhraseDialog lines (a prg map's program need not be executable for that).
    #[test]
    fn map_mutex_and_seed_files_must_exist() {
        expect_test::expect![[r#"
            D/main.conf:5: Error[startup-path]: httpd 2.4 will not start: RewriteMap: file for map a not found:D/no.txt (on this machine)
            D/main.conf:7: Error[startup-path]: httpd 2.4 will not start: RewriteMap: file for map c not found:D/no.db.dir (on this machine)
            D/main.conf:8: Error[startup-path]: httpd 2.4 will not start: RewriteMap: dbm type ndbm is invalid (on this machine)
            D/main.conf:9: Error[startup-path]: httpd 2.4 will not start: RewriteMap: file for map e not found:D/noprog (on this machine)
            D/main.conf:10: Error[startup-path]: httpd 2.4 will not start: RewriteMap: file for map f not found:D/plain (on this machine)
            D/main.conf:12: Error[startup-path]: httpd 2.4 will not start: Invalid Mutex directory in argument file:D/nodir (on this machine)
            D/main.conf:15: Error[startup-path]: httpd 2.4 will not start: Invalid Mutex directory in argument posixsem:D/nosem (on this machine)
            D/main.conf:16: Error[startup-path]: httpd 2.4 will not start: SSLRandomSeed: source path 'D/noseed' does not exist (on this machine)
            D/main.conf:18: Error[startup-path]: httpd 2.4 will not start: SSLPassPhraseDialog: file 'D/nodialog' does not exist (on this machine)
        "#]]
        .assert_eq(&on_disk(concat!(
            "LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so\n",
            "LoadModule ssl_module /usr/lib/apache2/modules/mod_ssl.so\n",
            "RewriteMap a txt:no.txt\nRewriteMap b rnd:@D/main.conf\nRewriteMap c dbm=SDBM:no.db\nRewriteMap d dbm=ndbm:no.db\n",
            "RewriteMap e \"prg:noprog -u\"\nRewriteMap f plain\nRewriteMap g prg:htdocs\n",
            "Mutex file:@D/nodir default\nMutex sem:nowhere\nMutex flock:@D/htdocs\nMutex posixsem:@D/nosem\n",
            "SSLRandomSeed startup noseed\nSSLRandomSeed connect builtin\nSSLPassPhraseDialog exec:nodialog\n",
        )));
    }

    /// Fixtures name paths of no machine, and a fragment's ServerRoot is not known: nothing is
    /// looked at.
    #[test]
    fn nothing_is_claimed_of_paths_that_are_not_this_machines() {
        assert_eq!(render("//- /srv/main.conf\nLoadModule mpm_event_module m.so\nDocumentRoot /nowhere\n"), "");
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("site.conf");
        std::fs::write(&f, "DocumentRoot relative\nCustomLog logs/x.log combined\n").unwrap();
        let cfg = load_fragment(&f, &RealFs);
        assert_eq!(render_diagnostics(&cfg, &crate::ide::diagnostics::all(&cfg)), "");
    }
}

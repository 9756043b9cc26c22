#!/usr/bin/env python3
"""Generate the directive / module catalogue of apache-lsp.

Usage:
    scripts/gen_catalogue.py HTTPD_GIT_DIR [REF]

HTTPD_GIT_DIR is a (bare) git directory of apache/httpd; REF defaults to
refs/heads/2.4.x.  The script reads, from that ref:

  * docs/manual/mod/*.xml  -- module and directive facts (names, module
    identifiers, source files, syntax, contexts, override class, default,
    status);
  * the C sources (server/, modules/, include/, os/) -- the command tables
    (AP_INIT_<KIND>(...)) which give each directive's argument kind, its
    req_override mask and the spelling httpd registers (and so prints), and
    the ap_check_cmd_context() flags its handler checks (the `not_in` column:
    those common to every check found in the handler and the same file's
    functions it calls, so an argument-dependent check never forbids more
    than httpd does).

It joins those facts with the hand-written one-line descriptions kept in
lsp/src/ide/catalogue/descriptions.tsv (keyed by directive name, or by
`module:<identifier>` for modules), so that
regenerating never loses them, and writes
lsp/src/ide/catalogue/directives.tsv and lsp/src/ide/catalogue/modules.tsv.

Optional facts about the Debian build are taken from the local machine if
present: `/usr/sbin/apache2 -l` (compiled-in modules) and the shared objects
in /usr/lib/apache2/modules (their exported `*_module` symbol, read with nm).

The command tables compiled into those binaries (read with readelf) give the `debian` column
of directives.tsv (whether this build defines the name) and, where they differ from the
sources', the req_override mask.

If they are missing, the values already in modules.tsv and directives.tsv are kept.

Only facts are extracted from httpd; no prose is copied.  Set CHECK_MASKS=1
to also compare the manual's contexts with the command tables' req_override
masks (noisy: many directives narrow their context at run time).  Problems found
while joining (documented directives with no command-table entry, kind
disagreements, ...) are printed on stderr.
"""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "lsp", "src", "ide", "catalogue")
DOCS_BASE = "https://httpd.apache.org/docs/2.4/"

NON_MODULE_PAGES = {
    "allmodules", "directive-dict", "directives", "index", "module-dict",
    "overrides", "quickreference",
}

CONTEXT_ORDER = ["server config", "virtual host", "directory", ".htaccess",
                 "proxy section"]

# Directives removed in 2.4 (facts: the module that used to provide them).
# (name, module identifier, source file, syntax)
REMOVED = [
    ("AuthzLDAPAuthoritative", "authnz_ldap_module", "mod_authnz_ldap.c",
     "AuthzLDAPAuthoritative On|Off"),
    ("AuthzDBDAuthoritative", "authz_dbd_module", "mod_authz_dbd.c",
     "AuthzDBDAuthoritative On|Off"),
    ("AuthzDBMAuthoritative", "authz_dbm_module", "mod_authz_dbm.c",
     "AuthzDBMAuthoritative On|Off"),
    ("AuthzGroupFileAuthoritative", "authz_groupfile_module",
     "mod_authz_groupfile.c", "AuthzGroupFileAuthoritative On|Off"),
    ("AuthzUserAuthoritative", "authz_user_module", "mod_authz_user.c",
     "AuthzUserAuthoritative On|Off"),
    ("AuthzOwnerAuthoritative", "authz_owner_module", "mod_authz_owner.c",
     "AuthzOwnerAuthoritative On|Off"),
    ("AuthzDefaultAuthoritative", "authz_default_module",
     "mod_authz_default.c", "AuthzDefaultAuthoritative On|Off"),
    ("AuthDefaultAuthoritative", "authn_default_module",
     "mod_authn_default.c", "AuthDefaultAuthoritative On|Off"),
    ("AuthDBMAuthoritative", "auth_dbm_module", "mod_auth_dbm.c",
     "AuthDBMAuthoritative On|Off"),
]
REMOVED_URL = DOCS_BASE + "upgrading.html#authz"

# Names httpd 2.4's command tables still accept although the manual has no
# entry for them: deprecated aliases (accepted with a warning), names that
# are rejected with an explanatory message (ap_set_deprecated), and the real
# spelling of a directive the manual spells differently.
# (name, module, source file, syntax, contexts, override, status, url)
EXTRAS = [
    ("MaxClients", "mpm_event_module mpm_worker_module mpm_prefork_module",
     "event.c worker.c prefork.c", "MaxClients number", "server config", "",
     "MPM deprecated", DOCS_BASE + "mod/mpm_common.html#maxrequestworkers"),
    ("MaxRequestsPerChild", "core", "core.c", "MaxRequestsPerChild number",
     "server config", "", "MPM deprecated",
     DOCS_BASE + "mod/mpm_common.html#maxconnectionsperchild"),
    ("LuaHookPreTranslateName", "lua_module", "mod_lua.c",
     "LuaHookPreTranslateName /path/to/lua/script.lua hook_function_name [early|late]",
     "server config,virtual host,directory,.htaccess", "All", "Experimental",
     DOCS_BASE + "mod/mod_lua.html#luahookpretranslate"),
    ("Port", "core", "core.c", "Port number", "server config", "", "removed",
     DOCS_BASE + "mod/mpm_common.html#listen"),
    ("FancyIndexing", "autoindex_module", "mod_autoindex.c", "FancyIndexing On|Off",
     "server config,virtual host,directory,.htaccess", "Indexes", "removed",
     DOCS_BASE + "mod/mod_autoindex.html#indexoptions"),
    ("SSLLog", "ssl_module", "mod_ssl.c", "SSLLog file-path",
     "server config,virtual host", "", "removed", DOCS_BASE + "mod/core.html#errorlog"),
    ("SSLLogLevel", "ssl_module", "mod_ssl.c", "SSLLogLevel level",
     "server config,virtual host", "", "removed", DOCS_BASE + "mod/core.html#loglevel"),
]

# Obvious typos in the manual's syntax lines.
SYNTAX_FIXES = {"GlobalLog": ("GlobalLogfile|pipe", "GlobalLog file|pipe")}

MASK_FLAGS = ["RSRC_CONF", "ACCESS_CONF", "OR_LIMIT", "OR_OPTIONS", "OR_FILEINFO",
              "OR_AUTHCFG", "OR_INDEXES", "OR_ALL", "PROXY_CONF", "EXEC_ON_READ",
              "NONFATAL_OVERRIDE", "NONFATAL_UNKNOWN", "NONFATAL_ALL"]

# Modules with no page in the manual but shipped in the httpd tree.
# identifier -> (source file, status)
UNDOCUMENTED_MODULES = {
    "http_module": ("http_core.c", "Base"),
    "bucketeer_module": ("mod_bucketeer.c", "Experimental"),
    "case_filter_module": ("mod_case_filter.c", "Experimental"),
    "case_filter_in_module": ("mod_case_filter_in.c", "Experimental"),
    "win32_module": ("mod_win32.c", "Base"),
    "netware_module": ("mod_netware.c", "Base"),
}


def warn(*a):
    print(*a, file=sys.stderr)


def git(gitdir, *args):
    return subprocess.run(["git", "-C", gitdir] + list(args), check=True,
                          capture_output=True).stdout.decode("utf-8", "replace")


def collapse(s):
    return re.sub(r"\s+", " ", s or "").strip()


def _text_parts(el):
    if el.tag == "br":
        yield " "
    if el.text:
        yield el.text
    for child in el:
        yield from _text_parts(child)
        if child.tail:
            yield child.tail


def text_of(el):
    """Text content, with <br/> read as a space, whitespace collapsed."""
    return collapse("".join(_text_parts(el))) if el is not None else ""


def tsv_field(s):
    assert "\t" not in s and "\n" not in s, s
    return s


# --------------------------------------------------------------------------
# Manual pages
# --------------------------------------------------------------------------

ENTITIES = {"&nbsp;": " ", "&mdash;": "-", "&sect;": "S", "&httpd.docs;": "2.4"}


def parse_docs(gitdir, ref):
    names = git(gitdir, "ls-tree", "--name-only", ref, "docs/manual/mod/").split()
    modules = []      # dicts
    directives = []   # dicts
    for path in sorted(names):
        base = os.path.basename(path)
        if not base.endswith(".xml") or base.count(".") != 1:
            continue
        page = base[:-4]
        if page in NON_MODULE_PAGES:
            continue
        src = git(gitdir, "show", f"{ref}:{path}")
        for k, v in ENTITIES.items():
            src = src.replace(k, v)
        root = ET.fromstring(src.encode("utf-8"))
        if root.tag != "modulesynopsis":
            continue
        mod = {
            "page": page,
            "name": text_of(root.find("name")),
            "identifier": text_of(root.find("identifier")),
            "source_file": text_of(root.find("sourcefile")),
            "status": text_of(root.find("status")),
            "compat": text_of(root.find("compatibility")),
            "summary": text_of(root.find("summary")),
        }
        # The manual lists several files for mod_sed and omits ".c" for
        # mod_heartbeat; keep the module's main file.
        src_words = mod["source_file"].split()
        if src_words:
            main_src = src_words[0]
            if not main_src.endswith(".c"):
                main_src += ".c"
            if main_src != mod["source_file"]:
                warn(f"source file of {page} given as {mod['source_file']!r}; using {main_src}")
            mod["source_file"] = main_src
        if page == "core":
            # The manual's page has no identifier; the brief names it `core`.
            mod["identifier"] = "core"
            mod["source_file"] = "core.c"
        modules.append(mod)
        for ds in root.iter("directivesynopsis"):
            if ds.get("location"):
                continue  # a reference to a directive documented elsewhere
            d = {
                "page": page,
                "module": mod,
                "name": text_of(ds.find("name")),
                "section": ds.get("type") == "section",
                "desc": text_of(ds.find("description")),
                "syntax": text_of(ds.find("syntax")),
                "default": text_of(ds.find("default")),
                "contexts": [text_of(c) for c in ds.iter("context")],
                "override": text_of(ds.find("override")),
                "compat": text_of(ds.find("compatibility")),
                "status": text_of(ds.find("status")),
                "modulelist": ([text_of(m) for m in ds.find("modulelist").findall("module")]
                               if ds.find("modulelist") is not None else []),
                "usage": ds.find("usage"),
            }
            directives.append(d)
    return modules, directives


def is_deprecated(d):
    """Whether the manual marks a directive deprecated / obsolete."""
    if d["desc"].upper().startswith("DEPRECATED"):
        return True
    if re.search(r"no effect other than", d["desc"]):
        return True
    usage = d["usage"]
    if usage is not None:
        for note in usage.iter("note"):
            title = note.find("title")
            t = text_of(title).lower()
            if "deprecated" in t or "obsolete" in t:
                return True
        for p in usage.iter("p"):
            t = text_of(p).lower()
            if re.search(r"\bthis directive (is|has been) (deprecated|obsolete)", t):
                return True
            if "currently has no effect" in t:
                return True
    mc = d["module"]["compat"].lower() + " " + d["module"]["summary"][:400].lower()
    if "deprecated" in mc or "deprecation" in mc:
        return True
    return False


# --------------------------------------------------------------------------
# C command tables
# --------------------------------------------------------------------------

KINDS = {"RAW_ARGS", "TAKE1", "TAKE2", "TAKE12", "TAKE3", "TAKE23", "TAKE123",
         "TAKE13", "ITERATE", "ITERATE2", "FLAG", "NO_ARGS", "TAKE_ARGV"}


def strip_comments(src):
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" ")
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out).replace("\\\n", " ")


def split_args(s):
    """Split a macro argument list on top-level commas."""
    args, depth, cur, i = [], 0, [], 0
    while i < len(s):
        c = s[i]
        if c == '"':
            j = i + 1
            while j < len(s) and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            cur.append(s[i:j + 1])
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    args.append("".join(cur).strip())
    return args


def balanced(src, start, open_="(", close=")"):
    """src[start] == open_; return the text inside the matching close."""
    depth, i = 0, start
    while i < len(src):
        c = src[i]
        if c in "\"'":  # string or character literal
            j = i + 1
            while j < len(src) and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return src[start + 1:i]
        i += 1
    return src[start + 1:]


SSL_MACRO = re.compile(r"\bSSL_CMD_(ALL|SRV|PXY)\s*\(\s*(\w+)\s*,\s*(\w+)\s*,")
SSL_DIR_MACRO = re.compile(r"\bSSL_CMD_DIR\s*\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,")
SSL_WHERE = {"ALL": "RSRC_CONF|OR_AUTHCFG", "SRV": "RSRC_CONF",
             "PXY": "RSRC_CONF|PROXY_CONF"}


def expand_ssl(src):
    src = SSL_MACRO.sub(lambda m: f'AP_INIT_{m.group(3)}("SSL{m.group(2)}", ssl_cmd_SSL{m.group(2)}, '
                        f'NULL, {SSL_WHERE[m.group(1)]},', src)
    src = SSL_DIR_MACRO.sub(lambda m: f'AP_INIT_{m.group(3)}("SSL{m.group(1)}", ssl_cmd_SSL{m.group(1)}, '
                            f'NULL, OR_{m.group(2)},', src)
    return src


def resolve_name(expr, defines):
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|(\w+)', expr)
    out = []
    for lit, ident in parts:
        if ident:
            if ident == "NULL":
                return None
            if ident not in defines:
                return None
            r = resolve_name(defines[ident], defines)
            if r is None:
                return None
            out.append(r)
        else:
            out.append(lit)
    return "".join(out)


def normalise_mask(expr, flag_defines, depth=0):
    out = []
    for ident in re.findall(r"[A-Za-z_]\w*", expr):
        if ident in MASK_FLAGS:
            out.append(ident)
        elif ident in flag_defines and depth < 5:
            out += normalise_mask(flag_defines[ident], flag_defines, depth + 1).split("|")
    out = [f for f in MASK_FLAGS if f in out]
    return "|".join(out)


# ap_check_cmd_context() flags (include/http_config.h).
NOT_IN = {"NOT_IN_VIRTUALHOST": 0x01, "NOT_IN_LIMIT": 0x02, "NOT_IN_DIRECTORY": 0x04,
          "NOT_IN_LOCATION": 0x08, "NOT_IN_FILES": 0x10, "NOT_IN_HTACCESS": 0x20,
          "NOT_IN_PROXY": 0x40}
NOT_IN["NOT_IN_DIR_LOC_FILE"] = NOT_IN["NOT_IN_DIRECTORY"] | NOT_IN["NOT_IN_LOCATION"] | NOT_IN["NOT_IN_FILES"]
NOT_IN["NOT_IN_DIR_CONTEXT"] = NOT_IN["NOT_IN_LIMIT"] | NOT_IN["NOT_IN_DIR_LOC_FILE"] | NOT_IN["NOT_IN_PROXY"]
NOT_IN["GLOBAL_ONLY"] = NOT_IN["NOT_IN_VIRTUALHOST"] | NOT_IN["NOT_IN_DIR_CONTEXT"]
NOT_IN_ORDER = ["NOT_IN_VIRTUALHOST", "NOT_IN_LIMIT", "NOT_IN_DIRECTORY", "NOT_IN_LOCATION",
                "NOT_IN_FILES", "NOT_IN_HTACCESS", "NOT_IN_PROXY"]
# Not an httpd flag: mod_md's own check that the directive stands inside <MDomainSet> or
# <MDomain> (`md_section_check`: "X is only valid inside a '<MDomainSet' context, not here").
NOT_IN["MD_SECTION_ONLY"] = 0x80
NOT_IN_ORDER.append("MD_SECTION_ONLY")
# Helpers whose check depends on an argument of theirs, not on the directive: what each call
# checks, by its constant argument, as the helper's code reads it (mod_md_config.c:
# md_conf_check_location: MD_LOC_GLOBAL -> GLOBAL_ONLY; MD_LOC_MD -> md_section_check; the others
# -> NOT_IN_DIRECTORY|NOT_IN_LOCATION outside an MDomain section).
CHECK_HELPERS_SKIPPED = {"md_conf_check_location", "md_section_check"}
HELPER_CALLS = [
    (re.compile(r"md_conf_check_location\s*\(\s*\w+\s*,\s*(\w+)\s*\)"),
     {"MD_LOC_GLOBAL": NOT_IN["GLOBAL_ONLY"], "MD_LOC_MD": NOT_IN["MD_SECTION_ONLY"],
      "MD_LOC_ALL": NOT_IN["NOT_IN_DIRECTORY"] | NOT_IN["NOT_IN_LOCATION"],
      "MD_LOC_NOT_MD": NOT_IN["NOT_IN_DIRECTORY"] | NOT_IN["NOT_IN_LOCATION"]}),
    (re.compile(r"md_section_check\s*\(\s*\w+\s*\)()"), {"": NOT_IN["MD_SECTION_ONLY"]}),
]
CHECK_CALL = re.compile(r"ap_check_cmd_context\s*\(\s*\w+\s*,\s*([A-Z_|\s]+)\)")


def handler_name(expr):
    """The function a command-table entry calls (casts and `&` removed)."""
    ids = re.findall(r"[A-Za-z_]\w*", re.sub(r"\([^()]*\*\s*\)", " ", expr))
    ids = [i for i in ids if i not in ("cmd_func", "const", "char", "void", "NULL")]
    return ids[-1] if ids else None


def function_bodies(src):
    """name -> body text of every function defined in a (comment-stripped) C file."""
    out = {}
    for m in re.finditer(r"^[A-Za-z_](?:[^;{}()]|\([^;{}()]*\))*?\b(\w+)\s*\(([^;{}]*)\)\s*\{", src, re.M):
        body = balanced(src, m.end() - 1, "{", "}")
        out.setdefault(m.group(1), body)
    return out


def in_preprocessor_conditional(body, pos):
    """Whether `pos` of a function body lies inside an `#if`/`#ifdef`/`#ifndef` block opened
    in that body: code that depends on how httpd (or a library) was built, such as
    SSLCompression's GLOBAL_ONLY check made only when OpenSSL lacks SSL_OP_NO_COMPRESSION."""
    depth = 0
    for m in re.finditer(r"^\s*#\s*(if|ifdef|ifndef|endif)\b", body[:pos], re.M):
        depth += -1 if m.group(1) == "endif" else 1
    return depth > 0


def fatal_checks(body):
    """The flag sets of the ap_check_cmd_context() calls in a body whose result
    is an error (not the ones that only log a warning)."""
    sets = []
    for m in CHECK_CALL.finditer(body):
        if in_preprocessor_conditional(body, m.start()):
            continue  # compiled only in some builds (mod_ssl's OpenSSL feature tests)
        after = body[m.end():m.end() + 200]
        if re.match(r"\s*\)\s*\{\s*ap_log_(p)?error", after):
            continue  # `if (ap_check_cmd_context(...)) { warn }`
        bits = 0
        for f in re.findall(r"[A-Z_]+", m.group(1)):
            if f != "MD_SECTION_ONLY":
                bits |= NOT_IN.get(f, 0)
        if bits:
            sets.append(bits)
    for pattern, flags in HELPER_CALLS:
        for m in pattern.finditer(body):
            if m.group(1) in flags and not in_preprocessor_conditional(body, m.start()):
                sets.append(flags[m.group(1)])
    return sets


def context_checks(func, bodies):
    """Flags of ap_check_cmd_context() that hold on every check found in the
    handler and in the same file's functions it calls (one level): their
    intersection, so that a check made only for some arguments (`Alias` with
    one argument or two) never forbids more than httpd does."""
    body = bodies.get(func)
    if body is None:
        return 0
    sets = fatal_checks(body)
    for callee in set(re.findall(r"\b(\w+)\s*\(", body)):
        if callee != func and callee in bodies and callee not in CHECK_HELPERS_SKIPPED:
            sets += fatal_checks(bodies[callee])
    if not sets:
        return 0
    bits = sets[0]
    for b in sets[1:]:
        bits &= b
    return bits


def not_in_names(bits):
    return "|".join(f for f in NOT_IN_ORDER if bits & NOT_IN[f])


def parse_commands(gitdir, ref):
    files = git(gitdir, "ls-tree", "-r", "--name-only", ref).split()
    files = [f for f in files
             if re.match(r"(server|modules|include|os)/", f) and f.endswith((".c", ".h"))
             and f != "include/http_config.h"]
    sources = {}
    file_bodies = {}  # file -> {function name -> body}, for files that check contexts
    defines = {}
    flag_defines = {}
    for f in files:
        src = git(gitdir, "show", f"{ref}:{f}")
        if "AP_INIT_" not in src and "SSL_CMD_" not in src and "#define" not in src:
            continue
        src = strip_comments(src)
        if f.endswith(".c") and "ap_check_cmd_context" in src:
            file_bodies[f] = function_bodies(src)
        for m in re.finditer(r'^\s*#\s*define\s+(\w+)\s+((?:"(?:[^"\\]|\\.)*"\s*)+)$',
                             src, re.M):
            defines.setdefault(m.group(1), m.group(2))
        for m in re.finditer(r'^\s*#\s*define\s+(\w+)\s+\(?\s*([A-Z_]+(?:\s*\|\s*[A-Z_]+)*)\s*\)?\s*$',
                             src, re.M):
            if not f.startswith("include/"):
                flag_defines.setdefault(m.group(1), m.group(2))
        if "AP_INIT_" in src or "SSL_CMD_" in src:
            sources[f] = src
    cmds = {}  # lower name -> list of dicts
    for f, src in sources.items():
        src = expand_ssl(src)
        mod_ident = None
        m = re.search(r"AP_DECLARE_MODULE\s*\(\s*(\w+)\s*\)", src)
        if m:
            mod_ident = m.group(1) + "_module"
        else:
            m = re.search(r"^\s*(?:AP_DECLARE_DATA\s+|AP_MODULE_DECLARE_DATA\s+)?module\s+"
                          r"(?:AP_MODULE_DECLARE_DATA\s+|AP_DECLARE_DATA\s+)?(\w+_module)\s*=",
                          src, re.M)
            if m:
                mod_ident = m.group(1)
        for m in re.finditer(r"\bAP_INIT_(\w+)\s*\(", src):
            kind = m.group(1)
            if kind not in KINDS:
                continue
            # skip macro definitions like `#define AP_INIT_...`
            line_start = src.rfind("\n", 0, m.start()) + 1
            if re.match(r"\s*#\s*define\s+AP_INIT_", src[line_start:m.end()]):
                continue
            args = split_args(balanced(src, m.end() - 1))
            if len(args) < 4:
                continue
            name = resolve_name(args[0], defines)
            if not name:
                continue
            section = name.startswith("<")
            name = name.lstrip("<")
            cmds.setdefault(name.lower(), []).append({
                "name": name, "kind": kind,
                "where": normalise_mask(args[3], flag_defines),
                "not_in": 0,
                "func": handler_name(args[1]),
                "file": f, "module": mod_ident, "section": section,
            })
    # The handler is looked up in its own file first (static functions of the
    # same name exist in several MPMs), then anywhere (mod_ssl's handlers live
    # in ssl_engine_config.c).
    for entries in cmds.values():
        for e in entries:
            bodies = file_bodies.get(e["file"], {})
            # A handler defined in its own file that checks nothing is not another file's
            # namesake (mod_ident's set_timeout is not core.c's, which forbids <Directory>).
            own = e["file"].endswith(".c") and e["func"] and re.search(
                r"\b" + re.escape(e["func"]) + r"\s*\([^;{}]*\)\s*\{", sources.get(e["file"], ""))
            if e["func"] not in bodies and not own:
                bodies = next((b for b in file_bodies.values() if e["func"] in b), {})
            e["not_in"] = context_checks(e["func"], bodies)
    return cmds


def check_mask(name, entries, ctxs, override, module):
    """Compare the documented contexts/override with the C req_override mask."""
    for e in entries:
        if e["module"] and e["module"] not in module.split() and not (
                module == "core" and e["module"] == "core_module"):
            warn(f"{name}: documented in {module} but defined in {e['module']} ({e['file']})")
    same = [e for e in entries if not e["section"]] or entries
    if not same:
        return
    where = same[0]["where"]
    flags = set(re.findall(r"\b[A-Z_]+\b", where))
    ors = {f for f in flags if f.startswith("OR_")}
    if "OR_ALL" in ors:
        ors = {"OR_LIMIT", "OR_OPTIONS", "OR_FILEINFO", "OR_AUTHCFG", "OR_INDEXES"}
    exp = set()
    if "RSRC_CONF" in flags or ors - {"OR_AUTHCFG", "OR_LIMIT"}:
        exp |= {"server config", "virtual host"}
    if "ACCESS_CONF" in flags or ors:
        exp.add("directory")
    if ors:
        exp.add(".htaccess")
    if "PROXY_CONF" in flags:
        exp.add("proxy section")
    got = set(ctxs)
    if exp != got:
        warn(f"{name}: docs contexts [{', '.join(c for c in CONTEXT_ORDER if c in got)}] "
             f"vs C mask {where} -> [{', '.join(c for c in CONTEXT_ORDER if c in exp)}]")


# --------------------------------------------------------------------------
# Debian build facts
# --------------------------------------------------------------------------

def debian_facts():
    builtin = set()
    so = {}
    try:
        out = subprocess.run(["/usr/sbin/apache2", "-l"], capture_output=True,
                             check=True).stdout.decode()
        for line in out.splitlines()[1:]:
            line = line.strip()
            if line:
                builtin.add(line)
    except (OSError, subprocess.CalledProcessError):
        warn("note: /usr/sbin/apache2 not runnable; builtin_debian will be 'no'")
    mdir = "/usr/lib/apache2/modules"
    if os.path.isdir(mdir):
        for f in sorted(os.listdir(mdir)):
            if not f.endswith(".so"):
                continue
            try:
                out = subprocess.run(["nm", "-D", "--defined-only", os.path.join(mdir, f)],
                                     capture_output=True, check=True).stdout.decode()
            except (OSError, subprocess.CalledProcessError):
                continue
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[2].endswith("_module") and parts[1] in "DdBb":
                    so[parts[2]] = f
    return builtin, so


def debian_commands():
    """lower-cased registered name (`<Directory` for sections) -> set of req_override masks,
    read from the command tables compiled into Debian's /usr/sbin/apache2 and its shared
    modules: what this build really defines, whatever the sources on the branch say
    (mod_remoteip's RemoteIP*ProxyList lost EXEC_ON_READ after the branch commit read here).

    A `command_rec` is {name, func, cmd_data, int req_override, int args_how, errmsg}; in a
    position-independent object each pointer is filled by an R_X86_64_RELATIVE relocation whose
    addend is the address it points to. So: for every relocated pointer to a NUL-terminated
    string, the two ints 24 bytes after the pointer are read; values outside the flag and
    cmd_how ranges are not command records. Empty when the files (or readelf) are missing."""
    files = ["/usr/sbin/apache2"]
    mdir = "/usr/lib/apache2/modules"
    if os.path.isdir(mdir):
        files += [os.path.join(mdir, f) for f in sorted(os.listdir(mdir)) if f.endswith(".so")]
    out = {}
    for path in files:
        try:
            data = open(path, "rb").read()
            ph = subprocess.run(["readelf", "-lW", path], capture_output=True, check=True).stdout.decode()
            rel = subprocess.run(["readelf", "-rW", path], capture_output=True, check=True).stdout.decode()
        except (OSError, subprocess.CalledProcessError):
            continue
        loads = []
        for line in ph.splitlines():
            parts = line.split()
            if parts and parts[0] == "LOAD":
                loads.append((int(parts[1], 16), int(parts[2], 16), int(parts[4], 16)))

        def to_offset(vaddr):
            for off, va, size in loads:
                if va <= vaddr < va + size:
                    return vaddr - va + off
            return None
        for line in rel.splitlines():
            parts = line.split()
            if len(parts) < 4 or "RELATIVE" not in parts[2]:
                continue
            target = to_offset(int(parts[-1], 16))
            slot = to_offset(int(parts[0], 16) + 24)
            if target is None or slot is None or slot + 8 > len(data):
                continue
            end = data.find(b"\0", target, target + 80)
            if end <= target:
                continue
            name = data[target:end]
            if not re.fullmatch(rb"<?[A-Za-z][A-Za-z0-9_]*", name):
                continue
            req = int.from_bytes(data[slot:slot + 4], "little", signed=True)
            how = int.from_bytes(data[slot + 4:slot + 8], "little", signed=True)
            if 0 < req < 4096 and 0 <= how <= 12:
                out.setdefault(name.decode().lower(), set()).add(req)
    return out


REQ_FLAGS = [("OR_LIMIT", 1), ("OR_OPTIONS", 2), ("OR_FILEINFO", 4), ("OR_AUTHCFG", 8),
             ("OR_INDEXES", 16), ("OR_UNSET", 32), ("ACCESS_CONF", 64), ("RSRC_CONF", 128),
             ("EXEC_ON_READ", 256), ("NONFATAL_OVERRIDE", 512), ("NONFATAL_UNKNOWN", 1024),
             ("PROXY_CONF", 2048)]


def mask_bits(mask):
    flags = dict(REQ_FLAGS)
    flags["OR_ALL"] = 31
    return sum(flags.get(f, 0) for f in set(re.findall(r"[A-Z_]+", mask)))


def mask_names(bits):
    flags = dict(REQ_FLAGS)
    names = [f for f in MASK_FLAGS if f in flags and bits & flags[f]]
    if bits & 31 == 31:
        names = [f for f in names if not f.startswith("OR_")]
        names.insert(names.index("PROXY_CONF") if "PROXY_CONF" in names else len(names), "OR_ALL")
    return "|".join(names)


# --------------------------------------------------------------------------
# Hand-written descriptions
# --------------------------------------------------------------------------

def read_desc(path):
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            k, _, v = line.partition("\t")
            out[k] = v
    return out


# --------------------------------------------------------------------------

def build_facts(registered, mask, deb_cmds, old_build):
    """(req_override, debian) of a directive registered as `registered`: the mask Debian's
    binaries hold when they define it (it wins over the sources'), and whether they do."""
    key = registered.lower()
    if not deb_cmds:
        build, old_mask = old_build.get(key.lstrip("<"), ("", mask))
        return (old_mask or mask), build
    found = deb_cmds.get(key)
    if not found:
        return mask, "no"
    if len(found) == 1:
        bits = next(iter(found))
        if mask and bits != mask_bits(mask):
            warn(f"{registered}: Debian's build registers {mask_names(bits)}, the sources {mask}")
            mask = mask_names(bits)
    return mask, "yes"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    gitdir = sys.argv[1]
    ref = sys.argv[2] if len(sys.argv) > 2 else "refs/heads/2.4.x"
    commit = git(gitdir, "rev-parse", ref).strip()
    banner = (f"# Generated by scripts/gen_catalogue.py from apache/httpd {ref} @ {commit};"
              " descriptions from descriptions.tsv. Do not edit by hand.\n")
    modules, directives = parse_docs(gitdir, ref)
    cmds = parse_commands(gitdir, ref)
    builtin, so = debian_facts()
    deb_cmds = debian_commands()
    old_build = {}
    if not deb_cmds:
        # No Debian apache2 here: keep the `debian` column recorded last time.
        warn("note: no Debian command tables; using the debian column of the existing directives.tsv")
        old = os.path.join(OUT_DIR, "directives.tsv")
        if os.path.exists(old):
            with open(old, encoding="utf-8") as fh:
                for line in fh:
                    f = line.rstrip("\n").split("\t")
                    if not line.startswith("#") and len(f) > 15:
                        old_build[f[0].lower()] = (f[15], f[12])

    def in_build(e):
        """Whether a command-table entry's file is part of Debian's build."""
        return os.path.basename(e["file"]) in builtin or e["module"] in so
    if not builtin or not so:
        # No Debian apache2 here: keep the facts recorded last time.
        old = os.path.join(OUT_DIR, "modules.tsv")
        if os.path.exists(old):
            warn("note: using Debian facts from the existing modules.tsv")
            need_builtin, need_so = not builtin, not so
            with open(old, encoding="utf-8") as fh:
                for line in fh:
                    if line.startswith("#"):
                        continue
                    f = line.rstrip("\n").split("\t")
                    ident = "core_module" if f[0] == "core" else f[0]
                    if need_builtin and f[3] == "yes":
                        builtin.add(f[1])
                    if need_so and f[4]:
                        so.setdefault(ident, f[4])
    descs = read_desc(os.path.join(OUT_DIR, "descriptions.tsv"))
    mdescs = {k[len("module:"):]: v for k, v in descs.items() if k.startswith("module:")}

    by_page = {m["page"]: m for m in modules}
    missing_desc = []

    rows = []
    seen = {}
    for d in directives:
        name = d["name"]
        mod = d["module"]
        if mod["page"] == "mpm_common":
            mods = [by_page[p] for p in d["modulelist"] if p in by_page]
            module = " ".join(m["identifier"] for m in mods)
            source = " ".join(m["source_file"] for m in mods)
            status = "MPM"
        else:
            module = mod["identifier"]
            source = mod["source_file"]
            status = mod["status"]
        if d["status"]:
            status = d["status"]
        if is_deprecated(d):
            status += " deprecated"
        if name in SYNTAX_FIXES:
            bad, good = SYNTAX_FIXES[name]
            if bad in d["syntax"]:
                d["syntax"] = d["syntax"].replace(bad, good)
                warn(f"fixed syntax typo of {name}")
        ctxs = [c for c in CONTEXT_ORDER if c in d["contexts"]]
        for c in d["contexts"]:
            if c not in CONTEXT_ORDER:
                warn(f"unknown context {c!r} for {name}")
        override = ",".join(p.strip() for p in d["override"].split(",") if p.strip())
        entries = cmds.get(name.lower(), [])
        kinds = sorted({e["kind"] for e in entries})
        args = ""
        if len(kinds) == 1:
            args = kinds[0]
        elif kinds:
            # Prefer the entry of the same shape (section or not) from the
            # module's own source file.
            same = [e for e in entries if e["section"] == d["section"]] or entries
            own = [e["kind"] for e in same
                   if os.path.basename(e["file"]) in source.split()]
            args = own[0] if own else same[0]["kind"]
            warn(f"kind disagreement for {name}: "
                 + ", ".join(f'{e["kind"]}@{e["file"]}' for e in entries)
                 + f" -> {args}")
        else:
            warn(f"no command table entry for documented directive {name} ({module})")
        if entries and any(e["section"] for e in entries) != d["section"]:
            warn(f"section mismatch for {name}: docs={d['section']} "
                 f"C={[e['section'] for e in entries]}")
        url = f"{DOCS_BASE}mod/{d['page']}.html#{name.lower()}"
        desc = descs.get(name, "")
        if not desc:
            missing_desc.append(name)
        mask = ""
        not_in = ""
        same = [e for e in entries if e["section"] == d["section"]] or entries
        # Entries of modules Debian does not build (mpmt_os2's no-op `User`, `Group`,
        # `ScoreBoardFile`) say nothing about the checks this build makes.
        same = [e for e in same if in_build(e)] or same
        if same:
            mask = same[0]["where"]
            # Several MPMs define the same directive: a check made by all of them.
            bits = same[0]["not_in"]
            for e in same[1:]:
                bits &= e["not_in"]
            not_in = not_in_names(bits)
        # The spelling the command table registers, which httpd's messages use
        # (`order not allowed here`), when it differs from the manual's.
        c_name = same[0]["name"] if same and same[0]["name"] != name else ""
        registered = ("<" if d["section"] else "") + (c_name or name)
        mask, build = build_facts(registered, mask, deb_cmds, old_build)
        row = [name, module, source, d["syntax"], ",".join(ctxs), override,
               d["default"], status, args, "yes" if d["section"] else "", url, desc, mask, not_in,
               c_name, build]
        key = name.lower()
        if key in seen:
            prev = seen[key]
            warn(f"directive {name} documented twice: {prev[1]} and {module}; merged")
            prev[1] += " " + module
            prev[2] += " " + source
            continue
        if os.environ.get("CHECK_MASKS"):
            check_mask(name, entries, ctxs, override, module)
        seen[key] = row
        rows.append(row)

    for name, module, source, syntax in REMOVED:
        desc = descs.get(name, "")
        if not desc:
            missing_desc.append(name)
        rows.append([name, module, source, syntax, "directory,.htaccess", "AuthConfig",
                     "", "removed", "FLAG", "", REMOVED_URL, desc, "OR_AUTHCFG", "", "", "no"])
        seen[name.lower()] = rows[-1]

    for name, module, source, syntax, ctxs, override, status, url in EXTRAS:
        assert name.lower() not in seen, name
        entries = cmds.get(name.lower(), [])
        assert entries, name
        e = [x for x in entries if not x["section"]][0]
        desc = descs.get(name, "")
        if not desc:
            missing_desc.append(name)
        mask, build = build_facts(e["name"], e["where"], deb_cmds, old_build)
        rows.append([name, module, source, syntax, ctxs, override, "", status, e["kind"],
                     "", url, desc, mask, not_in_names(e["not_in"]),
                     e["name"] if e["name"] != name else "", build])
        seen[name.lower()] = rows[-1]

    rows.sort(key=lambda r: r[0].lower())

    # Command-table entries with no documentation.
    for key, entries in sorted(cmds.items()):
        if key not in seen:
            e = entries[0]
            warn(f"undocumented command {e['name']} ({e['kind']}) in "
                 + ", ".join(sorted({x['file'] for x in entries})))

    with open(os.path.join(OUT_DIR, "directives.tsv"), "w", encoding="utf-8") as fh:
        fh.write(banner)
        fh.write("# name\tmodule\tsource_file\tsyntax\tcontexts\toverride\tdefault\t"
                 "status\targs\tsection\turl\tdescription\treq_override\tnot_in\tc_name\tdebian\n")
        for r in rows:
            fh.write("\t".join(tsv_field(x) for x in r) + "\n")

    # Modules
    mrows = []
    idents = set()
    for m in modules:
        if m["page"] == "mpm_common":
            continue
        ident = m["identifier"]
        real_ident = "core_module" if ident == "core" else ident
        idents.add(real_ident)
        bi = "yes" if m["source_file"] in builtin else "no"
        mrows.append([ident, m["source_file"], m["status"], bi, so.get(real_ident, ""),
                      m["page"]])
    for ident, (src, status) in UNDOCUMENTED_MODULES.items():
        if ident in idents:
            continue
        bi = "yes" if src in builtin else "no"
        mrows.append([ident, src, status, bi, so.get(ident, ""), ""])
    for ident, f in sorted(so.items()):
        if ident not in idents and ident not in UNDOCUMENTED_MODULES:
            warn(f"Debian ships {f} ({ident}) which is not in the module list")
    for b in sorted(builtin):
        if not any(r[1] == b for r in mrows):
            warn(f"Debian built-in {b} not in the module list")
    mrows.sort(key=lambda r: (r[0] != "core", r[0]))
    missing_mdesc = []
    with open(os.path.join(OUT_DIR, "modules.tsv"), "w", encoding="utf-8") as fh:
        fh.write(banner)
        fh.write("# identifier\tsource_file\tstatus\tbuiltin_debian\tdebian_so\tdescription\turl\n")
        for r in mrows:
            desc = mdescs.get(r[0], "")
            if not desc:
                missing_mdesc.append(r[0])
            url = f"{DOCS_BASE}mod/{r[5]}.html" if r[5] else ""
            fh.write("\t".join(tsv_field(x) for x in r[:5] + [desc, url]) + "\n")

    warn(f"{len(rows)} directives, {len(mrows)} modules")
    if missing_desc:
        warn(f"{len(missing_desc)} directives lack a description: "
             + " ".join(missing_desc[:50]))
    if missing_mdesc:
        warn(f"{len(missing_mdesc)} modules lack a description: " + " ".join(missing_mdesc))


if __name__ == "__main__":
    main()

//! HTTP method numbers and method masks, mirroring httpd's method registry
//! (`modules/http/http_protocol.c: ap_method_registry_init`, `ap_method_number_of`,
//! `ap_method_register`) and `<Limit>`/`<LimitExcept>` (`server/core.c: ap_limit_section`).
//!
//! Invariants:
//! * No IO.
//! * Method names are case-sensitive (`get` is not `GET`; `<Limit get>` registers a new method).
//! * `HEAD` has the method number of `GET`.
//! * Builtin numbers 0..=25 are the `M_*` constants, 26 is `M_INVALID` (any request method that
//!   is neither builtin nor registered). Registered extension methods are represented by name.
//! * A [`MethodMask`] is the set `cmd->limited`; `<LimitExcept>` is the complement, so it also
//!   contains `M_INVALID` and every extension method not listed.

use std::collections::BTreeSet;
use std::fmt;

use super::items::Item;

/// `M_GET`.
pub const M_GET: u8 = 0;
/// `M_TRACE`.
pub const M_TRACE: u8 = 6;
/// `M_INVALID`: the number of a request method that is not builtin and not registered.
pub const M_INVALID: u8 = 26;

/// Builtin method names and their numbers (`ap_method_registry_init`).
pub const BUILTIN_METHODS: [(&str, u8); 27] = [
    ("GET", 0),
    ("HEAD", 0),
    ("PUT", 1),
    ("POST", 2),
    ("DELETE", 3),
    ("CONNECT", 4),
    ("OPTIONS", 5),
    ("TRACE", 6),
    ("PATCH", 7),
    ("PROPFIND", 8),
    ("PROPPATCH", 9),
    ("MKCOL", 10),
    ("COPY", 11),
    ("MOVE", 12),
    ("LOCK", 13),
    ("UNLOCK", 14),
    ("VERSION-CONTROL", 15),
    ("CHECKOUT", 16),
    ("UNCHECKOUT", 17),
    ("CHECKIN", 18),
    ("UPDATE", 19),
    ("LABEL", 20),
    ("REPORT", 21),
    ("MKWORKSPACE", 22),
    ("MKACTIVITY", 23),
    ("BASELINE-CONTROL", 24),
    ("MERGE", 25),
];

const ALL_BUILTIN_BITS: u32 = (1 << 27) - 1;

/// The method number a request gets (`r->method_number`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MethodId {
    /// A builtin method number 0..=25 (HEAD is GET).
    Builtin(u8),
    /// A method registered by `<Limit>`/`RegisterHttpMethod` (case-sensitive name).
    Extension(String),
    /// `M_INVALID`: not builtin and not registered.
    Invalid,
}

impl MethodId {
    /// Builtin number of a method name (case-sensitive), `HEAD` → `M_GET`.
    pub fn builtin_number(name: &str) -> Option<u8> {
        BUILTIN_METHODS.iter().find(|(n, _)| *n == name).map(|&(_, num)| num)
    }

    /// `ap_method_number_of`: builtin, else registered, else `M_INVALID`.
    pub fn resolve(name: &str, registered: &BTreeSet<String>) -> MethodId {
        match Self::builtin_number(name) {
            Some(n) => MethodId::Builtin(n),
            None if registered.contains(name) => MethodId::Extension(name.to_string()),
            None => MethodId::Invalid,
        }
    }
}

impl fmt::Display for MethodId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MethodId::Builtin(n) => f.write_str(builtin_name(*n)),
            MethodId::Extension(name) => f.write_str(name),
            MethodId::Invalid => f.write_str("(unregistered method)"),
        }
    }
}

fn builtin_name(n: u8) -> &'static str {
    if n == M_INVALID {
        return "(unregistered methods)";
    }
    BUILTIN_METHODS.iter().find(|&&(_, num)| num == n).map(|&(name, _)| name).unwrap_or("?")
}

/// A set of method numbers (`apr_int64_t limited`), over builtin numbers, `M_INVALID` and
/// extension methods by name (possibly "every extension method except …").
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MethodMask {
    builtin: u32,
    ext: BTreeSet<String>,
    /// When true the extension part is "every extension method except `ext`".
    ext_complement: bool,
}

impl Default for MethodMask {
    fn default() -> Self {
        MethodMask::all()
    }
}

impl MethodMask {
    /// Every method (a section's `cmd->limited` outside `<Limit>`).
    pub fn all() -> MethodMask {
        MethodMask { builtin: ALL_BUILTIN_BITS, ext: BTreeSet::new(), ext_complement: true }
    }

    pub fn none() -> MethodMask {
        MethodMask { builtin: 0, ext: BTreeSet::new(), ext_complement: false }
    }

    pub fn builtin(n: u8) -> MethodMask {
        MethodMask { builtin: 1 << n, ..MethodMask::none() }
    }

    pub fn extension(name: &str) -> MethodMask {
        MethodMask { ext: [name.to_string()].into(), ..MethodMask::none() }
    }

    pub fn of(id: &MethodId) -> MethodMask {
        match id {
            MethodId::Builtin(n) => MethodMask::builtin(*n),
            MethodId::Invalid => MethodMask::builtin(M_INVALID),
            MethodId::Extension(name) => MethodMask::extension(name),
        }
    }

    pub fn is_all(&self) -> bool {
        *self == MethodMask::all()
    }

    pub fn is_empty(&self) -> bool {
        self.builtin == 0 && !self.ext_complement && self.ext.is_empty()
    }

    pub fn contains(&self, m: &MethodId) -> bool {
        match m {
            MethodId::Builtin(n) => self.builtin & (1 << n) != 0,
            MethodId::Invalid => self.builtin & (1 << M_INVALID) != 0,
            MethodId::Extension(name) => self.ext_complement != self.ext.contains(name),
        }
    }

    pub fn union(&self, o: &MethodMask) -> MethodMask {
        let builtin = self.builtin | o.builtin;
        let (ext, ext_complement) = match (self.ext_complement, o.ext_complement) {
            (false, false) => (self.ext.union(&o.ext).cloned().collect(), false),
            (false, true) => (o.ext.difference(&self.ext).cloned().collect(), true),
            (true, false) => (self.ext.difference(&o.ext).cloned().collect(), true),
            (true, true) => (self.ext.intersection(&o.ext).cloned().collect(), true),
        };
        MethodMask { builtin, ext, ext_complement }
    }

    pub fn intersect(&self, o: &MethodMask) -> MethodMask {
        let builtin = self.builtin & o.builtin;
        let (ext, ext_complement) = match (self.ext_complement, o.ext_complement) {
            (false, false) => (self.ext.intersection(&o.ext).cloned().collect(), false),
            (false, true) => (self.ext.difference(&o.ext).cloned().collect(), false),
            (true, false) => (o.ext.difference(&self.ext).cloned().collect(), false),
            (true, true) => (self.ext.union(&o.ext).cloned().collect(), true),
        };
        MethodMask { builtin, ext, ext_complement }
    }

    pub fn complement(&self) -> MethodMask {
        MethodMask {
            builtin: !self.builtin & ALL_BUILTIN_BITS,
            ext: self.ext.clone(),
            ext_complement: !self.ext_complement,
        }
    }

    pub fn is_subset_of(&self, o: &MethodMask) -> bool {
        self.intersect(&o.complement()).is_empty()
    }

    /// Method names that tell this mask apart from others: the builtin names on the smaller
    /// side of the mask (in it, or outside it), and the extension names it lists. Requests for
    /// these methods and for one method not named cover every way the mask can decide.
    pub fn distinguishing_names(&self) -> Vec<String> {
        let bits = self.builtin & !(1 << M_INVALID) & ALL_BUILTIN_BITS;
        let outside = !self.builtin & !(1 << M_INVALID) & ALL_BUILTIN_BITS;
        let side = if bits.count_ones() <= outside.count_ones() { bits } else { outside };
        let mut v: Vec<String> = Self::builtin_names(side).into_iter().map(str::to_string).collect();
        v.extend(self.ext.iter().cloned());
        v
    }

    /// The builtin method names in the mask (GET stands for GET and HEAD).
    fn builtin_names(bits: u32) -> Vec<&'static str> {
        (0..27u8).filter(|n| bits & (1 << n) != 0).map(builtin_name).collect()
    }
}

impl fmt::Display for MethodMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_all() {
            return f.write_str("all methods");
        }
        if self.ext_complement {
            let mut missing = Self::builtin_names(!self.builtin & ALL_BUILTIN_BITS);
            missing.extend(self.ext.iter().map(String::as_str));
            return write!(f, "all methods except {}", missing.join(" "));
        }
        let mut names = Self::builtin_names(self.builtin);
        names.extend(self.ext.iter().map(String::as_str));
        if names.is_empty() {
            return f.write_str("no methods");
        }
        f.write_str(&names.join(" "))
    }
}

/// Method names registered so far (`<Limit>` registers the names it does not know).
pub(crate) trait Registered {
    fn has(&self, method: &str) -> bool;
    fn add(&mut self, method: String);
}

impl Registered for BTreeSet<String> {
    fn has(&self, method: &str) -> bool {
        self.contains(method)
    }
    fn add(&mut self, method: String) {
        self.insert(method);
    }
}

/// The server's registered methods, copied only when a block registers another one (most
/// sections register none: the policy builders run for every section of a big tree).
impl Registered for std::borrow::Cow<'_, BTreeSet<String>> {
    fn has(&self, method: &str) -> bool {
        self.contains(method)
    }
    fn add(&mut self, method: String) {
        self.to_mut().insert(method);
    }
}

/// The `cmd->limited` inside a `<Limit>`/`<LimitExcept>` block nested in a context whose mask is
/// `outer` (`server/core.c: ap_limit_section`). Registers unknown method names in `registered`
/// (as httpd does at config time). Returns httpd's error message on failure.
pub(crate) fn limit_block_mask(
    block: &Item,
    outer: &MethodMask,
    registered: &mut impl Registered,
    htaccess: bool,
) -> Result<MethodMask, String> {
    let Item::Block { name, args, .. } = block else {
        return Err("not a block".into());
    };
    limit_mask(name, args, outer, registered, htaccess)
}

/// [`limit_block_mask`] of a block named `name` (`Limit` or `LimitExcept`) with `args`.
pub(crate) fn limit_mask(
    name: &str,
    args: &[impl AsRef<str>],
    outer: &MethodMask,
    registered: &mut impl Registered,
    htaccess: bool,
) -> Result<MethodMask, String> {
    let except = name.eq_ignore_ascii_case("LimitExcept");
    let cmd_name = if except { "<LimitExcept" } else { "<Limit" };
    if args.is_empty() {
        return Err(format!("{cmd_name}> directive requires additional arguments"));
    }
    let mut limited = MethodMask::none();
    for method in args.iter().map(AsRef::as_ref) {
        // ap_limit_section tokenizes with ap_getword_conf until the text is used up; an empty
        // quoted word is looked up as the method "".
        let id = match MethodId::builtin_number(method) {
            Some(n) => MethodId::Builtin(n),
            None if registered.has(method) => MethodId::Extension(method.to_string()),
            None => MethodId::Invalid,
        };
        let id = match id {
            MethodId::Builtin(M_TRACE) if !except => {
                return Err("TRACE cannot be controlled by <Limit>, see TraceEnable".into());
            }
            MethodId::Invalid => {
                if htaccess {
                    return Err(format!(
                        "Could not register method '{method}' for {cmd_name} from .htaccess configuration"
                    ));
                }
                registered.add(method.to_string());
                MethodId::Extension(method.to_string())
            }
            other => other,
        };
        limited = limited.union(&MethodMask::of(&id));
    }
    let limited = if except { limited.complement() } else { limited };
    let effective = outer.intersect(&limited);
    if effective.is_empty() {
        return Err(format!("{cmd_name}> directive excludes all methods"));
    }
    if outer.is_subset_of(&limited) {
        return Err(format!("{cmd_name}> directive specifies methods already excluded"));
    }
    Ok(effective)
}

/// Errors of `<Limit>`/`<LimitExcept>` blocks in a section body (reported once here, the
/// per-module builders skip a bad block silently).
pub(crate) fn limit_errors(
    items: &[Item],
    outer: &MethodMask,
    registered: &mut BTreeSet<String>,
    htaccess: bool,
    out: &mut Vec<super::items::ConfigError>,
) {
    for item in items {
        if let Item::Block { name, items: body, loc, .. } = item {
            if name.eq_ignore_ascii_case("Limit") || name.eq_ignore_ascii_case("LimitExcept") {
                match limit_block_mask(item, outer, registered, htaccess) {
                    Ok(mask) => limit_errors(body, &mask, registered, htaccess, out),
                    Err(e) => out.push(super::items::ConfigError::new(loc, e)),
                }
            } else if is_require_container(name) {
                limit_errors(body, outer, registered, htaccess, out);
            }
        }
    }
}

pub(crate) fn is_require_container(name: &str) -> bool {
    ["RequireAll", "RequireAny", "RequireNone"].iter().any(|n| n.eq_ignore_ascii_case(name))
}

pub(crate) fn is_limit(name: &str) -> bool {
    name.eq_ignore_ascii_case("Limit") || name.eq_ignore_ascii_case("LimitExcept")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::policy::items::test_util::items;

    fn mask_of(src: &str) -> Result<MethodMask, String> {
        let it = items(src);
        limit_block_mask(&it[0], &MethodMask::all(), &mut BTreeSet::new(), false)
    }

    fn id(name: &str) -> MethodId {
        MethodId::resolve(name, &["FOO".to_string()].into())
    }

    #[test]
    fn head_is_get() {
        assert_eq!(MethodId::builtin_number("HEAD"), Some(M_GET));
        let m = mask_of("<Limit GET>\n</Limit>").unwrap();
        assert!(m.contains(&id("HEAD")));
    }

    #[test]
    fn limit_except_get_excludes_head_and_includes_unregistered() {
        let m = mask_of("<LimitExcept GET>\n</LimitExcept>").unwrap();
        assert!(!m.contains(&id("HEAD")));
        assert!(!m.contains(&id("GET")));
        assert!(m.contains(&id("POST")));
        assert!(m.contains(&id("FOO")));
        assert!(m.contains(&id("BAR")));
        assert_eq!(id("BAR"), MethodId::Invalid);
    }

    #[test]
    fn method_names_are_case_sensitive() {
        assert_eq!(MethodId::resolve("get", &BTreeSet::new()), MethodId::Invalid);
        let mut reg = BTreeSet::new();
        let it = items("<Limit get>\n</Limit>");
        let m = limit_block_mask(&it[0], &MethodMask::all(), &mut reg, false).unwrap();
        assert!(reg.contains("get"));
        assert!(!m.contains(&MethodId::Builtin(M_GET)));
        assert!(m.contains(&MethodId::resolve("get", &reg)));
    }

    #[test]
    fn limit_trace_is_rejected() {
        assert_eq!(
            mask_of("<Limit TRACE>\n</Limit>").unwrap_err(),
            "TRACE cannot be controlled by <Limit>, see TraceEnable"
        );
        assert!(mask_of("<LimitExcept TRACE>\n</LimitExcept>").is_ok());
    }

    #[test]
    fn limit_without_methods_is_rejected() {
        assert_eq!(mask_of("<Limit>\n</Limit>").unwrap_err(), "<Limit> directive requires additional arguments");
    }

    #[test]
    fn htaccess_cannot_register_methods() {
        let it = items("<Limit FOO>\n</Limit>");
        let e = limit_block_mask(&it[0], &MethodMask::all(), &mut BTreeSet::new(), true).unwrap_err();
        assert_eq!(e, "Could not register method 'FOO' for <Limit from .htaccess configuration");
    }

    #[test]
    fn nested_limit_errors() {
        let it = items("<Limit GET>\n</Limit>");
        let get = MethodMask::builtin(M_GET);
        let post = MethodMask::builtin(2);
        assert_eq!(
            limit_block_mask(&it[0], &post, &mut BTreeSet::new(), false).unwrap_err(),
            "<Limit> directive excludes all methods"
        );
        assert_eq!(
            limit_block_mask(&it[0], &get, &mut BTreeSet::new(), false).unwrap_err(),
            "<Limit> directive specifies methods already excluded"
        );
    }

    #[test]
    fn mask_algebra() {
        let a = MethodMask::builtin(0).union(&MethodMask::extension("X"));
        let b = MethodMask::extension("Y").complement();
        assert!(a.intersect(&b).contains(&MethodId::Extension("X".into())));
        assert!(!b.contains(&MethodId::Extension("Y".into())));
        assert!(a.union(&b).is_all() || !a.union(&b).contains(&MethodId::Extension("Y".into())));
        assert!(MethodMask::builtin(0).is_subset_of(&a));
        assert_eq!(MethodMask::builtin(0).to_string(), "GET");
        assert_eq!(MethodMask::builtin(0).complement().to_string(), "all methods except GET");
    }
}

//! Per-thread caches of compiled regular expressions, shared by the engine's section
//! matching (`access`) and SetEnvIf (`setenvif`), which compile with different engines
//! and options.

/// A per-thread cache of compiled expressions, by case sensitivity then pattern (None: the
/// pattern does not compile).
pub(crate) type RegexCache<R> = std::cell::RefCell<[rustc_hash::FxHashMap<String, Option<R>>; 2]>;

/// Runs `f` on the expression `build` compiles from `pattern` (cached in `cache`, which is
/// emptied when it holds `keep` patterns of one case sensitivity); None when it does not
/// compile. Every request tests every regex section and SetEnvIf line, and compiling
/// dominates (explain over many requests, hovers, migration checks, the checker's walk of
/// every section). The expressions are used in place: a clone would start with empty
/// search caches.
pub(crate) fn with_cached<R: 'static, T>(
    cache: &'static std::thread::LocalKey<RegexCache<R>>,
    keep: usize,
    pattern: &str,
    case_insensitive: bool,
    build: impl FnOnce() -> Option<R>,
    f: impl FnOnce(&R) -> T,
) -> Option<T> {
    cache.with(|c| {
        let mut c = c.borrow_mut();
        let c = &mut c[usize::from(case_insensitive)];
        if let Some(r) = c.get(pattern) {
            return r.as_ref().map(f);
        }
        if c.len() >= keep {
            c.clear();
        }
        let r = build();
        let out = r.as_ref().map(f);
        c.insert(pattern.to_string(), r);
        out
    })
}

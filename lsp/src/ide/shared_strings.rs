//! Equal texts kept once: a big configuration repeats its lines (the same rules in ten
//! thousand virtual hosts) and its checks their messages.

use std::sync::Arc;

/// A set of shared texts: [`SharedStrings::get`] gives the copy already held of a text, or
/// makes one. Held for one piece of work (a load, a check), then dropped with whatever
/// nothing else shares.
///
/// Each text is kept with its hash: growing the set (to hundreds of thousands of lines) then
/// moves the entries without hashing every text again, and a lookup compares texts only when
/// their hashes agree.
#[derive(Default)]
pub(crate) struct SharedStrings(hashbrown::HashTable<(u64, Arc<str>)>);

impl SharedStrings {
    /// The shared copy of `text`.
    pub(crate) fn get(&mut self, text: &str) -> Arc<str> {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let hash = BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(text);
        if let Some((_, m)) = self.0.find(hash, |(h, m)| *h == hash && **m == *text) {
            return m.clone();
        }
        let m: Arc<str> = Arc::from(text);
        self.0.insert_unique(hash, (hash, m.clone()), |(h, _)| *h);
        m
    }
}

#[cfg(test)]
mod tests {
    use super::SharedStrings;
    use std::sync::Arc;

    #[test]
    fn equal_texts_share_one_copy() {
        let mut s = SharedStrings::default();
        let a = s.get("Allow from all");
        let b = s.get(&String::from("Allow from all"));
        let c = s.get("Deny from all");
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!((&*a, &*c), ("Allow from all", "Deny from all"));
    }
}

//! The words of a [`Node`](super::Node) in one block of memory.
//!
//! A big configuration holds close to a million nodes for as long as it is loaded.
//! Each has a name, the text after it (`raw_args`) and that text's words; kept as
//! three separately allocated strings and a boxed list of them, they took more
//! room than the files' own text. Here they share one allocation, and when the
//! words are the text split at single spaces (most lines: `Options None`,
//! `Allow from 10.0.0.0/8`), they are not stored twice but split again when read.
//! The loader keeps one block for equal lines (ten thousand virtual hosts repeat most
//! of theirs): a block is shared, and read only.
//!
//! The block is a `str`: lengths are written in ASCII digits of six bits each,
//! so every slice of it is a `str` slice and no `unsafe` is needed.

use crate::ide::shared_strings::SharedStrings;
use std::fmt;
use std::sync::Arc;

/// A node's name, raw arguments and arguments.
#[derive(Clone, PartialEq, Eq)]
pub struct NodeText(Arc<str>);

/// The start of a block, whose words are `raw_args` split at spaces unless others follow.
fn write_head(s: &mut String, name: &str, raw_args: &str) {
    s.push_str(SPLIT);
    push_len(s, name.len());
    s.push_str(name);
    push_len(s, raw_args.len());
    s.push_str(raw_args);
}

/// `write` given a cleared scratch string of the thread's, where a block is written before it
/// is copied once to its allocation.
fn with_scratch<T>(write: impl FnOnce(&mut String) -> T) -> T {
    thread_local! {
        static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        s.clear();
        let made = write(&mut s);
        // A huge line (a 20 MB one) must not keep its room for the thread's lifetime.
        if s.capacity() > 1 << 16 {
            *s = String::new();
        }
        made
    })
}

/// First byte of the block: the arguments are the raw text split at single spaces.
const SPLIT: &str = "S";
/// First byte of the block: the arguments follow, each with its length.
const LISTED: &str = "L";

impl NodeText {
    /// [`NodeText::new`] with the words httpd's tokenizer makes of `raw_args`
    /// ([`apache_syntax::words`]). A text without quotes, backslashes or blanks other than
    /// single spaces (most lines) is its words split at spaces: then they are neither
    /// tokenized nor compared.
    pub fn of_line(name: &str, raw_args: &str) -> NodeText {
        NodeText::of_line_in(name, raw_args, None)
    }

    /// [`NodeText::of_line`], the block taken from `shared` when an equal one is there
    /// (the loader's: a big tree repeats most of its lines).
    pub(crate) fn of_line_in(name: &str, raw_args: &str, shared: Option<&mut SharedStrings>) -> NodeText {
        let b = raw_args.as_bytes();
        // Starting "after a space", a leading space reads as a doubled one.
        let mut prev = b' ';
        let plain = b.iter().all(|&c| {
            let ok = !matches!(c, b'"' | b'\'' | b'\\') && !(apache_syntax::is_space(c) && (c != b' ' || prev == b' '));
            prev = c;
            ok
        }) && (b.is_empty() || prev != b' ');
        if !plain {
            return NodeText::new_in(name, raw_args, apache_syntax::words(raw_args), shared);
        }
        with_scratch(|s| {
            write_head(s, name, raw_args);
            NodeText::of_block(s, shared)
        })
    }

    pub fn new<S: AsRef<str>>(name: &str, raw_args: &str, args: impl IntoIterator<Item = S>) -> NodeText {
        NodeText::new_in(name, raw_args, args, None)
    }

    fn new_in<S: AsRef<str>>(
        name: &str,
        raw_args: &str,
        args: impl IntoIterator<Item = S>,
        shared: Option<&mut SharedStrings>,
    ) -> NodeText {
        with_scratch(|s| {
            write_head(s, name, raw_args);
            let listed = s.len();
            // Whether the words so far are `raw_args` up to `at`, joined with single
            // spaces, none of them empty or holding a space: then splitting `raw_args`
            // at each space gives them back.
            let (mut split, mut at) = (true, 0);
            for (i, a) in args.into_iter().enumerate() {
                let a = a.as_ref();
                if split {
                    let mut rest = &raw_args.as_bytes()[at..];
                    if i > 0 {
                        match rest.split_first() {
                            Some((b' ', r)) => rest = r,
                            _ => split = false,
                        }
                    }
                    split = split && !a.is_empty() && rest.starts_with(a.as_bytes()) && !a.contains(' ');
                    at = raw_args.len() - rest.len() + a.len();
                }
                push_len(s, a.len());
                s.push_str(a);
            }
            if split && at == raw_args.len() {
                s.truncate(listed);
            } else {
                s.replace_range(0..1, LISTED);
            }
            NodeText::of_block(s, shared)
        })
    }

    /// The node text of a block: `shared`'s copy of it, else a copy of its own.
    fn of_block(block: &str, shared: Option<&mut SharedStrings>) -> NodeText {
        NodeText(match shared {
            Some(shared) => shared.get(block),
            None => Arc::from(block),
        })
    }

    /// Which block this is: texts with equal identities are one block, the same text (while
    /// both live). Equal texts not shared ([`NodeText::of_line_in`]) have different identities.
    pub(crate) fn identity(&self) -> usize {
        Arc::as_ptr(&self.0).cast::<u8>() as usize
    }

    /// The whole block: two nodes with the same block have the same name, raw arguments
    /// and arguments.
    pub(crate) fn block(&self) -> &str {
        &self.0
    }

    pub fn name(&self) -> &str {
        let (len, at) = read_len(&self.0, 1);
        &self.0[at..at + len]
    }

    /// The name's end: where the raw arguments' length is written.
    fn after_name(&self) -> usize {
        let (len, at) = read_len(&self.0, 1);
        at + len
    }

    pub fn raw_args(&self) -> &str {
        let (len, at) = read_len(&self.0, self.after_name());
        &self.0[at..at + len]
    }

    pub fn args(&self) -> Args<'_> {
        let (len, at) = read_len(&self.0, self.after_name());
        let raw = &self.0[at..at + len];
        if self.0.starts_with(SPLIT) {
            Args::Split((!raw.is_empty()).then_some(raw))
        } else {
            Args::Listed(&self.0[at + len..])
        }
    }
}

impl fmt::Debug for NodeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeText")
            .field("name", &self.name())
            .field("raw_args", &self.raw_args())
            .field("args", &self.args().collect::<Vec<_>>())
            .finish()
    }
}

/// A length in ASCII: six bits per byte, lowest first; bit 6 says more bytes follow.
fn push_len(s: &mut String, mut n: usize) {
    loop {
        let low = (n & 0x3f) as u8;
        n >>= 6;
        if n == 0 {
            s.push(low as char);
            return;
        }
        s.push((low | 0x40) as char);
    }
}

/// The length written at `at`, and where what follows it starts.
#[inline]
fn read_len(s: &str, mut at: usize) -> (usize, usize) {
    let b = s.as_bytes();
    if b[at] & 0x40 == 0 {
        return ((b[at] & 0x3f) as usize, at + 1);
    }
    let (mut n, mut shift) = (0usize, 0);
    loop {
        let byte = b[at];
        at += 1;
        n |= ((byte & 0x3f) as usize) << shift;
        if byte & 0x40 == 0 {
            return (n, at);
        }
        shift += 6;
    }
}

/// A node's arguments, in order; also answers the questions a slice would.
#[derive(Clone)]
pub enum Args<'a> {
    /// The words left are this text split at each space (None: no word left).
    Split(Option<&'a str>),
    /// The words left, each written after its length, to the end of the block.
    Listed(&'a str),
}

impl<'a> Args<'a> {
    pub fn len(&self) -> usize {
        match *self {
            Args::Split(None) => 0,
            Args::Split(Some(rest)) => memchr::memchr_iter(b' ', rest.as_bytes()).count() + 1,
            Args::Listed(_) => self.clone().count(),
        }
    }
    pub fn is_empty(&self) -> bool {
        matches!(self, Args::Split(None) | Args::Listed(""))
    }
    pub fn first(&self) -> Option<&'a str> {
        self.clone().next()
    }
    pub fn get(&self, i: usize) -> Option<&'a str> {
        self.clone().nth(i)
    }
    pub fn join(&self, sep: &str) -> String {
        let mut out = String::new();
        for (i, w) in self.clone().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(w);
        }
        out
    }
    /// The words as owned strings.
    pub fn to_vec<T: for<'s> From<&'s str>>(&self) -> Vec<T> {
        self.clone().map(T::from).collect()
    }
}

impl<'a> Iterator for Args<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        match self {
            Args::Split(rest) => {
                let r = rest.take()?;
                match memchr::memchr(b' ', r.as_bytes()) {
                    Some(i) => {
                        *rest = Some(&r[i + 1..]);
                        Some(&r[..i])
                    }
                    None => Some(r),
                }
            }
            Args::Listed(rest) => {
                if rest.is_empty() {
                    return None;
                }
                let (len, at) = read_len(rest, 0);
                let w = &rest[at..at + len];
                *rest = &rest[at + len..];
                Some(w)
            }
        }
    }
}

impl<'a> IntoIterator for &Args<'a> {
    type Item = &'a str;
    type IntoIter = Args<'a>;
    fn into_iter(self) -> Args<'a> {
        self.clone()
    }
}

impl fmt::Debug for Args<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(name: &str, raw: &str, args: &[&str]) -> NodeText {
        let t = NodeText::new(name, raw, args);
        assert_eq!(t.name(), name);
        assert_eq!(t.raw_args(), raw);
        assert_eq!(t.args().collect::<Vec<_>>(), args);
        assert_eq!(t.args().len(), args.len());
        assert_eq!(t.args().first(), args.first().copied());
        for (i, a) in args.iter().enumerate() {
            assert_eq!(t.args().get(i), Some(*a));
        }
        assert_eq!(t.args().get(args.len()), None);
        t
    }

    #[test]
    fn words_split_from_the_text_are_not_stored_twice() {
        let t = round_trip("Allow", "from 10.0.0.0/8 192.168.1.1", &["from", "10.0.0.0/8", "192.168.1.1"]);
        assert_eq!(t.0.len(), 1 + 1 + 5 + 1 + 27);
        round_trip("Options", "None", &["None"]);
        round_trip("Directory", "", &[]);
    }

    #[test]
    fn words_that_differ_from_the_text_are_listed() {
        round_trip("Header", r#"set X-A "a b""#, &["set", "X-A", "a b"]);
        round_trip("DocumentRoot", r#""/srv/www""#, &["/srv/www"]);
        round_trip("Alias", "/a  /b", &["/a", "/b"]);
        round_trip("X", r#""""#, &[""]);
        round_trip("X", "a", &[]);
        round_trip("Requíre", "ho\u{a0}st é", &["ho\u{a0}st", "é"]);
    }

    proptest::proptest! {
        /// Whatever the line, a node gives back the words httpd's tokenizer makes of it,
        /// split again from the text or listed.
        #[test]
        fn words_read_back_are_the_tokenizer_s(raw in "[ a-zA-Z\"'\\\\\t\u{e9}\u{a0}\u{1F600}=:/-]{0,40}") {
            let words: Vec<String> = apache_syntax::words(&raw).map(|w| w.into_owned()).collect();
            let t = NodeText::new("Name", &raw, &words);
            proptest::prop_assert_eq!(t.raw_args(), raw.as_str());
            proptest::prop_assert_eq!(t.args().collect::<Vec<_>>(), words.iter().map(String::as_str).collect::<Vec<_>>());
            proptest::prop_assert_eq!(t.args().len(), words.len());
            // The words of the line itself: the same block, however it is made.
            proptest::prop_assert_eq!(NodeText::of_line("Name", &raw), t);
        }
    }

    /// A big configuration holds close to a million nodes: their size is a budget (56 bytes).
    #[test]
    fn a_node_stays_small() {
        assert!(std::mem::size_of::<super::super::Node>() <= 56, "{}", std::mem::size_of::<super::super::Node>());
        assert_eq!(std::mem::size_of::<NodeText>(), 16);
    }

    #[test]
    fn plain_lines_are_split_at_spaces() {
        for raw in ["", "a", "from 10.0.0.0/8 192.168.1.1", "a  b", " a", "a ", "a\tb", "\"a b\"", "é\u{a0}x"] {
            let words: Vec<_> = apache_syntax::words(raw).collect();
            assert_eq!(NodeText::of_line("Allow", raw), NodeText::new("Allow", raw, &words), "{raw:?}");
        }
        for n in [0, 63, 64, 4095, 4096, 70_000] {
            let mut s = String::from("x");
            push_len(&mut s, n);
            assert_eq!(read_len(&s, 1), (n, s.len()));
        }
    }

    #[test]
    fn long_texts_keep_their_lengths() {
        let long = "x".repeat(70_000);
        let words: Vec<String> = (0..5000).map(|i| format!("w{i}")).collect();
        round_trip(&long, &long, &[long.as_str()]);
        let raw = words.join(" ");
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        round_trip("Many", &raw, &refs);
        round_trip("Many", &format!("{raw} "), &refs);
    }
}

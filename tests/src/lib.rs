//! Shared helpers for end-to-end tests.

pub mod differential;
pub mod explain;
pub mod httpd;
pub mod lsp;

/// A small deterministic pseudo-random sequence (xorshift64) for generated test inputs.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

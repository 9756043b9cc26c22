// Millions of small, short-lived allocations from several threads (check, migrate): glibc
// malloc spent about a quarter of `check`'s time in the allocator; mimalloc is faster and
// keeps less memory per thread.
#[global_allocator]
static GLOBAL: Mimalloc = Mimalloc;

/// mimalloc as the `mimalloc` crate installs it, except that a layout aligned to at most 8
/// bytes (nearly every one) takes the plain entry points: every mimalloc block is aligned to 8,
/// and the aligned entry points check the alignment of the free block on each call.
struct Mimalloc;

/// Alignment every mimalloc block has (`MI_INTPTR_SIZE`).
const MI_BLOCK_ALIGN: usize = 8;

type Plain = unsafe extern "C" fn(usize) -> *mut std::ffi::c_void;
type Aligned = unsafe extern "C" fn(usize, usize) -> *mut std::ffi::c_void;

/// `plain(size)` when every block has the layout's alignment, else `aligned(size, align)`.
///
/// # Safety
/// As the two functions'.
unsafe fn by_alignment(layout: std::alloc::Layout, plain: Plain, aligned: Aligned) -> *mut u8 {
    // SAFETY: the caller's.
    unsafe {
        if layout.align() <= MI_BLOCK_ALIGN {
            plain(layout.size()).cast()
        } else {
            aligned(layout.size(), layout.align()).cast()
        }
    }
}

// SAFETY: each function forwards to the mimalloc function that meets `GlobalAlloc`'s contract
// for the layout: the plain ones only where the alignment asked for is one every block has.
unsafe impl std::alloc::GlobalAlloc for Mimalloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe { by_alignment(layout, libmimalloc_sys::mi_malloc, libmimalloc_sys::mi_malloc_aligned) }
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe { by_alignment(layout, libmimalloc_sys::mi_zalloc, libmimalloc_sys::mi_zalloc_aligned) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from mimalloc (this allocator).
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        use libmimalloc_sys::{mi_realloc, mi_realloc_aligned};
        // SAFETY: see the impl; `ptr` came from this allocator with `layout`.
        unsafe {
            if layout.align() <= MI_BLOCK_ALIGN {
                mi_realloc(ptr.cast(), new_size).cast()
            } else {
                mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

/// `mi_option_purge_delay` in mimalloc.h (the crate names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() {
    // mimalloc 3 gives freed pages back to the system a second after they empty. A batch
    // command over a big tree frees and refills tens of megabytes between its phases
    // within that second, so its peak held them twice: for `check` of 10 000 virtual
    // hosts, 10 ms lowers the peak by about 12 MB at the same speed (alternating runs).
    // The language server keeps the default: purging pages between keystrokes made an
    // edit's reparse fault them in again (edit stage 0.3 -> 0.9 ms in `bench lsp`).
    let batch = std::env::args_os().nth(1).is_some_and(|a| a == "check" || a == "migrate" || a == "explain");
    if batch {
        // SAFETY: sets a plain integer option; mimalloc reads options atomically.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 10) };
    }
    // Logs go to stderr; stdout belongs to the protocol.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("APACHE_LSP_LOG"))
        .init();
    // The main thread's stack is whatever the environment gave it: run on our own.
    let code = std::thread::Builder::new()
        .stack_size(apache_lsp::STACK_SIZE)
        .spawn(apache_lsp::cli::main)
        .and_then(|t| t.join().map_err(|_| std::io::Error::other("panic")))
        .unwrap_or(101);
    std::process::exit(code);
}

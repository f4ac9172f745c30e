//! A one-line message instead of a crash when a mapped file shrinks while it is checked.
//!
//! Reading a page of a mapping that lies past the end of its file raises `SIGBUS`, whose
//! default action kills the process with a core dump ("Bus error"). It happens only when
//! another process truncates a file while it is checked. While a mapping is checked, a
//! [`Watch`] records its address range and the input's name; the handler, if the faulting
//! address is in that range, writes `utf8check: NAME: shrank while being checked ...` and
//! exits with status 2. Any other `SIGBUS` gets the default action.

use std::marker::PhantomData;

/// Routes `SIGBUS` to the handler. Call once, before any mapping is checked.
pub fn install() {
    #[cfg(unix)]
    imp::install();
}

/// Watches a mapping while it is checked: a `SIGBUS` in it ends the program with a
/// message that names the input.
pub struct Watch<'a> {
    /// The handler reads the name until the watch is dropped.
    _name: PhantomData<&'a str>,
}

impl<'a> Watch<'a> {
    pub fn new(map: &'a [u8], name: &'a str) -> Watch<'a> {
        #[cfg(unix)]
        imp::watch(map, name);
        #[cfg(not(unix))]
        let _ = (map, name);
        Watch { _name: PhantomData }
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        #[cfg(unix)]
        imp::unwatch();
    }
}

#[cfg(unix)]
mod imp {
    use std::ffi::{c_int, c_void};
    use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

    /// The watched mapping's address range (`START == END` when none) and name.
    static START: AtomicUsize = AtomicUsize::new(0);
    static END: AtomicUsize = AtomicUsize::new(0);
    static NAME: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
    static NAME_LEN: AtomicUsize = AtomicUsize::new(0);
    /// Set by the first handler that reports: the threads of a parallel check can fault
    /// in the same mapping at once, and their messages would be interleaved.
    static REPORTING: AtomicBool = AtomicBool::new(false);

    pub fn install() {
        // SAFETY: `action` is zero-initialized (a valid `sigaction`) and then given a
        // handler with the `SA_SIGINFO` signature; `sigemptyset` and `sigaction` only
        // read and write it. The handler is async-signal-safe (see `handler`). If the
        // call fails, `SIGBUS` simply keeps its default action.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    }

    pub fn watch(map: &[u8], name: &str) {
        NAME.store(name.as_ptr().cast_mut(), Ordering::Relaxed);
        NAME_LEN.store(name.len(), Ordering::Relaxed);
        let start = map.as_ptr() as usize;
        START.store(start, Ordering::Relaxed);
        // Release: a handler that sees the range also sees the name.
        END.store(start + map.len(), Ordering::Release);
    }

    pub fn unwatch() {
        END.store(0, Ordering::Relaxed);
        START.store(0, Ordering::Relaxed);
    }

    /// Uses only atomics, `write`, `pause` and `_exit`, which are async-signal-safe.
    extern "C" fn handler(_signal: c_int, info: *mut libc::siginfo_t, _context: *mut c_void) {
        // SAFETY: with `SA_SIGINFO`, the kernel passes a valid `siginfo_t`.
        let address = unsafe { (*info).si_addr() } as usize;
        let end = END.load(Ordering::Acquire);
        let start = START.load(Ordering::Relaxed);
        if (start..end).contains(&address) {
            if REPORTING.swap(true, Ordering::Relaxed) {
                // Another thread is writing the message and ending the process.
                loop {
                    // SAFETY: `pause` only waits for a signal.
                    unsafe { libc::pause() };
                }
            }
            let name = NAME.load(Ordering::Relaxed);
            let len = NAME_LEN.load(Ordering::Relaxed);
            // SAFETY: `watch` stored a `&str` that its `Watch` borrows, and the range is
            // only set while that `Watch` lives.
            let name = unsafe { std::slice::from_raw_parts(name, len) };
            write_all(b"utf8check: ");
            write_all(name);
            write_all(b": shrank while being checked (SIGBUS); use --no-mmap for files that are still being written\n");
            // SAFETY: `_exit` ends the process at once, which is what is wanted here.
            unsafe { libc::_exit(2) };
        }
        // Not a watched mapping: restore the default action; returning runs the faulting
        // instruction again, which now ends the process as if there were no handler.
        // SAFETY: `signal` with `SIG_DFL` is async-signal-safe.
        unsafe { libc::signal(libc::SIGBUS, libc::SIG_DFL) };
    }

    /// Writes `bytes` to standard error, giving up on an error.
    fn write_all(mut bytes: &[u8]) {
        while !bytes.is_empty() {
            // SAFETY: `bytes` is a valid buffer of `bytes.len()` bytes.
            let written = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
            if written <= 0 {
                return;
            }
            bytes = &bytes[written as usize..];
        }
    }
}

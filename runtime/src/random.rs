//! Bytes from the operating system's random number generator: bearer tokens, session ids,
//! the `requestState` key, the config file's private directory name.
//!
//! On Linux and Android, the `getrandom(2)` system call (libc is already a dependency), and
//! `/dev/urandom` on a kernel older than 3.17 that lacks it; elsewhere the `getrandom`
//! crate. That crate cost every user's clean build about 0.25 s of CPU (its build script
//! and `cfg-if`; bench/findings.md, "clean dev build") for this one call.

/// Fill `buf` with random bytes from the OS, blocking until its generator is seeded.
///
/// # Panics
///
/// If the OS has no random number generator to give: no secret can be made without one.
pub(crate) fn fill(buf: &mut [u8]) {
    if let Err(e) = os_fill(buf) {
        panic!("the OS random number generator is unavailable: {e}");
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn os_fill(buf: &mut [u8]) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind, Read};
    let mut filled = 0;
    while filled < buf.len() {
        let rest = &mut buf[filled..];
        // SAFETY: `rest` is a live, exclusively borrowed byte buffer of `rest.len()` bytes,
        // and `getrandom` writes at most that many bytes into it; flags 0 asks for the
        // urandom source, blocking only until it is first seeded.
        #[allow(unsafe_code)]
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        match usize::try_from(n) {
            Ok(n) => filled += n,
            Err(_) => {
                let e = Error::last_os_error();
                match e.kind() {
                    ErrorKind::Interrupted => {}
                    _ if e.raw_os_error() == Some(libc::ENOSYS) => {
                        return std::fs::File::open("/dev/urandom")?.read_exact(rest);
                    }
                    _ => return Err(e),
                }
            }
        }
    }
    Ok(())
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn os_fill(buf: &mut [u8]) -> std::io::Result<()> {
    getrandom::fill(buf).map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_every_byte_and_never_the_same_way_twice() {
        // 4 KiB in one call (more than one `getrandom` read may return on some kernels).
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        fill(&mut a);
        fill(&mut b);
        assert_ne!(a, b);
        // Every byte written: a zero run of 64 bytes in 4 KiB of random data has odds
        // of about 2^-500.
        assert!(a.windows(64).all(|w| w.iter().any(|&x| x != 0)));
        fill(&mut []);
    }
}

//! Bytes searched eight at a time, as one `u64` ("SIMD within a register").
//!
//! For text of a few dozen bytes (a request head's lines, the handshake's lines, the runs
//! of a JSON string between escapes) a `memchr` call's set-up costs more than its search,
//! and `memchr`'s first call in a process also probes the CPU's features (`cpuid`, which
//! exits to the hypervisor in a VM: bench/findings.md, session 20). These need neither.
//!
//! Each mask flags a byte by its high bit. A borrow can flag a byte wrongly, but only one
//! above (later than) a byte rightly flagged: a mask's lowest flag is always exact, and
//! whether it is zero is always exact.

/// `0x01` in every byte.
const ONES: u64 = u64::from_le_bytes([1; 8]);
/// `0x80` in every byte.
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// The eight bytes at the start of `chunk`, first byte lowest.
pub fn word(chunk: &[u8; 8]) -> u64 {
    u64::from_le_bytes(*chunk)
}

/// `byte` in every byte of a word.
pub const fn splat(byte: u8) -> u64 {
    ONES * byte as u64
}

/// The bytes of `w` equal to zero.
pub fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGHS
}

/// The bytes of `w` equal to zero, every one flagged exactly (no borrow crosses bytes): for
/// walking every match in a word, where [`zero_bytes`] is exact only about the first.
#[cfg(feature = "http")]
pub fn zero_bytes_exact(w: u64) -> u64 {
    const LOWS: u64 = !HIGHS;
    !(((w & LOWS) + LOWS) | w) & HIGHS
}

/// The bytes of `w` below `n` (at most `0x80`).
pub fn bytes_below(w: u64, n: u8) -> u64 {
    w.wrapping_sub(splat(n)) & !w & HIGHS
}

/// Where the first `needle` in `bytes` is.
pub fn find(bytes: &[u8], needle: u8) -> Option<usize> {
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut words {
        let found = zero_bytes(word(chunk.try_into().expect("chunks_exact gives 8 bytes")) ^ splat(needle));
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    words.remainder().iter().position(|&b| b == needle).map(|i| at + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_gives_the_first_match_wherever_it_lies() {
        // Every position in and past a word, with and without a later match, among bytes
        // one step either side of the needle and high bytes that a borrow could flag.
        for len in 0..40 {
            for at in 0..len {
                for filler in [b'a', 0x09, 0x0b, 0x8a, 0xff, 0x00] {
                    let mut bytes = vec![filler; len];
                    bytes[at] = b'\n';
                    if at + 3 < len {
                        bytes[at + 3] = b'\n';
                    }
                    assert_eq!(find(&bytes, b'\n'), Some(at), "len {len}, at {at}, filler {filler:#x}");
                }
            }
            assert_eq!(find(&vec![b'x'; len], b'\n'), None);
        }
    }

    #[test]
    #[cfg(feature = "http")]
    fn zero_bytes_exact_flags_every_zero_byte_and_no_other() {
        for bits in 0..=255u8 {
            for other in [0x01u8, 0x80, 0xff, 0x7f, 0x0a] {
                let chunk: [u8; 8] = std::array::from_fn(|i| if bits & (1 << i) != 0 { 0 } else { other });
                let expected: u64 = (0..8).filter(|i| bits & (1 << i) != 0).map(|i| 0x80u64 << (8 * i)).sum();
                assert_eq!(zero_bytes_exact(word(&chunk)), expected, "zeros {bits:#010b} among {other:#x}");
            }
        }
    }

    #[test]
    fn bytes_below_says_whether_any_byte_is_below() {
        for at in 0..8 {
            for b in [0x00u8, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff] {
                let mut chunk = [b'a'; 8];
                chunk[at] = b;
                assert_eq!(bytes_below(word(&chunk), 0x20) != 0, b < 0x20, "byte {b:#x} at {at}");
            }
        }
    }
}

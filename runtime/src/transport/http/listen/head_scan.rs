//! Whether a request head names both `Content-Length` and `Transfer-Encoding`, read from the
//! socket's bytes as they arrive (hyper drops one of the two before the router could see
//! both, and a request framed both ways is refused: RFC 9112 §6.3, request smuggling).
//!
//! The reading, the same however the head is split between reads: a line ends at `\n`; a
//! `\r` anywhere in a line is skipped; a line that is empty once its `\r`s are skipped ends
//! the head; a line names a header when it starts with the name and its colon, in any case.
//! [`reference`] says exactly that a line at a time, and the fuzz target `head_scan` holds
//! [`HeadScan`] to it on heads split at any points.
//!
//! [`HeadScan`] reads most bytes eight at a time: the lines whose first byte is not the first
//! letter of either name (`Host`, `Accept`, the request line) are passed over by their line
//! ends, every line end of a word found at once (`next_line`), and a line that starts with
//! one is compared with that name a word at a time (`starts_with_name`); a byte at a time
//! only when a read ends inside the name or a `\r` lies in it. Measured with callgrind on
//! the bench's stateless request (a 244-byte head of eight lines): about 910 instructions a
//! head, against about 1,220 for the line-at-a-time scan this replaced (bench/findings.md,
//! session 25, says how that figure was derived).

use crate::swar;

/// The two framing headers looked for.
#[derive(Clone, Copy)]
enum Header {
    ContentLength,
    TransferEncoding,
}

impl Header {
    /// The name and its colon, as a line naming it starts (its letters in either case).
    const fn text(self) -> &'static [u8] {
        match self {
            Header::ContentLength => b"content-length:",
            Header::TransferEncoding => b"transfer-encoding:",
        }
    }
}

/// What a request head named, once it has ended.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Framing {
    pub(crate) content_length: bool,
    pub(crate) transfer_encoding: bool,
}

/// A request head read so far.
#[derive(Default)]
pub(crate) struct HeadScan {
    at: Place,
    named: Framing,
}

/// Where in its line the scan is.
#[derive(Default, Clone, Copy)]
enum Place {
    /// At a line's start: no byte but `\r` read in it yet.
    #[default]
    LineStart,
    /// In a line whose first byte is `header`'s, `matched` bytes of its name matched so far.
    Naming { header: Header, matched: u8 },
    /// In a line that names neither header: only its end matters.
    Skipping,
}

impl HeadScan {
    /// Reads the next bytes of the head: what it named once it has ended (in these bytes),
    /// `None` while it goes on. Bytes after the head's end are not read.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Option<Framing> {
        let mut rest = bytes;
        loop {
            match self.at {
                Place::Skipping => {
                    rest = &rest[next_line(rest)?..];
                    self.at = Place::LineStart;
                }
                Place::LineStart => {
                    let (&b, after) = rest.split_first()?;
                    let header = match b {
                        b'\n' => return Some(self.named),
                        b'\r' => {
                            rest = after;
                            continue;
                        }
                        b'c' | b'C' => Header::ContentLength,
                        b't' | b'T' => Header::TransferEncoding,
                        _ => {
                            rest = after;
                            self.at = Place::Skipping;
                            continue;
                        }
                    };
                    // The whole name at once where it can be told here; else a byte at a time.
                    self.at = match starts_with_name(rest, header.text()) {
                        Some(true) => {
                            self.mark(header);
                            rest = &rest[header.text().len()..];
                            Place::Skipping
                        }
                        Some(false) => {
                            rest = after;
                            Place::Skipping
                        }
                        None => {
                            rest = after;
                            Place::Naming { header, matched: 1 }
                        }
                    };
                }
                Place::Naming { header, matched } => {
                    let name = header.text();
                    let (&b, after) = rest.split_first()?;
                    rest = after;
                    self.at = match b {
                        b'\n' => Place::LineStart,
                        b'\r' => continue,
                        _ if b.to_ascii_lowercase() != name[usize::from(matched)] => Place::Skipping,
                        _ if usize::from(matched) + 1 < name.len() => {
                            Place::Naming { header, matched: matched + 1 }
                        }
                        _ => {
                            self.mark(header);
                            Place::Skipping
                        }
                    };
                }
            }
        }
    }

    /// The line named `header`.
    fn mark(&mut self, header: Header) {
        match header {
            Header::ContentLength => self.named.content_length = true,
            Header::TransferEncoding => self.named.transfer_encoding = true,
        }
    }
}

/// Where in `bytes` the first line after the current one starts that may matter: one whose
/// first byte may end the head or start a name, or one that starts where `bytes` end (its
/// first byte is still to come). `None` if `bytes` end inside a line that does not matter.
/// The line ends are found eight bytes at a time, and every one in a word is looked at
/// without leaving it: a line that starts with anything else is passed over in a few
/// instructions.
fn next_line(bytes: &[u8]) -> Option<usize> {
    let matters = |start: usize| match bytes.get(start) {
        None => true,
        Some(&b) => matches!(b, b'\n' | b'\r' | b'c' | b'C' | b't' | b'T'),
    };
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut words {
        let w = swar::word(chunk.try_into().expect("chunks_exact gives 8 bytes"));
        let mut ends = swar::zero_bytes_exact(w ^ swar::splat(b'\n'));
        while ends != 0 {
            let start = at + ends.trailing_zeros() as usize / 8 + 1;
            if matters(start) {
                return Some(start);
            }
            ends &= ends - 1;
        }
        at += 8;
    }
    let tail = words.remainder().iter().enumerate().filter(|&(_, &b)| b == b'\n');
    tail.map(|(i, _)| at + i + 1).find(|&start| matters(start))
}

/// Whether `bytes` start with `name` (lowercase letters, `-` and `:`, 8 to 24 bytes), its
/// letters in either case, compared a word at a time; `None` when these bytes cannot tell:
/// too few of them, or a `\r` among the name's first bytes that does not match it, which
/// the reading skips.
fn starts_with_name(bytes: &[u8], name: &[u8]) -> Option<bool> {
    let span = bytes.get(..name.len())?;
    // Three words, the last ending at the name's end (overlapping those before it).
    let (mut differs, mut returns) = (0, 0);
    for at in [0, 8.min(name.len() - 8), name.len() - 8] {
        let w = swar::word(span[at..at + 8].try_into().expect("eight bytes"));
        let n = swar::word(name[at..at + 8].try_into().expect("eight bytes"));
        // A byte may differ from the name's only by 0x20, and only where the name has a
        // letter (0x60 and up; `-` and `:` are below): that byte is the letter's capital.
        let letters = (n >> 1) & swar::splat(0x20);
        differs |= (w ^ n) & !letters;
        returns |= swar::zero_bytes(w ^ swar::splat(b'\r'));
    }
    match (differs, returns) {
        (0, _) => Some(true),
        (_, 0) => Some(false),
        _ => None,
    }
}

/// The reading [`HeadScan`] must give, a whole head at a time and a line at a time: what
/// `head` named if a line of it ended the head, `None` if none did.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn reference(head: &[u8]) -> Option<Framing> {
    let mut named = Framing::default();
    for line in head.split_inclusive(|&b| b == b'\n').filter(|l| l.ends_with(b"\n")) {
        let line: Vec<u8> =
            line.iter().filter(|&&b| b != b'\r' && b != b'\n').map(u8::to_ascii_lowercase).collect();
        if line.is_empty() {
            return Some(named);
        }
        named.content_length |= line.starts_with(Header::ContentLength.text());
        named.transfer_encoding |= line.starts_with(Header::TransferEncoding.text());
    }
    None
}

/// [`HeadScan`] fed `head` in pieces cut at `cuts` (positions, in order, each at most
/// `head.len()`), until it says the head ended.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn scan_in_pieces(head: &[u8], cuts: &[usize]) -> Option<Framing> {
    let mut scan = HeadScan::default();
    let mut from = 0;
    for &to in cuts.iter().chain([&head.len()]) {
        if let Some(named) = scan.feed(&head[from..to]) {
            return Some(named);
        }
        from = to;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: Framing = Framing { content_length: true, transfer_encoding: true };

    #[test]
    fn the_head_scan_sees_both_framing_headers() {
        let mut scan = HeadScan::default();
        assert_eq!(scan.feed(b"POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-"), None);
        assert_eq!(scan.feed(b"Encoding: chunked\r\n\r\nabc"), Some(BOTH));
        let te = Framing { content_length: false, transfer_encoding: true };
        assert_eq!(
            scan_in_pieces(b"POST / HTTP/1.1\nX-Content-Length: 3\nTransfer-Encoding: chunked\n\n", &[]),
            Some(te)
        );
        // The names in any case; a line that only starts with a name's letter is not it.
        let head = b"POST / HTTP/1.1\r\nTE: x\r\ncontent-length: 3\r\nTRANSFER-ENCODING: chunked\r\n\r\n";
        assert_eq!(scan_in_pieces(head, &[]), Some(BOTH));
        let head = b"POST / HTTP/1.1\r\nContent-Type: a\r\nTrailer: b\r\nContent-Lengt: 3\r\n\r\n";
        assert_eq!(scan_in_pieces(head, &[]), Some(Framing::default()));
        // A name without its colon is another header's name.
        let head = b"POST / HTTP/1.1\r\nContent-Length-X: 3\r\nTransfer-Encoding : chunked\r\n\r\n";
        assert_eq!(scan_in_pieces(head, &[]), Some(Framing::default()));
    }

    #[test]
    fn the_head_scan_reads_as_the_reference_however_the_head_is_split() {
        let heads: [&[u8]; 7] = [
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc",
            b"POST /mcp HTTP/1.1\r\nX-A-Very-Long-Header-Name-Indeed: 1\r\nCONTENT-LENGTH: 3\r\n\r\n",
            b"POST /mcp HTTP/1.1\r\nTrans\rfer-Encoding: chunked\r\n\r\r\n",
            b"POST /mcp HTTP/1.1\r\nHost: x\r\n",
            b"POST /mcp HTTP/1.1\r\nHo\rst: x\r\n\rContent-Length: 3\r\n\r\n",
            b"\r\n",
            b"",
        ];
        for head in heads {
            let expected = reference(head);
            for at in 0..=head.len() {
                for then in at..=head.len() {
                    assert_eq!(
                        scan_in_pieces(head, &[at, then]),
                        expected,
                        "{head:?} cut at {at} and {then}"
                    );
                }
            }
        }
        let te = Framing { content_length: false, transfer_encoding: true };
        assert_eq!(
            reference(heads[2]),
            Some(te),
            "\\r inside a line is skipped, and a line of only \\r ends the head"
        );
        assert_eq!(reference(heads[3]), None);
        let cl = Framing { content_length: true, transfer_encoding: false };
        assert_eq!(reference(heads[4]), Some(cl), "a leading \\r is skipped");
        assert_eq!(reference(heads[5]), Some(Framing::default()));
    }

    #[test]
    fn bytes_after_the_head_are_not_read() {
        let mut scan = HeadScan::default();
        assert_eq!(
            scan.feed(b"GET / HTTP/1.1\r\n\r\nContent-Length: 1\r\nTransfer-Encoding: x\r\n"),
            Some(Framing::default())
        );
    }
}

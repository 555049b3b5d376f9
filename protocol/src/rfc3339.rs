//! RFC 3339 timestamps in UTC with microseconds, written by hand: a log line's (a log line is
//! written before a stdio server's first answer, and `fmt`'s padding costs more than the rest of
//! the line) and a task's `createdAt` and `lastUpdatedAt` (the tasks extension).

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

/// `t` as RFC 3339 in UTC with microseconds: `2026-12-02T18:48:57.123456Z`.
pub fn timestamp(out: &mut String, t: SystemTime) {
    let (secs, nanos) = match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            match d.subsec_nanos() {
                0 => (-(d.as_secs() as i64), 0),
                n => (-(d.as_secs() as i64) - 1, 1_000_000_000 - n),
            }
        }
    };
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    if (0..=9999).contains(&year) {
        digits(out, year as u32, 4);
    } else {
        let _ = if year > 9999 { write!(out, "+{year}") } else { write!(out, "{year:05}") };
    }
    // By hand rather than `{:02}`: a log line is written before the first answer, and
    // `fmt`'s padding costs more than the rest of the line.
    for (sep, n, width) in [
        ('-', month, 2),
        ('-', day, 2),
        ('T', (rem / 3600) as u32, 2),
        (':', (rem / 60 % 60) as u32, 2),
        (':', (rem % 60) as u32, 2),
        ('.', nanos / 1_000, 6),
    ] {
        out.push(sep);
        digits(out, n, width);
    }
    out.push('Z');
}

/// `n` in decimal, zero-padded to `width` digits (`n` has at most `width`).
fn digits(out: &mut String, mut n: u32, width: usize) {
    let mut buf = [b'0'; 10];
    for at in (0..width).rev() {
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    out.extend(buf[..width].iter().map(|&b| char::from(b)));
}

/// The proleptic Gregorian (year, month, day) of a count of days since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

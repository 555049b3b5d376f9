//! Reading a `text/event-stream` body: [`SseParser`] turns chunks into [`Event`]s as the SSE
//! standard says, and [`Cursor`] is where a stream stands, for resuming it.
//!
//! - Lines end in CRLF, LF or a lone CR; a CR at the end of one chunk and an LF at the start
//!   of the next are one line end.
//! - A blank line ends an event. A field without a colon has an empty value, one space after
//!   the colon is dropped, lines starting with a colon are comments, an `id` containing NUL
//!   and a `retry` that is not all digits are ignored.
//! - Each byte is scanned once: complete lines are consumed as they arrive, and only the
//!   current, unterminated line is kept between chunks.

use std::time::Duration;

/// Where an SSE stream stands, for resuming it: the last event id and `retry` it carried.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Cursor {
    /// The last `id` (an empty `id` clears it, as in the SSE standard).
    pub(super) last_id: Option<String>,
    pub(super) retry: Option<Duration>,
}

impl Cursor {
    /// The last event id, unless none was given or it was cleared.
    pub(super) fn last_id(&self) -> Option<&str> {
        self.last_id.as_deref().filter(|id| !id.is_empty())
    }

    /// Record what `event` says about the stream.
    pub(super) fn advance(&mut self, event: &Event) {
        if let Some(id) = &event.id {
            self.last_id = Some(id.clone());
        }
        if let Some(retry) = event.retry {
            self.retry = Some(retry);
        }
    }
}

/// One SSE event's fields that matter here.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Event {
    /// The joined `data` lines; `None` when there are none or they are blank (a priming event).
    pub(super) data: Option<String>,
    /// The `event` type, when the event named one (the 2024-11-05 transport's `endpoint`).
    pub(super) event: Option<String>,
    pub(super) id: Option<String>,
    pub(super) retry: Option<Duration>,
}

/// An incremental SSE parser: feed it chunks, take events.
#[derive(Debug, Default)]
pub(super) struct SseParser {
    /// The current line, not yet terminated.
    line: Vec<u8>,
    /// The last line ended in CR: an LF that follows belongs to that line end.
    after_cr: bool,
    /// The current event's `data` lines, joined with LF.
    data: Option<String>,
    /// The current event's fields other than `data`.
    event: Event,
}

impl SseParser {
    /// Read `chunk`, calling `on_event` for each event it completes.
    pub(super) fn feed(&mut self, chunk: &[u8], mut on_event: impl FnMut(Event)) {
        let mut rest = chunk;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if let Some(tail) = rest.strip_prefix(b"\n") {
                rest = tail;
            }
        }
        while let Some(end) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            self.line.extend_from_slice(&rest[..end]);
            if rest[end] == b'\r' {
                match rest.get(end + 1) {
                    Some(b'\n') => rest = &rest[end + 2..],
                    Some(_) => rest = &rest[end + 1..],
                    None => {
                        self.after_cr = true;
                        rest = &[];
                    }
                }
            } else {
                rest = &rest[end + 1..];
            }
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.line_done(&line) {
                on_event(event);
            }
            self.line = line;
            self.line.clear();
        }
        self.line.extend_from_slice(rest);
    }

    /// One complete line; the finished event when it was blank.
    fn line_done(&mut self, line: &[u8]) -> Option<Event> {
        if line.is_empty() {
            let mut event = std::mem::take(&mut self.event);
            event.data = self.data.take().filter(|d| !d.trim().is_empty());
            return Some(event);
        }
        if line.starts_with(b":") {
            return None;
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (&*line, ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            "event" => self.event.event = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.event.id = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.event.retry = value.parse().ok().map(Duration::from_millis);
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event in `chunks`, fed one chunk at a time.
    fn events(chunks: &[&[u8]]) -> Vec<Event> {
        let mut parser = SseParser::default();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.feed(chunk, |e| out.push(e));
        }
        out
    }

    fn data(d: &str) -> Event {
        Event { data: Some(d.into()), ..Event::default() }
    }

    #[test]
    fn events_split_and_priming_events_are_skipped() {
        let got = events(&[b"id: 1\ndata:\n\nevent: message\ndata: {\"a\":1}\r\n\r\nrest"]);
        let message = Event { event: Some("message".into()), ..data("{\"a\":1}") };
        assert_eq!(got, [Event { id: Some("1".into()), ..Event::default() }, message]);
        assert_eq!(events(&[b"data: a\ndata: b\n\n"]), [data("a\nb")]);
        // An event the stream never ends is not dispatched.
        assert_eq!(events(&[b"data: a\ndata: b"]), []);
    }

    #[test]
    fn every_line_ending_counts_including_a_lone_cr() {
        let want = [data("a\nb"), data("c")];
        for text in [
            &b"data: a\ndata: b\n\ndata: c\n\n"[..],
            b"data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n",
            b"data: a\rdata: b\r\rdata: c\r\r",
            b"data: a\rdata: b\n\r\ndata: c\r\n\n",
        ] {
            assert_eq!(events(&[text]), want, "{:?}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn an_event_split_at_every_byte_boundary_reads_the_same() {
        let text: &[u8] =
            b": comment\r\nid: 7\rretry: 250\r\ndata: {\"x\":\"\xc3\xa9\"}\ndata:\r\r\ndata: two\n\n";
        let whole = events(&[text]);
        assert_eq!(
            whole,
            [
                Event {
                    data: Some("{\"x\":\"é\"}\n".into()),
                    id: Some("7".into()),
                    retry: Some(Duration::from_millis(250)),
                    ..Event::default()
                },
                data("two"),
            ]
        );
        for i in 0..=text.len() {
            assert_eq!(events(&[&text[..i], &text[i..]]), whole, "split at {i}");
            for j in i..=text.len() {
                assert_eq!(events(&[&text[..i], &text[i..j], &text[j..]]), whole, "split at {i} and {j}");
            }
        }
        let bytes: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(events(&bytes), whole);
    }

    #[test]
    fn ids_and_retry_are_read_as_the_standard_says() {
        let priming = events(&[b"id: event-1\nretry: 500\ndata: \n\n"]);
        assert_eq!(
            priming,
            [Event {
                data: None,
                id: Some("event-1".into()),
                retry: Some(Duration::from_millis(500)),
                ..Event::default()
            }]
        );
        // No space after the colon, a comment, a bare `id` (which clears the last id).
        assert_eq!(events(&[b": hi\nid:7\nretry:20\n\n"])[0].id.as_deref(), Some("7"));
        assert_eq!(events(&[b"id\n\n"])[0].id.as_deref(), Some(""));
        let mut cursor = Cursor { last_id: Some("3".into()), retry: None };
        cursor.advance(&events(&[b"id\n\n"])[0]);
        assert_eq!(cursor.last_id(), None);
        // A retry that is not all digits, and an id with NUL, are ignored.
        assert_eq!(events(&[b"retry: 1.5\nretry: -3\nretry:\n\n"])[0].retry, None);
        assert_eq!(events(&[b"id: a\0b\n\n"])[0].id, None);
    }
}

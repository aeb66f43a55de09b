//! The text log line, written with fewer formatter calls.
//!
//! At the default `info` every request writes one line, and
//! tracing-subscriber's text format cost a sixth of a request's
//! instructions: each field name, `=`, brace and colon went through a
//! colour style's `Display` even with colour off, and the timestamp
//! through seven padded integer formats (docs/benchmarks.md, "The records
//! checked as bytes, the log line written plainly"). [`TextLine`] and
//! [`TextFields`] write the same line, byte for byte, as that format does
//! without colour and without targets (the
//! `a_line_is_what_tracing_subscribers_text_format_writes` test holds them
//! to it): a value is still written with its `Debug`, as there, but names,
//! punctuation, numbers, plain strings and the time are copied as they are.
//! Coloured output, for a terminal, stays tracing-subscriber's own.

use std::fmt::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::field::{RecordFields, VisitOutput};
use tracing_subscriber::fmt::format::{DefaultVisitor, Writer};
use tracing_subscriber::fmt::time::FormatTime;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

/// A line as tracing-subscriber's `Full` format writes it without colour
/// or target: the time, the level, each span from the root with its fields,
/// then the event's fields, the message first.
pub struct TextLine;

impl<S, N> FormatEvent<S, N> for TextLine
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        write_time(&mut writer, SystemTime::now())?;
        writer.write_str(match *event.metadata().level() {
            Level::TRACE => "TRACE ",
            Level::DEBUG => "DEBUG ",
            Level::INFO => " INFO ",
            Level::WARN => " WARN ",
            Level::ERROR => "ERROR ",
        })?;
        if let Some(scope) = ctx.event_scope() {
            let mut seen = false;
            for span in scope.from_root() {
                writer.write_str(span.metadata().name())?;
                seen = true;
                let extensions = span.extensions();
                if let Some(fields) = extensions.get::<FormattedFields<N>>()
                    && !fields.is_empty()
                {
                    writer.write_char('{')?;
                    writer.write_str(fields)?;
                    writer.write_char('}')?;
                }
                writer.write_char(':')?;
            }
            if seen {
                writer.write_char(' ')?;
            }
        }
        ctx.format_fields(writer.by_ref(), event)?;
        writer.write_char('\n')
    }
}

/// `time` as tracing-subscriber's system time writes it, then a space:
/// `2026-12-04T21:11:41.675577Z `. A year past 9999, or a clock before
/// 1970, is left to tracing-subscriber.
fn write_time(writer: &mut Writer<'_>, time: SystemTime) -> fmt::Result {
    let Some(text) = time_text(time) else {
        let fallback = tracing_subscriber::fmt::time::SystemTime;
        if fallback.format_time(writer).is_err() {
            writer.write_str("<unknown time>")?;
        }
        return writer.write_char(' ');
    };
    writer.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
}

/// `time` as `YYYY-MM-DDTHH:MM:SS.ffffffZ ` (UTC, microseconds, a space
/// after), for a time from 1970 up to the end of year 9999.
fn time_text(time: SystemTime) -> Option<[u8; 28]> {
    let since = time.duration_since(UNIX_EPOCH).ok()?;
    let seconds = since.as_secs();
    let (year, month, day) = civil_date(seconds / 86_400)?;
    let of_day = seconds % 86_400;
    let mut text = *b"0000-00-00T00:00:00.000000Z ";
    let mut put = |at: usize, width: usize, mut value: u64| {
        for slot in text[at..at + width].iter_mut().rev() {
            *slot = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, month);
    put(8, 2, day);
    put(11, 2, of_day / 3600);
    put(14, 2, of_day / 60 % 60);
    put(17, 2, of_day % 60);
    put(20, 6, u64::from(since.subsec_micros()));
    Some(text)
}

/// The proleptic Gregorian date `days` after 1970-01-01, as year, month
/// and day; `None` past year 9999. (Howard Hinnant's `civil_from_days`,
/// for days on or after the epoch.)
fn civil_date(days: u64) -> Option<(u64, u64, u64)> {
    let days = days + 719_468;
    let era = days / 146_097;
    let day_of_era = days % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year <= 9999).then_some((year, month, day))
}

/// The fields of a span or an event as tracing-subscriber's default fields
/// format writes them without colour: `name=value` with the value's
/// `Debug`, a space between, the message first and without its name.
pub struct TextFields;

impl<'writer> FormatFields<'writer> for TextFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut visitor = TextVisitor {
            writer,
            empty: true,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

struct TextVisitor<'a> {
    writer: Writer<'a>,
    /// Nothing written yet: no space before the next field.
    empty: bool,
    result: fmt::Result,
}

impl TextVisitor<'_> {
    /// Starts a field: the space before it, and its name and `=` unless it
    /// is the message. `None`: the field is not written (a `log` record's
    /// metadata, which the line shows otherwise), or writing failed.
    fn start(&mut self, field: &Field) -> Option<bool> {
        let name = field.name();
        if self.result.is_err() || name.starts_with("log.") {
            return None;
        }
        let result = self.pad().and_then(|()| {
            if name == "message" {
                return Ok(());
            }
            self.writer
                .write_str(name.strip_prefix("r#").unwrap_or(name))?;
            self.writer.write_char('=')
        });
        self.result = result;
        self.result.is_ok().then_some(name == "message")
    }

    fn pad(&mut self) -> fmt::Result {
        if self.empty {
            self.empty = false;
            Ok(())
        } else {
            self.writer.write_char(' ')
        }
    }

    /// A value written as its `Debug` writes it; a message's with control
    /// characters escaped, as tracing-subscriber escapes them.
    fn debug(&mut self, message: bool, value: &dyn fmt::Debug) {
        self.result = if message && self.writer.sanitizes_ansi_escapes() {
            write!(Escaping(&mut self.writer), "{value:?}")
        } else {
            write!(self.writer, "{value:?}")
        };
    }

    /// A value that is already its own `Debug` text and needs no escaping.
    fn plain(&mut self, text: &str) {
        self.result = self.writer.write_str(text);
    }
}

impl Visit for TextVisitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        let Some(message) = self.start(field) else {
            return;
        };
        if message {
            // A message is written as its text (`format_args!("{}")`).
            self.result = if self.writer.sanitizes_ansi_escapes() {
                Escaping(&mut self.writer).write_str(value)
            } else {
                self.writer.write_str(value)
            };
        } else if value
            .bytes()
            .all(|b| matches!(b, b' '..=b'~') && b != b'"' && b != b'\\')
        {
            // What `str`'s `Debug` writes for printable ASCII with nothing
            // to escape: the text in quotes.
            self.result = (|| {
                self.writer.write_char('"')?;
                self.writer.write_str(value)?;
                self.writer.write_char('"')
            })();
        } else {
            self.debug(false, &value);
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if self.start(field).is_some() {
            let mut digits = [0u8; 20];
            self.plain(decimal(value, &mut digits));
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if self.start(field).is_some() {
            let mut digits = [0u8; 20];
            if value < 0 {
                self.plain("-");
            }
            if self.result.is_ok() {
                self.plain(decimal(value.unsigned_abs(), &mut digits));
            }
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        if self.start(field).is_some() {
            self.plain(if value { "true" } else { "false" });
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        // Rare, and with its sources in a form of its own: written by
        // tracing-subscriber's visitor, after the space this one owes.
        if self.result.is_err() || field.name().starts_with("log.") {
            return;
        }
        let mut visitor = DefaultVisitor::new(self.writer.by_ref(), self.empty);
        visitor.record_error(field, value);
        self.result = visitor.finish();
        self.empty = false;
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if let Some(message) = self.start(field) {
            self.debug(message, value);
        }
    }
}

/// `value` in decimal, written into the end of `digits`.
fn decimal(mut value: u64, digits: &mut [u8; 20]) -> &str {
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    std::str::from_utf8(&digits[at..]).expect("ASCII digits")
}

/// Writes through to `.0`, with the control characters a terminal could
/// take for an escape sequence written as escapes, as tracing-subscriber
/// writes a message: ESC, BEL, BS, FF, DEL and the C1 controls.
struct Escaping<'a, 'b>(&'a mut Writer<'b>);

impl Write for Escaping<'_, '_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        // In UTF-8 a C1 control is 0xC2 then 0x80-0x9F; the others are one
        // byte each. Most text has none of them and is copied whole.
        let plain = !text
            .bytes()
            .any(|b| matches!(b, 0x1b | 0x07 | 0x08 | 0x0c | 0x7f | 0xc2));
        if plain {
            return self.0.write_str(text);
        }
        for ch in text.chars() {
            match ch {
                '\x1b' => self.0.write_str("\\x1b")?,
                '\x07' => self.0.write_str("\\x07")?,
                '\x08' => self.0.write_str("\\x08")?,
                '\x0c' => self.0.write_str("\\x0c")?,
                '\x7f' => self.0.write_str("\\x7f")?,
                '\u{80}'..='\u{9f}' => write!(self.0, "\\u{{{:x}}}", ch as u32)?,
                _ => self.0.write_char(ch)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use chrono::{DateTime, Utc};
    use tracing::field::Empty;
    use tracing::{Dispatch, debug, error, info, info_span, trace, warn, warn_span};
    use tracing_subscriber::fmt::MakeWriter;

    use super::*;

    /// What a subscriber wrote.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl MakeWriter<'_> for Captured {
        type Writer = Captured;

        fn make_writer(&self) -> Captured {
            self.clone()
        }
    }

    /// An error with a source, which the line writes as its own list.
    #[derive(Debug)]
    struct Failed(io::Error);

    impl fmt::Display for Failed {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the move was not stored")
        }
    }

    impl std::error::Error for Failed {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    /// Spans and events with every kind of field the service logs, and
    /// text a terminal could take for escape sequences.
    fn scenario() {
        let request = info_span!(
            "request",
            request_id = %uuid::Uuid::from_u128(0x1234_5678),
            method = %"GET",
            route = %"/v1/games/{id}",
            client = %"127.0.0.1",
            scheme = %"http",
            status = Empty,
        );
        request.in_scope(|| debug!(count = 3u64, "inside"));
        request.record("status", 200u16);
        request.in_scope(|| info!(status = 200u16, "answered"));
        let outer = warn_span!("outer");
        outer.in_scope(|| {
            let inner = info_span!("inner", r#type = "play", n = -7i64, ok = true, x = 1.5f64);
            inner.in_scope(|| {
                warn!(
                    reason = "a \"quoted\" text\\ with é, \u{1b}[31m and \u{85}",
                    plain = "nothing to escape",
                    path = "C:\\games",
                    tab = "a\tb",
                    "message with \u{1b}[2J, \u{7}, \u{8}, \u{c}, \u{7f}, \u{85} and é"
                );
                let failed = Failed(io::Error::other("disk \u{1b}full"));
                error!(
                    error = &failed as &(dyn std::error::Error + 'static),
                    "failed"
                );
                let alone = io::Error::other("alone");
                error!(error = &alone as &(dyn std::error::Error + 'static));
                trace!(
                    big = u64::MAX,
                    small = i64::MIN,
                    zero = 0u64,
                    list = ?vec![1, 2],
                    text = %"shown\twith a tab",
                    bytes = &b"ab"[..],
                    "levels {}",
                    7
                );
            })
        });
        info!(message = "a message as a field", after = 1u64);
        info!(plain = "no message");
        info!("");
        info!(message = 42u64);
    }

    /// The lines `subscriber` writes for [`scenario`].
    fn lines(make: impl FnOnce(Captured) -> Dispatch) -> Vec<String> {
        let captured = Captured::default();
        tracing::dispatcher::with_default(&make(captured.clone()), scenario);
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_owned).collect()
    }

    /// Every line [`TextLine`] writes is the line tracing-subscriber's text
    /// format writes without colour and target, after the time (which
    /// differs by when it was taken).
    #[test]
    fn a_line_is_what_tracing_subscribers_text_format_writes() {
        // One subscriber for both lines; ours only swaps in our formatters.
        let plain = |w| {
            tracing_subscriber::fmt()
                .with_writer(w)
                .with_ansi(false)
                .with_target(false)
                .with_max_level(Level::TRACE)
        };
        let before = SystemTime::now();
        let ours = lines(|w| {
            plain(w)
                .fmt_fields(TextFields)
                .event_format(TextLine)
                .finish()
                .into()
        });
        let after = SystemTime::now();
        let theirs = lines(|w| plain(w).finish().into());
        assert_eq!(ours.len(), 10, "{ours:#?}");
        assert_eq!(ours.len(), theirs.len());
        let (from, to) = (time_text(before).unwrap(), time_text(after).unwrap());
        for (ours, theirs) in ours.iter().zip(&theirs) {
            assert_eq!(ours[28..], theirs[28..]);
            let time = &ours.as_bytes()[..28];
            assert!(&from[..] <= time && time <= &to[..], "{ours}");
        }
        assert!(ours[1].contains(
            "request{request_id=00000000-0000-0000-0000-000012345678 method=GET \
             route=/v1/games/{id} client=127.0.0.1 scheme=http status=200}: answered status=200"
        ));
        assert!(ours[2].contains(r"message with \x1b[2J, \x07, \x08, \x0c, \x7f, \u{85} and é"));
    }

    /// The time is written as chrono writes it, on every kind of day up to
    /// the end of year 9999; before 1970 or after, it is not.
    #[test]
    fn the_time_is_written_in_utc_to_the_microsecond() {
        let at = |seconds: u64, micros: u32| UNIX_EPOCH + Duration::new(seconds, micros * 1000);
        let mut instants = vec![
            at(0, 0),
            at(951_782_400, 123_456),   // 2000-02-29
            at(4_107_542_400, 999_999), // 2100-03-01
            at(1_796_420_000, 5),
            at(253_402_300_799, 999_999), // 9999-12-31T23:59:59
        ];
        instants.extend(
            (0..2_932_897u64)
                .step_by(97)
                .map(|day| at(day * 86_400 + day % 86_400, 0)),
        );
        for time in instants {
            let expected = DateTime::<Utc>::from(time)
                .format("%Y-%m-%dT%H:%M:%S%.6fZ ")
                .to_string();
            assert_eq!(
                time_text(time).map(|t| t.to_vec()),
                Some(expected.into_bytes())
            );
        }
        assert_eq!(time_text(at(253_402_300_800, 0)), None, "year 10000");
        assert_eq!(time_text(UNIX_EPOCH - Duration::from_secs(1)), None);
    }
}

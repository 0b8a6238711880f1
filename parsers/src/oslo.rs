//! oslo.log lines: `<date> <time>.<ms> <pid> <LEVEL> <logger> [<context>] [instance: <uuid>] <message>`.
//!
//! The format of every OpenStack service (Masakari, Nova, Cinder, Keystone, ...). See
//! `oslo_log/_options.py`: the context format is used when the record has a request id,
//! the default format (`[-]`) otherwise, and traceback lines get the exception prefix,
//! which has no context bracket and always says `ERROR`.

use serde::Serialize;

use crate::context::{Context, context_span};
use crate::error::{PResult, expected};
use crate::time::{DateTime, Offset, Timestamp, byte, number, oslo_line_timestamp};

/// A log level as oslo.log names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level<'a> {
    /// `TRACE` (old oslo.log exception lines and some plugins).
    Trace,
    /// `DEBUG`
    Debug,
    /// `INFO`
    Info,
    /// `AUDIT` (pre-Kilo Nova)
    Audit,
    /// `WARNING`
    Warning,
    /// `ERROR`
    Error,
    /// `CRITICAL`
    Critical,
    /// Any other upper-case word, kept as written.
    Other(&'a str),
}

impl<'a> Level<'a> {
    /// The level as written in the line.
    pub fn as_str(&self) -> &'a str {
        match self {
            Level::Trace => "TRACE",
            Level::Debug => "DEBUG",
            Level::Info => "INFO",
            Level::Audit => "AUDIT",
            Level::Warning => "WARNING",
            Level::Error => "ERROR",
            Level::Critical => "CRITICAL",
            Level::Other(s) => s,
        }
    }

    /// WARNING and above: the levels oslo.log appends an error summary to.
    pub fn is_warning_or_above(&self) -> bool {
        matches!(self, Level::Warning | Level::Error | Level::Critical)
    }
}

impl Serialize for Level<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One oslo.log line, every field borrowed from the input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OsloLine<'a> {
    /// Local wall-clock time of the process; oslo.log's default format writes no zone.
    pub timestamp: DateTime,
    /// The offset from UTC the line gives with its time: only when its format uses
    /// `%(isotime)s` or a `%z` (see [`oslo_line_timestamp`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<Offset>,
    /// Process id.
    pub pid: u32,
    /// Level name.
    pub level: Level<'a>,
    /// Logger name, the Python module path (`masakari.compute.nova`).
    pub logger: &'a str,
    /// The content of the context bracket; `None` on exception-prefix (traceback) lines,
    /// which have none. Read its fields with [`OsloLine::context`]: most lines of a big
    /// log never need them, so they are not read up front.
    #[serde(rename = "context", serialize_with = "serialize_context")]
    pub context_raw: Option<&'a str>,
    /// The UUID of the `[instance: <uuid>] ` prefix.
    pub instance: Option<&'a str>,
    /// The message text, colour residue removed.
    pub message: &'a str,
}

fn serialize_context<S: serde::Serializer>(raw: &Option<&str>, s: S) -> Result<S::Ok, S::Error> {
    raw.map(Context::from_inner).serialize(s)
}

impl<'a> OsloLine<'a> {
    /// The context bracket's fields.
    pub fn context(&self) -> Option<Context<'a>> {
        self.context_raw.map(Context::from_inner)
    }

    /// True for a line written with `logging_exception_prefix`: a traceback line of the
    /// record before it (no context bracket, level `ERROR`).
    pub fn is_exception_prefixed(&self) -> bool {
        self.context_raw.is_none() && self.level == Level::Error
    }

    /// The local request id (`req-...`) of the context, if any.
    pub fn request_id(&self) -> Option<&'a str> {
        self.context().and_then(|c| c.request_id)
    }

    /// The global request id of the context, if any (Zed+ format).
    pub fn global_request_id(&self) -> Option<&'a str> {
        self.context().and_then(|c| c.global_request_id)
    }
}

/// The process id.
fn pid(input: &str) -> PResult<'_, u32> {
    let (i, n) = number(input, "process id")?;
    match u32::try_from(n) {
        Ok(n) => Ok((i, n)),
        Err(_) => expected(input, "process id"),
    }
}

/// An upper-case level word.
pub fn level(input: &str) -> PResult<'_, Level<'_>> {
    let len = input.bytes().take_while(u8::is_ascii_uppercase).count();
    let (word, rest) = input.split_at(len);
    let level = match word {
        "INFO" => Level::Info,
        "DEBUG" => Level::Debug,
        "WARNING" => Level::Warning,
        "ERROR" => Level::Error,
        "CRITICAL" => Level::Critical,
        "TRACE" => Level::Trace,
        "AUDIT" => Level::Audit,
        _ if (3..=8).contains(&len) => Level::Other(word),
        _ => return expected(input, "log level"),
    };
    Ok((rest, level))
}

/// A logger name: a run of non-space characters.
fn logger(input: &str) -> PResult<'_, &str> {
    let len = memchr::memchr(b' ', input.as_bytes()).unwrap_or(input.len());
    if len == 0 {
        return expected(input, "logger name");
    }
    let (name, rest) = input.split_at(len);
    Ok((rest, name))
}

/// The `[instance: <uuid>] ` prefix of the message.
pub fn instance_prefix(input: &str) -> PResult<'_, &str> {
    let Some(rest) = input.strip_prefix("[instance: ") else {
        return expected(input, "instance prefix");
    };
    let end = match memchr::memchr(b']', rest.as_bytes()) {
        Some(end) if end > 0 => end,
        _ => return expected(rest, "instance uuid"),
    };
    let (uuid, rest) = rest.split_at(end);
    let rest = &rest[1..];
    Ok((rest.strip_prefix(' ').unwrap_or(rest), uuid))
}

/// True when `text` starts as an oslo.log line does: its time, a pid and a level
/// (`2026-12-05T21:36:52.939 2349 INFO `). What [`crate::layers::peel`] asks of a line
/// whose time has a `T`, cheaper than reading the whole line.
pub fn starts_like_oslo(text: &str) -> bool {
    let Ok((i, _)) = oslo_line_timestamp(text) else {
        return false;
    };
    let Ok((i, _)) = byte(i, b' ', "space before process id") else {
        return false;
    };
    let Ok((i, _)) = pid(i) else {
        return false;
    };
    byte(i, b' ', "space before log level")
        .and_then(|(i, _)| level(i))
        .is_ok_and(|(rest, _)| rest.starts_with(' ') || rest.is_empty())
}

/// Reads an oslo.log line.
///
/// ```
/// use evacdoc_parsers::oslo::{parse_oslo_line, Level};
/// let line = "2020-12-08 19:51:12.309 235 INFO masakari.compute.nova \
///     [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] \
///     Call evacuate command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96 on host None";
/// let (_, oslo) = parse_oslo_line(line).unwrap();
/// assert_eq!(oslo.level, Level::Info);
/// assert_eq!(oslo.logger, "masakari.compute.nova");
/// assert_eq!(oslo.request_id(), Some("req-de081ecf-4201-4542-b092-e21b2f5ce942"));
/// assert!(oslo.message.starts_with("Call evacuate command"));
/// ```
pub fn parse_oslo_line(input: &str) -> PResult<'_, OsloLine<'_>> {
    let (
        i,
        Timestamp {
            local: timestamp,
            offset,
        },
    ) = oslo_line_timestamp(input)?;
    let (i, _) = byte(i, b' ', "space before process id")?;
    let (i, pid) = pid(i)?;
    let (i, _) = byte(i, b' ', "space before log level")?;
    let (i, level) = level(i)?;
    let (i, _) = byte(i, b' ', "space before logger")?;
    let (i, logger) = logger(i)?;
    let (context_raw, instance, message) = after_logger(i);
    Ok((
        "",
        OsloLine {
            timestamp,
            offset,
            pid,
            level,
            logger,
            context_raw,
            instance,
            message,
        },
    ))
}

/// What follows the logger of an oslo.log line: the context bracket, the instance
/// prefix (both optional) and the message, colour residue removed.
fn after_logger(i: &str) -> (Option<&str>, Option<&str>, &str) {
    // An exception-prefix line may end right after the logger (the empty last line of a
    // traceback is the prefix and a space).
    let i = i.strip_prefix(' ').unwrap_or(i);
    let (i, context_raw) = match context_span(i) {
        Ok((rest, raw)) => (rest.strip_prefix(' ').unwrap_or(rest), Some(raw)),
        Err(_) => (i, None),
    };
    let (i, instance) = match instance_prefix(i) {
        Ok((rest, uuid)) => (rest, Some(uuid)),
        Err(_) => (i, None),
    };
    (context_raw, instance, crate::text::strip_colour_reset(i))
}

/// Reads what DevStack's format (`logging_context_format_string` without `%(asctime)s`
/// and `%(process)d`) writes after a journal's prefix, which gives the time and the pid:
/// `<LEVEL> <logger> [<context>] [instance: <uuid>] <message>`, as in the
/// `screen-n-cpu.txt` logs of every upstream CI job:
/// `Sep 05 09:02:05.123456 host nova-compute[15144]: DEBUG oslo_concurrency.lockutils
/// [None req-... admin admin] Lock ... {{(pid=15144) inner .../lockutils.py:270}}`.
///
/// A known level word and a dotted logger (a Python module path) are required, so that
/// another daemon's `INFO something happened` is not taken for one.
///
/// ```
/// use evacdoc_parsers::oslo::{parse_oslo_body, Level};
/// use evacdoc_parsers::time::{DateTime, Timestamp};
/// let at = Timestamp::local(DateTime::new(2017, 9, 5, 9, 2, 5, 0).unwrap());
/// let (_, o) = parse_oslo_body("INFO nova.api.openstack.requestlog [None req-02218714-6c35-\
///     428b-95b2-55e6ff69a38c admin admin] 85.10.193.66 \"GET /compute/v2.1\" status: 302", at, 15067).unwrap();
/// assert_eq!((o.level, o.logger, o.pid), (Level::Info, "nova.api.openstack.requestlog", 15067));
/// assert_eq!(o.request_id(), Some("req-02218714-6c35-428b-95b2-55e6ff69a38c"));
/// assert!(parse_oslo_body("INFO something happened", at, 1).is_err());
/// ```
pub fn parse_oslo_body(input: &str, at: Timestamp, pid: u32) -> PResult<'_, OsloLine<'_>> {
    let (i, level) = level(input)?;
    if matches!(level, Level::Other(_)) {
        return expected(input, "log level");
    }
    let (i, _) = byte(i, b' ', "space before logger")?;
    let (i, logger) = logger(i)?;
    if !logger.contains('.')
        || !logger
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
    {
        return expected(i, "logger name");
    }
    let (context_raw, instance, message) = after_logger(i);
    Ok((
        "",
        OsloLine {
            timestamp: at.local,
            offset: at.offset,
            pid,
            level,
            logger,
            context_raw,
            instance,
            message,
        },
    ))
}

/// The error summary oslo.log appends to WARNING and higher records logged while an
/// exception is handled: `: <package.ExceptionClass>: <text>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ErrorSummary<'a> {
    /// Qualified exception class, `masakari.exception.HostRecoveryFailureException`.
    pub class: &'a str,
    /// The exception's text (may be empty).
    pub text: &'a str,
}

/// A dotted Python name whose last part is a class (`pkg.mod.SomeError`), or a bare
/// builtin exception name (`ValueError`).
fn exception_class(s: &str) -> Option<usize> {
    let len = s
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.')
        .count();
    let name = s.get(..len)?.trim_end_matches('.');
    let last = name.rsplit('.').next()?;
    let dotted = name.contains('.');
    let starts_upper = last.as_bytes().first().is_some_and(u8::is_ascii_uppercase);
    let builtin_like = last.ends_with("Error") || last.ends_with("Exception");
    let first_ok = name
        .as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
    (first_ok && starts_upper && (dotted || builtin_like) && !name.contains(".."))
        .then_some(name.len())
}

/// Finds the error summary in the last line of a message: returns the message before it
/// and the summary.
///
/// ```
/// use evacdoc_parsers::oslo::split_error_summary;
/// let msg = "Failed to evacuate instance 7d1e5f0a-0000-4000-8000-000000000001: \
///     masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance 7d1e5f0a-0000-4000-8000-000000000001";
/// let (before, summary) = split_error_summary(msg).unwrap();
/// assert_eq!(before, "Failed to evacuate instance 7d1e5f0a-0000-4000-8000-000000000001");
/// assert_eq!(summary.class, "masakari.exception.InstanceEvacuateFailed");
/// ```
pub fn split_error_summary(message: &str) -> Option<(&str, ErrorSummary<'_>)> {
    let finder = memchr::memmem::Finder::new(": ");
    for at in finder.find_iter(message.as_bytes()) {
        let after = message.get(at + 2..)?;
        let Some(len) = exception_class(after) else {
            continue;
        };
        let (class, rest) = after.split_at(len);
        let text = if rest.is_empty() {
            ""
        } else if let Some(text) = rest.strip_prefix(": ") {
            text
        } else if rest == ":" {
            ""
        } else {
            continue;
        };
        return Some((&message[..at], ErrorSummary { class, text }));
    }
    None
}

/// Reads a whole line that is only an exception (`pkg.Class: text`), as the last line of
/// a traceback.
pub fn parse_exception_line(line: &str) -> Option<ErrorSummary<'_>> {
    let len = exception_class(line)?;
    let (class, rest) = line.split_at(len);
    let text = match rest {
        "" | ":" => "",
        _ => rest.strip_prefix(": ")?,
    };
    Some(ErrorSummary { class, text })
}

/// Where a DEBUG record was logged: the `funcName pathname:lineno` suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SourceLocation<'a> {
    /// The function name (`_evacuate_and_confirm`, `<module>`).
    pub function: &'a str,
    /// The source file.
    pub path: &'a str,
    /// The line number.
    pub line: u32,
}

/// Splits the DEBUG suffix off the last line of a message.
///
/// ```
/// use evacdoc_parsers::oslo::split_debug_suffix;
/// let msg = "Creating a Nova client using \"nova\" user novaclient \
///     /usr/lib/python3/dist-packages/masakari/compute/nova.py:98";
/// let (before, loc) = split_debug_suffix(msg).unwrap();
/// assert_eq!(before, "Creating a Nova client using \"nova\" user");
/// assert_eq!((loc.function, loc.line), ("novaclient", 98));
/// ```
pub fn split_debug_suffix(message: &str) -> Option<(&str, SourceLocation<'_>)> {
    // DevStack's `logging_debug_format_suffix`: `{{(pid=15144) inner path:270}}`.
    if let Some(inner) = message.strip_suffix("}}")
        && let Some(at) = inner.rfind(" {{(pid=")
    {
        let (_, location) = inner[at..].split_once(") ")?;
        let (_, found) = split_debug_suffix(location)?;
        return Some((&message[..at], found));
    }
    let (rest, location) = message.rsplit_once(' ')?;
    let (path, line) = location.rsplit_once(':')?;
    let line: u32 = line.parse().ok()?;
    if !(path.ends_with(".py") || path.contains('/')) {
        return None;
    }
    let (before, function) = match rest.rsplit_once(' ') {
        Some(split) => split,
        None => ("", rest),
    };
    let function_ok = !function.is_empty()
        && function
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'<' | b'>'));
    function_ok.then_some((
        before,
        SourceLocation {
            function,
            path,
            line,
        },
    ))
}

#[cfg(test)]
mod tests;

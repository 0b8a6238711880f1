//! One file's text copied a line at a time: redacted (identifiers replaced) or public
//! (default-deny), each line's ending written back as it was.

use std::borrow::Cow;
use std::io::{BufRead, Write};

use crate::redact::line::LineRedactor;
use crate::redact::map::SharedMap;
use crate::redact::names::NameFinder;
use crate::redact::options::{OptionClass, classify_option};
use crate::redact::public::{Judged, PublicStats, PublicText, Vocabulary};
use crate::redact::secrets::HIDDEN;

/// Copies `reader` to `out` by default-deny, a line at a time; in a config file an
/// `option = value` line keeps its option name and its value only on the allow-list.
/// Goes on from what was `judged` before, and leaves there what it judged.
pub(super) fn public_stream(
    reader: &mut dyn BufRead,
    out: Box<dyn Write>,
    names: &NameFinder,
    upload: &[String],
    config: bool,
    map: &mut SharedMap<'_>,
    judged: &mut Judged,
) -> std::io::Result<(u64, u64, PublicStats)> {
    let mut step = PublicText::resuming(names, upload, std::mem::take(judged));
    let mut stats = PublicStats::default();
    let copied = copy_lines(reader, out, |text| {
        Cow::Owned(match config.then(|| option_line(text)).flatten() {
            Some((name, value)) => {
                let class = classify_option(name.trim_end_matches([' ', '\t', '=', ':']));
                let value = match class {
                    OptionClass::Secret => HIDDEN.to_string(),
                    OptionClass::Harmless => step.line(value, Vocabulary::Log, map, &mut stats),
                    OptionClass::Other => step.line(value, Vocabulary::None, map, &mut stats),
                };
                format!("{name}{value}")
            }
            None => step.line(text, Vocabulary::Log, map, &mut stats),
        })
    });
    *judged = step.into_judged();
    let (lines, changed) = copied?;
    Ok((lines, changed, stats))
}

/// `option = value` (or `option: value`): the name with its separator, and the value.
/// Only a plain option name counts (letters, digits, `_`, `-`, `.`).
fn option_line(line: &str) -> Option<(&str, &str)> {
    let at = line.find(['=', ':'])?;
    let name = line[..at].trim();
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if !plain {
        return None;
    }
    let value_at = at + 1 + (line[at + 1..].len() - line[at + 1..].trim_start().len());
    Some((&line[..value_at], &line[value_at..]))
}

/// Copies `reader` to `out` a line at a time, redacted.
pub(super) fn redact_stream(
    reader: &mut dyn BufRead,
    out: Box<dyn Write>,
    names: &NameFinder,
    map: &mut SharedMap<'_>,
) -> std::io::Result<(u64, u64)> {
    let mut redactor = LineRedactor::new(names);
    copy_lines(reader, out, |text| redactor.line(text, map))
}

/// Copies `reader` to `out` a line at a time through `redact`, which is given each line
/// without its ending (invalid UTF-8 replaced); the ending is written back as it was.
/// The lines read and how many of them `redact` changed.
fn copy_lines(
    reader: &mut dyn BufRead,
    mut out: Box<dyn Write>,
    mut redact: impl FnMut(&str) -> Cow<'_, str>,
) -> std::io::Result<(u64, u64)> {
    let mut buf = Vec::new();
    let (mut lines, mut changed) = (0u64, 0u64);
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        let ending = if buf.ends_with(b"\r\n") {
            2
        } else {
            usize::from(buf.ends_with(b"\n"))
        };
        // Valid UTF-8 (nearly every line) is checked by the quicker validation.
        let body = &buf[..buf.len() - ending];
        let text = match std::str::from_utf8(body) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(body),
        };
        let redacted = redact(&text);
        lines += 1;
        if redacted != text {
            changed += 1;
        }
        out.write_all(redacted.as_bytes())?;
        out.write_all(&buf[buf.len() - ending..])?;
    }
    out.flush()?;
    Ok((lines, changed))
}

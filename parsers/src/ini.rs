//! oslo.config INI files (`nova.conf`, `masakari.conf`, `cinder.conf`), read the way
//! `oslo_config/iniparser.py` and `cfg.ConfigParser` read them:
//!
//! * lines end at `\n`, `\r\n` or `\r` (Python's universal newlines) and are
//!   right-stripped;
//! * a blank line ends a multi-line value;
//! * a line starting with a space or a tab continues the previous value, left-stripped
//!   and joined with `\n` (with no value before it, it is an error);
//! * `[name]` starts a section (the name is not stripped);
//! * a line starting with `#` or `;` is a comment (only at the start of a line: an
//!   indented `#` line after a key is a continuation of its value, as in oslo.config);
//! * otherwise `key = value` or `key: value`, split at whichever of `=` and `:` comes
//!   first, key and value stripped, and a value wrapped in matching single or double
//!   quotes loses them;
//! * a key may repeat (`MultiStrOpt`): every entry is kept, and the last wins for a plain
//!   lookup.
//!
//! oslo.config stops at the first error; this reader records it and goes on, so a
//! broken file still shows what it says. Values sos masked (`********`) are kept as they
//! are. A UTF-8 byte-order mark at the start of the file is skipped.

use std::borrow::Cow;

use serde::Serialize;

use crate::error::{PResult, expected};

/// One `key = value` assignment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IniEntry<'a> {
    /// The section it is in, as written; `""` when it came before any valid section
    /// header (oslo.config refuses such a file; an [`IniError`] records it).
    pub section: &'a str,
    /// The key, stripped.
    pub key: &'a str,
    /// The value, stripped and unquoted; borrowed from the input unless it spans several
    /// lines, which are joined with `\n`.
    pub value: Cow<'a, str>,
    /// 1-based line of the key.
    pub line: usize,
    /// 1-based line of the last continuation line (`line` for a one-line value).
    pub end_line: usize,
}

/// A section header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct IniSection<'a> {
    /// The name between the brackets, as written.
    pub name: &'a str,
    /// 1-based line of the header.
    pub line: usize,
}

/// A line oslo.config would refuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct IniError {
    /// 1-based line.
    pub line: usize,
    /// oslo.config's message for it (one of the constants on this type).
    pub reason: &'static str,
}

impl IniError {
    /// A line with neither `=` nor `:`.
    pub const NO_ASSIGNMENT: &'static str = "No ':' or '=' found in assignment";
    /// `= value`, with nothing before the separator.
    pub const EMPTY_KEY: &'static str = "Key cannot be empty";
    /// An indented line with no assignment before it.
    pub const UNEXPECTED_CONTINUATION: &'static str = "Unexpected continuation line";
    /// `[name` or `[name] # comment`.
    pub const NO_SECTION_END: &'static str = "Invalid section (must end with ])";
    /// `[]`.
    pub const EMPTY_SECTION_NAME: &'static str = "Empty section name";
    /// An assignment before any (valid) section header.
    pub const NO_SECTION: &'static str = "Section must be started before assignment";
}

/// A parsed INI file: every assignment, every section header, and the errors.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IniDocument<'a> {
    /// Every assignment, in file order (repeated keys included).
    pub entries: Vec<IniEntry<'a>>,
    /// Every valid section header, in file order (a repeated section appears again).
    pub sections: Vec<IniSection<'a>>,
    /// Lines oslo.config would refuse, in file order.
    pub errors: Vec<IniError>,
}

/// True when oslo.config reads sections `a` and `b` as one group: names are compared
/// lower-cased, except `DEFAULT`, which must be written so (`[default]` is another
/// group), as in `cfg._normalize_group_name`.
fn same_group(a: &str, b: &str) -> bool {
    if a == "DEFAULT" || b == "DEFAULT" {
        return a == b;
    }
    a == b
        || a.chars()
            .flat_map(char::to_lowercase)
            .eq(b.chars().flat_map(char::to_lowercase))
}

impl<'a> IniDocument<'a> {
    /// The value oslo.config uses for `key` in `section`: the last assignment. Section
    /// names match as oslo.config groups do (case-insensitive, except `DEFAULT`, which
    /// is exact); keys match exactly.
    ///
    /// ```
    /// use evacdoc_parsers::ini::parse_ini;
    /// let doc = parse_ini("[DEFAULT]\nservice_down_time = 60\nreport_interval = 10\n\
    ///     service_down_time = 120\n");
    /// assert_eq!(doc.get("DEFAULT", "service_down_time").unwrap().value, "120");
    /// assert_eq!(doc.get("DEFAULT", "report_interval").unwrap().line, 3);
    /// assert!(doc.get("DEFAULT", "servicegroup_driver").is_none());
    /// ```
    pub fn get(&self, section: &str, key: &str) -> Option<&IniEntry<'a>> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.key == key && same_group(e.section, section))
    }

    /// Every assignment of `key` in `section`, in file order (a `MultiStrOpt`).
    ///
    /// ```
    /// use evacdoc_parsers::ini::parse_ini;
    /// let doc = parse_ini("[pci]\npassthrough_whitelist = {\"vendor_id\": \"8086\"}\n\
    ///     passthrough_whitelist = {\"vendor_id\": \"15b3\"}\n");
    /// let values: Vec<_> = doc.get_all("pci", "passthrough_whitelist")
    ///     .map(|e| e.value.as_ref()).collect();
    /// assert_eq!(values, ["{\"vendor_id\": \"8086\"}", "{\"vendor_id\": \"15b3\"}"]);
    /// ```
    pub fn get_all<'s>(
        &'s self,
        section: &'s str,
        key: &'s str,
    ) -> impl Iterator<Item = &'s IniEntry<'a>> + 's {
        self.entries
            .iter()
            .filter(move |e| e.key == key && same_group(e.section, section))
    }
}

/// Python's `str.isspace` on one char.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\x1c'..='\x1f')
}

/// Python's `str.rstrip()`.
fn rstrip(s: &str) -> &str {
    s.trim_end_matches(is_py_space)
}

/// Python's `str.strip()`.
fn strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// The first line of `input` without its terminator (`\n`, `\r\n` or `\r`), and the
/// input after the terminator.
fn split_line(input: &str) -> (&str, &str) {
    let bytes = input.as_bytes();
    match memchr::memchr2(b'\n', b'\r', bytes) {
        None => (input, ""),
        Some(at) => {
            let len = if bytes.get(at) == Some(&b'\r') && bytes.get(at + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            // `at` and `at + len` are positions of ASCII bytes or the end: char boundaries.
            let line = input.get(..at).unwrap_or("");
            let rest = input.get(at + len..).unwrap_or("");
            (line, rest)
        }
    }
}

/// The name of a right-stripped line that starts with `[`.
fn section_name(line: &str) -> Result<&str, &'static str> {
    let inner = line.strip_prefix('[').unwrap_or(line);
    match inner.strip_suffix(']') {
        None => Err(IniError::NO_SECTION_END),
        Some("") => Err(IniError::EMPTY_SECTION_NAME),
        Some(name) => Ok(name),
    }
}

/// The key and first-line value of a right-stripped assignment line
/// (`BaseParser._split_key_value`).
fn split_assignment(line: &str) -> Result<(&str, &str), &'static str> {
    let Some(at) = memchr::memchr2(b'=', b':', line.as_bytes()) else {
        return Err(IniError::NO_ASSIGNMENT);
    };
    // `at` is the position of an ASCII byte: a char boundary.
    let key = strip(line.get(..at).unwrap_or(""));
    let value = strip(line.get(at + 1..).unwrap_or(""));
    if key.is_empty() {
        return Err(IniError::EMPTY_KEY);
    }
    let b = value.as_bytes();
    let value = match (b.first(), b.last()) {
        // A lone quote is its own last character: Python's value[1:-1] is empty.
        (Some(&q @ (b'"' | b'\'')), Some(&last)) if last == q => {
            value.get(1..value.len().saturating_sub(1)).unwrap_or("")
        }
        _ => value,
    };
    Ok((key, value))
}

/// Reads a section header line, `[name]`, and its line ending. The name is kept as
/// written (not stripped), as oslo.config keeps it.
///
/// ```
/// use evacdoc_parsers::ini::section_header;
/// assert_eq!(section_header("[taskflow]\nconnection = ********\n"),
///            Ok(("connection = ********\n", "taskflow")));
/// assert!(section_header("[taskflow] # engine\n").is_err());
/// ```
pub fn section_header(input: &str) -> PResult<'_, &str> {
    let (line, rest) = split_line(input);
    let line = rstrip(line);
    if !line.starts_with('[') {
        return expected(input, "section header");
    }
    match section_name(line) {
        Ok(name) => Ok((rest, name)),
        Err(IniError::EMPTY_SECTION_NAME) => expected(input, "section name"),
        Err(_) => expected(input, "']' at the end of the section header"),
    }
}

/// Reads an assignment line, `key = value` or `key: value`, and its line ending; returns
/// the stripped key and the stripped, unquoted value of that line (continuation lines
/// after it are left in the rest).
///
/// ```
/// use evacdoc_parsers::ini::key_value;
/// assert_eq!(key_value("wait_period_after_service_update = 60\n[host_failure]\n"),
///            Ok(("[host_failure]\n", ("wait_period_after_service_update", "60"))));
/// assert_eq!(key_value("transport_url = rabbit://nova:********@10.5.0.4:5672/\r\n"),
///            Ok(("", ("transport_url", "rabbit://nova:********@10.5.0.4:5672/"))));
/// assert!(key_value("= 60\n").is_err());
/// ```
pub fn key_value(input: &str) -> PResult<'_, (&str, &str)> {
    let (line, rest) = split_line(input);
    let line = rstrip(line);
    if line.is_empty() || line.starts_with([' ', '\t', '[', '#', ';']) {
        return expected(input, "assignment");
    }
    match split_assignment(line) {
        Ok(kv) => Ok((rest, kv)),
        Err(IniError::EMPTY_KEY) => expected(input, "key"),
        Err(_) => expected(input, "'=' or ':' in assignment"),
    }
}

/// An assignment whose value may still grow by continuation lines.
struct Pending<'a> {
    section: Option<&'a str>,
    key: &'a str,
    first: &'a str,
    joined: Option<String>,
    line: usize,
    end_line: usize,
}

impl<'a> Pending<'a> {
    fn push(&mut self, continuation: &str, line: usize) {
        let joined = self.joined.get_or_insert_with(|| self.first.to_owned());
        joined.push('\n');
        joined.push_str(continuation);
        self.end_line = line;
    }

    fn finish(self, doc: &mut IniDocument<'a>) {
        if self.section.is_none() {
            doc.errors.push(IniError {
                line: self.line,
                reason: IniError::NO_SECTION,
            });
        }
        doc.entries.push(IniEntry {
            section: self.section.unwrap_or(""),
            key: self.key,
            value: match self.joined {
                Some(joined) => Cow::Owned(joined),
                None => Cow::Borrowed(self.first),
            },
            line: self.line,
            end_line: self.end_line,
        });
    }
}

/// Reads an oslo.config INI file. Never fails: lines oslo.config would refuse are
/// listed in [`IniDocument::errors`], and reading goes on after them.
///
/// ```
/// use evacdoc_parsers::ini::parse_ini;
/// let conf = "[DEFAULT]\n\
///     wait_period_after_service_update = 60\n\
///     ; wait_period_after_evacuation = 90\n\
///     [taskflow]\n\
///     connection = ********\n\
///     [taskflow_driver_recovery_flows]\n\
///     host_auto_failure_recovery_tasks = {'pre': ['disable_compute_service_task'],\n    \
///         'main': ['prepare_HA_enabled_instances_task'],\n    \
///         'post': ['evacuate_instances_task']}\n";
/// let doc = parse_ini(conf);
/// assert!(doc.errors.is_empty());
/// assert_eq!(doc.get("DEFAULT", "wait_period_after_service_update").unwrap().value, "60");
/// assert!(doc.get("DEFAULT", "wait_period_after_evacuation").is_none());
/// assert_eq!(doc.get("taskflow", "connection").unwrap().value, "********");
/// let tasks = doc.get("taskflow_driver_recovery_flows", "host_auto_failure_recovery_tasks").unwrap();
/// assert_eq!(tasks.value, "{'pre': ['disable_compute_service_task'],\n\
///     'main': ['prepare_HA_enabled_instances_task'],\n'post': ['evacuate_instances_task']}");
/// assert_eq!((tasks.line, tasks.end_line), (7, 9));
/// ```
pub fn parse_ini(input: &str) -> IniDocument<'_> {
    let mut rest = input.strip_prefix('\u{feff}').unwrap_or(input);
    let mut doc = IniDocument::default();
    let mut section: Option<&str> = None;
    let mut pending: Option<Pending<'_>> = None;
    let mut number = 0;
    while !rest.is_empty() {
        let (raw, next) = split_line(rest);
        rest = next;
        number += 1;
        let line = rstrip(raw);
        if line.is_empty() {
            // A blank line ends a multi-line value.
            if let Some(p) = pending.take() {
                p.finish(&mut doc);
            }
            continue;
        }
        if line.starts_with([' ', '\t']) {
            match pending.as_mut() {
                Some(p) => p.push(line.trim_start_matches(is_py_space), number),
                None => doc.errors.push(IniError {
                    line: number,
                    reason: IniError::UNEXPECTED_CONTINUATION,
                }),
            }
            continue;
        }
        if let Some(p) = pending.take() {
            p.finish(&mut doc);
        }
        if line.starts_with('[') {
            match section_name(line) {
                Ok(name) => {
                    section = Some(name);
                    doc.sections.push(IniSection { name, line: number });
                }
                Err(reason) => {
                    // The keys after a broken header belong to no known section.
                    section = None;
                    doc.errors.push(IniError {
                        line: number,
                        reason,
                    });
                }
            }
        } else if line.starts_with(['#', ';']) {
            // A comment.
        } else {
            match split_assignment(line) {
                Ok((key, first)) => {
                    pending = Some(Pending {
                        section,
                        key,
                        first,
                        joined: None,
                        line: number,
                        end_line: number,
                    });
                }
                Err(reason) => doc.errors.push(IniError {
                    line: number,
                    reason,
                }),
            }
        }
    }
    if let Some(p) = pending.take() {
        p.finish(&mut doc);
    }
    doc
}

#[cfg(test)]
mod tests;

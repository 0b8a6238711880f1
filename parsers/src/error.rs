//! The error type every production returns, and the reason a line stayed unparsed.

use std::fmt;

/// What a production expected and did not find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A named token was expected (`"timestamp"`, `"log level"`, ...).
    Expected(&'static str),
    /// A nom combinator failed in a way no production anticipated.
    Nom(nom::error::ErrorKind),
}

/// A parse failure: what was expected, and the input left where it failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError<'a> {
    /// The remaining input at the point of failure.
    pub input: &'a str,
    /// What went wrong there.
    pub kind: ErrorKind,
}

impl<'a> nom::error::ParseError<&'a str> for ParseError<'a> {
    fn from_error_kind(input: &'a str, kind: nom::error::ErrorKind) -> Self {
        ParseError {
            input,
            kind: ErrorKind::Nom(kind),
        }
    }

    fn append(_: &'a str, _: nom::error::ErrorKind, other: Self) -> Self {
        // Keep the innermost error: it names the token that was missing.
        other
    }
}

/// Result of a production: the rest of the input and the value, or a [`ParseError`].
pub type PResult<'a, T> = nom::IResult<&'a str, T, ParseError<'a>>;

/// Fails a production with "expected `what`" at `input`.
pub(crate) fn expected<'a, T>(input: &'a str, what: &'static str) -> PResult<'a, T> {
    Err(nom::Err::Error(ParseError {
        input,
        kind: ErrorKind::Expected(what),
    }))
}

/// Why a line could not be read in any known format.
///
/// Kept small and allocation-free: the column is a byte offset into the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Reason {
    /// What the closest format expected (`"log level"`, `"request line"`, ...), or a
    /// description of the line (`"blank line"`, `"no known format"`).
    pub expected: &'static str,
    /// Byte offset in the line where reading stopped.
    pub column: usize,
}

impl Reason {
    /// The reason for a line that matches no format from its first byte.
    pub const NO_FORMAT: Reason = Reason {
        expected: "no known format",
        column: 0,
    };
    /// The reason for an empty or all-whitespace line outside any record.
    pub const BLANK: Reason = Reason {
        expected: "blank line",
        column: 0,
    };

    /// Builds the reason from a failed production on `line`.
    pub(crate) fn from_error(line: &str, error: nom::Err<ParseError<'_>>) -> Reason {
        match error {
            nom::Err::Error(e) | nom::Err::Failure(e) => Reason {
                expected: match e.kind {
                    ErrorKind::Expected(what) => what,
                    ErrorKind::Nom(_) => "known format",
                },
                column: line.len().saturating_sub(e.input.len()),
            },
            nom::Err::Incomplete(_) => Reason {
                expected: "more input",
                column: line.len(),
            },
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reason::NO_FORMAT | Reason::BLANK => f.write_str(self.expected),
            Reason { expected, column } => write!(f, "expected {expected} at column {column}"),
        }
    }
}

//! The bounds on a query's text, checked before tantivy parses it: its parser descends
//! once per group and per `NOT`, so a few thousand nested parentheses overflow the stack
//! and abort the process (a stack overflow cannot be caught). The check reads the text as
//! tantivy's grammar does (quoted phrases, backslash escapes) and counts nesting
//! generously: a quote with no closing quote hides nothing, and a quote in the middle of
//! a word, where tantivy stops parsing, still hides what it encloses only because tantivy
//! never reaches it.

/// The longest query text, in bytes.
pub const MAX_QUERY_BYTES: usize = 4096;
/// The deepest nesting of parentheses and `NOT`s.
pub const MAX_QUERY_DEPTH: usize = 32;
/// The most terms (words, phrases, `field:value`s) one query may hold.
pub const MAX_QUERY_TERMS: usize = 256;

/// A bound of the query text that was passed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryLimit {
    /// Groups and `NOT`s nest deeper than [`MAX_QUERY_DEPTH`].
    #[error("the query nests parentheses and NOTs {depth} deep; at most {max}")]
    Depth {
        /// How deep the query nests.
        depth: usize,
        /// The bound.
        max: usize,
    },
    /// The text is longer than [`MAX_QUERY_BYTES`].
    #[error("the query is {bytes} bytes long; at most {max}")]
    Length {
        /// The query's length.
        bytes: usize,
        /// The bound.
        max: usize,
    },
    /// More terms than [`MAX_QUERY_TERMS`].
    #[error("the query has {terms} terms; at most {max}")]
    Terms {
        /// The query's terms.
        terms: usize,
        /// The bound.
        max: usize,
    },
}

/// Checks `query` against the bounds: its nesting first (the bound that protects the
/// process), then its length and its terms.
pub fn check_query(query: &str) -> Result<(), QueryLimit> {
    let shape = Shape::of(query);
    if shape.depth > MAX_QUERY_DEPTH {
        return Err(QueryLimit::Depth {
            depth: shape.depth,
            max: MAX_QUERY_DEPTH,
        });
    }
    if query.len() > MAX_QUERY_BYTES {
        return Err(QueryLimit::Length {
            bytes: query.len(),
            max: MAX_QUERY_BYTES,
        });
    }
    if shape.terms > MAX_QUERY_TERMS {
        return Err(QueryLimit::Terms {
            terms: shape.terms,
            max: MAX_QUERY_TERMS,
        });
    }
    Ok(())
}

/// Checks only the nesting of `query` (the text handed to tantivy after `host:` and
/// `service:` were resolved, which may pair quotes differently).
pub(crate) fn check_depth(query: &str) -> Result<(), QueryLimit> {
    let depth = Shape::of(query).depth;
    if depth > MAX_QUERY_DEPTH {
        return Err(QueryLimit::Depth {
            depth,
            max: MAX_QUERY_DEPTH,
        });
    }
    Ok(())
}

/// How deep a query nests and how many terms it has.
#[derive(Debug, Default, PartialEq, Eq)]
struct Shape {
    depth: usize,
    terms: usize,
}

impl Shape {
    fn of(query: &str) -> Shape {
        let bytes = query.as_bytes();
        let mut scan = Scan::default();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => {
                    scan.token_byte(i);
                    i += 2;
                    continue;
                }
                quote @ (b'"' | b'\'') => {
                    scan.token_byte(i);
                    if let Some(end) = closing_quote(bytes, i + 1, quote) {
                        scan.token_byte(end);
                        i = end + 1;
                        continue;
                    }
                }
                b'(' => {
                    scan.end_token(query);
                    scan.open();
                }
                b')' => {
                    scan.end_token(query);
                    scan.close();
                }
                b if b.is_ascii_whitespace() => scan.end_token(query),
                _ => scan.token_byte(i),
            }
            i += 1;
        }
        scan.end_token(query);
        Shape {
            depth: scan.deepest,
            terms: scan.terms,
        }
    }
}

/// The position of the quote closing a phrase opened before `from`, escapes skipped.
fn closing_quote(bytes: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut j = from;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b if b == quote => return Some(j),
            _ => j += 1,
        }
    }
    None
}

/// The scanner's state: the open groups (each with the `NOT`s before it), the `NOT`s in
/// a row before the next leaf, the token being read.
#[derive(Debug, Default)]
struct Scan {
    /// Per open group, the nesting it adds (itself and the `NOT`s before it).
    groups: Vec<usize>,
    /// The nesting of the open groups together.
    open: usize,
    /// `NOT`s read since the last leaf.
    nots: usize,
    deepest: usize,
    terms: usize,
    /// Where the token being read starts.
    token: Option<usize>,
    /// Where it ends (exclusive).
    token_end: usize,
}

impl Scan {
    fn token_byte(&mut self, at: usize) {
        self.token.get_or_insert(at);
        self.token_end = at + 1;
    }

    fn end_token(&mut self, query: &str) {
        let Some(start) = self.token.take() else {
            return;
        };
        let token = query
            .as_bytes()
            .get(start..self.token_end)
            .unwrap_or_default();
        match token {
            b"NOT" => {
                self.nots += 1;
                self.deepest = self.deepest.max(self.open + self.nots);
            }
            b"AND" | b"OR" => {}
            // An occur sign alone (`-(`, `+(`) belongs to the group after it.
            t if t.iter().all(|b| matches!(b, b'+' | b'-')) => {}
            _ => {
                self.terms += 1;
                self.nots = 0;
            }
        }
    }

    fn open(&mut self) {
        let adds = 1 + self.nots;
        self.groups.push(adds);
        self.open += adds;
        self.nots = 0;
        self.deepest = self.deepest.max(self.open);
    }

    fn close(&mut self) {
        if let Some(adds) = self.groups.pop() {
            self.open -= adds;
        }
        self.nots = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(q: &str) -> (usize, usize) {
        let s = Shape::of(q);
        (s.depth, s.terms)
    }

    #[test]
    fn nesting_counts_groups_and_nots() {
        assert_eq!(shape(""), (0, 0));
        assert_eq!(shape("nova compute"), (0, 2));
        assert_eq!(shape("(a OR b) AND (c OR d)"), (1, 4));
        assert_eq!(shape("((a))"), (2, 1));
        assert_eq!(shape("NOT NOT a"), (2, 1));
        assert_eq!(shape("NOT (NOT (a))"), (4, 1));
        assert_eq!(shape("level:(ERROR OR WARNING) -(x y)"), (1, 5));
        // A closed group gives its nesting back.
        assert_eq!(shape("((a)) (b)"), (2, 2));
        // Unbalanced closing parentheses do not lower the count below zero.
        assert_eq!(shape(")))((("), (3, 0));
    }

    #[test]
    fn phrases_and_escapes_hide_parentheses() {
        assert_eq!(shape("\"((((\" x"), (0, 2));
        assert_eq!(shape("'((((' x"), (0, 2));
        assert_eq!(shape("\"a \\\" ((\" x"), (0, 2));
        assert_eq!(shape("a\\(\\(\\("), (0, 1));
        assert_eq!(shape("message:\"still (in) use\""), (0, 1));
        // A quote never closed hides nothing: tantivy reads what follows it.
        assert_eq!(shape("\"((("), (3, 1));
        assert_eq!(shape("it's ((("), (3, 1));
    }

    #[test]
    fn a_query_past_a_bound_is_refused_naming_it() {
        let deep = format!("{}nova{}", "(".repeat(3000), ")".repeat(3000));
        let error = check_query(&deep).unwrap_err();
        assert_eq!(
            error,
            QueryLimit::Depth {
                depth: 3000,
                max: 32
            }
        );
        assert_eq!(
            error.to_string(),
            "the query nests parentheses and NOTs 3000 deep; at most 32"
        );
        let nots = "NOT ".repeat(100) + "nova";
        assert!(matches!(
            check_query(&nots),
            Err(QueryLimit::Depth { depth: 100, .. })
        ));
        let long = "x".repeat(MAX_QUERY_BYTES + 1);
        assert_eq!(
            check_query(&long).unwrap_err().to_string(),
            format!(
                "the query is {} bytes long; at most 4096",
                MAX_QUERY_BYTES + 1
            )
        );
        let many = "a ".repeat(MAX_QUERY_TERMS + 1);
        assert_eq!(
            check_query(&many),
            Err(QueryLimit::Terms {
                terms: MAX_QUERY_TERMS + 1,
                max: MAX_QUERY_TERMS
            })
        );
        let at_bounds = format!(
            "{}{}{}",
            "(".repeat(MAX_QUERY_DEPTH),
            "a ".repeat(MAX_QUERY_TERMS),
            ")".repeat(MAX_QUERY_DEPTH)
        );
        assert_eq!(check_query(&at_bounds), Ok(()));
    }
}

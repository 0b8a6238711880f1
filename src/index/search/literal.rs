//! Literal search: a pasted id (or a "quoted" text) finds every line holding it, byte
//! for byte, as `grep -F` would over the bundle's lines. The index's words narrow the
//! records to check (`search::narrow`); each candidate's raw lines are then checked with
//! `memmem`. Hits are lines, not records.

use memchr::memmem;
use tantivy::collector::{DocSetCollector, SegmentSortKeyComputer, SortKeyComputer};
use tantivy::query::{AllQuery, BooleanQuery, Occur, Query};
use tantivy::schema::Value as _;
use tantivy::{DocAddress, TantivyDocument};

use super::narrow::{Clues, Narrowing, parts_refine};
use super::parse::parse;
use super::tally::{NO_LEVEL, Tallies};
use super::{OrderKey, SearchHit, SearchIndex, SearchPage, SearchQuery, rfc3339};
use crate::index::IndexError;

/// The most records a literal search checks line by line (a literal as common as a
/// word is better asked as a word).
pub const MAX_LITERAL_RECORDS: usize = 200_000;
/// Past this many candidates by whole words, the parts of words narrow too: a regex over
/// each segment's terms costs less than reading that many records' lines (the 1 GiB
/// serve bench's `"still in use"`, where `in` is the only whole word: p99 372 -> 136 ms).
const REFINE_ABOVE: usize = 20_000;

/// A query that is one literal beside `field:value` terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Literal {
    /// The text the lines must hold.
    pub text: String,
    /// The `field:value` terms, ANDed (empty when none).
    pub fields: String,
}

/// The literal of `q`, when `q` is a conjunction of `field:value` terms and exactly one
/// other term that is id-shaped (`req-…`, a UUID, a long hex id, an address) or a
/// whole "quoted text". `OR`, `NOT`, `-`, parentheses or two words: not a literal.
pub(crate) fn literal_of(q: &str) -> Option<Literal> {
    let mut text = None;
    let mut fields = Vec::new();
    for term in terms(q)? {
        if let Some(inner) = term.strip_prefix('"') {
            let inner = inner.strip_suffix('"')?;
            if text.is_some() || inner.is_empty() {
                return None;
            }
            text = Some(inner.to_string());
        } else if is_field(term) {
            fields.push(term);
        } else if id_shaped(term) && text.is_none() {
            text = Some(term.to_string());
        } else {
            return None;
        }
    }
    Some(Literal {
        text: text?,
        fields: fields.join(" "),
    })
}

/// The query's top-level terms split at white space (a quoted text is one term, quotes
/// kept); `None` when it has operators or groups.
fn terms(q: &str) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let mut rest = q.trim_start();
    while !rest.is_empty() {
        let end = if let Some(quoted) = rest.strip_prefix('"') {
            quoted.find('"')? + 2
        } else {
            let mut in_quote = false;
            rest.char_indices()
                .find(|&(_, c)| {
                    if c == '"' {
                        in_quote = !in_quote;
                    }
                    c.is_whitespace() && !in_quote
                })
                .map_or(rest.len(), |(at, _)| at)
        };
        let term = &rest[..end];
        // A quoted text is the literal as written, parentheses and all.
        let operator = matches!(term, "OR" | "AND" | "NOT" | "||" | "&&")
            || term.starts_with(['-', '+', '(', ')'])
            || term.contains(['(', ')']);
        if operator && !term.starts_with('"') {
            return None;
        }
        out.push(term);
        rest = rest[end..].trim_start();
    }
    Some(out)
}

/// `name:value` with a plain field name.
fn is_field(term: &str) -> bool {
    term.split_once(':').is_some_and(|(name, value)| {
        !name.is_empty() && !value.is_empty() && name.chars().all(|c| c.is_ascii_lowercase())
    })
}

/// An id as pasted: at least 8 characters of letters, digits, `-`, `.` and `_`, with a
/// digit, and a separator or 16 hex digits and more.
fn id_shaped(term: &str) -> bool {
    let allowed = term
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    let digit = term.chars().any(|c| c.is_ascii_digit());
    let separated = term.contains(['-', '.', '_']);
    let hex = term.len() >= 16 && term.chars().all(|c| c.is_ascii_hexdigit());
    term.len() >= 8 && allowed && digit && (separated || hex) && !term.starts_with('-')
}

/// A line that holds the literal.
struct LineHit {
    key: OrderKey,
    address: DocAddress,
    /// The line's place in its record's raw lines.
    nth: usize,
    level: Option<String>,
}

impl SearchIndex {
    /// One page of the lines holding `literal.text`, among the records its fields and
    /// the query's time range select.
    pub(super) fn search_literal(
        &self,
        literal: &Literal,
        query: &SearchQuery,
    ) -> Result<SearchPage, IndexError> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        if !literal.fields.is_empty() {
            clauses.push((
                Occur::Must,
                parse(&self.parser, &self.meta, &literal.fields)?,
            ));
        }
        if let Some(range) = self.time_filter(query.from, query.to) {
            clauses.push((Occur::Must, range));
        }
        let searcher = self.reader.searcher();
        // Whole words narrow cheaply; when they leave many records (`in`, `service`),
        // the parts of words narrow too (a regex over each term list).
        let mut narrowed = false;
        let mut found = Default::default();
        for clues in [Clues::WholeWordsFirst, Clues::Every] {
            let mut all = clauses
                .iter()
                .map(|(o, q)| (*o, q.box_clone()))
                .collect::<Vec<_>>();
            narrowed = match self.narrowing.query(&literal.text, clues)? {
                Some(narrow) => {
                    all.push((Occur::Must, narrow));
                    true
                }
                None => false,
            };
            let candidates: Box<dyn Query> = if all.is_empty() {
                Box::new(AllQuery)
            } else {
                Box::new(BooleanQuery::new(all))
            };
            found = searcher
                .search(candidates.as_ref(), &DocSetCollector)
                .map_err(|e| IndexError::tantivy(&self.dir, e))?;
            if found.len() <= REFINE_ABOVE || !narrowed || !parts_refine(&literal.text) {
                break;
            }
        }
        if found.len() > MAX_LITERAL_RECORDS {
            let words = !matches!(self.narrowing, Narrowing::Nothing);
            let why = if narrowed || !words {
                "could be in"
            } else {
                "has no letter or digit to narrow by, and the search covers"
            };
            let hint = if words {
                "add a field or a time range, or search it as a word"
            } else {
                "this index was built before literal search: add a field or a time range, or analyse the bundle again"
            };
            return Err(IndexError::Request(format!(
                "{:?} {why} more than {MAX_LITERAL_RECORDS} records, the most a literal search checks line by line ({hint})",
                literal.text
            )));
        }
        let finder = memmem::Finder::new(literal.text.as_bytes());
        let mut keys = Vec::with_capacity(searcher.segment_readers().len());
        for reader in searcher.segment_readers() {
            keys.push(
                self.order
                    .segment_sort_key_computer(reader)
                    .map_err(|e| IndexError::tantivy(&self.dir, e))?,
            );
        }
        // In document order: each doc store block is decompressed once, not once per
        // candidate in it (a hash set's order cost ~1.5 s for 200,000 candidates).
        let mut found: Vec<DocAddress> = found.into_iter().collect();
        found.sort_unstable_by_key(|a| (a.segment_ord, a.doc_id));
        let mut hits = Vec::new();
        for address in found {
            let Some(keyer) = keys.get_mut(address.segment_ord as usize) else {
                continue;
            };
            let key = keyer.segment_sort_key(address.doc_id, 0.0);
            let doc: TantivyDocument = searcher
                .doc(address)
                .map_err(|e| IndexError::tantivy(&self.dir, e))?;
            let raw = doc
                .get_first(self.fields.raw)
                .and_then(|v| v.as_str())
                .unwrap_or_default();
            let level = doc
                .get_first(self.fields.level)
                .and_then(|v| v.as_str())
                .map(str::to_string);
            for (nth, line) in raw.split('\n').enumerate() {
                if finder.find(line.as_bytes()).is_some() {
                    hits.push(LineHit {
                        key: OrderKey {
                            line: key.line.saturating_add(nth as u64),
                            ..key
                        },
                        address,
                        nth,
                        level: level.clone(),
                    });
                }
            }
        }
        hits.sort_by(|a, b| {
            a.key
                .partial_cmp(&b.key)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let mut tallies = Tallies::default();
        let mut levels = std::collections::BTreeMap::<String, usize>::new();
        for hit in &hits {
            tallies.add(&hit.key);
            let level = hit
                .level
                .as_deref()
                .map_or(NO_LEVEL.to_string(), |l| l.to_ascii_uppercase());
            *levels.entry(level).or_default() += 1;
        }
        let offset = (query.page - 1).saturating_mul(query.per_page);
        let mut page = Vec::with_capacity(query.per_page);
        for hit in hits.iter().skip(offset).take(query.per_page) {
            page.push(self.line_hit(&searcher, hit, &finder)?);
        }
        Ok(SearchPage {
            total: hits.len(),
            page: query.page,
            per_page: query.per_page,
            literal: true,
            hits: page,
            facets: tallies.facets(&self.meta, levels),
            histogram: tallies.histogram(query.from, query.to),
        })
    }

    fn line_hit(
        &self,
        searcher: &tantivy::Searcher,
        hit: &LineHit,
        finder: &memmem::Finder<'_>,
    ) -> Result<SearchHit, IndexError> {
        let doc: TantivyDocument = searcher
            .doc(hit.address)
            .map_err(|e| IndexError::tantivy(&self.dir, e))?;
        let raw = doc
            .get_first(self.fields.raw)
            .and_then(|v| v.as_str())
            .unwrap_or_default();
        let text = raw.split('\n').nth(hit.nth).unwrap_or_default().to_string();
        let width = finder.needle().len();
        let marks = finder
            .find_iter(text.as_bytes())
            .map(|at| (at, at + width))
            .collect();
        let file = self.meta.files.get(hit.key.file as usize);
        let host = file.and_then(|f| self.meta.hosts.get(f.host as usize));
        Ok(SearchHit {
            path: file.map(|f| f.path.clone()).unwrap_or_default(),
            line: hit.key.line,
            host: host.map(|h| h.name.clone()).unwrap_or_default(),
            service: file.map(|f| f.service.clone()).unwrap_or_default(),
            level: hit.level.clone(),
            timestamp: hit.key.own_time.then(|| rfc3339(hit.key.utc)).flatten(),
            marks,
            text,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(text: &str, fields: &str) -> Option<Literal> {
        Some(Literal {
            text: text.into(),
            fields: fields.into(),
        })
    }

    #[test]
    fn pasted_ids_and_quoted_texts_are_literals() {
        let req = "req-fc71d7b6-265b-4e44-9682-88b9094ed4f8";
        assert_eq!(literal_of(req), lit(req, ""));
        assert_eq!(
            literal_of(&format!("  {req} host:cmp1 level:ERROR ")),
            lit(req, "host:cmp1 level:ERROR")
        );
        assert_eq!(
            literal_of("8acc20ac-82f7-42de-8532-14468beddf91"),
            lit("8acc20ac-82f7-42de-8532-14468beddf91", "")
        );
        assert_eq!(
            literal_of("4f0c5d2e9b7a4c1d8e3f6a5b4c3d2e1f"),
            lit("4f0c5d2e9b7a4c1d8e3f6a5b4c3d2e1f", "")
        );
        assert_eq!(
            literal_of("\"is still in use\" service:nova-api"),
            lit("is still in use", "service:nova-api")
        );
        assert_eq!(literal_of("10.20.0.15"), lit("10.20.0.15", ""));
        assert_eq!(
            literal_of("\"Resumed (Lifecycle Event)\""),
            lit("Resumed (Lifecycle Event)", "")
        );
    }

    #[test]
    fn words_fields_and_operators_are_not_literals() {
        for q in [
            "",
            "evacuate",
            "evacuate failed",
            "nova-compute",
            "request:req-fc71d7b6-265b-4e44-9682-88b9094ed4f8",
            "req-fc71d7b6-265b-4e44-9682-88b9094ed4f8 OR level:ERROR",
            "-req-fc71d7b6-265b-4e44-9682-88b9094ed4f8",
            "(req-fc71d7b6-265b-4e44-9682-88b9094ed4f8)",
            "\"a b\" \"c d\"",
            "\"unclosed",
            "\"\"",
            "req-fc71d7b6-265b-4e44-9682-88b9094ed4f8 failed",
        ] {
            assert_eq!(literal_of(q), None, "{q}");
        }
    }
}

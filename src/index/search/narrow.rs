//! Which records a literal search checks line by line: those whose indexed words could
//! hold the literal. Any record holding it must be among them (the check decides); the
//! fewer others, the faster the search.
//!
//! Indexes hold the raw lines' words in one of two ways (see `index::head`): all of them
//! in the `raw` field (indexes built before the head field), or split between the
//! lowercased `text` field, the `head` field (the other words, but digit-only ones, the
//! groups of the record's canonical request ids, its level and its logger's words) and
//! the `request`, `level` and `logger` fields.

use tantivy::Term;
use tantivy::query::{BooleanQuery, Occur, Query, RegexQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};

use std::sync::Arc;

use super::known_names::Names;
use crate::index::IndexError;
use crate::index::head::{TEXT_WORD_LIMIT, may_be_in_request_id};
use crate::index::schema::Fields;
use crate::index::words::{Clue, LONG_WORD, clues, placed_clues};

/// Which of a literal's words narrow its search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Clues {
    /// The whole words when it has any (a term each), else the parts.
    WholeWordsFirst,
    /// Every word, whole or part.
    Every,
}

/// How an index's words narrow a literal search.
#[derive(Clone, Debug)]
pub(crate) enum Narrowing {
    /// No words (an index built before literal search): every record is checked.
    Nothing,
    /// Every raw word in `raw`.
    RawWords { raw: Field },
    /// The words split between `text`, `head`, `request`, `level` and `logger`.
    TextAndHead(Split),
}

impl Narrowing {
    /// How the words of an opened index narrow: by the fields its schema has.
    pub(crate) fn of(
        index: &tantivy::Index,
        reader: &tantivy::IndexReader,
        fields: &Fields,
    ) -> tantivy::Result<Narrowing> {
        Ok(match fields.head {
            Some(head) => {
                let searcher = reader.searcher();
                let names = |field| Names::read(&searcher, field).map(|n| n.map(Arc::new));
                Narrowing::TextAndHead(Split {
                    text: fields.text,
                    head,
                    request: fields.request,
                    level: fields.level,
                    logger: fields.logger,
                    names: [names(fields.level)?, names(fields.logger)?],
                })
            }
            None if index.schema().get_field_entry(fields.raw).is_indexed() => {
                Narrowing::RawWords { raw: fields.raw }
            }
            None => Narrowing::Nothing,
        })
    }

    /// The records that could hold `literal`; `None` when the index cannot narrow it
    /// (no words, or the literal has no word that narrows): every record is checked.
    pub(crate) fn query(
        &self,
        literal: &str,
        clues: Clues,
    ) -> Result<Option<Box<dyn Query>>, IndexError> {
        match self {
            Narrowing::Nothing => Ok(None),
            Narrowing::RawWords { raw } => raw_words(*raw, literal, clues),
            Narrowing::TextAndHead(split) => text_and_head(split, literal, clues),
        }
    }
}

fn term(field: Field, word: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, word),
        IndexRecordOption::Basic,
    ))
}

/// The terms of `field` holding `part` (as the start, end, or inside of the term).
fn part_of(
    field: Field,
    part: &str,
    starts: bool,
    ends: bool,
    literal: &str,
) -> Result<Box<dyn Query>, IndexError> {
    let escaped = regex::escape(part);
    let pattern = match (starts, ends) {
        (true, _) => format!("{escaped}.*"),
        (false, true) => format!(".*{escaped}"),
        (false, false) => format!(".*{escaped}.*"),
    };
    let query = RegexQuery::from_pattern(&pattern, field)
        .map_err(|e| IndexError::Query(format!("{literal:?}: {e}")))?;
    Ok(Box::new(query))
}

fn any_of(alternatives: Vec<Box<dyn Query>>) -> Box<dyn Query> {
    Box::new(BooleanQuery::new(
        alternatives
            .into_iter()
            .map(|q| (Occur::Should, q))
            .collect(),
    ))
}

fn all_of(musts: Vec<Box<dyn Query>>) -> Option<Box<dyn Query>> {
    (!musts.is_empty()).then(|| {
        Box::new(BooleanQuery::new(
            musts.into_iter().map(|q| (Occur::Must, q)).collect(),
        )) as Box<dyn Query>
    })
}

/// Every raw word in one field: each whole word between separators must be one of the
/// record's; with no such word, each part of a word must be inside one of them.
fn raw_words(
    raw: Field,
    literal: &str,
    choice: Clues,
) -> Result<Option<Box<dyn Query>>, IndexError> {
    let all = clues(literal);
    let words: Vec<&Clue> = all.iter().filter(|c| matches!(c, Clue::Word(_))).collect();
    let chosen: Vec<&Clue> = if words.is_empty() || choice == Clues::Every {
        all.iter().collect()
    } else {
        words
    };
    let mut musts = Vec::new();
    for clue in chosen {
        musts.push(match clue {
            Clue::Word(word) => term(raw, word),
            Clue::Long(_) => term(raw, LONG_WORD),
            // A word longer than the index keeps may hold the part too.
            Clue::Part { text, starts, ends } => any_of(vec![
                part_of(raw, text, *starts, *ends, literal)?,
                term(raw, LONG_WORD),
            ]),
        });
    }
    Ok(all_of(musts))
}

/// True when the literal has parts of words beside whole words (that narrow): then
/// [`Clues::Every`] narrows more than [`Clues::WholeWordsFirst`].
pub(crate) fn parts_refine(literal: &str) -> bool {
    let narrowing = |c: &&Clue| !c.text().bytes().all(|b| b.is_ascii_digit());
    let all = clues(literal);
    all.iter()
        .filter(narrowing)
        .any(|c| matches!(c, Clue::Word(_)))
        && all
            .iter()
            .filter(narrowing)
            .any(|c| !matches!(c, Clue::Word(_)))
}

/// The fields the words are split between, and the level and logger names they hold
/// (`None`: too many to list, looked for by a regex instead).
#[derive(Clone, Debug)]
pub(crate) struct Split {
    pub text: Field,
    pub head: Field,
    pub request: Field,
    pub level: Field,
    pub logger: Field,
    pub names: [Option<Arc<Names>>; 2],
}

/// The words split between fields: each clue (whole words first, as above) is looked for
/// wherever the index may have put its word: the text (lowercased, words shorter than the
/// text field keeps), the head (as written; long words as one term), the request ids,
/// the level and the logger (lowercased, whole: the word inside them).
/// Digit-only words are not indexed outside the text: they do not narrow.
fn text_and_head(
    fields: &Split,
    literal: &str,
    choice: Clues,
) -> Result<Option<Box<dyn Query>>, IndexError> {
    let Split {
        text,
        head,
        request,
        ..
    } = *fields;
    let placed: Vec<((usize, usize), Clue)> = placed_clues(literal)
        .into_iter()
        .filter(|(_, clue)| !clue.text().bytes().all(|b| b.is_ascii_digit()))
        .collect();
    let words =
        choice == Clues::WholeWordsFirst && placed.iter().any(|(_, c)| matches!(c, Clue::Word(_)));
    let ids = request_ids_in(literal);
    let mut musts = Vec::new();
    for (at, clue) in &placed {
        if words && !matches!(clue, Clue::Word(_)) {
            continue;
        }
        let mut alternatives = Vec::new();
        match clue {
            Clue::Word(word) => {
                alternatives.push(term(head, word));
                if word.len() < TEXT_WORD_LIMIT {
                    alternatives.push(term(text, &lowercase(word)));
                }
            }
            Clue::Long(_) => alternatives.push(term(head, LONG_WORD)),
            Clue::Part {
                text: part,
                starts,
                ends,
            } => {
                alternatives.push(part_of(head, part, *starts, *ends, literal)?);
                alternatives.push(term(head, LONG_WORD));
                // The text field lowercases each character alone, so the lowercased
                // part is inside the lowercased word.
                alternatives.push(part_of(text, &lowercase(part), *starts, *ends, literal)?);
            }
        }
        // The ID fields hold the level and logger lowercased, as one term each.
        let lowered = lowercase(clue.text());
        for (field, names) in [fields.level, fields.logger].into_iter().zip(&fields.names) {
            match names {
                Some(names) => {
                    for name in names.holding(clue, &lowered) {
                        alternatives.push(term(field, name));
                    }
                }
                None => alternatives.push(Box::new(
                    RegexQuery::from_pattern(&inside_a_name(clue), field)
                        .map_err(|e| IndexError::Query(format!("{literal:?}: {e}")))?,
                )),
            }
        }
        if may_be_in_request_id(clue.text()) {
            alternatives.push(
                match ids.iter().find(|(s, e, _)| *s <= at.0 && at.1 <= *e) {
                    // The literal spells the id around the word: only that id can hide it.
                    Some((_, _, id)) => term(request, id),
                    None => request_part(request, clue, literal)?,
                },
            );
        }
        musts.push(any_of(alternatives));
    }
    Ok(all_of(musts))
}

/// The pattern of a level or logger name (lowercased, whole: one term of an ID field)
/// holding the clue's word where the clue says: as a whole word (`in` is not a word of
/// `info`), at a word's start or end, or anywhere. A separator is any character but
/// `a-z0-9`: every character that ends a word is one, so no name holding the word is
/// missed; some that do not (`é`) are too, which only lets more records be checked.
fn inside_a_name(clue: &Clue) -> String {
    const BEFORE: &str = "(.*[^a-z0-9])?";
    const AFTER: &str = "([^a-z0-9].*)?";
    let word = regex::escape(&lowercase(clue.text()));
    match clue {
        Clue::Word(_)
        | Clue::Part {
            starts: true,
            ends: true,
            ..
        } => format!("{BEFORE}{word}{AFTER}"),
        Clue::Part { starts: true, .. } => format!("{BEFORE}{word}.*"),
        Clue::Part { ends: true, .. } => format!(".*{word}{AFTER}"),
        Clue::Part { .. } | Clue::Long(_) => format!(".*{word}.*"),
    }
}

/// The request ids whose groups could be the word of `clue`.
fn request_part(request: Field, clue: &Clue, literal: &str) -> Result<Box<dyn Query>, IndexError> {
    let word = regex::escape(clue.text());
    let pattern = match clue {
        Clue::Word(_) => format!("req-(.*-)?{word}(-.*)?"),
        _ => format!("req-.*{word}.*"),
    };
    let query = RegexQuery::from_pattern(&pattern, request)
        .map_err(|e| IndexError::Query(format!("{literal:?}: {e}")))?;
    Ok(Box::new(query))
}

/// Each lowercase UUID the literal spells (bare or after `req-`), as the byte range of
/// the UUID and the request id it would be.
fn request_ids_in(literal: &str) -> Vec<(usize, usize, String)> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(rest) = literal.get(at..) {
        let Some(uuid) = evacdoc_parsers::text::uuid_prefix(rest) else {
            match rest.chars().next() {
                Some(c) => at += c.len_utf8(),
                None => break,
            }
            continue;
        };
        if !uuid.bytes().any(|b| b.is_ascii_uppercase()) {
            found.push((at, at + uuid.len(), format!("req-{uuid}")));
        }
        at += uuid.len();
    }
    found
}

/// As tantivy's `LowerCaser` lowercases a token: each character on its own.
fn lowercase(word: &str) -> String {
    word.chars().flat_map(char::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uuids_a_literal_spells_are_found_in_place() {
        let uuid = "c9f75f3d-7e41-4790-94e7-b235b073cdd0";
        assert_eq!(
            request_ids_in(&format!("req-{uuid} x")),
            [(4, 40, format!("req-{uuid}"))]
        );
        assert!(request_ids_in(&uuid.to_uppercase()).is_empty());
        assert!(request_ids_in(&uuid[..30]).is_empty());
        assert_eq!(request_ids_in(&format!("é{uuid}"))[0].0, 2);
    }

    #[test]
    fn a_word_is_looked_for_whole_in_a_name() {
        let matches = |clue: Clue, name: &str| {
            regex::Regex::new(&format!("^(?:{})$", inside_a_name(&clue)))
                .unwrap()
                .is_match(name)
        };
        let word = |w: &str| Clue::Word(w.into());
        assert!(matches(word("In"), "in"));
        assert!(!matches(word("in"), "info"));
        assert!(!matches(word("in"), "warning"));
        assert!(matches(word("processing"), "keystone.request_processing.x"));
        assert!(matches(word("nova"), "nova.compute"));
        assert!(matches(word("x"), "a.é.x"));
        let part = |w: &str, starts, ends| Clue::Part {
            text: w.into(),
            starts,
            ends,
        };
        assert!(matches(part("comp", true, false), "nova.compute.manager"));
        assert!(!matches(
            part("ompute", true, false),
            "nova.compute.manager"
        ));
        assert!(matches(part("pute", false, true), "nova.compute.manager"));
        assert!(matches(part("mput", false, false), "nova.compute.manager"));
        assert!(!matches(part("mput", true, true), "nova.compute.manager"));
    }

    #[test]
    fn lowercase_is_per_character() {
        assert_eq!(lowercase("ABC"), "abc");
        assert_eq!(lowercase("ΟΔΟΣ"), "οδοσ");
    }
}

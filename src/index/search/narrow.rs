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

use crate::index::IndexError;
use crate::index::head::{TEXT_WORD_LIMIT, may_be_in_request_id};
use crate::index::words::{Clue, LONG_WORD, clues, placed_clues};

/// How an index's words narrow a literal search.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Narrowing {
    /// No words (an index built before literal search): every record is checked.
    Nothing,
    /// Every raw word in `raw`.
    RawWords { raw: Field },
    /// The words split between `text`, `head`, `request`, `level` and `logger`.
    TextAndHead {
        text: Field,
        head: Field,
        request: Field,
        level: Field,
        logger: Field,
    },
}

impl Narrowing {
    /// The records that could hold `literal`; `None` when the index cannot narrow it
    /// (no words, or the literal has no word that narrows): every record is checked.
    pub(crate) fn query(&self, literal: &str) -> Result<Option<Box<dyn Query>>, IndexError> {
        match *self {
            Narrowing::Nothing => Ok(None),
            Narrowing::RawWords { raw } => raw_words(raw, literal),
            Narrowing::TextAndHead {
                text,
                head,
                request,
                level,
                logger,
            } => text_and_head(
                Split {
                    text,
                    head,
                    request,
                    level,
                    logger,
                },
                literal,
            ),
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
fn raw_words(raw: Field, literal: &str) -> Result<Option<Box<dyn Query>>, IndexError> {
    let all = clues(literal);
    let words: Vec<&Clue> = all.iter().filter(|c| matches!(c, Clue::Word(_))).collect();
    let chosen: Vec<&Clue> = if words.is_empty() {
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

/// The fields the words are split between.
struct Split {
    text: Field,
    head: Field,
    request: Field,
    level: Field,
    logger: Field,
}

/// The words split between fields: each clue (whole words first, as above) is looked for
/// wherever the index may have put its word: the text (lowercased, words shorter than the
/// text field keeps), the head (as written; long words as one term), the request ids,
/// the level and the logger (lowercased, whole: the word inside them).
/// Digit-only words are not indexed outside the text: they do not narrow.
fn text_and_head(fields: Split, literal: &str) -> Result<Option<Box<dyn Query>>, IndexError> {
    let Split {
        text,
        head,
        request,
        level,
        logger,
    } = fields;
    let placed: Vec<((usize, usize), Clue)> = placed_clues(literal)
        .into_iter()
        .filter(|(_, clue)| !clue.text().bytes().all(|b| b.is_ascii_digit()))
        .collect();
    let words = placed.iter().any(|(_, c)| matches!(c, Clue::Word(_)));
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
        let inside = format!(".*{}.*", regex::escape(&lowercase(clue.text())));
        for field in [level, logger] {
            alternatives
                .push(Box::new(RegexQuery::from_pattern(&inside, field).map_err(
                    |e| IndexError::Query(format!("{literal:?}: {e}")),
                )?));
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
    fn lowercase_is_per_character() {
        assert_eq!(lowercase("ABC"), "abc");
        assert_eq!(lowercase("ΟΔΟΣ"), "οδοσ");
    }
}

//! The level and logger names of an index, read once when it is opened, so that a
//! literal's word is looked for in them by comparing strings rather than by a regex over
//! each segment's terms (compiling those regexes cost a pasted request id ~25 ms).

use std::collections::BTreeSet;

use tantivy::Searcher;
use tantivy::schema::Field;

use crate::index::words::{Clue, word_spans};

/// More distinct names than this in one field (a bundle of made-up loggers): the
/// narrowing falls back to a regex over the terms.
const MAX_NAMES: usize = 10_000;

/// Every term of one field (names lowercased, as the ID tokenizer holds them).
#[derive(Debug, Default)]
pub(crate) struct Names(Vec<String>);

impl Names {
    /// The field's distinct terms over every segment; `None` past [`MAX_NAMES`].
    pub(crate) fn read(searcher: &Searcher, field: Field) -> tantivy::Result<Option<Names>> {
        let mut names = BTreeSet::new();
        for segment in searcher.segment_readers() {
            let index = segment.inverted_index(field)?;
            let mut terms = index.terms().stream()?;
            while terms.advance() {
                names.insert(String::from_utf8_lossy(terms.key()).into_owned());
                if names.len() > MAX_NAMES {
                    return Ok(None);
                }
            }
        }
        Ok(Some(Names(names.into_iter().collect())))
    }

    /// The names that may hold the clue's word (`lowercased`: the word as the field
    /// lowercases it) where the clue says: a whole word of the name, its start or end, or
    /// anywhere in it. With a character past ASCII in either, anywhere (lowercasing may
    /// split or join words there), which only lets more records be checked.
    pub(crate) fn holding<'a>(
        &'a self,
        clue: &'a Clue,
        lowercased: &'a str,
    ) -> impl Iterator<Item = &'a str> + 'a {
        self.0.iter().map(String::as_str).filter(move |name| {
            if !name.contains(lowercased) {
                return false;
            }
            if !name.is_ascii() || !lowercased.is_ascii() {
                return true;
            }
            let mut words = word_spans(name).map(|(s, e)| &name[s..e]);
            match clue {
                Clue::Word(_) => words.any(|w| w == lowercased),
                Clue::Part {
                    starts: true,
                    ends: true,
                    ..
                } => words.any(|w| w == lowercased),
                Clue::Part { starts: true, .. } => words.any(|w| w.starts_with(lowercased)),
                Clue::Part { ends: true, .. } => words.any(|w| w.ends_with(lowercased)),
                Clue::Part { .. } | Clue::Long(_) => true,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_found_whole_at_an_end_or_inside_a_name() {
        let names = Names(
            [
                "info",
                "warning",
                "nova.compute.manager",
                "keystone.req_logging",
                "a.é.x",
            ]
            .map(String::from)
            .to_vec(),
        );
        let holding = |clue: Clue| {
            let lower = clue.text().to_lowercase();
            names
                .holding(&clue, &lower)
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        let word = |w: &str| Clue::Word(w.into());
        let part = |w: &str, starts, ends| Clue::Part {
            text: w.into(),
            starts,
            ends,
        };
        assert!(holding(word("in")).is_empty());
        assert_eq!(holding(word("Logging")), ["keystone.req_logging"]);
        assert_eq!(holding(word("x")), ["a.é.x"]);
        assert_eq!(holding(part("comp", true, false)), ["nova.compute.manager"]);
        assert!(holding(part("ompute", true, false)).is_empty());
        assert_eq!(holding(part("ager", false, true)), ["nova.compute.manager"]);
        assert_eq!(holding(part("arn", false, false)), ["warning"]);
    }
}

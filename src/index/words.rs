//! The words of the raw lines, indexed so that a literal search (`grep -F`) can be
//! narrowed by the index before each candidate's lines are checked byte for byte.
//!
//! A word is a run of alphanumeric characters, kept in its case (a literal search is
//! case-sensitive). A word longer than [`MAX_WORD`] bytes is indexed as [`LONG_WORD`]
//! instead (hex blobs, base64): it keeps the term dictionary small and a literal inside
//! such a word still finds its record.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// The tokenizer's name in the index.
pub(crate) const WORDS_TOKENIZER: &str = "evacdoc_words";
/// Words longer than this are indexed as [`LONG_WORD`].
pub(crate) const MAX_WORD: usize = 64;
/// The term of every word longer than [`MAX_WORD`]; never a word itself (it has dashes).
pub(crate) const LONG_WORD: &str = "-long-";

/// The alphanumeric runs of `text`: (start, end) byte offsets. ASCII bytes are tested
/// as bytes (the index build calls this on every record); other characters by
/// `char::is_alphanumeric`, as tantivy's tokenizers test them.
pub(crate) fn word_spans(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0;
    // Whether the character at `i` is alphanumeric, and its length in bytes.
    let class = move |i: usize| -> (bool, usize) {
        match bytes.get(i) {
            Some(b) if b.is_ascii() => (b.is_ascii_alphanumeric(), 1),
            Some(_) => text
                .get(i..)
                .and_then(|rest| rest.chars().next())
                .map_or((false, 1), |c| (c.is_alphanumeric(), c.len_utf8())),
            None => (false, 0),
        }
    };
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let (word, width) = class(at);
            if word {
                break;
            }
            at += width;
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        while at < bytes.len() {
            let (word, width) = class(at);
            if !word {
                break;
            }
            at += width;
        }
        Some((start, at))
    })
}

/// What a word of a literal tells about the words of any line holding the literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Clue {
    /// The line holds this exact word (the literal's word has a separator on both
    /// sides).
    Word(String),
    /// The line holds a word starting with, ending with, or containing this one (the
    /// literal starts or ends inside a word of the line).
    Part {
        text: String,
        starts: bool,
        ends: bool,
    },
    /// The line holds a word longer than [`MAX_WORD`] (holding this one).
    Long(String),
}

impl Clue {
    /// The literal's word the clue is about.
    pub(crate) fn text(&self) -> &str {
        match self {
            Clue::Word(text) | Clue::Part { text, .. } | Clue::Long(text) => text,
        }
    }
}

/// The clues of a literal's words.
pub(crate) fn clues(literal: &str) -> Vec<Clue> {
    placed_clues(literal)
        .into_iter()
        .map(|(_, clue)| clue)
        .collect()
}

/// The clues of a literal's words, each with its word's byte range in the literal.
pub(crate) fn placed_clues(literal: &str) -> Vec<((usize, usize), Clue)> {
    word_spans(literal)
        .map(|(start, end)| {
            let text = &literal[start..end];
            let (left, right) = (start > 0, end < literal.len());
            let clue = if text.len() > MAX_WORD {
                Clue::Long(text.to_string())
            } else if left && right {
                Clue::Word(text.to_string())
            } else {
                Clue::Part {
                    text: text.to_string(),
                    starts: left,
                    ends: right,
                }
            };
            ((start, end), clue)
        })
        .collect()
}

/// Splits text into its words (see the module).
#[derive(Clone, Debug, Default)]
pub(crate) struct WordsTokenizer {
    token: Token,
}

pub(crate) struct WordStream<'a> {
    text: &'a str,
    spans: Box<dyn Iterator<Item = (usize, usize)> + 'a>,
    token: &'a mut Token,
}

impl Tokenizer for WordsTokenizer {
    type TokenStream<'a> = WordStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        self.token.reset();
        WordStream {
            text,
            spans: Box::new(word_spans(text)),
            token: &mut self.token,
        }
    }
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        let Some((start, end)) = self.spans.next() else {
            return false;
        };
        let word = self.text.get(start..end).unwrap_or_default();
        self.token.text.clear();
        self.token.text.push_str(if word.len() > MAX_WORD {
            LONG_WORD
        } else {
            word
        });
        self.token.offset_from = start;
        self.token.offset_to = end;
        self.token.position = self.token.position.wrapping_add(1);
        true
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_alphanumeric_runs_in_their_case() {
        let text = "2020-12-08 19:51 [req-Ab12 - -] é1x";
        let words: Vec<&str> = word_spans(text).map(|(s, e)| &text[s..e]).collect();
        assert_eq!(
            words,
            ["2020", "12", "08", "19", "51", "req", "Ab12", "é1x"]
        );
        let mut tokenizer = WordsTokenizer::default();
        let long = format!("a {} b", "f".repeat(MAX_WORD + 1));
        let mut stream = tokenizer.token_stream(&long);
        let mut seen = Vec::new();
        while stream.advance() {
            seen.push(stream.token().text.clone());
        }
        assert_eq!(seen, ["a", LONG_WORD, "b"]);
    }

    #[test]
    fn word_spans_agree_with_testing_each_character() {
        let reference = |text: &str| -> Vec<(usize, usize)> {
            let mut out = Vec::new();
            let mut start = None;
            for (i, c) in text.char_indices() {
                match (c.is_alphanumeric(), start) {
                    (true, None) => start = Some(i),
                    (false, Some(s)) => {
                        out.push((s, i));
                        start = None;
                    }
                    _ => {}
                }
            }
            if let Some(s) = start {
                out.push((s, text.len()));
            }
            out
        };
        for text in [
            "",
            "-",
            "abc",
            "a-b",
            "2020-12-08 19:51 [req-Ab12 - -] é1x",
            "ünïcödé wörds ½ 漢字かな ΟΔΟΣ, x²",
            "\u{200b}zero\u{200b}width",
            "tab\tand\nnewline",
        ] {
            assert_eq!(
                word_spans(text).collect::<Vec<_>>(),
                reference(text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_literal_tells_whole_words_only_between_separators() {
        let clues = clues("req-1a2b-cd-9");
        assert_eq!(
            clues,
            [
                Clue::Part {
                    text: "req".into(),
                    starts: false,
                    ends: true
                },
                Clue::Word("1a2b".into()),
                Clue::Word("cd".into()),
                Clue::Part {
                    text: "9".into(),
                    starts: true,
                    ends: false
                },
            ]
        );
        let long = "x".repeat(MAX_WORD + 1);
        assert_eq!(super::clues(&long), [Clue::Long(long.clone())]);
        assert_eq!(placed_clues("a-bc")[1].0, (2, 4));
        assert!(super::clues("->").is_empty());
    }
}

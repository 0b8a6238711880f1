//! Where a hit's text matches the query: the words of the text field's terms (found by
//! tokenizing the hit's text as the index did) and the ids the query asks for.

use std::collections::HashSet;

use tantivy::query::Query;
use tantivy::tokenizer::TextAnalyzer;

use crate::index::schema::Fields;

/// The terms to mark, from a parsed query.
#[derive(Debug, Default)]
pub(crate) struct Marker {
    words: HashSet<String>,
    /// Lowercased ids (`instance:`, `request:`, ...), marked where the text holds them.
    ids: Vec<String>,
}

impl Marker {
    pub fn of(query: &dyn Query, fields: &Fields) -> Marker {
        let id_fields = [
            fields.request,
            fields.global,
            fields.instance,
            fields.notification,
            fields.volume,
        ];
        let mut marker = Marker::default();
        query.query_terms(&mut |term, _| {
            let value = term.value();
            let Some(value) = value.as_str() else {
                return;
            };
            if term.field() == fields.text {
                marker.words.insert(value.to_string());
            } else if id_fields.contains(&term.field()) && !marker.ids.iter().any(|i| i == value) {
                marker.ids.push(value.to_string());
            }
        });
        marker
    }

    /// Byte ranges of `text` to mark, in order, not overlapping.
    pub fn marks(&self, text: &str, analyzer: &mut TextAnalyzer) -> Vec<(usize, usize)> {
        let mut marks = Vec::new();
        if !self.words.is_empty() {
            let mut stream = analyzer.token_stream(text);
            while stream.advance() {
                let token = stream.token();
                if self.words.contains(&token.text) {
                    marks.push((token.offset_from, token.offset_to));
                }
            }
        }
        if !self.ids.is_empty() {
            // ASCII lowercasing keeps byte offsets.
            let lower = text.to_ascii_lowercase();
            for id in &self.ids {
                marks.extend(
                    lower
                        .match_indices(id.as_str())
                        .map(|(at, m)| (at, at + m.len())),
                );
            }
        }
        marks.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(marks.len());
        for (start, end) in marks {
            match merged.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        merged
    }
}

//! Lines of one file by range, read back from the index (which keeps every record: the
//! service does not keep the unpacked bundle).

use std::ops::Bound;

use tantivy::collector::DocSetCollector;
use tantivy::query::{BooleanQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Value as _};
use tantivy::{TantivyDocument, Term};

use super::SearchIndex;
use crate::index::IndexError;
use crate::index::schema::names;

impl SearchIndex {
    /// The records of file `file` (its id in the analysis) whose first line lies in
    /// `from..=to`, in line order: (1-based line, the record's lines as the file holds
    /// them). At most 10 000.
    pub fn lines(&self, file: u32, from: u32, to: u32) -> Result<Vec<(u32, String)>, IndexError> {
        const MAX: u32 = 10_000;
        let to = to.min(from.saturating_add(MAX - 1));
        let in_file = TermQuery::new(
            Term::from_field_u64(self.fields.file, u64::from(file)),
            IndexRecordOption::Basic,
        );
        let in_range = RangeQuery::new(
            Bound::Included(Term::from_field_u64(self.fields.line, u64::from(from))),
            Bound::Included(Term::from_field_u64(self.fields.line, u64::from(to))),
        );
        let query = BooleanQuery::new(vec![
            (Occur::Must, Box::new(in_file) as Box<dyn Query>),
            (Occur::Must, Box::new(in_range)),
        ]);
        let searcher = self.reader.searcher();
        let found = searcher
            .search(&query, &DocSetCollector)
            .map_err(|e| IndexError::tantivy(&self.dir, e))?;
        let mut lines = Vec::with_capacity(found.len());
        for address in found {
            let column = searcher
                .segment_reader(address.segment_ord)
                .fast_fields()
                .u64(names::LINE)
                .map_err(|e| IndexError::tantivy(&self.dir, e))?;
            let Some(line) = column.first(address.doc_id) else {
                continue;
            };
            let doc: TantivyDocument = searcher
                .doc(address)
                .map_err(|e| IndexError::tantivy(&self.dir, e))?;
            let text = doc
                .get_first(self.fields.raw)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string();
            lines.push((u32::try_from(line).unwrap_or(u32::MAX), text));
        }
        lines.sort_unstable_by_key(|(line, _)| *line);
        Ok(lines)
    }
}

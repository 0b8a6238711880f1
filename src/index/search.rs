//! Searching an index: a query (words, phrases, fields) and a UTC time range in, one
//! page of hits in UTC time order (then path, then line) out, matched words marked.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod known_names;
mod lines;
mod literal;
mod narrow;
mod order;
mod parse;
mod tally;

pub use literal::MAX_LITERAL_RECORDS;
pub use tally::{Bucket, FacetCount, Facets, Histogram, NO_LEVEL};

pub use parse::{ParserAlone, parse_alone};

use serde::{Deserialize, Serialize};
use tantivy::collector::sort_key::ReverseComparator;
use tantivy::collector::{Count, SegmentSortKeyComputer, SortKeyComputer, TopDocs};
use tantivy::columnar::Column;
use tantivy::query::{
    AllQuery, BooleanQuery, Occur, Query, QueryParser, RangeQuery, TermQuery, TermSetQuery,
};
use tantivy::schema::{IndexRecordOption, Value as _};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DocId, Index, IndexReader, Score, Searcher, SegmentReader, TantivyDocument, Term};

use crate::index::IndexError;
use crate::index::marks::Marker;
use crate::index::meta::{HostMeta, IndexMeta};
use crate::index::query_limits::check_query;
use crate::index::schema::{self, FLAG_OWN_TIME, Fields, names};
use crate::index::spans::text_of;
use order::{OrderKey, SegmentTimeOrder, TimeOrder};
use parse::{parse, parser_of};
use tally::Tally;

/// The most hits one page may hold.
pub const MAX_PER_PAGE: usize = 1000;
/// How far a search pages: its first hits, up to this many (a page past them is
/// refused, naming the bound). tantivy keeps every hit before the page wanted in memory
/// while it searches.
pub const MAX_HITS_SHOWN: usize = 10_000;

/// A search: the query, an optional UTC time range, and the page wanted.
#[derive(Clone, Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SearchQuery {
    /// Words, "quoted phrases" and fields (`instance:` `request:` `global:`
    /// `notification:` `volume:` `level:` `logger:` `host:` `service:`), AND by default,
    /// `OR`, `NOT`/`-` and parentheses; empty matches every record.
    pub q: String,
    /// Records at or after this UTC time (ns since the Unix epoch).
    #[serde(default)]
    pub from: Option<i64>,
    /// Records at or before this UTC time (ns since the Unix epoch).
    #[serde(default)]
    pub to: Option<i64>,
    /// Only records of this host (its name or an alias).
    #[serde(default)]
    pub host: Option<String>,
    /// Only records of this service.
    #[serde(default)]
    pub service: Option<String>,
    /// Only records of this level (`ERROR`, `WARNING`, ...).
    #[serde(default)]
    pub level: Option<String>,
    /// Only records of this request (local or global id).
    #[serde(default)]
    pub request: Option<String>,
    /// Only records naming this instance.
    #[serde(default)]
    pub instance: Option<String>,
    /// The page, from 1.
    #[serde(default = "first_page")]
    pub page: usize,
    /// Hits per page (1 to 1000).
    #[serde(default = "default_per_page")]
    pub per_page: usize,
}

fn first_page() -> usize {
    1
}

fn default_per_page() -> usize {
    50
}

impl SearchQuery {
    /// The first page of `q`, no time range.
    pub fn new(q: impl Into<String>) -> SearchQuery {
        SearchQuery {
            q: q.into(),
            from: None,
            to: None,
            host: None,
            service: None,
            level: None,
            request: None,
            instance: None,
            page: first_page(),
            per_page: default_per_page(),
        }
    }

    /// Checks the request before anything is searched or parsed: the page within the
    /// hits a search pages through, the time range in order, the query's text within
    /// its bounds ([`crate::index::check_query`]).
    pub fn check(&self) -> Result<(), IndexError> {
        if self.page == 0 {
            return Err(IndexError::Request("pages are numbered from 1".into()));
        }
        if self.per_page == 0 || self.per_page > MAX_PER_PAGE {
            return Err(IndexError::Request(format!(
                "per_page must be 1 to {MAX_PER_PAGE}, not {}",
                self.per_page
            )));
        }
        let offset = (self.page - 1).saturating_mul(self.per_page);
        if offset.saturating_add(self.per_page) > MAX_HITS_SHOWN {
            return Err(IndexError::Request(format!(
                "page {} of {} hits ends past hit {MAX_HITS_SHOWN}: a search pages through its first {MAX_HITS_SHOWN} hits only (narrow the query or the time range)",
                self.page, self.per_page
            )));
        }
        if let (Some(from), Some(to)) = (self.from, self.to)
            && from > to
        {
            return Err(IndexError::Request(
                "the time range ends before it starts".into(),
            ));
        }
        check_query(&self.q)?;
        check_query(&self.filter_terms())?;
        Ok(())
    }

    /// The filters as `field:"value"` terms of the query language (quotes in a value
    /// dropped), ANDed; empty when there are none.
    pub fn filter_terms(&self) -> String {
        [
            ("host", &self.host),
            ("service", &self.service),
            ("level", &self.level),
            ("request", &self.request),
            ("instance", &self.instance),
        ]
        .into_iter()
        .filter_map(|(name, value)| {
            let value = value.as_deref()?.trim().replace('"', "");
            (!value.is_empty()).then(|| format!("{name}:\"{value}\""))
        })
        .collect::<Vec<_>>()
        .join(" ")
    }
}

/// One page of hits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SearchPage {
    /// Records matching, over all pages.
    pub total: usize,
    /// This page, from 1.
    pub page: usize,
    /// Hits per page asked for.
    pub per_page: usize,
    /// The query was one pasted id or "quoted text" (beside fields): matched byte for
    /// byte in the raw lines, as `grep -F` does, and each hit is one line (else each hit
    /// is one record).
    #[serde(default)]
    pub literal: bool,
    /// The hits of this page, in UTC time order, then path, then line.
    pub hits: Vec<SearchHit>,
    /// Every hit counted by host, service and level.
    #[serde(default)]
    pub facets: Facets,
    /// Every hit counted over time.
    #[serde(default)]
    pub histogram: Histogram,
}

/// One matching record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SearchHit {
    /// The file, relative to the input root.
    pub path: String,
    /// 1-based number of the record's first line.
    pub line: u64,
    /// The host's name.
    pub host: String,
    /// The service that wrote the file.
    pub service: String,
    /// The record's level, when its format has one.
    pub level: Option<String>,
    /// The record's time in UTC (RFC 3339), clock correction applied; none when the
    /// record has no time of its own.
    pub timestamp: Option<String>,
    /// The record's message (with its continuation and traceback lines).
    pub text: String,
    /// Byte ranges of `text` that match the query.
    pub marks: Vec<(usize, usize)>,
}

/// An opened index.
pub struct SearchIndex {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
    meta: Arc<IndexMeta>,
    parser: QueryParser,
    order: TimeOrder,
    /// How the index's words narrow literal searches.
    narrowing: narrow::Narrowing,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("dir", &self.dir)
            .finish()
    }
}

/// Decompressed doc store blocks each segment's reader keeps. tantivy keeps 100; with
/// 64 KiB blocks and ~80 segments at 1 GiB of logs, a literal search reading its
/// candidates filled them all: 1 GB more server memory (bench_serve, `"still in use"`).
/// Hits are read in document order, so a few blocks per segment serve them.
const DOC_STORE_CACHE_BLOCKS: usize = 4;

impl SearchIndex {
    /// Opens the index an [`crate::index::Indexer`] finished in `dir`.
    pub fn open(dir: &Path) -> Result<SearchIndex, IndexError> {
        let meta = Arc::new(IndexMeta::read(dir)?);
        // The doc stores read, not mapped: see `index::read_store`.
        let folder = super::read_store::ReadStores::open(dir)
            .map_err(|e| IndexError::tantivy(dir, tantivy::TantivyError::from(e)))?;
        let index = Index::open(folder).map_err(|e| IndexError::tantivy(dir, e))?;
        schema::register_tokenizers(&index);
        let fields = schema::fields_of(&index.schema()).map_err(|e| IndexError::tantivy(dir, e))?;
        let reader = index
            .reader_builder()
            .doc_store_cache_num_blocks(DOC_STORE_CACHE_BLOCKS)
            .try_into()
            .map_err(|e| IndexError::tantivy(dir, e))?;
        let parser = parser_of(&index, fields.text);
        let order = TimeOrder::new(meta.clone());
        let narrowing = narrow::Narrowing::of(&index, &reader, &fields)
            .map_err(|e| IndexError::tantivy(dir, e))?;
        Ok(SearchIndex {
            dir: dir.to_path_buf(),
            index,
            reader,
            fields,
            meta,
            parser,
            order,
            narrowing,
        })
    }

    /// Documents in the index.
    pub fn documents(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// One page of the records matching `query`.
    pub fn search(&self, query: &SearchQuery) -> Result<SearchPage, IndexError> {
        query.check()?;
        let filters = query.filter_terms();
        if let Some(mut literal) = literal::literal_of(&query.q) {
            if !filters.is_empty() {
                literal.fields = format!("{} {filters}", literal.fields).trim().to_string();
            }
            return self.search_literal(&literal, query);
        }
        let offset = (query.page - 1).saturating_mul(query.per_page);
        let parsed: Box<dyn Query> = if query.q.trim().is_empty() {
            Box::new(AllQuery)
        } else {
            parse(&self.parser, &self.meta, &query.q)?
        };
        let marker = Marker::of(parsed.as_ref(), &self.fields);
        let mut musts = vec![(Occur::Must, parsed)];
        if !filters.is_empty() {
            musts.push((Occur::Must, parse(&self.parser, &self.meta, &filters)?));
        }
        if let Some(range) = self.time_filter(query.from, query.to) {
            musts.push((Occur::Must, range));
        }
        let full: Box<dyn Query> = if musts.len() == 1 {
            musts.remove(0).1
        } else {
            Box::new(BooleanQuery::new(musts))
        };
        let top = TopDocs::with_limit(query.per_page)
            .and_offset(offset)
            .order_by(self.order.clone());
        let searcher = self.reader.searcher();
        let (total, top, tallies) = searcher
            .search(full.as_ref(), &(Count, top, Tally(self.order.clone())))
            .map_err(|e| IndexError::tantivy(&self.dir, e))?;
        let levels = self.level_counts(&searcher, full.as_ref(), total)?;
        let mut analyzer = self.text_analyzer()?;
        let mut hits = Vec::with_capacity(top.len());
        for (key, address) in top {
            let doc: TantivyDocument = searcher
                .doc(address)
                .map_err(|e| IndexError::tantivy(&self.dir, e))?;
            let stored = |field| {
                doc.get_first(field)
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
            };
            let text = self.text_of(&doc);
            let file = self.meta.files.get(key.file as usize);
            let host = file.and_then(|f| self.meta.hosts.get(f.host as usize));
            hits.push(SearchHit {
                path: file.map(|f| f.path.clone()).unwrap_or_default(),
                line: key.line,
                host: host.map(|h| h.name.clone()).unwrap_or_default(),
                service: file.map(|f| f.service.clone()).unwrap_or_default(),
                level: stored(self.fields.level),
                timestamp: key.own_time.then(|| rfc3339(key.utc)).flatten(),
                marks: marker.marks(&text, &mut analyzer),
                text,
            });
        }
        Ok(SearchPage {
            total,
            page: query.page,
            per_page: query.per_page,
            literal: false,
            hits,
            facets: tallies.facets(&self.meta, levels),
            histogram: tallies.histogram(query.from, query.to),
        })
    }

    /// Hits of `query` per level: one count per level the index holds; hits of formats
    /// without levels as [`NO_LEVEL`].
    fn level_counts(
        &self,
        searcher: &Searcher,
        query: &dyn Query,
        total: usize,
    ) -> Result<BTreeMap<String, usize>, IndexError> {
        let mut out = BTreeMap::new();
        if total == 0 {
            return Ok(out);
        }
        let tantivy = |e: &dyn std::fmt::Display| IndexError::tantivy(&self.dir, e);
        let mut names = BTreeSet::new();
        for reader in searcher.segment_readers() {
            let inverted = reader
                .inverted_index(self.fields.level)
                .map_err(|e| tantivy(&e))?;
            let mut terms = inverted.terms().stream().map_err(|e| tantivy(&e))?;
            while terms.advance() {
                if let Ok(name) = std::str::from_utf8(terms.key()) {
                    names.insert(name.to_string());
                }
            }
        }
        let mut counted = 0;
        for name in names {
            let level = TermQuery::new(
                Term::from_field_text(self.fields.level, &name),
                IndexRecordOption::Basic,
            );
            let both = BooleanQuery::new(vec![
                (Occur::Must, query.box_clone()),
                (Occur::Must, Box::new(level) as Box<dyn Query>),
            ]);
            let n = searcher.search(&both, &Count).map_err(|e| tantivy(&e))?;
            if n > 0 {
                counted += n;
                *out.entry(name.to_ascii_uppercase()).or_default() += n;
            }
        }
        if total > counted {
            out.insert(NO_LEVEL.to_string(), total - counted);
        }
        Ok(out)
    }

    /// A hit's text: stored on its own, or put together from its raw lines and spans.
    fn text_of(&self, doc: &TantivyDocument) -> String {
        let str_of = |field| doc.get_first(field).and_then(|v| v.as_str());
        if let Some(own) = str_of(self.fields.own_text) {
            return own.to_string();
        }
        let raw = str_of(self.fields.raw).unwrap_or_default();
        let spans = doc
            .get_first(self.fields.spans)
            .and_then(|v| v.as_bytes())
            .unwrap_or_default();
        let mut text = String::new();
        if !text_of(raw, spans, &mut text) {
            text = raw.to_string();
        }
        text
    }

    fn text_analyzer(&self) -> Result<TextAnalyzer, IndexError> {
        self.index
            .tokenizers()
            .get(schema::TEXT_TOKENIZER)
            .ok_or_else(|| IndexError::tantivy(&self.dir, "the text tokenizer is not registered"))
    }

    /// Records whose UTC time lies in `[from, to]`: each host's local range for its
    /// zone-less times, its shifted UTC range for times that carried their offset.
    fn time_filter(&self, from: Option<i64>, to: Option<i64>) -> Option<Box<dyn Query>> {
        if from.is_none() && to.is_none() {
            return None;
        }
        // Hosts whose ranges come out the same share one clause.
        let mut groups: BTreeMap<(Option<i64>, Option<i64>, i64), Vec<u32>> = BTreeMap::new();
        for (id, host) in self.meta.hosts.iter().enumerate() {
            let lo = from.map(|f| host.first_local_at_or_after(f));
            let hi = to.map(|t| host.first_local_at_or_after(t.saturating_add(1)));
            groups
                .entry((lo, hi, host.shift_ns))
                .or_default()
                .push(id as u32);
        }
        let single = groups.len() == 1;
        let clauses: Vec<(Occur, Box<dyn Query>)> = groups
            .into_iter()
            .map(|((lo, hi, shift), hosts)| {
                let local = range(
                    self.fields.time_local,
                    lo.map_or(Bound::Unbounded, Bound::Included),
                    hi.map_or(Bound::Unbounded, Bound::Excluded),
                );
                let utc = range(
                    self.fields.time_utc,
                    from.map_or(Bound::Unbounded, |f| {
                        Bound::Included(f.saturating_add(shift))
                    }),
                    to.map_or(Bound::Unbounded, |t| {
                        Bound::Included(t.saturating_add(shift))
                    }),
                );
                let either: Box<dyn Query> = Box::new(BooleanQuery::new(vec![
                    (Occur::Should, local),
                    (Occur::Should, utc),
                ]));
                if single {
                    return (Occur::Should, either);
                }
                let files = self.meta.files_of_hosts(&hosts);
                let set = TermSetQuery::new(
                    files
                        .into_iter()
                        .map(|f| Term::from_field_u64(self.fields.file, u64::from(f))),
                );
                let clause: Box<dyn Query> = Box::new(BooleanQuery::new(vec![
                    (Occur::Must, Box::new(set) as Box<dyn Query>),
                    (Occur::Must, either),
                ]));
                (Occur::Should, clause)
            })
            .collect();
        Some(Box::new(BooleanQuery::new(clauses)))
    }
}

fn range(field: tantivy::schema::Field, lo: Bound<i64>, hi: Bound<i64>) -> Box<dyn Query> {
    let term = |v: i64| Term::from_field_i64(field, v);
    let bound = |b: Bound<i64>| match b {
        Bound::Included(v) => Bound::Included(term(v)),
        Bound::Excluded(v) => Bound::Excluded(term(v)),
        Bound::Unbounded => Bound::Unbounded,
    };
    Box::new(RangeQuery::new(bound(lo), bound(hi)))
}

fn rfc3339(nanos: i64) -> Option<String> {
    jiff::Timestamp::from_nanosecond(i128::from(nanos))
        .ok()
        .map(|t| t.to_string())
}

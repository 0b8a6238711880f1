//! A query's text to a tantivy query: its bounds checked first (tantivy's parser
//! recurses once per group and `NOT`), `host:` and `service:` resolved to files, then
//! parsed; errors said in the query language's words.

use tantivy::Index;
use tantivy::query::{Query, QueryParser, QueryParserError};

use crate::index::IndexError;
use crate::index::meta::IndexMeta;
use crate::index::query::resolve_file_fields;
use crate::index::query_limits::{check_depth, check_query};
use crate::index::schema::{self, names};

/// `query` parsed by `parser`, its files resolved with `meta`.
pub(super) fn parse(
    parser: &QueryParser,
    meta: &IndexMeta,
    query: &str,
) -> Result<Box<dyn Query>, IndexError> {
    check_query(query)?;
    let resolved = resolve_file_fields(query, meta);
    // Resolving may pair the quotes left over differently: what tantivy reads is checked.
    check_depth(&resolved)?;
    parser
        .parse_query(&resolved)
        .map_err(|e| IndexError::Query(format!("{query:?}: {}", query_error(&e))))
}

/// The parser of an index's text field, AND by default.
pub(super) fn parser_of(index: &Index, text: tantivy::schema::Field) -> QueryParser {
    let mut parser = QueryParser::for_index(index, vec![text]);
    parser.set_conjunction_by_default();
    parser
}

/// The query parser of an empty index of the search schema (no hosts, no files): checks
/// and parses a query as a search would, without an index on disk. For the fuzzer and
/// the property tests of the parser; built once, used for many queries.
pub struct ParserAlone {
    parser: QueryParser,
    meta: IndexMeta,
}

impl ParserAlone {
    /// The parser of an empty in-memory index.
    pub fn new() -> ParserAlone {
        let (schema, fields) = schema::build();
        let index = Index::create_in_ram(schema);
        schema::register_tokenizers(&index);
        ParserAlone {
            parser: parser_of(&index, fields.text),
            meta: IndexMeta {
                version: 1,
                hosts: Vec::new(),
                files: Vec::new(),
            },
        }
    }

    /// `query` checked against its bounds and parsed.
    pub fn parse(&self, query: &str) -> Result<(), IndexError> {
        parse(&self.parser, &self.meta, query).map(drop)
    }
}

impl std::fmt::Debug for ParserAlone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParserAlone").finish_non_exhaustive()
    }
}

impl Default for ParserAlone {
    fn default() -> Self {
        ParserAlone::new()
    }
}

/// Checks and parses `query` as a search would ([`ParserAlone`], built for this query).
pub fn parse_alone(query: &str) -> Result<(), IndexError> {
    ParserAlone::new().parse(query)
}

/// tantivy's parse errors say what is wrong in its own words; a field that does not
/// exist gets the list of those that do.
fn query_error(error: &QueryParserError) -> String {
    match error {
        QueryParserError::FieldDoesNotExist(field) => format!(
            "unknown field {field:?} (fields: {}, host, service)",
            [
                names::INSTANCE,
                names::REQUEST,
                names::GLOBAL,
                names::NOTIFICATION,
                names::VOLUME,
                names::LEVEL,
                names::LOGGER,
                names::TEXT
            ]
            .join(", ")
        ),
        QueryParserError::SyntaxError(detail) => format!("syntax error ({detail})"),
        other => other.to_string().to_lowercase(),
    }
}

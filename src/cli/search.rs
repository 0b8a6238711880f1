//! `evacdoc search PATH... QUERY [--format text|json] [--from RFC3339] [--to RFC3339]
//! [--page N] [--per-page N]`: every record of the inputs indexed in the same pass as the
//! analysis (in a temporary folder), then one page of the records matching the query.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use clap::{Args, ValueEnum};
use evacdoc::index::{End, Indexer, SearchHit, SearchIndex, SearchQuery, parse_time_bound};
use evacdoc::run::{Options, RunOptions, analyze_inputs};

/// Memory for the index writer's buffers.
const INDEX_MEMORY: usize = 100_000_000;

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Folders, log files or archives (one analysis), then the query: words, "quoted
    /// phrases" and fields (instance: request: global: notification: volume: level:
    /// logger: host: service:), AND by default, OR, NOT or -word, parentheses.
    #[arg(required = true, num_args = 2.., value_name = "PATH... QUERY")]
    args: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SearchFormat::Text)]
    format: SearchFormat,
    /// Records at or after this time (RFC 3339, `2024-05-21T08:05:00Z`, or UTC as the
    /// UI shows it, `2024-05-21 08:05:00.123`).
    #[arg(long)]
    from: Option<String>,
    /// Records at or before this time (as `--from`).
    #[arg(long)]
    to: Option<String>,
    /// The page to show, from 1.
    #[arg(long, default_value_t = 1)]
    page: usize,
    /// Hits per page (1 to 1000).
    #[arg(long, default_value_t = 50)]
    per_page: usize,
    /// Time zone for every host's local times, overriding what the bundle says.
    #[arg(long)]
    tz: Option<String>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SearchFormat {
    Text,
    Json,
}

fn utc_nanos(flag: &str, value: Option<&str>, end: End) -> anyhow::Result<Option<i64>> {
    let Some(value) = value else {
        return Ok(None);
    };
    parse_time_bound(value, end)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("--{flag} {e}"))
}

pub fn run(args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let Some((q, paths)) = args.args.split_last() else {
        bail!("give the inputs, then the query");
    };
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let mut query = SearchQuery::new(q.clone());
    query.from = utc_nanos("from", args.from.as_deref(), End::Start)?;
    query.to = utc_nanos("to", args.to.as_deref(), End::Finish)?;
    query.page = args.page;
    query.per_page = args.per_page;
    let dir = tempfile::tempdir().context("cannot create a temporary folder for the index")?;
    let indexer = Indexer::create(dir.path(), INDEX_MEMORY)?;
    let options = RunOptions {
        analysis: Options {
            tz: args.tz.clone(),
            progress: true,
            ..Options::default()
        },
        sinks: Some(indexer.sinks()),
        ..RunOptions::default()
    };
    let started = std::time::Instant::now();
    let report = analyze_inputs(&paths, &options)?;
    let stats = indexer.finish(&report.analysis)?;
    let indexed_ms = started.elapsed().as_millis();
    for zone in &stats.unresolved_zones {
        eprintln!("note: zone of {zone} is not a known zone name: its times are read as UTC");
    }
    let index = SearchIndex::open(dir.path())?;
    let started = std::time::Instant::now();
    let page = index.search(&query)?;
    let pages = page.total.div_ceil(page.per_page.max(1));
    eprintln!(
        "search: {} {} match (page {} of {}); {} records of {} files indexed with the analysis in {} ms, searched in {:.1} ms",
        page.total,
        if page.literal { "lines" } else { "records" },
        page.page,
        pages.max(1),
        stats.documents,
        report.analysis.files.len(),
        indexed_ms,
        started.elapsed().as_secs_f64() * 1000.0
    );
    let mut out = std::io::stdout().lock();
    match args.format {
        SearchFormat::Text => {
            let bold = std::io::stdout().is_terminal();
            for hit in &page.hits {
                writeln!(out, "{}", text_line(hit, bold))?;
            }
        }
        SearchFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &page)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `path:line: timestamp host service text`, the text's first line with its marks
/// (ANSI bold when `bold`), and how many lines follow it.
fn text_line(hit: &SearchHit, bold: bool) -> String {
    let first = hit.text.split('\n').next().unwrap_or("");
    let mut text = String::with_capacity(first.len() + 16);
    let mut at = 0;
    for &(start, end) in &hit.marks {
        if end > first.len() || start < at {
            break;
        }
        let (Some(before), Some(word)) = (first.get(at..start), first.get(start..end)) else {
            break;
        };
        text.push_str(before);
        if bold {
            text.push_str("\x1b[1m");
            text.push_str(word);
            text.push_str("\x1b[0m");
        } else {
            text.push_str(word);
        }
        at = end;
    }
    text.push_str(first.get(at..).unwrap_or(""));
    let more = hit.text.split('\n').count() - 1;
    if more > 0 {
        text.push_str(&format!(" [+{more} lines]"));
    }
    format!(
        "{}:{}: {} {} {} {}",
        hit.path,
        hit.line,
        hit.timestamp.as_deref().unwrap_or("-"),
        hit.host,
        hit.service,
        text
    )
}

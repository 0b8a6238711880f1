//! `evacdoc parse FILE [--format text|json]`: every record as evacdoc reads it, for
//! debugging the parsers and for users checking a file evacdoc has not seen before.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use evacdoc::ingest::{Named, read_file};
use evacdoc::parsers::ini::{IniDocument, parse_ini};
use evacdoc::parsers::line::{Content, Wrapper};
use evacdoc::parsers::sniff::{FileKind, sniff};
use evacdoc::parsers::utf8::decode;
use evacdoc::parsers::{Record, Records, Timestamp};
use serde_json::{Map, Value, json};

#[derive(Debug, Args)]
pub struct ParseArgs {
    /// The log or config file to read.
    file: PathBuf,
    /// Output format: a readable listing, or one JSON object per record (JSON Lines).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum OutputFormat {
    Text,
    Json,
}

pub fn run(args: &ParseArgs) -> anyhow::Result<ExitCode> {
    let bytes = read_file(Named::as_given(&args.file))?;
    let decoded = decode(&bytes);
    let name = args.file.to_string_lossy();
    let stdout = std::io::stdout().lock();
    let mut out = BufWriter::new(stdout);
    let mut counts = Counts::default();
    match sniff(&name, &decoded.text) {
        FileKind::Ini => {
            let doc = parse_ini(&decoded.text);
            write_ini(&mut out, &doc, args.format, &mut counts)?;
        }
        FileKind::Log => {
            for record in Records::new(&decoded.text) {
                counts.records += 1;
                counts.unparsed += usize::from(record.unparsed_reason().is_some());
                let lossy = decoded
                    .invalid_lines
                    .iter()
                    .any(|l| (record.line..record.line + record.line_count()).contains(l));
                match args.format {
                    OutputFormat::Json => {
                        serde_json::to_writer(&mut out, &record_json(&record, lossy))?;
                        writeln!(out)?;
                    }
                    OutputFormat::Text => write_record_text(&mut out, &record, lossy)?,
                }
            }
        }
    }
    out.flush()
        .with_context(|| format!("writing the records of {name}"))?;
    // The summary goes to stderr so that JSON output stays one object per line.
    eprintln!(
        "{name}: {} records, {} unparsed, {} lines with invalid UTF-8",
        counts.records,
        counts.unparsed,
        decoded.invalid_lines.len()
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Default)]
struct Counts {
    records: usize,
    unparsed: usize,
}

fn time_string(t: Timestamp) -> String {
    // RFC 3339 in UTC when the line gives its zone; the wall clock as written otherwise.
    t.to_utc().unwrap_or(t).to_string()
}

/// The JSON object of one record (the `evacdoc parse --format json` contract).
fn record_json(record: &Record<'_>, lossy: bool) -> Value {
    let mut o = Map::new();
    o.insert("line".into(), json!(record.line));
    o.insert("line_count".into(), json!(record.line_count()));
    o.insert("format".into(), json!(record.format().as_str()));
    if record.format() != record.inner_format() {
        o.insert("inner_format".into(), json!(record.inner_format().as_str()));
    }
    o.insert(
        "timestamp".into(),
        json!(record.timestamp().map(time_string)),
    );
    match &record.head.wrapper {
        Some(Wrapper::Pebble(p)) => {
            o.insert(
                "wrapper".into(),
                json!({ "kind": "pebble", "time": time_string(p.time), "service": p.service,
                        "apache_time": p.apache_time.map(|t| t.to_string()) }),
            );
        }
        Some(Wrapper::Syslog(s)) => {
            o.insert(
                "wrapper".into(),
                json!({ "kind": "syslog", "time": s.time.timestamp().map(time_string),
                        "host": s.host, "program": s.program, "pid": s.pid }),
            );
        }
        Some(w @ (Wrapper::Cri(_) | Wrapper::Docker(_))) => {
            o.insert(
                "wrapper".into(),
                json!({ "kind": w.format().as_str(), "time": w.collector_time().map(time_string),
                        "stream": w.source().0 }),
            );
        }
        Some(Wrapper::Kubectl(k)) => {
            o.insert(
                "wrapper".into(),
                json!({ "kind": "kubectl", "time": k.time.map(time_string),
                        "pod": k.pod, "container": k.container }),
            );
        }
        None => {}
    }
    match &record.head.content {
        Content::Oslo(oslo) => {
            o.insert("level".into(), json!(oslo.level.as_str()));
            o.insert("pid".into(), json!(oslo.pid));
            o.insert("logger".into(), json!(oslo.logger));
            o.insert("request_id".into(), json!(oslo.request_id()));
            o.insert("global_request_id".into(), json!(oslo.global_request_id()));
            if let Some(ctx) = &oslo.context() {
                o.insert(
                    "context".into(),
                    json!({ "form": ctx.form, "raw": ctx.raw, "user": ctx.user,
                            "project": ctx.project }),
                );
            }
            o.insert("instance".into(), json!(oslo.instance));
            o.insert("message".into(), json!(oslo.message));
        }
        Content::Access(a) => {
            o.insert(
                "http".into(),
                json!({ "variant": a.variant, "client": a.client, "method": a.method,
                        "path": a.path, "protocol": a.protocol, "status": a.status,
                        "bytes": a.bytes, "duration_us": a.duration_us,
                        "user_agent": a.user_agent }),
            );
            o.insert("instance".into(), json!(a.instance()));
        }
        Content::Uwsgi(u) => {
            o.insert(
                "http".into(),
                json!({ "client": u.client, "method": u.method, "path": u.path,
                        "protocol": u.protocol, "status": u.status,
                        "bytes": u.generated_bytes, "duration_us": u.duration_us }),
            );
            o.insert("instance".into(), json!(u.instance()));
        }
        Content::Text { text, .. } => {
            o.insert("message".into(), json!(text));
        }
    }
    if let Some(request) = record.nova_request() {
        o.insert(
            "http".into(),
            json!({ "client": request.client, "method": request.method, "path": request.uri,
                    "protocol": request.protocol, "status": request.status,
                    "bytes": request.len, "microversion": request.microversion,
                    "duration_us": request.time_us }),
        );
        if record.oslo().is_some_and(|o| o.instance.is_none()) {
            o.insert("instance".into(), json!(request.instance));
        }
    }
    if let Some(summary) = record.error_summary() {
        o.insert(
            "error_summary".into(),
            json!({ "class": summary.class, "text": summary.text }),
        );
    }
    if let Some(source) = record.source_location() {
        o.insert("source".into(), json!(source));
    }
    o.insert("continuation_lines".into(), json!(record.continuation));
    o.insert("traceback_lines".into(), json!(record.traceback));
    if let Some(reason) = record.unparsed_reason() {
        o.insert("reason".into(), json!(reason.to_string()));
    }
    if lossy {
        o.insert("invalid_utf8".into(), json!(true));
    }
    Value::Object(o)
}

fn write_record_text(
    out: &mut impl Write,
    record: &Record<'_>,
    lossy: bool,
) -> std::io::Result<()> {
    let time = record
        .timestamp()
        .map(time_string)
        .unwrap_or_else(|| "-".into());
    let format = if record.format() == record.inner_format() {
        record.format().as_str().to_string()
    } else {
        format!(
            "{}/{}",
            record.format().as_str(),
            record.inner_format().as_str()
        )
    };
    let lossy = if lossy {
        " [invalid UTF-8 replaced]"
    } else {
        ""
    };
    match &record.head.content {
        Content::Oslo(o) => {
            writeln!(
                out,
                "{:>6} {format} {time} {} {} pid={}{lossy}",
                record.line,
                o.level.as_str(),
                o.logger,
                o.pid
            )?;
            let ids: Vec<String> = [
                ("global", o.global_request_id()),
                ("request", o.request_id()),
                ("instance", o.instance),
            ]
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| format!("{k}={v}")))
            .collect();
            if !ids.is_empty() {
                writeln!(out, "       {}", ids.join(" "))?;
            }
            writeln!(out, "       {}", o.message)?;
        }
        Content::Access(_) | Content::Uwsgi(_) => {
            writeln!(out, "{:>6} {format} {time}{lossy}", record.line)?;
            writeln!(out, "       {}", record.head.raw)?;
        }
        Content::Text { text, reason } => {
            let label = if record.unparsed_reason().is_some() {
                format!("unparsed ({reason})")
            } else {
                format
            };
            writeln!(out, "{:>6} {label}{lossy}", record.line)?;
            writeln!(out, "       {text}")?;
        }
    }
    for line in &record.continuation {
        writeln!(out, "     | {line}")?;
    }
    for line in &record.traceback {
        writeln!(out, "     ! {line}")?;
    }
    if let Some(s) = record.error_summary() {
        writeln!(out, "       error: {}: {}", s.class, s.text)?;
    }
    Ok(())
}

fn write_ini(
    out: &mut impl Write,
    doc: &IniDocument<'_>,
    format: OutputFormat,
    counts: &mut Counts,
) -> anyhow::Result<()> {
    for entry in &doc.entries {
        counts.records += 1;
        match format {
            OutputFormat::Json => {
                let value = json!({ "line": entry.line, "end_line": entry.end_line,
                    "format": "ini", "section": entry.section, "key": entry.key,
                    "value": entry.value });
                serde_json::to_writer(&mut *out, &value)?;
                writeln!(out)?;
            }
            OutputFormat::Text => writeln!(
                out,
                "{:>6} ini [{}] {} = {}",
                entry.line, entry.section, entry.key, entry.value
            )?,
        }
    }
    for error in &doc.errors {
        counts.records += 1;
        counts.unparsed += 1;
        match format {
            OutputFormat::Json => {
                let value = json!({ "line": error.line, "format": "unparsed",
                                    "reason": error.reason });
                serde_json::to_writer(&mut *out, &value)?;
                writeln!(out)?;
            }
            OutputFormat::Text => writeln!(out, "{:>6} unparsed ({})", error.line, error.reason)?,
        }
    }
    Ok(())
}

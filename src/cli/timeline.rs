//! `evacdoc timeline PATH... (--instance UUID | --request REQ | --notification UUID |
//! --host H) [--format text|json|svg]`: the interleaved story across hosts and services, as
//! text, JSON entries or an SVG swimlane picture.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use clap::{Args, ValueEnum};
use evacdoc::correlate::timeline::{Subject, SvgOptions, entries, render_svg, render_text, select};
use evacdoc::model::Uuid;
use evacdoc::run::{Options, analyze};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("subject").required(true)))]
pub struct TimelineArgs {
    /// Folders, log files or archives; several make one analysis.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The instance (server) UUID.
    #[arg(long, group = "subject")]
    instance: Option<String>,
    /// A request id (`req-...`), local or global.
    #[arg(long, group = "subject")]
    request: Option<String>,
    /// A Masakari notification UUID.
    #[arg(long, group = "subject")]
    notification: Option<String>,
    /// A host name, short or fully qualified.
    #[arg(long, group = "subject")]
    host: Option<String>,
    /// Time zone for every host's local times, overriding what the bundle says
    /// (`Europe/Berlin`, `UTC`, `+02:00`).
    #[arg(long)]
    tz: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TimelineFormat::Text)]
    format: TimelineFormat,
    /// Width of the SVG picture, in pixels.
    #[arg(long, default_value_t = 1200, value_parser = clap::value_parser!(u32).range(400..=20000))]
    width: u32,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TimelineFormat {
    Text,
    Json,
    /// A self-contained SVG picture: a lane per host and service.
    Svg,
}

fn uuid_arg(flag: &str, value: &str) -> anyhow::Result<Uuid> {
    Uuid::parse(value.trim())
        .with_context(|| format!("--{flag} {value:?} is not a UUID (8-4-4-4-12 hex digits)"))
}

impl TimelineArgs {
    /// The picture's heading: what the timeline is about.
    fn title(&self) -> String {
        let (what, value) = if let Some(v) = &self.instance {
            ("Instance", v)
        } else if let Some(v) = &self.notification {
            ("Notification", v)
        } else if let Some(v) = &self.request {
            ("Request", v)
        } else if let Some(v) = &self.host {
            ("Host", v)
        } else {
            return "Timeline".into();
        };
        format!("{what} {}", value.trim())
    }

    fn subject(&self) -> anyhow::Result<Subject> {
        Ok(if let Some(v) = &self.instance {
            Subject::Instance(uuid_arg("instance", v)?)
        } else if let Some(v) = &self.notification {
            Subject::Notification(uuid_arg("notification", v)?)
        } else if let Some(v) = &self.request {
            let id = Uuid::parse_request_id(v.trim()).or_else(|| Uuid::parse(v.trim()));
            Subject::Request(
                id.with_context(|| format!("--request {v:?} is not a request id (req-<uuid>)"))?,
            )
        } else if let Some(v) = &self.host {
            Subject::Host(v.trim().to_string())
        } else {
            bail!("one of --instance, --request, --notification or --host is needed")
        })
    }
}

pub fn run(args: &TimelineArgs) -> anyhow::Result<ExitCode> {
    let subject = args.subject()?;
    let options = Options {
        tz: args.tz.clone(),
        progress: true,
        ..Options::default()
    };
    let analysis = analyze(&args.paths, &options)?;
    let started = std::time::Instant::now();
    let ids = select(&analysis, &subject);
    let rows = evacdoc::correlate::timeline::fold(&analysis, &ids);
    // The selection is index lookups over the finished analysis: say what it costs.
    eprintln!(
        "timeline: {} of {} events selected, {} rows after folding repeats, in {:.2} ms (analysis of {} files took {} ms)",
        ids.len(),
        analysis.events.len(),
        rows.len(),
        started.elapsed().as_secs_f64() * 1000.0,
        analysis.files.len(),
        analysis.stats.elapsed_ms
    );
    for skew in analysis.skew.iter().filter(|s| s.applied) {
        let name = |h: u32| analysis.host(h).map(|h| h.hostname.as_str()).unwrap_or("?");
        eprintln!(
            "note: {} against {}: {} ms over {} call pairs: {}",
            name(skew.host),
            name(skew.reference),
            skew.offset_ms.unwrap_or_default(),
            skew.pairs,
            skew.note
        );
    }
    let mut out = std::io::stdout().lock();
    match args.format {
        TimelineFormat::Text => {
            if ids.is_empty() {
                eprintln!(
                    "no events found for that subject in {} files",
                    analysis.files.len()
                );
            }
            out.write_all(render_text(&analysis, &rows).as_bytes())?;
        }
        TimelineFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &entries(&analysis, &rows))?;
            writeln!(out)?;
        }
        TimelineFormat::Svg => {
            let options = SvgOptions {
                width: args.width,
                title: Some(args.title()),
                ..SvgOptions::default()
            };
            out.write_all(render_svg(&analysis, &rows, &[], &options).as_bytes())?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

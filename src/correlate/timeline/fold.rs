//! Folding status polls: Masakari asks Nova for a server once a second while it waits
//! (`Call get server command for instance <id>`, `GET /v2.1/servers/<id>` in the access
//! and request logs), hundreds of lines that say one thing.
//!
//! Lines fold by stream: the lines of one file, kind, logger, level and set of named
//! instances. A line folds into the stream's open run when it has the run's shape (its
//! message with ids and numbers normalised, its HTTP method, path and status, its further
//! lines) and follows the run's last line closely. Any line of the stream with another
//! shape closes the run, so a status change or another HTTP status is always shown; lines
//! of other streams (another service, logger or level) are shown where they fall.

use crate::model::EventsById;
use std::collections::HashMap;

use crate::correlate::Analysis;
use crate::model::{Event, EventId, EventKind, FileId, LogLevel, Uuid};

/// Fewer repeats than this are shown as they are: a get, a get of the locked server and
/// a lock are three steps, not a poll.
const MIN_RUN: usize = 3;
/// A longer pause than this between two lines of the same shape starts a new run: it is
/// another episode, not the same wait.
const MAX_GAP_NS: i64 = 60 * 1_000_000_000;

/// One row of a timeline: an event, and the repeats folded into it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The first event of the run (or the only one).
    pub event: EventId,
    /// The run it stands for, when lines were folded.
    pub repeated: Option<Repeat>,
}

/// A run of lines of one shape, shown as its first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repeat {
    /// Lines in the run, the first included.
    pub count: usize,
    /// The run's last event.
    pub last: EventId,
}

/// The lines that can fold together: one file, kind, logger, level, instances.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Stream<'a> {
    file: FileId,
    kind: EventKind,
    logger: Option<&'a str>,
    level: Option<LogLevel>,
    instances: Vec<Uuid>,
}

impl<'a> Stream<'a> {
    fn of(event: &'a Event) -> Self {
        let mut instances = event.instances.to_vec();
        instances.sort_unstable();
        Stream {
            file: event.file,
            kind: event.kind,
            logger: event.logger(),
            level: event.level,
            instances,
        }
    }
}

/// What must be equal for two lines of a stream to fold.
fn shape(event: &Event) -> String {
    let mut out = normalised(&event.message());
    if let Some(http) = event.http() {
        // Another client asking the same is another line.
        out.push_str(&format!(
            "\u{1f}{} {} {} {}",
            http.method,
            normalised(&http.path),
            http.status,
            http.user_agent.as_deref().unwrap_or("-")
        ));
    }
    for line in event.more() {
        out.push('\u{1f}');
        out.push_str(&normalised(&line));
    }
    out
}

/// `text` with the parts that change from one poll to the next replaced: UUIDs and
/// request ids, long hex strings (addresses), and numbers (times, sizes, latencies;
/// not one- or two-digit integers, which can be states). Words stay as they are, digits in them included (`compute-1`, `node02ob100`), so a
/// line about another host or in another state keeps its own shape.
fn normalised(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.find(|c: char| !is_token_char(c)).unwrap_or(rest.len());
        if end == 0 {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let token = &rest[..end];
        if is_variable(token) {
            out.push('#');
        } else {
            out.push_str(token);
        }
        rest = &rest[end..];
    }
    out
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':')
}

/// A token that differs between repeats of one line.
fn is_variable(token: &str) -> bool {
    let core = token.trim_matches(|c: char| matches!(c, '.' | ':' | '-'));
    if !core.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    // A small integer can be a state (`power_state: 4`): it stays. Sizes, latencies,
    // times, dates and addresses change from one poll to the next.
    let digits = core.bytes().filter(|b| b.is_ascii_digit()).count();
    let numeric = !core.bytes().any(|b| b.is_ascii_alphabetic())
        && (digits >= 3 || core.contains(['.', ':']));
    let id = core
        .strip_prefix("req-")
        .unwrap_or(core)
        .split('-')
        .all(|part| part.bytes().all(|b| b.is_ascii_hexdigit()))
        && core.len() >= 8;
    let address = core
        .strip_prefix("0x")
        .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
    numeric || id || address
}

/// A run being built: positions in the input, and what its lines look like.
struct Run {
    first: usize,
    last: usize,
    count: usize,
    shape: String,
}

/// The rows of `ids` (in time order): runs of a poll folded into their first line.
pub fn fold(analysis: &Analysis, ids: &[EventId]) -> Vec<Row> {
    let events: Vec<(EventId, &Event)> = ids
        .iter()
        .filter_map(|&id| Some((id, analysis.events.by_id(id)?)))
        .collect();
    let mut runs: Vec<Run> = Vec::new();
    // The run of each position, and each stream's open run.
    let mut run_of: Vec<usize> = Vec::with_capacity(events.len());
    let mut open: HashMap<Stream<'_>, usize> = HashMap::new();
    for (position, &(_, event)) in events.iter().enumerate() {
        let stream = Stream::of(event);
        let shape = shape(event);
        let continued = open.get(&stream).copied().filter(|&r| {
            let run = &runs[r];
            run.shape == shape && event.time - events[run.last].1.time <= MAX_GAP_NS
        });
        let run = match continued {
            Some(r) => {
                runs[r].last = position;
                runs[r].count += 1;
                r
            }
            None => {
                runs.push(Run {
                    first: position,
                    last: position,
                    count: 1,
                    shape,
                });
                open.insert(stream, runs.len() - 1);
                runs.len() - 1
            }
        };
        run_of.push(run);
    }
    let mut rows = Vec::new();
    for (position, &(id, _)) in events.iter().enumerate() {
        let run = &runs[run_of[position]];
        if run.count < MIN_RUN {
            rows.push(Row {
                event: id,
                repeated: None,
            });
        } else if run.first == position {
            rows.push(Row {
                event: id,
                repeated: Some(Repeat {
                    count: run.count,
                    last: events[run.last].0,
                }),
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_numbers_are_normalised_words_are_not() {
        let a = normalised(
            "[req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] Call get server command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96",
        );
        let b = normalised(
            "[req-3b8f5237-b8f4-4ae1-9cbc-665f4c75e819 masakari - - - -] Call get server command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96",
        );
        assert_eq!(a, b);
        assert_eq!(
            normalised("\"GET /v2.1/servers/x HTTP/1.1\" status: 200 len: 2321 time: 0.0914"),
            "\"GET /v2.1/servers/x HTTP/#\" status: # len: # time: #"
        );
        assert_ne!(
            normalised("Disable nova-compute on compute-1"),
            normalised("Disable nova-compute on compute-2")
        );
        assert_ne!(
            normalised("current DB power_state: 4, VM power_state: 1"),
            normalised("current DB power_state: 4, VM power_state: 4")
        );
        assert_eq!(
            normalised("[21/May/2024:10:03:19 +0000] \"GET /v2.1/servers/x HTTP/1.1\" 200 2193"),
            normalised("[21/May/2024:10:03:20 +0000] \"GET /v2.1/servers/x HTTP/1.1\" 200 2199")
        );
        assert_ne!(
            normalised("vm_state: active task_state: rebuilding"),
            normalised("vm_state: active task_state: None")
        );
        assert_eq!(
            normalised("object at 0x7f6d8c4a2f98>"),
            normalised("object at 0x7f6d8c4a3000>")
        );
    }
}

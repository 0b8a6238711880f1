//! Logs that interleave several services' lines, each line naming its writer in a prefix:
//! the whole journal, a syslog file (`use_syslog`, rsyslog), `kubectl logs
//! --all-containers --prefix`. Read as one log, every line would count as the file's one
//! service (`syslog`, or the first container's): Masakari's and Nova's lines in it would
//! never be seen as theirs. So such a file is split before reading into a part per known
//! service (`<path>#masakari-engine`), read as that service's log, and a part of the rest
//! that keeps the file's own name and role (Pacemaker's fencing in syslog, the kernel).
//! Each part remembers where its lines are in the file ([`PartLines`]): evidence names
//! the line the user finds in the file they have.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use evacdoc_parsers::RecordSpan;
use evacdoc_parsers::layers::{MAX_LAYERS, peel_layers};

use crate::ingest::IngestLimits;
use crate::ingest::chunks::LineChunks;
use crate::ingest::decompress::open_decompressed;
use crate::ingest::discover::FoundFile;
use crate::ingest::place::Placed;
use crate::ingest::role::{Role, is_canonical, source_service};
use crate::model::Service;
use crate::model::inventory::Host;

/// How much of a file is looked at to decide whether its lines carry their writers'
/// names at all (a log without prefixes does not gain them further on).
const SNIFF_BYTES: usize = 64 << 10;

/// Where a part's lines are in the file it was cut from: the part's line `i` (counted
/// from 1, as spans count) is the file's line `lines[i - 1]`.
#[derive(Debug)]
pub(crate) struct PartLines(Box<[u32]>);

impl PartLines {
    /// `span` of the part, its first line the file's.
    pub(crate) fn in_file(&self, span: RecordSpan) -> RecordSpan {
        let first_line = span
            .first_line
            .checked_sub(1)
            .and_then(|i| self.0.get(i))
            .map_or(span.first_line, |&line| line as usize);
        RecordSpan { first_line, ..span }
    }
}

/// One part of a split file.
#[derive(Debug)]
pub(crate) struct Part {
    /// The part, written in the work folder; named `<path>#<service>` (the rest: the
    /// file's own name).
    pub file: FoundFile,
    /// The service whose lines it holds; `None` for the rest (the file's own role).
    pub service: Option<Service>,
    pub lines: Arc<PartLines>,
    /// Why the file was read only in part (damage, a limit), if it was.
    pub incomplete: Option<String>,
}

/// Whether `role`'s file may mix services: a log not named after one known service.
pub(crate) fn may_mix(role: &Role) -> bool {
    matches!(role, Role::Log(service) if !is_canonical(service))
}

/// Where one line goes: the known service its prefix names, else the rest (`None`).
fn destination(line: &str) -> Option<&'static str> {
    let (wrapper, _) = peel_layers(None, line, MAX_LAYERS);
    source_service(wrapper?.source().0)
}

/// The parts of `file` when its lines come from more than one destination (known
/// services, or one and the rest), written into `work`; `None` when it is one service's
/// or nobody's (read as it is). `limit`: the most bytes read of it (decompressed).
pub(crate) fn split(
    file: &FoundFile,
    work: &Path,
    index: usize,
    limit: u64,
) -> std::io::Result<Option<Vec<Part>>> {
    if !mixes_services(file, limit)? {
        return Ok(None);
    }
    let mut chunks = LineChunks::open(file.named(), limit).map_err(std::io::Error::other)?;
    let mut parts: HashMap<Option<&'static str>, Writing> = HashMap::new();
    let (mut line_no, mut mid_line, mut current) = (0u32, false, None);
    while let Some((bytes, _)) = chunks.next_piece() {
        for segment in bytes.split_inclusive(|&b| b == b'\n') {
            // A line longer than a piece goes on in the next: where its start went.
            if !mid_line {
                line_no = line_no.saturating_add(1);
                let text = String::from_utf8_lossy(segment);
                // A line without a prefix (a continuation) stays with the one before.
                if has_prefix(&text) {
                    current = destination(&text);
                }
            }
            let writing = match parts.entry(current) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let path = work.join(format!("split-{index}-{}", e.key().unwrap_or("rest")));
                    e.insert(Writing::create(path)?)
                }
            };
            writing.write(segment, line_no, mid_line)?;
            mid_line = !segment.ends_with(b"\n");
        }
        chunks.consume();
    }
    // Read up to damage or a limit: every part says so, as the file would have.
    let incomplete = chunks
        .damage
        .as_ref()
        .map(|damage| format!("read up to damage: {damage}"));
    // The parts keep the file's modification time: the year of its lines that give none.
    let modified = std::fs::metadata(&file.abs).and_then(|m| m.modified()).ok();
    let mut done = Vec::with_capacity(parts.len());
    for (service, writing) in parts {
        let (path, size, lines) = writing.finish(modified)?;
        let (rel, name) = match service {
            Some(s) => (
                format!("{}#{s}", file.rel),
                PathBuf::from(format!("{}#{s}", file.name.display())),
            ),
            None => (file.rel.clone(), file.name.clone()),
        };
        done.push(Part {
            file: FoundFile {
                rel,
                abs: path,
                name,
                size,
                given: false,
                // Spooled whole, not by place: the part is not the file the index names.
                unpacked: false,
            },
            service: service.map(Service::new),
            lines: Arc::new(PartLines(lines.into_boxed_slice())),
            incomplete: incomplete.clone(),
        });
    }
    // Services in a stable order, the rest last.
    done.sort_by(|a, b| {
        (a.service.is_none(), &a.file.rel).cmp(&(b.service.is_none(), &b.file.rel))
    });
    Ok(Some(done))
}

/// True when a line starts with a prefix that may name its writer (not a continuation).
fn has_prefix(text: &str) -> bool {
    peel_layers(None, text, 1).0.is_some()
}

/// Whether the lines of `file` go to two destinations or more. Three looks, each
/// cheaper than the next and each enough to say no: its start shows no prefix naming a
/// writer (a service's own log); no known service's name is anywhere in it (a syslog of
/// other daemons); then line by line, until a second destination.
fn mixes_services(file: &FoundFile, limit: u64) -> std::io::Result<bool> {
    if !starts_with_prefixes(file)? {
        return Ok(false);
    }
    let mut chunks = LineChunks::open(file.named(), limit).map_err(std::io::Error::other)?;
    let mut named = false;
    while let Some((bytes, _)) = chunks.next_piece() {
        // Pieces end at lines: a name in a prefix is never cut.
        if SERVICE_STEMS.is_match(bytes) {
            named = true;
            break;
        }
        chunks.consume();
    }
    if !named {
        return Ok(false);
    }
    let mut chunks = LineChunks::open(file.named(), limit).map_err(std::io::Error::other)?;
    let mut first: Option<Option<&'static str>> = None;
    while let Some((bytes, _)) = chunks.next_piece() {
        for line in bytes.split(|&b| b == b'\n') {
            let text = String::from_utf8_lossy(line);
            if !has_prefix(&text) {
                continue;
            }
            let here = destination(&text);
            match first {
                None => first = Some(here),
                Some(seen) if seen != here => return Ok(true),
                Some(_) => {}
            }
        }
        chunks.consume();
    }
    Ok(false)
}

/// Words one of which is in every name [`source_service`] knows (`nova-compute`,
/// `masakari_engine`, `placement-api`, `cinder-volume` or `volume`, `keystone`): a file
/// without any has no line a known service wrote.
static SERVICE_STEMS: std::sync::LazyLock<aho_corasick::AhoCorasick> =
    std::sync::LazyLock::new(|| {
        aho_corasick::AhoCorasick::new([
            "nova",
            "masakari",
            "cinder",
            "volume",
            "keystone",
            "placement",
        ])
        .unwrap_or_else(|_| unreachable!("fixed words"))
    });

/// Whether a line of the first [`SNIFF_BYTES`] of `file` starts with a prefix that may
/// name its writer.
fn starts_with_prefixes(file: &FoundFile) -> std::io::Result<bool> {
    use std::io::Read;
    let (_, reader) = open_decompressed(file.named()).map_err(std::io::Error::other)?;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    reader.take(SNIFF_BYTES as u64).read_to_end(&mut head)?;
    Ok(head
        .split(|&b| b == b'\n')
        .any(|line| has_prefix(&String::from_utf8_lossy(line))))
}

/// A part being written.
struct Writing {
    path: PathBuf,
    out: BufWriter<std::fs::File>,
    size: u64,
    lines: Vec<u32>,
}

impl Writing {
    fn create(path: PathBuf) -> std::io::Result<Writing> {
        let out = BufWriter::new(std::fs::File::create(&path)?);
        Ok(Writing {
            path,
            out,
            size: 0,
            lines: Vec::new(),
        })
    }

    /// `segment` of the file's line `line` (`more`: not its start).
    fn write(&mut self, segment: &[u8], line: u32, more: bool) -> std::io::Result<()> {
        if !more {
            self.lines.push(line);
        }
        self.size += segment.len() as u64;
        self.out.write_all(segment)
    }

    fn finish(
        self,
        modified: Option<std::time::SystemTime>,
    ) -> std::io::Result<(PathBuf, u64, Vec<u32>)> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        if let Some(modified) = modified {
            file.set_modified(modified)?;
        }
        Ok((self.path, self.size, self.lines))
    }
}

/// Every log of `logs` that mixes services, split (in parallel) into `work`: the parts
/// by the index of their file in `logs`, in order. A file that cannot be split is read
/// as it is.
pub(crate) fn split_mixed(
    logs: &[Placed<'_>],
    work: &Path,
    limits: &IngestLimits,
) -> Vec<(usize, Vec<Part>)> {
    use rayon::prelude::*;
    logs.par_iter()
        .enumerate()
        .filter(|(_, p)| may_mix(&p.role))
        .filter_map(
            |(i, p)| match split(p.file, work, i, limits.log_bytes(p.file.size)) {
                Ok(parts) => parts.map(|parts| (i, parts)),
                Err(error) => {
                    tracing::warn!(path = %p.file.rel, %error, "not split by service");
                    None
                }
            },
        )
        .collect()
}

/// `logs` with each split file (`splits`, by index, in order) replaced by its parts; a
/// part's service joins its host's.
pub(crate) fn with_parts<'f>(
    logs: Vec<Placed<'f>>,
    splits: &'f [(usize, Vec<Part>)],
    hosts: &mut [Host],
) -> Vec<Placed<'f>> {
    let mut out = Vec::with_capacity(logs.len());
    let mut splits = splits.iter().peekable();
    for (i, p) in logs.into_iter().enumerate() {
        let Some((_, parts)) = splits.next_if(|(at, _)| *at == i) else {
            out.push(p);
            continue;
        };
        for part in parts {
            let (role, inner) = match &part.service {
                Some(s) => (Role::Log(s.clone()), format!("{}#{}", p.inner, s.name())),
                None => (p.role.clone(), p.inner.clone()),
            };
            if let (Role::Log(s), Some(host)) = (&role, hosts.get_mut(p.host as usize))
                && !host.services.contains(&s.0)
            {
                host.services.push(s.0.clone());
            }
            out.push(Placed {
                file: &part.file,
                host: p.host,
                inner,
                role,
                incomplete: part.incomplete.clone().or_else(|| p.incomplete.clone()),
                part_lines: Some(part.lines.clone()),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;

//! Where an event's text lives: in the event while its file is read, then in a
//! compressed block shared with the file's neighbouring events.
//!
//! The text of the kept events is most of an analysis' memory (two thirds of it at
//! 10 GiB, DEBUG everywhere); log lines compress five to ten times in blocks of a few
//! dozen. The keeper packs its events' text ([`pack`]) as blocks fill; a reader
//! decompresses a block once into a small per-thread cache, because passes in time
//! order visit the blocks of the files active at that time over and over.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// How many bytes of text a block gathers before it is compressed: large enough to
/// compress well, small enough that decompressing it for one line stays cheap.
pub const BLOCK_BYTES: usize = 32 * 1024;
/// The zstd level of the blocks (fast: packing runs on the reading threads).
const LEVEL: i32 = 1;
/// How many decompressed blocks each thread keeps (at most `CACHE_BLOCKS` x
/// [`BLOCK_BYTES`] per thread).
const CACHE_BLOCKS: usize = 256;

/// Text of one or more events.
#[derive(Debug)]
enum Block {
    /// One event's text, as it was given.
    Raw(Box<str>),
    /// The text of several events, one after the other, as one zstd frame.
    Packed {
        /// Unique in the process: the cache's key.
        id: u64,
        compressed: Box<[u8]>,
        /// The length of the texts together.
        raw_len: u32,
    },
}

/// An event's text: `len` bytes from `start` of a block (its own until it is packed).
///
/// One pointer and two offsets, the size of the `Box<str>` it replaces, so that an
/// event does not grow.
#[derive(Clone)]
pub struct Lines {
    block: Arc<Block>,
    start: u32,
    len: u32,
}

static EMPTY: std::sync::LazyLock<Arc<Block>> =
    std::sync::LazyLock::new(|| Arc::new(Block::Raw(Box::default())));

impl Default for Lines {
    fn default() -> Lines {
        Lines {
            block: EMPTY.clone(),
            start: 0,
            len: 0,
        }
    }
}

impl Lines {
    /// A text of its own.
    pub fn new(text: Box<str>) -> Lines {
        if text.is_empty() {
            return Lines::default();
        }
        let len = u32::try_from(text.len()).unwrap_or(u32::MAX);
        Lines {
            block: Arc::new(Block::Raw(text)),
            start: 0,
            len,
        }
    }

    /// The text, borrowed while it is the event's own.
    pub fn get(&self) -> Cow<'_, str> {
        let (start, end) = (self.start as usize, self.start as usize + self.len as usize);
        match &*self.block {
            Block::Raw(text) => Cow::Borrowed(text.get(start..end).unwrap_or_default()),
            Block::Packed { .. } => Cow::Owned(with_block(&self.block, |text| {
                text.get(start..end).unwrap_or_default().to_string()
            })),
        }
    }

    /// Byte length of the text.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The text when it is the event's own (not packed).
    fn raw(&self) -> Option<&str> {
        match &*self.block {
            Block::Raw(text) => text.get(self.start as usize..(self.start + self.len) as usize),
            Block::Packed { .. } => None,
        }
    }
}

impl PartialEq for Lines {
    fn eq(&self, other: &Lines) -> bool {
        self.get() == other.get()
    }
}

impl Eq for Lines {}

impl std::fmt::Debug for Lines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.get(), f)
    }
}

static NEXT_BLOCK: AtomicU64 = AtomicU64::new(0);

/// Moves the text of `lines` that is still their own into one compressed block (or
/// leaves it as it is when compression fails, which it does not on memory input).
pub fn pack<'a>(lines: impl IntoIterator<Item = &'a mut Lines>) {
    let mut own: Vec<&'a mut Lines> = lines
        .into_iter()
        .filter(|l| l.raw().is_some_and(|t| !t.is_empty()))
        .collect();
    if own.is_empty() {
        return;
    }
    let total: usize = own.iter().map(|l| l.len()).sum();
    let Ok(raw_len) = u32::try_from(total) else {
        return;
    };
    let mut raw = String::with_capacity(total);
    for l in &own {
        raw.push_str(l.raw().unwrap_or_default());
    }
    let Ok(compressed) = zstd::bulk::compress(raw.as_bytes(), LEVEL) else {
        return;
    };
    let block = Arc::new(Block::Packed {
        id: NEXT_BLOCK.fetch_add(1, Ordering::Relaxed),
        compressed: compressed.into_boxed_slice(),
        raw_len,
    });
    let mut start = 0u32;
    for l in own.iter_mut() {
        let len = l.len;
        **l = Lines {
            block: block.clone(),
            start,
            len,
        };
        start += len;
    }
}

/// The decompressed blocks of this thread, least recently used evicted first.
#[derive(Default)]
struct Cache {
    blocks: HashMap<u64, (Box<str>, u64)>,
    tick: u64,
    decompressor: Option<zstd::bulk::Decompressor<'static>>,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::default();
}

/// Runs `read` on the text of `block`, decompressed (an empty text if the block is
/// damaged, which a block made by [`pack`] is not).
fn with_block<R>(block: &Block, read: impl FnOnce(&str) -> R) -> R {
    let Block::Packed {
        id,
        compressed,
        raw_len,
    } = block
    else {
        return read("");
    };
    let id = *id;
    CACHE.with(|cell| {
        let mut cache = cell.borrow_mut();
        cache.tick += 1;
        let tick = cache.tick;
        if let Some((text, used)) = cache.blocks.get_mut(&id) {
            *used = tick;
            return read(text);
        }
        let text = decompress(&mut cache, compressed, *raw_len);
        let out = read(&text);
        if cache.blocks.len() >= CACHE_BLOCKS
            && let Some(oldest) = cache
                .blocks
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(id, _)| *id)
        {
            cache.blocks.remove(&oldest);
        }
        cache.blocks.insert(id, (text, tick));
        out
    })
}

fn decompress(cache: &mut Cache, compressed: &[u8], raw_len: u32) -> Box<str> {
    if cache.decompressor.is_none() {
        cache.decompressor = zstd::bulk::Decompressor::new().ok();
    }
    let bytes = cache
        .decompressor
        .as_mut()
        .and_then(|d| d.decompress(compressed, raw_len as usize).ok())
        .unwrap_or_default();
    String::from_utf8(bytes)
        .map(String::into_boxed_str)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_text_reads_back_as_written() {
        let texts: Vec<String> = (0..500)
            .map(|n| {
                format!(
                    "2024-05-21 10:02:{:02}.600 41 INFO m [req-{n}] line {n}\n  more",
                    n % 60
                )
            })
            .collect();
        let mut lines: Vec<Lines> = texts
            .iter()
            .map(|t| Lines::new(t.as_str().into()))
            .collect();
        lines.push(Lines::new("".into()));
        pack(lines.iter_mut());
        assert!(lines[0].raw().is_none());
        assert_eq!(lines[500].raw(), Some(""));
        for (l, t) in lines.iter().zip(&texts) {
            assert_eq!(l.get(), t.as_str());
            assert_eq!(l.len(), t.len());
        }
        let Block::Packed { compressed, .. } = &*lines[0].block else {
            unreachable!()
        };
        let raw: usize = texts.iter().map(String::len).sum();
        assert!(compressed.len() * 4 < raw, "{} of {raw}", compressed.len());
        // Read again from the cache, and equal to a plain copy.
        assert_eq!(lines[3], Lines::new(texts[3].as_str().into()));
    }

    #[test]
    fn a_full_cache_evicts_and_still_reads() {
        let mut all: Vec<Vec<Lines>> = (0..CACHE_BLOCKS + 10)
            .map(|n| vec![Lines::new(format!("block {n}").into())])
            .collect();
        for lines in &mut all {
            pack(lines.iter_mut());
        }
        for _ in 0..2 {
            for (n, lines) in all.iter().enumerate() {
                assert_eq!(lines[0].get(), format!("block {n}"));
            }
        }
    }
}

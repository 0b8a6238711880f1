//! Reading a log, compressed or not, in pieces of whole lines, so that memory stays
//! bounded whatever the size of the file.

use std::io::Read;
use std::path::PathBuf;

use super::decompress::{Compression, open_decompressed};
use super::{IngestError, Named};

/// Size of a piece. Small enough that a piece is still in the CPU's cache when the
/// parser reads it after the copy from the kernel (8 MiB pieces cost a fifth more CPU);
/// the assembler carries a record over from one piece to the next.
pub const CHUNK_BYTES: usize = 512 << 10;
const READ_BYTES: usize = 256 << 10;

/// A reader of line-aligned pieces.
pub struct LineChunks {
    reader: Box<dyn Read + Send>,
    /// The file is read as it is (no decompression).
    plain: bool,
    buf: Vec<u8>,
    /// End of the piece handed out last.
    piece_end: usize,
    eof: bool,
    total: u64,
    limit: u64,
    /// The file's name in messages.
    name: PathBuf,
    /// Why reading stopped before the end, if it did (cut-short stream, limit); the
    /// caller names the file.
    pub damage: Option<String>,
}

impl std::fmt::Debug for LineChunks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineChunks")
            .field("name", &self.name)
            .field("total", &self.total)
            .finish()
    }
}

impl LineChunks {
    /// Opens `path`, decompressing by its magic bytes; at most `limit` bytes are read.
    pub fn open(file: Named<'_>, limit: u64) -> Result<LineChunks, IngestError> {
        let (compression, reader) = open_decompressed(file)?;
        Ok(LineChunks {
            reader,
            plain: compression == Compression::None,
            buf: Vec::with_capacity(CHUNK_BYTES + READ_BYTES),
            piece_end: 0,
            eof: false,
            total: 0,
            limit,
            name: file.name.to_path_buf(),
            damage: None,
        })
    }

    /// Whether the bytes read are the file's own: it is not compressed.
    pub fn plain(&self) -> bool {
        self.plain
    }

    /// Bytes read so far (decompressed).
    pub fn total(&self) -> u64 {
        self.total
    }

    fn fill(&mut self) {
        while !self.eof && self.buf.len() < CHUNK_BYTES {
            // `read_to_end` appends into the spare capacity without zeroing it first:
            // a zeroed 1 MiB per `read` (decoders return a few KiB each) was a tenth
            // of the reading pass.
            let old = self.buf.len();
            let result = (&mut self.reader)
                .take(READ_BYTES as u64)
                .read_to_end(&mut self.buf);
            let n = self.buf.len() - old;
            self.total += n as u64;
            if self.total > self.limit {
                self.damage = Some(format!("read stopped at the {}-byte limit", self.limit));
                self.eof = true;
            }
            match result {
                // Fewer bytes than asked: the input ended.
                Ok(_) if n < READ_BYTES => self.eof = true,
                Ok(_) => {}
                Err(error) => {
                    if self.damage.is_none() {
                        self.damage = Some(error.to_string());
                    }
                    self.eof = true;
                }
            }
        }
    }

    /// The next piece of whole lines, and whether it is the last. `None` at the end.
    pub fn next_piece(&mut self) -> Option<(&[u8], bool)> {
        self.fill();
        if self.buf.is_empty() {
            return None;
        }
        let end = if self.eof {
            self.buf.len()
        } else {
            memchr::memrchr(b'\n', &self.buf).map_or(self.buf.len(), |i| i + 1)
        };
        self.piece_end = end;
        Some((&self.buf[..end], self.eof && end == self.buf.len()))
    }

    /// Drops the piece handed out last (the assembler has taken what it needs of it).
    pub fn consume(&mut self) {
        self.buf.drain(..self.piece_end);
        self.piece_end = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_end_at_lines_and_hold_every_line_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.log");
        let lines: Vec<String> = (0..300_000)
            .map(|i| format!("line {i} {}", "x".repeat(40)))
            .collect();
        std::fs::write(&path, lines.join("\n")).unwrap();
        let mut chunks = LineChunks::open(Named::as_given(&path), u64::MAX).unwrap();
        let mut seen = Vec::new();
        let mut pieces = 0;
        while let Some((piece, last)) = chunks.next_piece() {
            pieces += 1;
            assert!(last || piece.ends_with(b"\n"), "a piece ends at a line");
            let text = String::from_utf8(piece.to_vec()).unwrap();
            seen.extend(text.lines().map(str::to_string));
            chunks.consume();
        }
        assert!(pieces > 1);
        assert_eq!(seen, lines);
        assert_eq!(chunks.total(), std::fs::metadata(&path).unwrap().len());
    }
}

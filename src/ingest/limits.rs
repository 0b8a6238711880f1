//! Bounds on what one analysis unpacks and reads: a stranger's archive may be a
//! decompression bomb, nest archives in archives, or hold millions of tiny entries.

use super::archive::ExtractLimits;

/// Which bound an input met: carried from where it is counted to the message and to
/// the callers that tell one from another (the ratio, the budget of all archives).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// The bytes one archive unpacks (written or passed over).
    ArchiveContent,
    /// The entries of one archive.
    ArchiveEntries,
    /// The bytes a compressed file decompresses to.
    DecompressedContent,
    /// The bytes or entries of every archive of the analysis together.
    AllArchives,
}

impl LimitKind {
    /// What was counted, as the message says it.
    pub fn what(self) -> &'static str {
        match self {
            LimitKind::ArchiveContent => "archive content",
            LimitKind::ArchiveEntries => "archive entries",
            LimitKind::DecompressedContent => "decompressed content",
            LimitKind::AllArchives => "the archives of the analysis together",
        }
    }
}

/// The unit of a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitUnit {
    Bytes,
    Entries,
}

impl LimitUnit {
    /// As the message says it.
    pub fn as_str(self) -> &'static str {
        match self {
            LimitUnit::Bytes => "bytes",
            LimitUnit::Entries => "entries",
        }
    }
}

/// Bounds on one analysis (`--max-expanded`, `--max-entries`, `--max-depth`,
/// `--max-ratio` of `analyze` and `serve`). Past one, what was unpacked or read
/// before it is analysed and the rest is listed as skipped with the limit named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IngestLimits {
    /// Bytes unpacked from every archive of the analysis together (nested ones
    /// included), written or passed over.
    pub max_expanded_bytes: u64,
    /// Entries of every archive of the analysis together.
    pub max_entries: u64,
    /// Archives inside archives unpacked this deep (the input itself is level 0);
    /// deeper ones are skipped.
    pub max_depth: usize,
    /// An archive or a compressed log may expand to this many times its size (past
    /// `ratio_from`); 0 for no bound.
    pub max_ratio: u64,
    /// Expanded content up to this size is never refused for its ratio: small files
    /// of one repeated line compress far better than any bundle.
    pub ratio_from: u64,
    /// One archive entry; a larger one is skipped.
    pub max_entry_bytes: u64,
    /// One log, decompressed; reading stops there.
    pub max_log_bytes: u64,
}

impl Default for IngestLimits {
    fn default() -> Self {
        IngestLimits {
            max_expanded_bytes: 64 << 30,
            max_entries: 1 << 20,
            max_depth: 3,
            max_ratio: 250,
            ratio_from: 64 << 20,
            max_entry_bytes: 16 << 30,
            max_log_bytes: 8 << 30,
        }
    }
}

impl IngestLimits {
    /// The limits of one archive extraction, with what is left of the analysis's
    /// budget.
    pub fn for_extract(&self, bytes_left: u64, entries_left: u64) -> ExtractLimits {
        ExtractLimits {
            max_total_bytes: bytes_left,
            max_entries: entries_left,
            max_entry_bytes: self.max_entry_bytes,
            max_ratio: self.max_ratio,
            ratio_from: self.ratio_from,
        }
    }

    /// The most a log of `size` bytes on disk is read to, decompressed.
    pub fn log_bytes(&self, size: u64) -> u64 {
        self.max_log_bytes
            .min(ratio_cap(self.max_ratio, self.ratio_from, size))
    }
}

/// What `size` bytes may expand to under `ratio` (0: unbounded), never less than
/// `from`.
pub fn ratio_cap(ratio: u64, from: u64, size: u64) -> u64 {
    if ratio == 0 {
        u64::MAX
    } else {
        size.saturating_mul(ratio).max(from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ratio_applies_past_its_floor() {
        let limits = IngestLimits::default();
        assert_eq!(limits.log_bytes(1000), 64 << 20);
        assert_eq!(limits.log_bytes(1 << 30), limits.max_log_bytes);
        assert_eq!(limits.log_bytes(1 << 20), 250 << 20);
        let unbounded = IngestLimits {
            max_ratio: 0,
            ..limits
        };
        assert_eq!(unbounded.log_bytes(10), limits.max_log_bytes);
    }
}

//! `--max-expanded`, `--max-entries`, `--max-depth`, `--max-ratio`, `--ratio-from`: the bounds on what one
//! analysis unpacks and reads, shared by `analyze` and `serve`.

use clap::Args;
use evacdoc::ingest::IngestLimits;

#[derive(Debug, Clone, Args)]
pub struct LimitArgs {
    /// Bytes all archives of one analysis may expand to together, nested ones included
    /// (default 64 GiB).
    #[arg(long, value_name = "BYTES", default_value_t = IngestLimits::default().max_expanded_bytes)]
    max_expanded: u64,
    /// Entries all archives of one analysis may hold together.
    #[arg(long, value_name = "N", default_value_t = IngestLimits::default().max_entries)]
    max_entries: u64,
    /// How deep archives inside archives are unpacked.
    #[arg(long, value_name = "N", default_value_t = IngestLimits::default().max_depth)]
    max_depth: usize,
    /// How many times its size an archive or a compressed log may expand to, past
    /// 64 MiB (0: no bound).
    #[arg(long, value_name = "N", default_value_t = IngestLimits::default().max_ratio)]
    max_ratio: u64,
    /// The ratio applies past this many expanded bytes (default 64 MiB).
    #[arg(long, value_name = "BYTES", default_value_t = IngestLimits::default().ratio_from)]
    ratio_from: u64,
}

impl LimitArgs {
    pub fn limits(&self) -> IngestLimits {
        IngestLimits {
            max_expanded_bytes: self.max_expanded,
            max_entries: self.max_entries,
            max_depth: self.max_depth,
            max_ratio: self.max_ratio,
            ratio_from: self.ratio_from,
            ..IngestLimits::default()
        }
    }
}

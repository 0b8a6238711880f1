//! The order of hits: UTC time (each host's offsets and clock shift from the meta file
//! applied to the time columns), then path, then line; no scoring.

use super::*;

/// A hit's place in the UTC order.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub(super) struct OrderKey {
    /// UTC ns (`i64::MAX` for a file with no time at all).
    pub(super) utc: i64,
    /// The file's rank by path.
    pub(super) path_rank: u32,
    pub(super) line: u64,
    pub(super) file: u32,
    pub(super) own_time: bool,
}

/// Orders hits by UTC time, path and line, from the time columns and the meta file,
/// without scoring.
#[derive(Clone)]
pub(super) struct TimeOrder {
    meta: Arc<IndexMeta>,
    path_rank: Arc<Vec<u32>>,
}

impl TimeOrder {
    pub(super) fn new(meta: Arc<IndexMeta>) -> TimeOrder {
        let mut by_path: Vec<u32> = (0..meta.files.len() as u32).collect();
        by_path.sort_by(|a, b| {
            meta.files[*a as usize]
                .path
                .cmp(&meta.files[*b as usize].path)
        });
        let mut path_rank = vec![0; by_path.len()];
        for (rank, file) in by_path.into_iter().enumerate() {
            path_rank[file as usize] = rank as u32;
        }
        TimeOrder {
            meta,
            path_rank: Arc::new(path_rank),
        }
    }
}

impl SortKeyComputer for TimeOrder {
    type SortKey = OrderKey;
    type Child = SegmentTimeOrder;
    type Comparator = ReverseComparator;

    fn segment_sort_key_computer(
        &self,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentTimeOrder> {
        let ff = reader.fast_fields();
        Ok(SegmentTimeOrder {
            order: self.clone(),
            file: ff.u64(names::FILE)?,
            line: ff.u64(names::LINE)?,
            local: ff.i64(names::TIME_LOCAL)?,
            utc: ff.i64(names::TIME_UTC)?,
            flags: ff.u64(names::FLAGS)?,
        })
    }
}

pub(super) struct SegmentTimeOrder {
    order: TimeOrder,
    file: Column<u64>,
    line: Column<u64>,
    local: Column<i64>,
    utc: Column<i64>,
    flags: Column<u64>,
}

static NO_HOST: HostMeta = HostMeta {
    name: String::new(),
    aliases: Vec::new(),
    zone: String::new(),
    offsets: Vec::new(),
    shift_ns: 0,
};

impl SegmentSortKeyComputer for SegmentTimeOrder {
    type SortKey = OrderKey;
    type SegmentSortKey = OrderKey;
    type SegmentComparator = ReverseComparator;

    fn segment_sort_key(&mut self, doc: DocId, _: Score) -> OrderKey {
        let file = self.file.first(doc).unwrap_or(0) as u32;
        let meta = &self.order.meta;
        let host = meta
            .files
            .get(file as usize)
            .and_then(|f| meta.hosts.get(f.host as usize))
            .unwrap_or(&NO_HOST);
        let utc = match (self.local.first(doc), self.utc.first(doc)) {
            (Some(raw), _) => host.utc(raw, false),
            (None, Some(raw)) => host.utc(raw, true),
            (None, None) => i64::MAX,
        };
        OrderKey {
            utc,
            path_rank: self
                .order
                .path_rank
                .get(file as usize)
                .copied()
                .unwrap_or(u32::MAX),
            line: self.line.first(doc).unwrap_or(0),
            file,
            own_time: self.flags.first(doc).unwrap_or(0) & FLAG_OWN_TIME != 0,
        }
    }

    fn convert_segment_sort_key(&self, key: OrderKey) -> OrderKey {
        key
    }
}

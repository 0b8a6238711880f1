//! The files and hosts the watcher has seen, with ids that stay put while it runs: an
//! event names its file and host by these ids. A host is known by its name (a rescan may
//! list hosts in another order); a file id names one generation of a followed log (a
//! rotation or a truncation starts another), and is used again once no held event
//! names it.

use crate::correlate::fence_log::LoggedFence;
use crate::ingest::role::rotation;
use crate::ingest::timezone::OffsetVotes;
use crate::model::Service;
use crate::model::inventory::{FileInfo, Host};

/// One file id.
#[derive(Debug)]
pub(crate) struct FileSlot {
    pub(crate) info: FileInfo,
    /// Time-zone evidence of its lines.
    pub(crate) votes: OffsetVotes,
    /// A followed log still writes to it.
    pub(crate) open: bool,
    /// Held events that name it.
    pub(crate) held: usize,
    /// Pacemaker's fencing results its lines told (pacemaker.log, the system log), as a
    /// bundle's keeper takes them; at most [`MAX_FENCING`], the newest.
    pub(crate) fencing: Vec<LoggedFence>,
}

/// The most fencing results one file id keeps: a cluster logs a handful per failure.
pub(crate) const MAX_FENCING: usize = 1_000;

impl FileSlot {
    /// Takes in fencing results read from this file, dropping the oldest beyond
    /// [`MAX_FENCING`].
    pub(crate) fn add_fencing(&mut self, fencing: Vec<LoggedFence>) {
        self.fencing.extend(fencing);
        let over = self.fencing.len().saturating_sub(MAX_FENCING);
        self.fencing.drain(..over);
    }
}

/// Every file id and host.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    pub(crate) files: Vec<FileSlot>,
    pub(crate) hosts: Vec<Host>,
}

impl Registry {
    /// The stable id of `host` (from a scan), added when new.
    pub(crate) fn host_id(&mut self, host: &Host) -> u32 {
        if let Some(known) = self.hosts.iter().position(|h| h.hostname == host.hostname) {
            let known = &mut self.hosts[known];
            for service in &host.services {
                if !known.services.contains(service) {
                    known.services.push(service.clone());
                }
            }
            return known.id;
        }
        let mut host = host.clone();
        host.id = self.hosts.len() as u32;
        self.hosts.push(host);
        self.hosts.len() as u32 - 1
    }

    /// A file id for a new generation of the log `rel` of `host`.
    pub(crate) fn open_file(&mut self, rel: &str, host: u32, service: &Service) -> u32 {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let dir = rel
            .rsplit_once('/')
            .map(|(d, _)| format!("{d}/"))
            .unwrap_or_default();
        let info = FileInfo {
            path: rel.to_string(),
            host,
            service: service.clone(),
            format: "unparsed".into(),
            records: 0,
            unparsed: 0,
            invalid_utf8_lines: 0,
            bytes: 0,
            log: format!("{dir}{}", rotation(name).0),
            rotation: 0,
            incomplete: None,
        };
        let slot = FileSlot {
            info,
            votes: OffsetVotes::default(),
            open: true,
            held: 0,
            fencing: Vec::new(),
        };
        // A finished generation's fencing results still count (the fencing of a host
        // may be in the log that rotated away): its id is not given again.
        match self
            .files
            .iter()
            .position(|f| !f.open && f.held == 0 && f.fencing.is_empty())
        {
            Some(free) => {
                self.files[free] = slot;
                free as u32
            }
            None => {
                self.files.push(slot);
                self.files.len() as u32 - 1
            }
        }
    }

    /// The file of `id`.
    pub(crate) fn file_mut(&mut self, id: u32) -> Option<&mut FileSlot> {
        self.files.get_mut(id as usize)
    }
}

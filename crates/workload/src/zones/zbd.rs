//! `zonemode=zbd` on a file without zones, as fio 3.33 emulates it (zbd.c
//! `init_zone_info`): the file is cut into sequential-write-required zones
//! of `zonesize` bytes, all empty, write pointers at the zone starts.
//! Writes go to write pointers (`zbd_adjust_block`, with random writes
//! sent to an open zone by `zbd_convert_to_open_zone`), reads stay below
//! them unless `read_beyond_wp`, full zones are reset (on a file a reset
//! only moves the write pointer back: fio issues nothing for a zone model
//! of "none"), and `max_open_zones` / `job_max_open_zones` bound the open
//! zones. The state lives for the whole job: zones written in one loop are
//! still written in the next, as in fio. The end of a zone that a block
//! does not fill is fio 3.42's: the zone is finished, or with
//! `write_zone_remainder` written with a smaller write (fio 3.33 reset
//! the zone and wrote it again). A failed write is as fio 3.42 leaves it,
//! or mends it with `recover_zbd_write_error` (see [`Zbd::writes_done`]).
//!
//! fio changes a zone's state when an I/O is queued, and closes a zone
//! that a write filled when it completes; ioscope does both when the I/O
//! is issued, which is what fio does with its synchronous engines.
//!
//! A zoned device may also have zones without a write pointer
//! (conventional zones, and the sequential-write-preferred zones of a
//! host-aware device, which fio 3.33 treats alike: its `has_wp`), where
//! any I/O goes as chosen, and offline or read-only zones, which no I/O
//! uses.

use std::sync::{Arc, Mutex, MutexGuard};

use ioscope_job::{JobSpec, ZoneMode};

use super::ZoneView;
use crate::generator::DataDir;

/// fio's `ZBD_MAX_OPEN_ZONES`: the size of its open-zone array.
const MAX_OPEN: usize = 4096;

#[derive(Clone, Debug, Default)]
struct Zone {
    start: u64,
    /// `start + capacity` for a zone without a write pointer (fio's
    /// `ZBD_ZONE_COND_NOT_WP`), `start` for an offline one.
    wp: u64,
    capacity: u64,
    open: bool,
    /// Sequential-write-required (fio's `has_wp`); false for the sentinel.
    has_wp: bool,
    /// Offline or read-only (fio's `ZBD_ZONE_COND_OFFLINE`).
    offline: bool,
    /// With recover_zbd_write_error: the zone's writes issued and not yet
    /// completed (fio's `writes_in_flight`).
    in_flight: u32,
    /// Writes chosen while the zone is `fixing`, which the runner issues
    /// once its writes in flight are done: in flight from then on (fio
    /// counts them as it accepts them, after its wait).
    waiting: u32,
    /// A failed write is being recovered: no write goes to the zone until
    /// its writes in flight are done (fio's `fixing_zone_wp`).
    fixing: bool,
    /// The end of the furthest failed write, from the zone's start (fio's
    /// `max_write_error_offset`), while `fixing`.
    error_end: u64,
}

impl Zone {
    fn capacity_end(&self) -> u64 {
        self.start + self.capacity
    }

    /// The bytes still writable before the zone is full (fio 3.42's
    /// `zbd_zone_remainder`): none past a write pointer that a finish
    /// moved to the zone's end.
    fn remainder(&self) -> u64 {
        self.capacity_end().saturating_sub(self.wp)
    }
}

/// The zones of one file (fio's `zoned_block_device_info`): one per file
/// for the whole run, shared by every job and clone that names the file
/// (see [`super::ZoneBook`]).
#[derive(Debug)]
pub(crate) struct ZonedFile {
    /// The zones, then a sentinel whose start is the end of the last zone.
    zones: Vec<Zone>,
    zone_size: u64,
    /// The file's open-zone limit (fio's `zbdi->max_open_zones`): the
    /// first job's `max_open_zones`, which later jobs inherit.
    pub(super) max_open: u32,
    /// fio's `open_zones` array, kept whole: a closed zone's slot is
    /// filled by moving the rest down, and fio reads slot 0 even when no
    /// zone is open.
    open_zones: Vec<u32>,
    num_open: usize,
    /// Bytes with data in the zones (fio's `sectors_with_data`): below
    /// the write pointers, and the whole of each zone without one.
    with_data: u64,
    /// The part of `with_data` below write pointers (fio's
    /// `wp_sectors_with_data`), which the reset threshold weighs.
    wp_with_data: u64,
    /// Writes left before the next threshold reset (fio's `write_cnt`).
    write_cnt: u32,
    /// A zoned device's own zone commands; None on a file, where a reset
    /// only moves the write pointer back and a finish moves it to the
    /// zone's end.
    device: Option<Arc<dyn ZoneDevice>>,
}

/// What zonemode=zbd asks of a zoned device beside its I/O (the run
/// layer's, with the device's ioctls or NVMe commands), each for the
/// zones in `len` bytes at `start`.
pub trait ZoneDevice: Send + Sync + std::fmt::Debug {
    /// Resets the zones' write pointers: empty.
    fn reset(&self, start: u64, len: u64) -> Result<(), String>;
    /// Finishes the zones (Zone Finish): full, whatever they hold.
    fn finish(&self, start: u64, len: u64) -> Result<(), String>;
    /// The write pointer of the zone at `start`, as the device reports it
    /// now.
    fn write_pointer(&self, start: u64) -> Result<u64, String>;
    /// Moves a zone's write pointer from `wp` by `len` bytes, writing
    /// `data` there, or zeroes where there is none.
    fn move_write_pointer(&self, wp: u64, len: u64, data: Option<&[u8]>) -> Result<(), String>;
}

/// What a [`ZoneCommand`] does to its zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneOp {
    Reset,
    Finish,
}

/// A zone reset or finish the device is still to make: the zone's state
/// already says it is empty (or full), and the runner makes the device's
/// command once the worker's I/O in flight has completed (fio's
/// `io_u_quiesce` before `zbd_reset_zone` and `zbd_finish_zone`), so no
/// write queued before it lands after it.
#[derive(Debug)]
pub struct ZoneCommand {
    dev: Arc<dyn ZoneDevice>,
    op: ZoneOp,
    start: u64,
    len: u64,
}

impl ZoneCommand {
    pub fn apply(&self) -> Result<(), String> {
        match self.op {
            ZoneOp::Reset => self.dev.reset(self.start, self.len),
            ZoneOp::Finish => self.dev.finish(self.start, self.len),
        }
    }
}

/// One zone of a zoned block device as it reported it, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceZone {
    pub start: u64,
    pub capacity: u64,
    /// The write pointer: `start + capacity` for a full zone or one
    /// without a write pointer, `start` for an offline one.
    pub wp: u64,
    /// Implicitly or explicitly open.
    pub open: bool,
    /// Sequential-write-required; false for a conventional or
    /// sequential-write-preferred zone.
    pub has_wp: bool,
    /// Offline or read-only: no I/O goes there.
    pub offline: bool,
}

/// A zoned block device's zones (of one size), for
/// [`super::ZoneBook::device`].
#[derive(Debug)]
pub struct DeviceZones {
    pub zones: Vec<DeviceZone>,
    pub zone_size: u64,
    /// The open-zone limit the jobs use (fio's `zbd_set_max_open_zones`:
    /// the user's, within the device's).
    pub max_open: u32,
    pub device: Arc<dyn ZoneDevice>,
}

/// A file's zones as several workers hold them.
pub(crate) type SharedZones = Arc<Mutex<ZonedFile>>;

/// One job's view of a file's zones: the shared zones and the part of
/// them the job works in (fio's `f->min_zone`, `f->max_zone`).
#[derive(Debug)]
struct JobFile {
    zones: SharedZones,
    /// Zones of the job's extent: `min_zone..max_zone`.
    min_zone: usize,
    max_zone: usize,
}

/// The extent of a file as zbd mode sees it (fio's `file_offset`,
/// `io_size`, `real_file_size`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Extent {
    pub start: u64,
    pub len: u64,
    pub real: u64,
}

/// What belongs to the worker itself (fio's `td` and `td->o`).
#[derive(Debug)]
pub(crate) struct JobZones {
    job_max_open: u32,
    /// Zones this worker opened (fio's `td->num_open_zones`).
    job_open: u32,
    read_beyond_wp: bool,
    random: bool,
    mixed: bool,
    writes: bool,
    reset_threshold: f64,
    reset_frequency: f64,
    zone_skip: u64,
    /// Bytes since the last zone skip (fio's `td->zone_bytes`).
    zone_bytes: u64,
    /// Zones reset so far (fio's `nr_zone_resets`).
    resets: u64,
    /// Why a device's zone reset, finish or write pointer move failed,
    /// which ended the job's pass (fio's `td_verror` in `zbd_reset_wp`,
    /// `zbd_finish_zone` and `zbd_move_zone_wp`).
    failed: Option<String>,
    /// Device commands the runner is still to make, in order.
    pending: Vec<ZoneCommand>,
    /// The engine queues its writes (fio's FIO_Q_QUEUED): a zone a write
    /// fills closes as that write completes, not as it is issued.
    closes_at_completion: bool,
    /// The zones (file, zone) filled by writes still in flight, with the
    /// end of the write that filled each.
    closing: Vec<(usize, usize, u64)>,
    /// The runner is to complete everything in flight before issuing the
    /// I/O just chosen (fio's `io_u_quiesce` while choosing it).
    quiesce: bool,
    /// The job verifies what it writes: its zones are emptied before it
    /// writes and a full zone is never reset while it runs, so no write
    /// is lost before it is checked.
    verify: bool,
    /// `write_zone_remainder`: the end of a zone too small for a block
    /// takes a smaller write instead of a finish.
    write_remainder: bool,
    /// The job goes on after a failed write (continue_on_error): the
    /// runner hands back each completed write, failed or not, so that a
    /// failed one is undone or recovered.
    writes_may_fail: bool,
    /// `recover_zbd_write_error`.
    recover: bool,
    /// Failed writes whose zone's write pointer recover_zbd_write_error
    /// could not move, by file, and why (fio's `log_info` lines).
    unrecovered: Vec<(u32, String)>,
    min_bs: [u64; 3],
}

/// A write to a file with zones that completed, as the runner hands it
/// back (to `Zbd::writes_done`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneWrite {
    /// Which of the worker's files.
    pub file: u32,
    pub offset: u64,
    pub len: u32,
    /// The write failed: with recover_zbd_write_error, the bytes it was to
    /// write (the write pointer moves with them), empty otherwise.
    pub failed: Option<Vec<u8>>,
}

/// One worker's zones, file by file.
#[derive(Debug)]
pub(crate) struct Zbd {
    files: Vec<JobFile>,
    job: JobZones,
}

/// A file's zones locked for one I/O: from the choice of its direction
/// to its issue, so that no other worker moves the write pointer in
/// between (fio holds the zone's mutex from `zbd_adjust_block` to
/// `zbd_queue_io`).
pub(crate) struct Held<'a> {
    job: &'a mut JobZones,
    /// Which of the worker's files.
    file: usize,
    min_zone: usize,
    max_zone: usize,
    zf: MutexGuard<'a, ZonedFile>,
}

/// What the offset chosen for an I/O becomes: a place in a zone, or the
/// end of the pass (fio's `io_u_eof`).
pub(crate) type Adjusted = Option<(u64, u64)>;

impl Zbd {
    /// The zones `spec` asks for over files of sizes `reals`; None unless
    /// `zonemode=zbd` (the plan step has checked zonesize and the rest).
    /// Each file's zones are the worker's own until [`Zbd::share`].
    pub(crate) fn of(spec: &JobSpec, reals: &[u64]) -> Option<Zbd> {
        let z = &spec.zones;
        if z.mode != ZoneMode::Zbd || z.size == 0 {
            return None;
        }
        let capacity = if z.capacity == 0 { z.size } else { z.capacity };
        let files = reals
            .iter()
            .map(|&real| {
                let nr = real.div_ceil(z.size) as usize;
                let mut zones: Vec<Zone> = (0..=nr as u64)
                    .map(|i| Zone {
                        start: i * z.size,
                        wp: i * z.size,
                        capacity,
                        has_wp: true,
                        ..Zone::default()
                    })
                    .collect();
                // The sentinel holds no data.
                zones[nr].capacity = 0;
                zones[nr].has_wp = false;
                let zf = ZonedFile {
                    zones,
                    zone_size: z.size,
                    max_open: z.max_open_zones,
                    open_zones: vec![0; MAX_OPEN],
                    num_open: 0,
                    with_data: 0,
                    wp_with_data: 0,
                    write_cnt: 0,
                    device: None,
                };
                JobFile {
                    zones: Arc::new(Mutex::new(zf)),
                    min_zone: 0,
                    max_zone: 0,
                }
            })
            .collect();
        let kind = spec.rw.kind;
        Some(Zbd {
            files,
            job: JobZones {
                job_max_open: z.job_max_open_zones,
                job_open: 0,
                read_beyond_wp: z.read_beyond_wp,
                random: kind.is_random(),
                mixed: kind.reads() && kind.writes(),
                writes: kind.writes(),
                reset_threshold: z.reset_threshold.unwrap_or(0.0),
                reset_frequency: z.reset_frequency.unwrap_or(0.0),
                zone_skip: z.skip,
                zone_bytes: 0,
                resets: 0,
                failed: None,
                pending: Vec::new(),
                closes_at_completion: false,
                closing: Vec::new(),
                quiesce: false,
                verify: spec.verify.method != ioscope_job::VerifyMethod::None,
                write_remainder: z.write_remainder,
                writes_may_fail: spec.errors.continue_on[ioscope_job::ErrorClass::Write as usize],
                recover: z.recover_write_error,
                unrecovered: Vec::new(),
                min_bs: [spec.bs.read.min(), spec.bs.write.min(), spec.bs.trim.min()],
            },
        })
    }

    /// fio's `zbd_zone_align_file_sizes`: a job that writes starts at a
    /// zone start and ends at a zone end (the extent shrinks inward); a
    /// read-only job, or one whose extent has no zone with a write
    /// pointer, keeps its extent. Also sets the job's zones.
    pub(crate) fn align(&mut self, f: usize, e: Extent, read_only: bool) -> Extent {
        let jf = &mut self.files[f];
        let mut zf = lock(&jf.zones);
        let mut e = e;
        // fio's zbd_is_seq_job.
        let sequential = || {
            let (first, last) = (zf.idx(e.start), zf.idx(e.start + e.len - 1));
            zf.zones[first..=last].iter().any(|z| z.has_wp)
        };
        if e.start < e.real && e.len > 0 && !read_only && sequential() {
            let zs = zf.zone_size;
            if !e.start.is_multiple_of(zs) {
                let next = (e.start / zs + 1) * zs;
                e.len = (e.start + e.len).saturating_sub(next);
                e.start = next;
            }
            let end = zf.zones[zf.idx(e.start + e.len)].start;
            e.len = end.saturating_sub(e.start);
        }
        jf.min_zone = zf.idx(e.start);
        jf.max_zone = zf.idx(e.start + e.len);
        zf.reset_write_cnt(self.job.reset_frequency);
        e
    }

    /// File `f`'s zones become `zones`, which other workers share (fio's
    /// `zbd_init_zone_info` finding the file in an earlier job), and the
    /// job starts on them as fio's `zbd_file_reset` does.
    pub(crate) fn share(&mut self, f: usize, zones: SharedZones) {
        self.files[f].zones = zones;
        self.file_reset(f);
    }

    /// File `f`'s zones take the kinds of `known`'s (with or without a
    /// write pointer, offline); a zone without a write pointer holds data
    /// throughout, as on the device.
    pub(crate) fn take_kinds(&mut self, f: usize, known: &ZonedFile) {
        let mut zf = lock(&self.files[f].zones);
        for (z, k) in zf.zones.iter_mut().zip(&known.zones) {
            z.has_wp = k.has_wp;
            z.offline = k.offline;
            if !k.has_wp || k.offline {
                z.wp = k.wp;
            }
        }
    }

    /// The zones of file `f`, to share with other workers.
    pub(crate) fn zones(&self, f: usize) -> &SharedZones {
        &self.files[f].zones
    }

    /// How many zones the job's extent of file `f` needs and how many the
    /// file's (shared) zones have.
    pub(crate) fn zone_counts(&self, f: usize) -> (usize, usize) {
        let jf = &self.files[f];
        (jf.max_zone, lock(&jf.zones).zones.len() - 1)
    }

    /// File `f`'s zones, locked for one I/O.
    #[inline]
    pub(crate) fn hold(&mut self, f: usize) -> Held<'_> {
        let jf = &self.files[f];
        Held {
            job: &mut self.job,
            file: f,
            min_zone: jf.min_zone,
            max_zone: jf.max_zone,
            zf: lock(&jf.zones),
        }
    }

    /// A new pass (fio's `fio_file_reset` and `reset_io_counters`): the
    /// zones keep their data; the reset countdown starts over.
    pub(crate) fn restart(&mut self) {
        self.job.zone_bytes = 0;
        for f in 0..self.files.len() {
            self.file_reset(f);
        }
    }

    /// fio's `zbd_file_reset` for a job that writes: the count of bytes
    /// with data is what the job's zones hold; a verifying job empties
    /// its zones (fio's `zbd_reset_zones`: each is closed, and reset if
    /// it has data), so that no zone needs a reset among the writes that
    /// are to be checked; and the reset countdown starts over. (ioscope
    /// also restarts a reader's countdown, which no reader uses.) Called
    /// as the job starts and as each pass starts, never before the verify
    /// phase, whose reads go to the blocks the writes left.
    fn file_reset(&mut self, f: usize) {
        let jf = &self.files[f];
        let (min_zone, max_zone) = (jf.min_zone, jf.max_zone);
        let frequency = self.job.reset_frequency;
        let mut zf = lock(&jf.zones);
        if self.job.writes {
            // fio's zbd_process_swd(SET_SWD).
            let data = |z: &Zone| z.wp - z.start;
            let zones = &zf.zones[min_zone..max_zone];
            let (all, wp) = zones.iter().fold((0, 0), |(all, wp), z| {
                (all + data(z), wp + if z.has_wp { data(z) } else { 0 })
            });
            zf.with_data = all;
            zf.wp_with_data = wp;
        }
        if self.job.writes && self.job.verify && self.job.failed.is_none() {
            // The zones close here; writes still in flight (a time-based
            // job's wrap-around) close none of them after.
            self.job.closing.retain(|&(cf, _, _)| cf != f);
            let mut held = Held {
                job: &mut self.job,
                file: f,
                min_zone,
                max_zone,
                zf,
            };
            for i in min_zone..max_zone {
                if held.zf.zones[i].has_wp {
                    held.close_zone(i);
                    held.reset_zone(i);
                }
            }
            zf = held.zf;
        }
        zf.reset_write_cnt(frequency);
    }

    /// The device resets and finishes made since the last call, for the
    /// runner to make once nothing is in flight (see [`ZoneCommand`]).
    #[inline]
    pub(crate) fn take_commands(&mut self) -> Option<Vec<ZoneCommand>> {
        if self.job.pending.is_empty() && !self.job.quiesce {
            return None;
        }
        self.job.quiesce = false;
        Some(std::mem::take(&mut self.job.pending))
    }

    /// The engine queues its writes: see [`JobZones::closes_at_completion`].
    pub(crate) fn close_at_completion(&mut self) {
        self.job.closes_at_completion = true;
    }

    /// Whether the runner is to hand back the completed writes: a zone a
    /// write fills closes as it completes, or a failed write is undone or
    /// recovered.
    pub(crate) fn wants_writes(&self) -> bool {
        self.job.closes_at_completion || self.job.writes_may_fail
    }

    /// Whether a failed write comes back with its bytes
    /// (recover_zbd_write_error writes them).
    pub(crate) fn wants_failed_bytes(&self) -> bool {
        self.job.recover
    }

    /// fio's `zbd_put_io` for writes that completed, in completion order:
    /// a zone one filled closes; one that failed is recovered (fio's
    /// `zbd_recover_write_error`), and on a synchronous engine, unless
    /// recovered, undone (fio moves no write pointer for a synchronous
    /// write that failed).
    pub(crate) fn writes_done(&mut self, done: &[ZoneWrite]) {
        for w in done {
            let f = w.file as usize;
            let end = w.offset + u64::from(w.len);
            let closing = self
                .job
                .closing
                .iter()
                .position(|&(cf, _, e)| cf == f && e == end);
            let closing = closing.map(|k| self.job.closing.remove(k).1);
            let jf = &self.files[f];
            let mut held = Held {
                job: &mut self.job,
                file: f,
                min_zone: jf.min_zone,
                max_zone: jf.max_zone,
                zf: lock(&jf.zones),
            };
            if let Some(zone) = closing {
                held.close_zone(zone);
            }
            held.write_done(w);
        }
    }

    /// Failed writes whose write pointer was not moved, by file, and why.
    pub(crate) fn unrecovered(&self) -> &[(u32, String)] {
        &self.job.unrecovered
    }

    /// A device's zone reset failed: the job's error, and its end.
    pub(crate) fn fail(&mut self, why: String) {
        self.job.failed.get_or_insert(why);
    }

    /// Whether `offset` of file `f` is a zone's start, where a trim is a
    /// zone reset; None in a zone without a write pointer, where a trim
    /// is a trim (fio's `zbd_do_io_u_trim`).
    pub(crate) fn zone_start(&self, f: usize, offset: u64) -> Option<bool> {
        let zf = lock(&self.files[f].zones);
        let z = &zf.zones[zf.idx(offset)];
        z.has_wp.then_some(offset == z.start)
    }

    /// Zones reset so far.
    pub(crate) fn resets(&self) -> u64 {
        self.job.resets
    }

    /// Why a zone reset on the device failed, if one did.
    pub(crate) fn failure(&self) -> Option<&str> {
        self.job.failed.as_deref()
    }
}

impl ZonedFile {
    /// The size of each zone.
    pub(crate) fn zone_size(&self) -> u64 {
        self.zone_size
    }

    /// A zoned block device's zones as it reported them, then the
    /// sentinel. Zones found open count against the open-zone limit, as
    /// fio's `zbd_setup_files` opens them; those beyond it are reset.
    pub(crate) fn of_device(dev: DeviceZones) -> Result<ZonedFile, String> {
        let end = dev.zones.last().map_or(0, |z| z.start + dev.zone_size);
        let mut zones: Vec<Zone> = dev
            .zones
            .iter()
            .map(|z| Zone {
                start: z.start,
                wp: z.wp,
                capacity: z.capacity,
                has_wp: z.has_wp,
                offline: z.offline,
                ..Zone::default()
            })
            .collect();
        zones.push(Zone {
            start: end,
            wp: end,
            ..Zone::default()
        });
        let mut zf = ZonedFile {
            zones,
            zone_size: dev.zone_size,
            max_open: dev.max_open,
            open_zones: vec![0; MAX_OPEN],
            num_open: 0,
            with_data: 0,
            wp_with_data: 0,
            write_cnt: 0,
            device: Some(dev.device),
        };
        for (i, z) in dev.zones.iter().enumerate().filter(|(_, z)| z.open) {
            if zf.max_open == 0 {
                continue;
            }
            if zf.num_open < zf.max_open as usize {
                zf.open_zones[zf.num_open] = i as u32;
                zf.num_open += 1;
                zf.zones[i].open = true;
            } else {
                // Before any I/O: the device resets the zone at once.
                if let (_, Some(reset)) = zf.reset_zone(i) {
                    reset.apply().map_err(|e| {
                        format!(
                            "zone at {} was open beyond max_open_zones and could not be reset: {e}",
                            z.start
                        )
                    })?;
                }
            }
        }
        Ok(zf)
    }
}

/// A lock that a worker which panicked while holding it leaves usable:
/// the zones are plain numbers, consistent between two calls.
fn lock(zones: &SharedZones) -> MutexGuard<'_, ZonedFile> {
    zones
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Held<'_> {
    /// fio's `zbd_adjust_ddir`: a mixed job's read becomes a write while
    /// nothing was written yet (there would be nothing to read).
    #[inline]
    pub(crate) fn direction(&self, dir: DataDir) -> DataDir {
        if dir == DataDir::Read
            && self.job.mixed
            && self.zf.with_data == 0
            && !self.job.read_beyond_wp
        {
            DataDir::Write
        } else {
            dir
        }
    }

    /// fio's `setup_zbd_zone_mode`, before a sequential offset is chosen:
    /// a sequential write at the end of a zone's capacity moves on to the
    /// next zone, and with `zoneskip` a zone that had its bytes (or whose
    /// data ran out for a read) is left for the one `zoneskip` further.
    #[inline]
    pub(crate) fn before(&mut self, dir: DataDir, v: ZoneView) {
        let last_pos = v.last_pos;
        let zf = &self.zf;
        let job = &mut *self.job;
        let i = zf.idx(*last_pos);
        if i >= zf.zones.len() - 1 {
            return;
        }
        let z = &zf.zones[i];
        let end = zf.zones[i + 1].start;
        if z.capacity < zf.zone_size
            && !job.random
            && dir == DataDir::Write
            && *last_pos >= z.capacity_end()
        {
            *last_pos = end;
        }
        if job.random || job.zone_skip == 0 {
            return;
        }
        let z = &zf.zones[zf.idx(*last_pos).min(zf.zones.len() - 2)];
        let end = z.start + zf.zone_size;
        if job.zone_bytes >= zf.zone_size
            || *last_pos >= end
            || (dir == DataDir::Read && !job.read_beyond_wp && *last_pos >= z.wp)
        {
            job.zone_bytes = 0;
            *v.start += zf.zone_size + job.zone_skip;
            if *v.start >= v.real {
                *v.start = v.origin;
            }
            *last_pos = *v.start;
        }
    }

    /// fio's `zbd_adjust_block`: where an I/O of `len` bytes chosen at
    /// `offset` goes in the zones, and how long it is; None ends the pass.
    pub(crate) fn adjust(&mut self, dir: DataDir, e: &Extent, offset: u64, len: u64) -> Adjusted {
        if self.job.failed.is_some() {
            // A device's reset failed: the pass is over.
            return None;
        }
        let zb = self.zf.idx(offset);
        let z = &self.zf.zones[zb];
        if !z.has_wp {
            return Some(self.adjust_conventional(dir, zb, offset, len));
        }
        let beyond_wp = dir == DataDir::Read && self.job.read_beyond_wp && !z.offline;
        if z.fixing && self.job.closes_at_completion && !beyond_wp {
            // fio 3.42: a failed write of the zone is recovered once the
            // zone's writes in flight are done, and this I/O waits for
            // them. (fio chooses it again after; here it was chosen on
            // the write pointer the recovery moves the zone to.)
            self.quiesce();
        }
        match dir {
            DataDir::Read => self.adjust_read(offset, len),
            DataDir::Write => self.adjust_write(e, offset, len),
            DataDir::Trim => self.adjust_trim(offset, len),
        }
    }

    /// fio's `zbd_adjust_block` in zone `zb`, which has no write pointer:
    /// any I/O goes as chosen, but a write stops short of a next zone that
    /// has one (moved back by fio's formula where not even `min_bs` fits).
    fn adjust_conventional(&self, dir: DataDir, zb: usize, offset: u64, len: u64) -> (u64, u64) {
        let next = match self.zf.zones.get(zb + 1) {
            Some(next) if dir == DataDir::Write && next.has_wp => next.start,
            _ => return (offset, len),
        };
        if offset + len <= next {
            return (offset, len);
        }
        let min_bs = self.job.min_bs[1];
        let (offset, len) = if offset + min_bs > next {
            let moved = self.zf.zones[zb].start + next - offset;
            (moved, len.min(next - moved))
        } else {
            (offset, next - offset)
        };
        (offset, len / min_bs * min_bs)
    }

    /// fio's `zbd_adjust_block` for a trim, then its `zbd_do_io_u_trim`
    /// (the engine's part, done here as the trim is issued): a random
    /// trim of an empty zone goes to the nearest zone with data (none
    /// ends the pass); a trim at a zone's start empties the zone with a
    /// reset. A trim elsewhere resets nothing and fails as the runner
    /// issues it (fio's "Trim offset not at zone start", EINVAL).
    fn adjust_trim(&mut self, offset: u64, len: u64) -> Adjusted {
        let mut zb = self.zf.idx(offset);
        let mut offset = offset;
        let z = &self.zf.zones[zb];
        if self.job.random && z.wp == z.start {
            zb = self.find_zone(1, zb)?;
            offset = self.zf.zones[zb].start;
        }
        // A zone found without a write pointer is trimmed, not reset.
        let z = &self.zf.zones[zb];
        if z.has_wp && offset == z.start {
            self.reset_zone(zb);
        }
        Some((offset, len))
    }

    fn adjust_read(&self, offset: u64, len: u64) -> Adjusted {
        let zf = &self.zf;
        let orig = zf.idx(offset);
        if self.job.read_beyond_wp && !zf.zones[orig].offline {
            return Some((offset, len));
        }
        let random = self.job.random;
        let min_bs = self.job.min_bs[0];
        let mut zb = orig;
        let mut offset = offset;
        let data = |z: &Zone| if z.offline { 0 } else { z.wp - z.start };
        let mut range = data(&zf.zones[zb]);
        if range < min_bs || (!random && offset + min_bs > zf.zones[zb].wp) {
            zb = self.find_zone(min_bs, zb)?;
            range = zf.zones[zb].wp - zf.zones[zb].start;
            if !random {
                offset = zf.zones[zb].start;
            }
        }
        let z = &zf.zones[zb];
        if range <= len {
            offset = z.start;
        } else if random {
            offset = z.start + ((offset - zf.zones[orig].start) % (range - len)) / min_bs * min_bs;
        }
        if !z.has_wp {
            // A zone found without a write pointer is read as chosen.
            return Some((offset, len));
        }
        let len = len.min(z.wp - offset) / min_bs * min_bs;
        Some((offset, len))
    }

    /// fio 3.42's `zbd_adjust_block` for a write: to the write pointer of
    /// a zone that can take it, a full zone reset first; shortened to the
    /// zone's capacity in whole blocks (or, with `write_zone_remainder`,
    /// to what is left of it).
    fn adjust_write(&mut self, e: &Extent, offset: u64, len: u64) -> Adjusted {
        let min_bs = self.job.min_bs[1];
        let (mut zb, mut offset) = (self.zf.idx(offset), offset);
        // The zone found may itself end in a remainder too small for a
        // block (a device's zone, or one left so): it is finished in turn.
        loop {
            (zb, offset) = self.convert_to_write_zone(e, offset, zb, min_bs)?;
            if !self.small_remainder(zb, min_bs) {
                break;
            }
        }
        let frequency = self.job.reset_frequency;
        let zf = &mut *self.zf;
        let mut reset = false;
        if frequency != 0.0 && zf.wp_with_data as f64 >= e.len as f64 * self.job.reset_threshold {
            reset = zf.dec_and_reset_write_cnt(frequency);
        }
        if reset || self.zone_full(zb, min_bs) {
            // fio completes the writes in flight before a reset.
            self.quiesce();
            self.reset_zone(zb);
        }
        let zf = &*self.zf;
        let z = &zf.zones[zb];
        let offset = z.wp;
        if offset.wrapping_sub(e.start) >= e.len {
            return None;
        }
        let mut new_len = len.min(z.capacity_end() - offset);
        // A remainder at most one block long is written whole; a longer
        // one in whole blocks, the rest of it by the next write.
        if !self.job.write_remainder || new_len > min_bs {
            new_len = new_len / min_bs * min_bs;
        }
        (self.job.write_remainder || new_len >= min_bs).then_some((offset, new_len))
    }

    /// Whether zone `i` ends in fewer bytes than a block, which fio 3.42
    /// finishes unless `write_zone_remainder` writes them.
    fn small_remainder(&self, i: usize, min_bs: u64) -> bool {
        let left = self.zf.zones[i].remainder();
        !self.job.write_remainder && left > 0 && left < min_bs
    }

    /// fio 3.42's `zbd_zone_full`: no room for a block in zone `i` (with
    /// `write_zone_remainder`, no room at all).
    fn zone_full(&self, i: usize, min_bs: u64) -> bool {
        let z = &self.zf.zones[i];
        if !z.has_wp {
            return false;
        }
        match self.job.write_remainder {
            true => z.remainder() == 0,
            false => z.remainder() < min_bs,
        }
    }

    /// fio's `zbd_queue_io` and `zbd_end_zone_io` for a write issued at
    /// `offset`: the write pointer moves past it, and a zone it filled is
    /// closed.
    #[inline]
    pub(crate) fn issued(&mut self, dir: DataDir, offset: u64, len: u64) {
        self.job.zone_bytes += len;
        if dir != DataDir::Write {
            return;
        }
        let zf = &mut *self.zf;
        let i = zf.idx(offset);
        let z = &mut zf.zones[i];
        if !z.has_wp {
            // fio's zbd_queue_io is for zones with a write pointer.
            return;
        }
        if self.job.recover {
            match z.fixing && self.job.closes_at_completion {
                true => z.waiting += 1,
                false => z.in_flight += 1,
            }
        }
        let end = (offset + len).min(z.capacity_end());
        if z.wp <= end {
            zf.with_data += end - z.wp;
            zf.wp_with_data += end - z.wp;
        }
        let z = &mut zf.zones[i];
        z.wp = end;
        if offset + len >= z.capacity_end() {
            if self.job.closes_at_completion {
                self.job.closing.push((self.file, i, offset + len));
            } else {
                self.close_zone(i);
            }
        }
    }

    /// Write `w` of this file completed (see [`Zbd::writes_done`]).
    fn write_done(&mut self, w: &ZoneWrite) {
        let i = self.zf.idx(w.offset);
        if !self.zf.zones[i].has_wp {
            return;
        }
        let recovered = match &w.failed {
            Some(bytes) if self.job.recover => self.recover_write(i, w, bytes),
            _ => false,
        };
        if w.failed.is_some() && !self.job.closes_at_completion {
            self.undo_write(i, w, recovered);
        }
        if !self.job.recover {
            return;
        }
        let z = &mut self.zf.zones[i];
        z.in_flight = z.in_flight.saturating_sub(1);
        if z.in_flight == 0 && z.fixing {
            // fio keeps the furthest failure's end for good, so a later
            // failure in the zone (after a reset) would move its write
            // pointer that far; it starts over here.
            z.fixing = false;
            z.error_end = 0;
            z.in_flight = std::mem::take(&mut z.waiting);
        }
    }

    /// fio 3.42's `zbd_recover_write_error` for write `w` that failed in
    /// zone `i`, carrying `bytes`: once the zone has no other write in
    /// flight, the device's write pointer is moved from where the device
    /// reports it to the end of the furthest failed write, with the
    /// write's bytes from there, or zeroes where the write pointer lies
    /// before the write (or the write's bytes would not reach: fio reads
    /// past its buffer there). Whether the write pointer was moved. A
    /// zone that cannot be recovered is noted; a move the device refuses
    /// ends the job, as in fio.
    fn recover_write(&mut self, i: usize, w: &ZoneWrite, bytes: &[u8]) -> bool {
        let z = &mut self.zf.zones[i];
        let (start, end) = (z.start, w.offset + u64::from(w.len));
        z.fixing = true;
        z.error_end = z.error_end.max(end - start);
        if z.in_flight > 1 {
            // The last of the zone's writes in flight recovers.
            return false;
        }
        let limit = start + z.error_end;
        let file = self.file as u32;
        let Some(dev) = self.zf.device.clone() else {
            // fio asks a file for a zone report, which it cannot give.
            let why = "the zones are emulated on a file, which has no write pointer to report";
            self.job.unrecovered.push((file, why.to_string()));
            return false;
        };
        let wp = match dev.write_pointer(start) {
            Ok(wp) => wp,
            Err(e) => {
                let why = format!("report zone for write recovery failed: {e}");
                self.job.unrecovered.push((file, why));
                return false;
            }
        };
        if wp < start || wp > limit {
            let why = format!("unexpected write pointer position on error: wp={wp}");
            self.job.unrecovered.push((file, why));
            return false;
        }
        let data = (wp >= w.offset && limit <= end)
            .then(|| &bytes[(wp - w.offset) as usize..(limit - w.offset) as usize]);
        if limit > wp {
            if let Err(e) = dev.move_write_pointer(wp, limit - wp, data) {
                self.job.failed.get_or_insert(e);
                return false;
            }
        }
        // Writes chosen after the failure was seen already follow it.
        let z = &mut self.zf.zones[i];
        z.wp = z.wp.max(limit);
        true
    }

    /// A synchronous write `w` to zone `i` failed: the zone is as fio
    /// leaves it, whose write pointer moves only for a write that
    /// succeeded (or was `recovered`) and which keeps a zone open that
    /// such a write would have filled. ioscope moved the write pointer and
    /// closed the zone as the write was issued: both are undone (the
    /// write pointer only where nothing has moved it since, the zone
    /// reopened where the open-zone limit leaves room).
    fn undo_write(&mut self, i: usize, w: &ZoneWrite, recovered: bool) {
        let zf = &mut *self.zf;
        let z = &zf.zones[i];
        let end = (w.offset + u64::from(w.len)).min(z.capacity_end());
        if !recovered && z.wp == end && w.offset < end {
            let moved = end - w.offset;
            zf.with_data = zf.with_data.saturating_sub(moved);
            zf.wp_with_data = zf.wp_with_data.saturating_sub(moved);
            zf.zones[i].wp = w.offset;
        }
        let z = &zf.zones[i];
        let filled = w.offset + u64::from(w.len) >= z.capacity_end();
        if filled && !z.open && zf.max_open > 0 && zf.num_open < zf.max_open as usize {
            zf.open_zones[zf.num_open] = i as u32;
            zf.num_open += 1;
            zf.zones[i].open = true;
            self.job.job_open += 1;
        }
    }

    /// fio's `io_u_quiesce` while choosing an I/O: every write in flight
    /// completes, so the zones those of this file filled close now, and
    /// the runner waits for them all before issuing the I/O. (Those of the
    /// worker's other files close as their completions arrive, before the
    /// next I/O is chosen, as their zones play no part in this one.)
    fn quiesce(&mut self) {
        if !self.job.closes_at_completion {
            return;
        }
        self.job.quiesce = true;
        let mut k = 0;
        while k < self.job.closing.len() {
            let (f, zone, _) = self.job.closing[k];
            if f == self.file {
                // In the order the writes were issued, as they complete.
                self.job.closing.remove(k);
                self.close_zone(zone);
            } else {
                k += 1;
            }
        }
    }

    /// Empties zone `i`, counts the reset where it had data, and leaves a
    /// device's reset to the runner.
    fn reset_zone(&mut self, i: usize) {
        let (had_data, device) = self.zf.reset_zone(i);
        if had_data {
            self.job.resets += 1;
        }
        self.job.pending.extend(device);
    }

    /// fio's `zbd_open_zone` (3.42's `zbd_write_zone_get`).
    fn open_zone(&mut self, i: usize) -> bool {
        if self.job.verify && self.zone_full(i, self.job.min_bs[1]) {
            // A full zone would be reset, and its writes lost before they
            // are checked.
            return false;
        }
        let zf = &mut *self.zf;
        let z = &zf.zones[i];
        if z.offline {
            return false;
        }
        if zf.max_open == 0 {
            return true;
        }
        if z.open {
            return z.wp < z.capacity_end();
        }
        let job = &mut *self.job;
        if job.job_max_open > 0 && job.job_open >= job.job_max_open {
            return false;
        }
        if zf.num_open >= zf.max_open as usize {
            return false;
        }
        zf.open_zones[zf.num_open] = i as u32;
        zf.num_open += 1;
        zf.zones[i].open = true;
        job.job_open += 1;
        true
    }

    /// fio's `zbd_close_zone`. The zone may have been opened by another
    /// worker: fio counts it off the closing worker's open zones all the
    /// same (`td->num_open_zones--`), which can go below zero there; here
    /// the count stops at zero.
    fn close_zone(&mut self, i: usize) {
        let zf = &mut *self.zf;
        if !zf.zones[i].open {
            return;
        }
        let Some(slot) = zf.open_zones[..zf.num_open]
            .iter()
            .position(|&z| z as usize == i)
        else {
            return;
        };
        zf.open_zones.copy_within(slot + 1.., slot);
        zf.num_open -= 1;
        zf.zones[i].open = false;
        self.job.job_open = self.job.job_open.saturating_sub(1);
    }

    /// fio 3.42's `zbd_convert_to_write_zone` for a write chosen at
    /// `offset` in zone `zb`: the zone it goes to, and the offset it was
    /// chosen at (a zone's start where another zone was found; the write
    /// pointer is applied after). A zone that ends in a remainder too
    /// small for a block is finished first, and the next zone with a
    /// write pointer taken instead (none after the last, for sequential
    /// writes). None when no zone can take the write.
    fn convert_to_write_zone(
        &mut self,
        e: &Extent,
        offset: u64,
        zb: usize,
        min_bs: u64,
    ) -> Option<(usize, u64)> {
        let mut zb = zb;
        if self.small_remainder(zb, min_bs) {
            self.close_zone(zb);
            self.quiesce();
            self.finish_zone(zb);
            if zb + 1 >= self.max_zone && !self.job.random {
                return None;
            }
            loop {
                zb += 1;
                if zb >= self.max_zone {
                    zb = self.min_zone;
                }
                if self.zf.zones[zb].has_wp {
                    break;
                }
            }
        }
        if self.open_zone(zb) {
            return Some((zb, offset));
        }
        let z = self.convert_to_open_zone(e, offset, min_bs)?;
        Some((z, self.zf.zones[z].start))
    }

    /// fio's `zbd_finish_zone` (3.42): zone `i` is full, its write
    /// pointer at the zone's end (fio's, past a capacity below the zone
    /// size), and on a device the device's Zone Finish is left to the
    /// runner. The bytes with data are left as they were, as fio leaves
    /// them: a later reset takes the whole zone off them, as fio's does.
    fn finish_zone(&mut self, i: usize) {
        let zf = &mut *self.zf;
        zf.zones[i].wp = zf.zones[i + 1].start;
        self.job.pending.extend(zf.command(ZoneOp::Finish, i));
    }

    /// fio's `zbd_convert_to_open_zone` (3.42's second half of
    /// `zbd_convert_to_write_zone`): the zone a write that cannot go to
    /// its own zone goes to instead. None when no zone can take it.
    fn convert_to_open_zone(&mut self, e: &Extent, offset: u64, min_bs: u64) -> Option<usize> {
        let (min_zone, max_zone) = (self.min_zone, self.max_zone);
        let zf = &self.zf;
        let tracking = zf.max_open > 0 || self.job.job_max_open > 0;
        // fio's pick_random_zone_idx: the offset's place in the extent
        // scaled to the open zones.
        let pick = ((u128::from(offset - e.start) * zf.num_open as u128) / u128::from(e.len.max(1)))
            as usize;
        let mut idx = if tracking {
            zf.open_zones[pick] as usize
        } else {
            zf.idx(offset)
        };
        idx = idx.clamp(min_zone, max_zone - 1);
        // An offline zone is never examined: without limits, fio finds no
        // open zone (it tracks none) and opens another.
        let examine = if !tracking && !zf.zones[idx].offline {
            true
        } else if zf.num_open == 0 {
            false
        } else {
            idx = self.pick_open_zone(e, offset)?;
            true
        };
        if examine && self.zf.zones[idx].remainder() >= min_bs {
            return Some(idx);
        }
        // Zone idx is full: another is to be opened. At a limit of open
        // zones, the writes in flight complete first, closing the zones
        // they filled (not with write_zone_remainder in fio 3.42, whose
        // zones fill without a finish to wait for).
        let zf = &self.zf;
        let count = (e.len / zf.zone_size) as usize;
        let wait_zone_close = !self.job.write_remainder
            && (zf.num_open == max_zone - min_zone
                || (zf.max_open > 0 && zf.num_open == zf.max_open as usize)
                || (self.job.job_max_open > 0 && self.job.job_open == self.job.job_max_open));
        if wait_zone_close {
            self.quiesce();
        }
        let mut retried = false;
        loop {
            // The next zone that can be opened, wrapping at the extent's
            // end.
            for _ in 0..count {
                let zf = &self.zf;
                idx += 1;
                if zf.zones[idx].start.wrapping_sub(e.start) >= e.len {
                    idx = min_zone;
                }
                if !zf.zones[idx].has_wp || zf.zones[idx].open {
                    continue;
                }
                if self.open_zone(idx) {
                    return Some(idx);
                }
            }
            // A write may still fit in a zone already open (by this
            // worker or another): a block, or with write_zone_remainder
            // any of it.
            let zf = &self.zf;
            let fits = |z: &Zone| match self.job.write_remainder {
                true => z.remainder() > 0,
                false => z.remainder() >= min_bs,
            };
            let open = zf.open_zones[..zf.num_open]
                .iter()
                .map(|&z| z as usize)
                .filter(|&z| min_zone <= z && z < max_zone)
                .find(|&z| fits(&zf.zones[z]));
            if open.is_some() {
                return open;
            }
            if retried {
                break;
            }
            // fio waits for the writes in flight, which may close zones,
            // and tries once more (again while other workers' writes are
            // in flight, which this worker does not wait for).
            self.quiesce();
            retried = true;
        }
        // fio 3.42: every open zone of a random writer ends in a remainder
        // too small for a block, so one of them is finished and taken (to
        // be reset); not while verifying, which a reset would spoil.
        if !self.job.random || self.job.verify || self.job.write_remainder {
            return None;
        }
        let z = self.pick_open_zone(e, offset)?;
        self.quiesce();
        self.finish_zone(z);
        Some(z)
    }

    /// fio's `zbd_pick_write_zone`: the first open zone in the job's zones
    /// from the slot that the offset's place in the extent picks (fio's
    /// `pick_random_zone_idx`) on.
    fn pick_open_zone(&self, e: &Extent, offset: u64) -> Option<usize> {
        let zf = &self.zf;
        let n = zf.num_open;
        let pick = ((u128::from(offset - e.start) * n as u128) / u128::from(e.len.max(1))) as usize;
        (0..n)
            .map(|k| zf.open_zones[(pick + k) % n] as usize)
            .find(|&z| self.min_zone <= z && z < self.max_zone)
    }

    /// fio's `zbd_find_zone`: the nearest zone after `zb` (and, for random
    /// I/O, before it) with at least `min` bytes written, offline zones
    /// aside. (A sequential search stops at an offline zone, as fio's.)
    fn find_zone(&self, min: u64, zb: usize) -> Option<usize> {
        let random = self.job.random;
        let (first, last) = (self.min_zone as isize, self.max_zone as isize);
        let (mut z1, mut z2) = (zb as isize + 1, zb as isize - 1);
        let online = |z: isize| !self.zf.zones[z as usize].offline;
        let has = |z: isize| {
            let z = &self.zf.zones[z as usize];
            z.start + min <= z.wp
        };
        while z1 < last || z2 >= first {
            if z1 < last && online(z1) {
                if has(z1) {
                    return Some(z1 as usize);
                }
            } else if !random {
                break;
            }
            if random && z2 >= first && online(z2) && has(z2) {
                return Some(z2 as usize);
            }
            z1 += 1;
            z2 -= 1;
        }
        None
    }
}

impl ZonedFile {
    /// fio's `zbd_offset_to_zone_idx`: the zone of `offset`, or the
    /// sentinel past the end.
    #[inline]
    fn idx(&self, offset: u64) -> usize {
        ((offset / self.zone_size) as usize).min(self.zones.len() - 1)
    }

    /// Empties zone `i` (fio's `zbd_reset_zone`, which leaves a zone
    /// without data alone): whether it had data, and on a device the
    /// device's reset, still to make (on a file a reset only moves the
    /// write pointer back).
    fn reset_zone(&mut self, i: usize) -> (bool, Option<ZoneCommand>) {
        let z = &self.zones[i];
        let data = z.wp - z.start;
        if data == 0 {
            return (false, None);
        }
        let device = self.command(ZoneOp::Reset, i);
        self.with_data = self.with_data.saturating_sub(data);
        self.wp_with_data = self.wp_with_data.saturating_sub(data);
        self.zones[i].wp = self.zones[i].start;
        (true, device)
    }

    /// The device's command `op` on zone `i`, None on a file.
    fn command(&self, op: ZoneOp, i: usize) -> Option<ZoneCommand> {
        let start = self.zones[i].start;
        self.device.as_ref().map(|dev| ZoneCommand {
            dev: Arc::clone(dev),
            op,
            start,
            len: self.zones[i + 1].start - start,
        })
    }

    fn reset_write_cnt(&mut self, frequency: f64) {
        self.write_cnt = if frequency != 0.0 {
            (1.0 / frequency).min(f64::from(u32::MAX)) as u32
        } else {
            u32::MAX
        };
    }

    fn dec_and_reset_write_cnt(&mut self, frequency: f64) -> bool {
        self.write_cnt = self.write_cnt.saturating_sub(1);
        if self.write_cnt == 0 {
            self.reset_write_cnt(frequency);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zbd(f: impl Fn(&mut JobSpec)) -> Zbd {
        let mut spec = JobSpec::fio_defaults("z");
        spec.zones.mode = ZoneMode::Zbd;
        spec.zones.size = 64 << 10;
        f(&mut spec);
        let mut z = Zbd::of(&spec, &[256 << 10]).unwrap();
        let e = Extent {
            start: 0,
            len: 256 << 10,
            real: 256 << 10,
        };
        z.align(0, e, false);
        z
    }

    const ALL: Extent = Extent {
        start: 0,
        len: 256 << 10,
        real: 256 << 10,
    };

    /// Issues a write of `len` chosen at `offset`; returns where it went.
    fn write(z: &mut Zbd, offset: u64, len: u64) -> Adjusted {
        let mut held = z.hold(0);
        let (o, l) = held.adjust(DataDir::Write, &ALL, offset, len)?;
        held.issued(DataDir::Write, o, l);
        Some((o, l))
    }

    #[test]
    fn writes_go_to_write_pointers_and_full_zones_reset() {
        let mut z = zbd(|s| s.zones.capacity = 48 << 10);
        // A write anywhere in zone 1 lands at its write pointer.
        assert_eq!(
            write(&mut z, 100 << 10, 16 << 10),
            Some((64 << 10, 16 << 10))
        );
        assert_eq!(
            write(&mut z, 70 << 10, 16 << 10),
            Some((80 << 10, 16 << 10))
        );
        // Shortened to the zone's capacity.
        assert_eq!(
            write(&mut z, 64 << 10, 32 << 10),
            Some((96 << 10, 16 << 10))
        );
        // Full: reset, then written from the start again.
        assert_eq!(
            write(&mut z, 64 << 10, 16 << 10),
            Some((64 << 10, 16 << 10))
        );
    }

    #[test]
    fn open_zone_limits_send_writes_to_open_zones() {
        let mut z = zbd(|s| {
            s.zones.max_open_zones = 1;
            s.rw.kind = ioscope_job::RwKind::RandRw;
        });
        assert_eq!(write(&mut z, 0, 4096), Some((0, 4096)));
        // Zone 2 cannot open: the write goes to open zone 0.
        assert_eq!(write(&mut z, 130 << 10, 4096), Some((4096, 4096)));
        // Random reads go to the nearest zone with data, below its write
        // pointer: zone 0 has 8 KiB.
        let r = z.hold(0).adjust(DataDir::Read, &ALL, 200 << 10, 4096);
        assert!(matches!(r, Some((o, 4096)) if o < 8192), "{r:?}");
    }

    /// fio 3.42: a zone left with fewer bytes than a block is finished
    /// (its write pointer at its end) and the write goes to the next zone;
    /// after the last zone a sequential job's pass ends.
    #[test]
    fn a_remainder_smaller_than_a_block_is_finished() {
        let bs = 24 << 10;
        let mut z = zbd(|s| {
            s.rw.kind = ioscope_job::RwKind::Write;
            s.bs.write = ioscope_job::BlockSize::Fixed(bs);
        });
        assert_eq!(write(&mut z, 0, bs), Some((0, bs)));
        assert_eq!(write(&mut z, bs, bs), Some((bs, bs)));
        // 16 KiB left in zone 0: finished, and the write goes to zone 1.
        assert_eq!(write(&mut z, 2 * bs, bs), Some((64 << 10, bs)));
        assert_eq!(z.hold(0).zf.zones[0].wp, 64 << 10);
        assert!(z.take_commands().is_none(), "nothing for a file");
        // The last zone's remainder ends a sequential pass.
        let last = 3 * (64 << 10);
        assert_eq!(write(&mut z, last, bs), Some((last, bs)));
        assert_eq!(write(&mut z, last + bs, bs), Some((last + bs, bs)));
        assert_eq!(write(&mut z, last + 2 * bs, bs), None);
        assert_eq!(z.hold(0).zf.zones[3].wp, 256 << 10);
    }

    /// write_zone_remainder: the remainder takes a write of its own size,
    /// and the zone fills and closes with it.
    #[test]
    fn write_zone_remainder_writes_the_rest_of_the_zone() {
        let bs = 24 << 10;
        let mut z = zbd(|s| {
            s.rw.kind = ioscope_job::RwKind::Write;
            s.bs.write = ioscope_job::BlockSize::Fixed(bs);
            s.zones.write_remainder = true;
            s.zones.max_open_zones = 1;
        });
        write(&mut z, 0, bs);
        write(&mut z, bs, bs);
        assert_eq!(write(&mut z, 2 * bs, bs), Some((2 * bs, 16 << 10)));
        let held = z.hold(0);
        assert_eq!((held.zf.zones[0].wp, held.zf.num_open), (64 << 10, 0));
        drop(held);
        // A remainder longer than the smallest block is written in whole
        // blocks, the last part of it whole.
        let mut z = zbd(|s| {
            s.rw.kind = ioscope_job::RwKind::Write;
            s.bs.write = ioscope_job::BlockSize::Range {
                min: 16 << 10,
                max: 48 << 10,
            };
            s.zones.write_remainder = true;
            s.zones.capacity = 60 << 10;
        });
        assert_eq!(write(&mut z, 0, 16 << 10), Some((0, 16 << 10)));
        assert_eq!(write(&mut z, 0, 48 << 10), Some((16 << 10, 32 << 10)));
        assert_eq!(write(&mut z, 0, 48 << 10), Some((48 << 10, 12 << 10)));
    }

    /// fio 3.42: when every open zone of a random writer ends in less than
    /// a block and no other zone can open, one of them is finished and
    /// taken, and so reset; write_zone_remainder writes the remainder.
    #[test]
    fn random_writes_finish_an_open_zone_when_none_has_room() {
        for write_remainder in [false, true] {
            let mut z = zbd(|s| {
                s.rw.kind = ioscope_job::RwKind::RandWrite;
                s.bs.write = ioscope_job::BlockSize::Fixed(24 << 10);
                s.zones.max_open_zones = 1;
                s.zones.write_remainder = write_remainder;
            });
            let bs = 24 << 10;
            write(&mut z, 0, bs);
            write(&mut z, 0, bs);
            // Zone 2 cannot open; open zone 0 has 16 KiB left.
            let got = write(&mut z, 130 << 10, bs);
            let want = match write_remainder {
                true => (2 * bs, 16 << 10),
                false => (0, bs),
            };
            assert_eq!(got, Some(want), "write_zone_remainder={write_remainder}");
            assert_eq!(z.resets(), u64::from(!write_remainder));
        }
    }
}

#[cfg(test)]
mod device_tests {
    use super::*;
    use std::sync::Mutex as StdMutex;

    /// A write pointer move: from where, how far, and the bytes (None:
    /// zeroes).
    type Move = (u64, u64, Option<Vec<u8>>);

    /// A device that records the resets, finishes and write pointer moves
    /// made on it, and reports a write pointer it is given.
    #[derive(Debug, Default)]
    struct Recorder {
        ops: StdMutex<Vec<(ZoneOp, u64, u64)>>,
        moves: StdMutex<Vec<Move>>,
        /// What the device reports as any zone's write pointer.
        wp: StdMutex<u64>,
    }

    impl ZoneDevice for Recorder {
        fn reset(&self, start: u64, len: u64) -> Result<(), String> {
            self.ops.lock().unwrap().push((ZoneOp::Reset, start, len));
            Ok(())
        }

        fn finish(&self, start: u64, len: u64) -> Result<(), String> {
            self.ops.lock().unwrap().push((ZoneOp::Finish, start, len));
            Ok(())
        }

        fn write_pointer(&self, _start: u64) -> Result<u64, String> {
            Ok(*self.wp.lock().unwrap())
        }

        fn move_write_pointer(&self, wp: u64, len: u64, data: Option<&[u8]>) -> Result<(), String> {
            let data = data.map(<[u8]>::to_vec);
            self.moves.lock().unwrap().push((wp, len, data));
            Ok(())
        }
    }

    /// A full zone of a device is empty at once for the workload, and its
    /// reset is left to the runner, which makes it after the I/O in flight.
    #[test]
    fn a_device_zone_is_reset_by_the_runner_not_the_workload() {
        let dev = Arc::new(Recorder::default());
        let zones = DeviceZones {
            zones: (0..4)
                .map(|i| DeviceZone {
                    start: i * (64 << 10),
                    capacity: 64 << 10,
                    // Zone 1 is full.
                    wp: if i == 1 { 128 << 10 } else { i * (64 << 10) },
                    open: false,
                    has_wp: true,
                    offline: false,
                })
                .collect(),
            zone_size: 64 << 10,
            max_open: 0,
            device: dev.clone(),
        };
        let mut spec = JobSpec::fio_defaults("z");
        spec.zones.mode = ZoneMode::Zbd;
        spec.zones.size = 64 << 10;
        let mut z = Zbd::of(&spec, &[256 << 10]).unwrap();
        z.share(
            0,
            Arc::new(Mutex::new(ZonedFile::of_device(zones).unwrap())),
        );
        let e = Extent {
            start: 0,
            len: 256 << 10,
            real: 256 << 10,
        };
        z.align(0, e, false);
        let mut held = z.hold(0);
        let got = held.adjust(DataDir::Write, &e, 70 << 10, 4096);
        assert_eq!(
            got,
            Some((64 << 10, 4096)),
            "written at the emptied zone's start"
        );
        drop(held);
        assert!(dev.ops.lock().unwrap().is_empty(), "no reset made yet");
        let due = z.take_commands().unwrap();
        assert_eq!(due.len(), 1);
        due[0].apply().unwrap();
        assert_eq!(
            *dev.ops.lock().unwrap(),
            [(ZoneOp::Reset, 64 << 10, 64 << 10)]
        );
        assert_eq!(z.resets(), 1);
        assert!(z.take_commands().is_none());
    }

    /// A device's zone that ends in less than a block is finished with
    /// the device's Zone Finish, which the runner makes after the I/O in
    /// flight, as it makes resets.
    #[test]
    fn a_device_zone_is_finished_by_the_runner() {
        let dev = Arc::new(Recorder::default());
        let zones = DeviceZones {
            zones: (0..4)
                .map(|i| DeviceZone {
                    start: i * Z,
                    capacity: Z,
                    // Zone 0 holds 48 KiB.
                    wp: if i == 0 { 48 << 10 } else { i * Z },
                    open: false,
                    has_wp: true,
                    offline: false,
                })
                .collect(),
            zone_size: Z,
            max_open: 0,
            device: dev.clone(),
        };
        let mut spec = JobSpec::fio_defaults("z");
        spec.zones.mode = ZoneMode::Zbd;
        spec.zones.size = Z;
        spec.rw.kind = ioscope_job::RwKind::Write;
        spec.bs.write = ioscope_job::BlockSize::Fixed(24 << 10);
        let mut z = Zbd::of(&spec, &[4 * Z]).unwrap();
        z.close_at_completion();
        z.share(
            0,
            Arc::new(Mutex::new(ZonedFile::of_device(zones).unwrap())),
        );
        let e = Extent {
            start: 0,
            len: 4 * Z,
            real: 4 * Z,
        };
        z.align(0, e, false);
        let got = z.hold(0).adjust(DataDir::Write, &e, 48 << 10, 24 << 10);
        assert_eq!(got, Some((Z, 24 << 10)), "written in zone 1");
        assert!(dev.ops.lock().unwrap().is_empty(), "no finish made yet");
        for command in z.take_commands().unwrap() {
            command.apply().unwrap();
        }
        assert_eq!(*dev.ops.lock().unwrap(), [(ZoneOp::Finish, 0, Z)]);
    }

    const Z: u64 = 64 << 10;

    /// A device of six 64 KiB zones: 0 and 1 conventional (full of data
    /// by definition), 2 to 4 sequential-write-required and empty, 5
    /// offline; `f` adjusts the job.
    fn mixed_device(f: impl Fn(&mut JobSpec)) -> (Zbd, Extent) {
        let zones = DeviceZones {
            zones: (0..6)
                .map(|i| DeviceZone {
                    start: i * Z,
                    capacity: Z,
                    wp: match i {
                        0 | 1 => (i + 1) * Z,
                        _ => i * Z,
                    },
                    open: false,
                    has_wp: i >= 2,
                    offline: i == 5,
                })
                .collect(),
            zone_size: Z,
            max_open: 0,
            device: Arc::new(Recorder::default()),
        };
        let mut spec = JobSpec::fio_defaults("z");
        spec.zones.mode = ZoneMode::Zbd;
        spec.zones.size = Z;
        f(&mut spec);
        let mut z = Zbd::of(&spec, &[6 * Z]).unwrap();
        z.share(
            0,
            Arc::new(Mutex::new(ZonedFile::of_device(zones).unwrap())),
        );
        let e = Extent {
            start: 0,
            len: 6 * Z,
            real: 6 * Z,
        };
        (z, e)
    }

    /// fio 3.33's zbd_adjust_block in zones without a write pointer: I/O
    /// goes as chosen and moves no write pointer, a write stops at the
    /// next zone that has one, and a trim there is a trim.
    #[test]
    fn conventional_zones_take_io_as_chosen() {
        let (mut z, e) = mixed_device(|s| s.rw.kind = ioscope_job::RwKind::RandWrite);
        let e = z.align(0, e, false);
        let mut held = z.hold(0);
        let w = held.adjust(DataDir::Write, &e, 5 << 10, 8 << 10);
        assert_eq!(w, Some((5 << 10, 8 << 10)));
        held.issued(DataDir::Write, 5 << 10, 8 << 10);
        assert_eq!(held.zf.zones[0].wp, Z, "the write pointer stays at the end");
        // From zone 1 into zone 2, which has a write pointer: cut there.
        let w = held.adjust(DataDir::Write, &e, 2 * Z - 4096, 16 << 10);
        assert_eq!(w, Some((2 * Z - 4096, 4096)));
        // A write in zone 2 goes to its write pointer.
        let w = held.adjust(DataDir::Write, &e, 2 * Z + 8192, 4096);
        assert_eq!(w, Some((2 * Z, 4096)));
        drop(held);
        assert_eq!(
            z.zone_start(0, 0),
            None,
            "a trim in zone 0 goes to the device"
        );
        assert_eq!(z.zone_start(0, 3 * Z), Some(true));
        assert_eq!(z.zone_start(0, 3 * Z + 512), Some(false));
    }

    /// Reads of an empty zone go to the nearest zone with data, which may
    /// be one without a write pointer: read whole, as chosen there.
    #[test]
    fn reads_find_data_in_conventional_zones() {
        let (mut z, e) = mixed_device(|s| s.rw.kind = ioscope_job::RwKind::RandRead);
        let e = z.align(0, e, true);
        let r = z.hold(0).adjust(DataDir::Read, &e, 2 * Z + 12288, 8192);
        // Zone 1 is nearest before zone 2; the offset keeps its place.
        assert_eq!(r, Some((Z + 12288, 8192)));
        let r = z.hold(0).adjust(DataDir::Read, &e, 4096, 8192);
        assert_eq!(r, Some((4096, 8192)));
    }

    /// An offline zone takes no I/O: writes are sent to a zone that can
    /// open, reads beyond write pointers are not allowed there.
    #[test]
    fn offline_zones_take_no_io() {
        let (mut z, e) = mixed_device(|s| {
            s.rw.kind = ioscope_job::RwKind::RandWrite;
            s.zones.read_beyond_wp = true;
        });
        let e = z.align(0, e, false);
        let w = z.hold(0).adjust(DataDir::Write, &e, 5 * Z + 4096, 4096);
        assert!(matches!(w, Some((o, 4096)) if o == 2 * Z), "{w:?}");
        let r = z.hold(0).adjust(DataDir::Read, &e, 5 * Z + 4096, 4096);
        assert_ne!(r.map(|(o, _)| o / Z), Some(5), "{r:?}");
    }

    /// A job whose extent holds no zone with a write pointer keeps it
    /// unaligned (fio's zbd_is_seq_job); one that does is aligned.
    #[test]
    fn only_zones_with_write_pointers_align_the_extent() {
        let (mut z, _) = mixed_device(|s| s.rw.kind = ioscope_job::RwKind::Write);
        let inner = Extent {
            start: 4096,
            len: Z,
            real: 6 * Z,
        };
        assert_eq!(z.align(0, inner, false).start, 4096);
        let across = Extent {
            start: Z + 4096,
            len: 2 * Z,
            real: 6 * Z,
        };
        let got = z.align(0, across, false);
        assert_eq!((got.start, got.len), (2 * Z, Z));
    }

    /// A sequential writer of 16 KiB blocks with continue_on_error=write
    /// on four empty 64 KiB zones of `dev` (None: of a file), recovering
    /// failed writes when `recover`, its writes in flight together when
    /// `queued`.
    fn failing_writer(dev: Option<Arc<Recorder>>, recover: bool, queued: bool) -> (Zbd, Extent) {
        let mut spec = JobSpec::fio_defaults("z");
        spec.zones.mode = ZoneMode::Zbd;
        spec.zones.size = Z;
        spec.zones.recover_write_error = recover;
        spec.rw.kind = ioscope_job::RwKind::Write;
        spec.bs.write = ioscope_job::BlockSize::Fixed(16 << 10);
        spec.errors.continue_on[1] = true;
        let mut z = Zbd::of(&spec, &[4 * Z]).unwrap();
        if queued {
            z.close_at_completion();
        }
        if let Some(dev) = dev {
            let zones = DeviceZones {
                zones: (0..4)
                    .map(|i| DeviceZone {
                        start: i * Z,
                        capacity: Z,
                        wp: i * Z,
                        open: false,
                        has_wp: true,
                        offline: false,
                    })
                    .collect(),
                zone_size: Z,
                max_open: 0,
                device: dev,
            };
            let zf = ZonedFile::of_device(zones).unwrap();
            z.share(0, Arc::new(Mutex::new(zf)));
        }
        let e = Extent {
            start: 0,
            len: 4 * Z,
            real: 4 * Z,
        };
        let e = z.align(0, e, false);
        assert!(z.wants_writes());
        assert_eq!(z.wants_failed_bytes(), recover);
        (z, e)
    }

    /// Issues the 16 KiB write chosen at `offset`; returns where it went.
    fn issue(z: &mut Zbd, e: &Extent, offset: u64) -> (u64, u64) {
        let mut held = z.hold(0);
        let (o, l) = held.adjust(DataDir::Write, e, offset, 16 << 10).unwrap();
        held.issued(DataDir::Write, o, l);
        (o, l)
    }

    fn failed(offset: u64, bytes: Vec<u8>) -> ZoneWrite {
        ZoneWrite {
            file: 0,
            offset,
            len: 16 << 10,
            failed: Some(bytes),
        }
    }

    /// fio 3.42's recovery of a synchronous write that failed because
    /// something wrote 4 KiB at the zone's write pointer behind the
    /// job's back: the device's write pointer moves to the write's end
    /// with the write's last 12 KiB, and the next write follows it.
    #[test]
    fn a_failed_write_moves_the_write_pointer_with_its_bytes() {
        let dev = Arc::new(Recorder::default());
        *dev.wp.lock().unwrap() = 4 << 10;
        let (mut z, e) = failing_writer(Some(dev.clone()), true, false);
        assert_eq!(issue(&mut z, &e, 0), (0, 16 << 10));
        let bytes: Vec<u8> = (0..16 << 10).map(|i| (i / 1024) as u8).collect();
        z.writes_done(&[failed(0, bytes.clone())]);
        assert_eq!(
            *dev.moves.lock().unwrap(),
            [(4 << 10, 12 << 10, Some(bytes[4 << 10..].to_vec()))]
        );
        assert!(z.unrecovered().is_empty());
        assert_eq!(issue(&mut z, &e, 16 << 10), (16 << 10, 16 << 10));
        let held = z.hold(0);
        assert!(!held.zf.zones[0].fixing && held.zf.zones[0].in_flight == 1);
    }

    /// A write pointer the device reports past the failed write is not
    /// moved (fio's "unexpected write pointer position on error"): noted,
    /// and, the engine being synchronous, the write is undone, so the next
    /// write goes where it went (fio moves no write pointer for it). A
    /// file has no write pointer to report; without recovery a failed
    /// synchronous write is undone all the same.
    #[test]
    fn a_write_pointer_that_cannot_be_moved_is_noted_and_the_write_undone() {
        let dev = Arc::new(Recorder::default());
        *dev.wp.lock().unwrap() = 20 << 10;
        let (mut z, e) = failing_writer(Some(dev.clone()), true, false);
        issue(&mut z, &e, 0);
        z.writes_done(&[failed(0, vec![7; 16 << 10])]);
        assert!(dev.moves.lock().unwrap().is_empty());
        assert_eq!(
            z.unrecovered(),
            [(
                0,
                "unexpected write pointer position on error: wp=20480".to_string()
            )]
        );
        assert_eq!(issue(&mut z, &e, 16 << 10), (0, 16 << 10));

        let (mut z, e) = failing_writer(None, true, false);
        issue(&mut z, &e, 0);
        z.writes_done(&[failed(0, vec![7; 16 << 10])]);
        assert!(z.unrecovered()[0].1.contains("emulated on a file"));
        assert_eq!(issue(&mut z, &e, 16 << 10), (0, 16 << 10));

        let (mut z, e) = failing_writer(None, false, false);
        issue(&mut z, &e, 0);
        z.writes_done(&[failed(0, Vec::new())]);
        assert!(z.unrecovered().is_empty());
        assert_eq!(issue(&mut z, &e, 16 << 10), (0, 16 << 10));
    }

    /// Writes in flight together: the zone is recovered when the last of
    /// its writes in flight completes, from the device's write pointer
    /// (before the last write, so with zeroes) to the end of the furthest
    /// failed write; meanwhile a write to the zone waits for the writes in
    /// flight (the runner quiesces), and goes on from there.
    #[test]
    fn writes_in_flight_recover_once_the_last_is_done() {
        let dev = Arc::new(Recorder::default());
        *dev.wp.lock().unwrap() = 4 << 10;
        let (mut z, e) = failing_writer(Some(dev.clone()), true, true);
        issue(&mut z, &e, 0);
        issue(&mut z, &e, 16 << 10);
        z.writes_done(&[failed(0, vec![1; 16 << 10])]);
        assert!(dev.moves.lock().unwrap().is_empty(), "one still in flight");
        assert!(z.hold(0).zf.zones[0].fixing);
        assert_eq!(issue(&mut z, &e, 32 << 10), (32 << 10, 16 << 10));
        assert!(z.take_commands().is_some(), "the runner waits first");
        z.writes_done(&[failed(16 << 10, vec![2; 16 << 10])]);
        assert_eq!(*dev.moves.lock().unwrap(), [(4 << 10, 28 << 10, None)]);
        // Fixed: the write that waited is in flight now.
        let held = z.hold(0);
        let zone = &held.zf.zones[0];
        assert_eq!((zone.wp, zone.fixing, zone.in_flight), (48 << 10, false, 1));
        drop(held);
        z.writes_done(&[ZoneWrite {
            file: 0,
            offset: 32 << 10,
            len: 16 << 10,
            failed: None,
        }]);
        let held = z.hold(0);
        assert_eq!(
            (held.zf.zones[0].in_flight, held.zf.zones[0].fixing),
            (0, false)
        );
    }
}

//! Opening a target and asking it what it is: its kind, size, block sizes
//! and O_DIRECT alignment.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;

use super::probe::{
    block_device_sector_size, block_device_size, c_path, direct_io_offset_align, fstat,
    nvme_identity, stat_path,
};
use super::{AccessAdvice, NvmeIdentity, OpenOptions, Target, TargetKind};
use crate::error::{Advice, EngineError, Knob};
use crate::ioctl::BLKFLSBUF;
use crate::syscall::retry_eintr;

impl Target {
    /// Opens `path` once, for the whole run.
    ///
    /// A missing path becomes a new regular file (mode 0644) only when
    /// `opts.create` is set, and never under `/dev`, where a missing name is
    /// a mistyped device rather than a file to create. Directories, FIFOs and
    /// sockets are refused before they are opened, so opening a FIFO cannot
    /// hang.
    pub fn open(path: &Path, opts: &OpenOptions) -> Result<Target, EngineError> {
        Target::open_with_flags(path, opts, 0)
    }

    /// [`Target::open`] with more open(2) flags: O_SYNC or O_DSYNC, so
    /// that every write reaches stable storage before it completes (fio's
    /// `sync=`).
    pub fn open_with_flags(
        path: &Path,
        opts: &OpenOptions,
        extra_flags: libc::c_int,
    ) -> Result<Target, EngineError> {
        let access = match (opts.read, opts.write) {
            (true, true) => libc::O_RDWR,
            (false, true) => libc::O_WRONLY,
            (true, false) => libc::O_RDONLY,
            (false, false) => {
                return Err(target_error(
                    path,
                    "open options ask for neither reading nor writing; set read, write or both",
                ))
            }
        };
        let cpath = c_path(path)?;
        let mut flags = access | libc::O_CLOEXEC | extra_flags;
        if opts.direct {
            flags |= libc::O_DIRECT;
        }
        match stat_path(&cpath) {
            Ok(st) => {
                TargetKind::from_mode(st.st_mode).map_err(|m| target_error(path, m))?;
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
                if !opts.create {
                    return Err(target_error(
                        path,
                        "does not exist; check the path, or create the file first",
                    ));
                }
                refuse_creating_in_dev(path)?;
                flags |= libc::O_CREAT;
            }
            Err(e) => return Err(open_error(path, e, opts)),
        }

        let fd =
            retry_eintr(|| unsafe { libc::open(cpath.as_ptr(), flags, 0o644 as libc::c_uint) })
                .map_err(|e| open_error(path, e, opts))?;
        // SAFETY: `open` just returned this descriptor and nothing else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };

        let st = fstat(fd.as_raw_fd()).map_err(|e| io_error(path, "fstat", e))?;
        // Checked again on the open descriptor: the path may have changed
        // between the stat above and the open.
        let kind = TargetKind::from_mode(st.st_mode).map_err(|m| target_error(path, m))?;
        let nvme = if kind == TargetKind::CharDevice {
            nvme_identity(fd.as_raw_fd()).map(Box::new)
        } else {
            None
        };
        let (size, logical_block_size, direct_io_align) = match kind {
            TargetKind::BlockDevice => {
                let size = block_device_size(fd.as_raw_fd())
                    .map_err(|e| io_error(path, "BLKGETSIZE64 (device size)", e))?;
                let lbs = block_device_sector_size(fd.as_raw_fd())
                    .map_err(|e| io_error(path, "BLKSSZGET (logical block size)", e))?;
                (size, lbs, lbs)
            }
            TargetKind::RegularFile => {
                // st_blksize is the filesystem's preferred I/O size: the unit
                // that avoids read-modify-write in the page cache. It can be
                // larger than what O_DIRECT needs, so direct I/O is checked
                // against the kernel's own figure when it reports one.
                let lbs = (st.st_blksize as u32).max(512);
                let dio = direct_io_offset_align(fd.as_raw_fd()).unwrap_or(lbs);
                (st.st_size as u64, lbs, dio)
            }
            // No generic way to learn a character device's size or sector
            // size; NVMe generic devices (/dev/ngXnY) tell theirs through
            // Identify.
            TargetKind::CharDevice => match &nvme {
                Some(id) => {
                    let lbs = id.namespace.block_size() as u32;
                    // fio's size counts extended LBAs whole; a format the
                    // job cannot use is refused before the run.
                    let block = id.geometry(!opts.pi_in_data).map_or(lbs, |g| g.block());
                    (id.namespace.nsze * u64::from(block), lbs, lbs)
                }
                None => (0, 512, 512),
            },
        };
        Ok(Target {
            path: path.to_path_buf(),
            fd,
            kind,
            size,
            logical_block_size,
            direct_io_align,
            direct: opts.direct,
            nvme,
        })
    }

    /// Identify data of the NVMe namespace behind a generic char device
    /// (/dev/ngXnY), learnt when it was opened; `None` for anything else.
    pub fn nvme(&self) -> Option<&NvmeIdentity> {
        self.nvme.as_deref()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    pub fn kind(&self) -> TargetKind {
        self.kind
    }

    /// Bytes: the file's length, or BLKGETSIZE64 for a block device.
    /// Zero for a character device, whose size cannot be learnt generically.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// BLKSSZGET for a block device; the filesystem's block size otherwise.
    ///
    /// For a regular file this is `st_blksize` (at least 512): the size
    /// below which buffered writes turn into read-modify-write. 512 for a
    /// character device.
    pub fn logical_block_size(&self) -> u32 {
        self.logical_block_size
    }

    /// Whether the target was opened with O_DIRECT.
    pub fn direct(&self) -> bool {
        self.direct
    }

    /// The alignment O_DIRECT needs for offsets and lengths on this target:
    /// the logical block size for a block device; for a regular file the
    /// `stx_dio_offset_align` the kernel reports through statx (Linux 6.1 and
    /// later, on filesystems that fill it in), else the logical block size.
    pub fn direct_io_align(&self) -> u32 {
        self.direct_io_align
    }

    /// Checks, for a target opened with O_DIRECT, that every block size and
    /// the start offset are multiples of [`Target::direct_io_align`], so a
    /// bad size is reported before the run rather than as EINVAL on every
    /// I/O. Buffered targets accept anything.
    pub fn check_direct_io(&self, block_sizes: &[u64], offset: u64) -> Result<(), EngineError> {
        if !self.direct {
            return Ok(());
        }
        let align = u64::from(self.direct_io_align);
        let kind = self.kind.describe();
        if let Some(&bs) = block_sizes.iter().find(|&&bs| bs % align != 0) {
            return Err(EngineError::Refused {
                what: format!(
                    "{}: block size {bs} is not a multiple of {align} bytes, which O_DIRECT on \
                     this {kind} requires",
                    self.path.display()
                ),
                fix: vec![
                    Advice::MultipleOf(Knob::BlockSize, align),
                    Advice::Drop(Knob::Direct),
                ],
            });
        }
        if !offset.is_multiple_of(align) {
            return Err(EngineError::Refused {
                what: format!(
                    "{}: start offset {offset} is not a multiple of {align} bytes, which O_DIRECT \
                     on this {kind} requires",
                    self.path.display()
                ),
                fix: vec![
                    Advice::MultipleOf(Knob::Offset, align),
                    Advice::Drop(Knob::Direct),
                ],
            });
        }
        Ok(())
    }
}

impl Target {
    /// Tells the kernel how the target will be read (posix_fadvise), as
    /// fio's `fadvise_hint` does: random or sequential access sets its
    /// readahead; no reuse (fio 3.42's `noreuse`) marks the pages for early
    /// reclaim. The advice covers `len` bytes from `offset`, the job's
    /// region, as fio's does. Character devices take no advice.
    pub fn advise(&self, access: AccessAdvice, offset: u64, len: u64) -> Result<(), EngineError> {
        if self.kind == TargetKind::CharDevice {
            return Ok(());
        }
        let advice = match access {
            AccessAdvice::Random => libc::POSIX_FADV_RANDOM,
            AccessAdvice::Sequential => libc::POSIX_FADV_SEQUENTIAL,
            AccessAdvice::NoReuse => libc::POSIX_FADV_NOREUSE,
        };
        // SAFETY: fadvise only reads its arguments.
        let rc = unsafe {
            libc::posix_fadvise(
                self.fd(),
                offset.try_into().unwrap_or(libc::off_t::MAX),
                len.try_into().unwrap_or(0),
                advice,
            )
        };
        if rc != 0 {
            return Err(EngineError::Io {
                path: self.path.clone(),
                what: "posix_fadvise (fadvise_hint; set fadvise_hint=0 to skip it)",
                source: io::Error::from_raw_os_error(rc),
            });
        }
        Ok(())
    }

    /// Drops the target's cached pages for `len` bytes from `offset` (0 for
    /// the rest), as fio's `invalidate=1` does when a job opens its files,
    /// so a buffered job measures the device rather than the page cache:
    /// posix_fadvise(DONTNEED) for a file, BLKFLSBUF for a block device
    /// (which needs CAP_SYS_ADMIN). Character devices have no cache.
    pub fn invalidate_cache(&self, offset: u64, len: u64) -> Result<(), EngineError> {
        match self.kind {
            TargetKind::RegularFile => {
                // SAFETY: fadvise only reads its arguments.
                let rc = unsafe {
                    libc::posix_fadvise(
                        self.fd(),
                        offset as libc::off_t,
                        len as libc::off_t,
                        libc::POSIX_FADV_DONTNEED,
                    )
                };
                if rc != 0 {
                    return Err(EngineError::Io {
                        path: self.path.clone(),
                        what: "cannot drop the cached pages (invalidate=1)",
                        source: io::Error::from_raw_os_error(rc),
                    });
                }
            }
            TargetKind::BlockDevice => {
                // SAFETY: BLKFLSBUF takes no argument.
                if unsafe { libc::ioctl(self.fd(), BLKFLSBUF, 0) } == -1 {
                    return Err(EngineError::Io {
                        path: self.path.clone(),
                        what: "cannot flush the device's buffer cache (invalidate=1 needs root; \
                               set invalidate=0 to skip it)",
                        source: io::Error::last_os_error(),
                    });
                }
            }
            TargetKind::CharDevice => {}
        }
        Ok(())
    }
}

pub(super) fn refuse_creating_in_dev(path: &Path) -> Result<(), EngineError> {
    // /dev/shm and /dev/hugepages are filesystems where files belong.
    let filesystem = path.starts_with("/dev/shm") || path.starts_with("/dev/hugepages");
    if path.starts_with("/dev") && !filesystem {
        return Err(target_error(
            path,
            "no such device; ioscope does not create files under /dev, where a missing name \
             is a mistyped device (check the device name with lsblk)",
        ));
    }
    Ok(())
}

pub(super) fn target_error(path: &Path, message: &str) -> EngineError {
    EngineError::Target {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

pub(crate) fn io_error(path: &Path, what: &'static str, source: io::Error) -> EngineError {
    EngineError::Io {
        path: path.to_path_buf(),
        what,
        source,
    }
}

/// Open failures with a known cause get a sentence saying what to change;
/// the rest keep the system's words.
pub(super) fn open_error(path: &Path, e: io::Error, opts: &OpenOptions) -> EngineError {
    let hint = match e.raw_os_error() {
        Some(libc::EINVAL) if opts.direct => {
            return EngineError::Refused {
                what: format!(
                    "{}: cannot be opened with O_DIRECT: the filesystem does not support direct I/O",
                    path.display()
                ),
                fix: vec![
                    Advice::Drop(Knob::Direct),
                    Advice::Other("use another filesystem".into()),
                ],
            };
        }
        Some(libc::EACCES | libc::EPERM) => {
            if opts.write {
                "permission denied opening for writing; run as a user who may write it (devices usually need root)"
            } else {
                "permission denied opening for reading; run as a user who may read it (devices usually need root)"
            }
        }
        Some(libc::EROFS) => "is on a read-only filesystem; it cannot be opened for writing",
        Some(libc::EISDIR) => "is a directory; name a file inside it, or a device",
        Some(libc::EBUSY) => {
            "is busy: another user holds it exclusively (a mount, md, device-mapper); stop that use first"
        }
        Some(libc::ENOENT) => "does not exist, or its directory does not; check the path",
        _ => return EngineError::Open { path: path.to_path_buf(), source: e },
    };
    EngineError::OpenExplained {
        path: path.to_path_buf(),
        hint,
        source: e,
    }
}

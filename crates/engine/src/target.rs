//! Files and devices: opening them, learning their size and block size,
//! and laying regular files out before they are read.

use std::ffi::CString;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::error::EngineError;
use crate::ioctl::{BLKFLSBUF, BLKGETSIZE64};
use crate::nvme::{
    identify_controller_of, identify_namespace_of, namespace_id, nvm_limits_of, Controller,
    Namespace, NvmLimits,
};
use crate::syscall::retry_eintr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    RegularFile,
    BlockDevice,
    CharDevice,
}

impl TargetKind {
    fn from_mode(mode: libc::mode_t) -> Result<TargetKind, &'static str> {
        match mode & libc::S_IFMT {
            libc::S_IFREG => Ok(TargetKind::RegularFile),
            libc::S_IFBLK => Ok(TargetKind::BlockDevice),
            libc::S_IFCHR => Ok(TargetKind::CharDevice),
            libc::S_IFDIR => Err("is a directory; name a file inside it, or a device"),
            libc::S_IFIFO => Err("is a FIFO; give a regular file, a block device or a character device"),
            libc::S_IFSOCK => Err("is a socket; give a regular file, a block device or a character device"),
            _ => Err("is neither a regular file nor a device; give a regular file, a block device or a character device"),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            TargetKind::RegularFile => "file",
            TargetKind::BlockDevice => "block device",
            TargetKind::CharDevice => "character device",
        }
    }
}

/// How to open a target.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    pub read: bool,
    pub write: bool,
    /// Create a regular file that does not exist.
    pub create: bool,
    /// O_DIRECT.
    pub direct: bool,
}

/// An open file or device.
#[derive(Debug)]
pub struct Target {
    path: PathBuf,
    fd: OwnedFd,
    kind: TargetKind,
    size: u64,
    logical_block_size: u32,
    direct_io_align: u32,
    direct: bool,
    nvme: Option<Box<NvmeIdentity>>,
}

/// What Identify says about the NVMe namespace behind a target.
#[derive(Clone, Debug)]
pub struct NvmeIdentity {
    pub nsid: u32,
    pub controller: Controller,
    pub namespace: Namespace,
    /// The NVM command set's Write Zeroes and Dataset Management limits.
    pub limits: NvmLimits,
}

impl Target {
    /// Opens `path` once, for the whole run.
    ///
    /// A missing path becomes a new regular file (mode 0644) only when
    /// `opts.create` is set, and never under `/dev`, where a missing name is
    /// a mistyped device rather than a file to create. Directories, FIFOs and
    /// sockets are refused before they are opened, so opening a FIFO cannot
    /// hang.
    pub fn open(path: &Path, opts: &OpenOptions) -> Result<Target, EngineError> {
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
        let mut flags = access | libc::O_CLOEXEC;
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
                    (id.namespace.nsze * u64::from(lbs), lbs, lbs)
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
            return Err(target_error(
                &self.path,
                &format!(
                    "block size {bs} is not a multiple of {align} bytes, which O_DIRECT on this \
                     {kind} requires; use a block size that is a multiple of {align}, or direct=0"
                ),
            ));
        }
        if !offset.is_multiple_of(align) {
            return Err(target_error(
                &self.path,
                &format!(
                    "start offset {offset} is not a multiple of {align} bytes, which O_DIRECT on \
                     this {kind} requires; use an offset that is a multiple of {align}, or direct=0"
                ),
            ));
        }
        Ok(())
    }
}

impl Target {
    /// Tells the kernel how the target will be read (posix_fadvise
    /// FADV_RANDOM or FADV_SEQUENTIAL), which sets its readahead, as fio's
    /// `fadvise_hint` does. Character devices take no advice.
    pub fn advise(&self, random: bool) -> Result<(), EngineError> {
        if self.kind == TargetKind::CharDevice {
            return Ok(());
        }
        let advice = if random {
            libc::POSIX_FADV_RANDOM
        } else {
            libc::POSIX_FADV_SEQUENTIAL
        };
        // SAFETY: fadvise only reads its arguments.
        let rc = unsafe { libc::posix_fadvise(self.fd(), 0, 0, advice) };
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

/// Whether `path` is a block device that is in use by the system: the device
/// itself, one of its partitions, or a device built on any of them (device
/// mapper, md, ...) mounted, or any of them active as swap. Writing to such a
/// device destroys the filesystem on it, so callers refuse to unless told to.
///
/// Returns a description such as "/dev/zram0 is mounted on /mnt/x", or
/// `None` for a device nothing uses, a path that is not a block device, or a
/// path that does not exist.
pub fn mounted_use(path: &Path) -> Result<Option<String>, EngineError> {
    let cpath = c_path(path)?;
    let st = match stat_path(&cpath) {
        Ok(st) => st,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(None),
        Err(e) => return Err(io_error(path, "stat", e)),
    };
    if st.st_mode & libc::S_IFMT != libc::S_IFBLK {
        return Ok(None);
    }
    let related = related_devices(st.st_rdev, &path.display().to_string());
    let mut uses = Vec::new();

    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| io_error(Path::new("/proc/self/mountinfo"), "read", e))?;
    for line in mountinfo.lines() {
        let Some(mount) = parse_mountinfo_line(line) else {
            continue;
        };
        // Some filesystems (btrfs) report an anonymous device number, so
        // the device they were mounted from is compared as well. Only /dev
        // paths are looked at: stat on a network or FUSE source can hang.
        let source_dev = if mount.source.starts_with("/dev/") {
            CString::new(mount.source.as_str())
                .ok()
                .and_then(|c| stat_path(&c).ok())
                .filter(|s| s.st_mode & libc::S_IFMT == libc::S_IFBLK)
                .map(|s| s.st_rdev)
        } else {
            None
        };
        if let Some(dev) = related
            .iter()
            .find(|d| d.dev == mount.dev || Some(d.dev) == source_dev)
        {
            uses.push(format!(
                "{} is mounted on {}",
                dev.description, mount.mount_point
            ));
        }
    }

    // /proc/swaps may be absent (no swap support); that means no swap.
    if let Ok(swaps) = std::fs::read_to_string("/proc/swaps") {
        for name in swaps
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
        {
            let name = unescape_octal(name);
            let Some(st) = CString::new(name.as_str())
                .ok()
                .and_then(|c| stat_path(&c).ok())
            else {
                continue;
            };
            if st.st_mode & libc::S_IFMT != libc::S_IFBLK {
                continue;
            }
            if let Some(dev) = related.iter().find(|d| d.dev == st.st_rdev) {
                uses.push(format!("{} is in use as swap", dev.description));
            }
        }
    }

    Ok(if uses.is_empty() {
        None
    } else {
        Some(uses.join("; "))
    })
}

/// A device whose use makes writing to the asked-for device unsafe.
struct RelatedDevice {
    dev: libc::dev_t,
    description: String,
}

/// The device, its partitions and, transitively, the devices that hold any
/// of them, as listed under /sys/dev/block. Without sysfs only the device
/// itself is known.
fn related_devices(dev: libc::dev_t, shown_as: &str) -> Vec<RelatedDevice> {
    let mut out = vec![RelatedDevice {
        dev,
        description: shown_as.to_string(),
    }];
    let sys = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        libc::major(dev),
        libc::minor(dev)
    ));
    let Ok(sys) = std::fs::canonicalize(sys) else {
        return out;
    };
    // Partitions are subdirectories of the whole device that carry a
    // "partition" attribute.
    let mut bases = vec![(sys.clone(), shown_as.to_string())];
    if let Ok(entries) = std::fs::read_dir(&sys) {
        for entry in entries.flatten() {
            let p = entry.path();
            if p.join("partition").exists() {
                if let Some(d) = sysfs_dev(&p) {
                    let name = format!("/dev/{}", entry.file_name().to_string_lossy());
                    out.push(RelatedDevice {
                        dev: d,
                        description: format!("{name} (a partition of {shown_as})"),
                    });
                    bases.push((p, name));
                }
            }
        }
    }
    // Holders: device-mapper, md, bcache... built on the device or a
    // partition, possibly stacked. Bounded so a sysfs loop cannot hang us.
    let mut pending: Vec<(PathBuf, String, u32)> =
        bases.into_iter().map(|(p, n)| (p, n, 0)).collect();
    while let Some((dir, name, depth)) = pending.pop() {
        if depth >= 8 {
            continue;
        }
        let Ok(holders) = std::fs::read_dir(dir.join("holders")) else {
            continue;
        };
        for holder in holders.flatten() {
            let hname = holder.file_name().to_string_lossy().into_owned();
            let hdir = PathBuf::from(format!("/sys/class/block/{hname}"));
            let Some(d) = sysfs_dev(&hdir) else {
                continue;
            };
            if out.iter().any(|r| r.dev == d) {
                continue;
            }
            let hpath = format!("/dev/{hname}");
            out.push(RelatedDevice {
                dev: d,
                description: format!("{hpath} (built on {name})"),
            });
            pending.push((hdir, hpath, depth + 1));
        }
    }
    out
}

/// The device number in a sysfs block directory's "dev" file ("major:minor").
fn sysfs_dev(dir: &Path) -> Option<libc::dev_t> {
    let text = std::fs::read_to_string(dir.join("dev")).ok()?;
    let (major, minor) = text.trim().split_once(':')?;
    Some(libc::makedev(major.parse().ok()?, minor.parse().ok()?))
}

struct Mount {
    dev: libc::dev_t,
    mount_point: String,
    source: String,
}

/// One line of /proc/self/mountinfo: "id parent major:minor root mountpoint
/// options [optional fields] - fstype source superoptions".
fn parse_mountinfo_line(line: &str) -> Option<Mount> {
    let mut fields = line.split(' ');
    let (major, minor) = fields.nth(2)?.split_once(':')?;
    let mount_point = unescape_octal(fields.nth(1)?);
    let source = line.split(" - ").nth(1)?.split(' ').nth(1)?;
    Some(Mount {
        dev: libc::makedev(major.parse().ok()?, minor.parse().ok()?),
        mount_point,
        source: unescape_octal(source),
    })
}

/// The kernel writes space, tab, newline and backslash in mount points and
/// swap file names as `\ooo` octal escapes.
fn unescape_octal(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() {
            let digits = &b[i + 1..i + 4];
            if digits.iter().all(|c| (b'0'..=b'7').contains(c)) {
                let v = digits
                    .iter()
                    .fold(0u32, |acc, c| acc * 8 + u32::from(c - b'0'));
                if let Ok(byte) = u8::try_from(v) {
                    out.push(byte);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// True when `path` is missing or a regular file shorter than `size`: the
/// files [`layout_file`] would write. Devices are never laid out.
pub fn needs_layout(path: &Path, size: u64) -> Result<bool, EngineError> {
    match stat_path(&c_path(path)?) {
        Ok(st) => Ok(st.st_mode & libc::S_IFMT == libc::S_IFREG && (st.st_size as u64) < size),
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(true),
        Err(e) => Err(io_error(path, "stat", e)),
    }
}

/// Makes `path` a regular file of at least `size` bytes whose blocks are
/// really allocated, writing it in `block`-sized pieces, as fio does before
/// a job reads a file that is missing or too short.
///
/// The pieces hold pseudo-random bytes, as fio's default buffers do, so
/// storage that compresses or deduplicates cannot skip them. See
/// [`layout_file_with`] for other contents.
pub fn layout_file(path: &Path, size: u64, block: usize) -> Result<(), EngineError> {
    layout(path, size, block, &mut fill_pseudo_random, &|| false)
}

/// [`layout_file`] that asks `stopped` before each piece and gives up with
/// [`EngineError::Stopped`] once it says so, so a long layout can be
/// interrupted (Ctrl-C) instead of running to its end. The file is cut back
/// to what was written, as after any failed layout.
pub fn layout_file_until(
    path: &Path,
    size: u64,
    block: usize,
    stopped: &dyn Fn() -> bool,
) -> Result<(), EngineError> {
    layout(path, size, block, &mut fill_pseudo_random, stopped)
}

/// Creates `path` (when missing) as a file of at least `size` bytes without
/// writing it, for a job that only writes: its blocks are allocated with
/// fallocate where the filesystem can, so the job's writes do not also pay
/// for allocation (as fio does); elsewhere the file is extended. Never
/// creates a file under /dev, where a missing name is a mistyped device.
pub fn preallocate_file(path: &Path, size: u64) -> Result<(), EngineError> {
    let cpath = c_path(path)?;
    match stat_path(&cpath) {
        Ok(_) => {}
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => refuse_creating_in_dev(path)?,
        Err(e) => return Err(io_error(path, "stat", e)),
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| io_error(path, "cannot create", e))?;
    // SAFETY: the fd is open for writing; fallocate only changes the file.
    let rc = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, size as libc::off_t) };
    if rc != 0 {
        file.set_len(size)
            .map_err(|e| io_error(path, "cannot extend", e))?;
    }
    Ok(())
}

/// [`layout_file`] with the contents chosen by `fill`, which is called with
/// the file offset and the bytes of each piece before the piece is written.
///
/// A file already `size` bytes or longer is left alone. A shorter one is
/// rewritten from the start, as fio does: a prefix written some other way
/// may have holes, and reading holes measures nothing. The steps follow fio's
/// `extend_file`: truncate, fallocate the whole size (ignored where the
/// filesystem cannot), write every piece, fsync. If a step fails the file is
/// cut back to what was written, so the next run lays it out again instead of
/// reading unwritten blocks.
pub fn layout_file_with<F: FnMut(u64, &mut [u8])>(
    path: &Path,
    size: u64,
    block: usize,
    mut fill: F,
) -> Result<(), EngineError> {
    layout(path, size, block, &mut fill, &|| false)
}

fn layout(
    path: &Path,
    size: u64,
    block: usize,
    fill: &mut dyn FnMut(u64, &mut [u8]),
    stopped: &dyn Fn() -> bool,
) -> Result<(), EngineError> {
    if block == 0 {
        return Err(target_error(
            path,
            "layout block size is 0; give a block size of 1 byte or more",
        ));
    }
    let cpath = c_path(path)?;
    match stat_path(&cpath) {
        Ok(st) => match TargetKind::from_mode(st.st_mode) {
            Ok(TargetKind::RegularFile) if st.st_size as u64 >= size => return Ok(()),
            Ok(TargetKind::RegularFile) => {}
            Ok(kind) => {
                return Err(target_error(
                    path,
                    &format!(
                        "is a {}, not a regular file; only regular files are laid out",
                        kind.describe()
                    ),
                ))
            }
            Err(m) => return Err(target_error(path, m)),
        },
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => refuse_creating_in_dev(path)?,
        Err(e) => return Err(io_error(path, "stat", e)),
    }

    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC;
    let fd = retry_eintr(|| unsafe { libc::open(cpath.as_ptr(), flags, 0o644 as libc::c_uint) })
        .map_err(|e| {
            open_error(
                path,
                e,
                &OpenOptions {
                    write: true,
                    ..Default::default()
                },
            )
        })?;
    // SAFETY: `open` just returned this descriptor and nothing else owns it.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };

    let mut written = 0u64;
    let result = write_layout(
        path,
        fd.as_raw_fd(),
        size,
        block,
        &mut written,
        fill,
        stopped,
    );
    if result.is_err() {
        // Best effort: the error being reported matters more than this one.
        unsafe { libc::ftruncate(fd.as_raw_fd(), written as libc::off_t) };
    }
    result
}

fn write_layout(
    path: &Path,
    fd: RawFd,
    size: u64,
    block: usize,
    written: &mut u64,
    fill: &mut dyn FnMut(u64, &mut [u8]),
    stopped: &dyn Fn() -> bool,
) -> Result<(), EngineError> {
    let out_of_space = |done: u64| {
        target_error(
            path,
            &format!(
                "not enough space to lay out {size} bytes (stopped after {done}); \
                 free some space or ask for a smaller size"
            ),
        )
    };
    if size > 0 {
        // Allocating the whole extent first gives the filesystem the chance
        // to place it contiguously, as fio's default fallocate=native does.
        match retry_eintr(|| unsafe { libc::fallocate(fd, 0, 0, size as libc::off_t) }) {
            Ok(_) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::ENOSYS)) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) => {
                return Err(out_of_space(0))
            }
            Err(e) => return Err(io_error(path, "fallocate", e)),
        }
    }
    let mut buf = vec![0u8; block.min(usize::try_from(size).unwrap_or(usize::MAX))];
    while *written < size {
        if stopped() {
            return Err(EngineError::Stopped {
                path: path.to_path_buf(),
            });
        }
        let piece = (size - *written).min(buf.len() as u64) as usize;
        let chunk = &mut buf[..piece];
        fill(*written, chunk);
        let mut done = 0;
        while done < piece {
            let rest = &chunk[done..];
            match retry_eintr(|| unsafe { libc::write(fd, rest.as_ptr().cast(), rest.len()) }) {
                Ok(0) => {
                    return Err(io_error(
                        path,
                        "write",
                        io::Error::new(io::ErrorKind::WriteZero, "the file took no more bytes"),
                    ))
                }
                Ok(n) => {
                    done += n as usize;
                    *written += n as u64;
                }
                Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) => {
                    return Err(out_of_space(*written))
                }
                Err(e) => return Err(io_error(path, "write", e)),
            }
        }
    }
    retry_eintr(|| unsafe { libc::fsync(fd) }).map_err(|e| io_error(path, "fsync", e))?;
    Ok(())
}

/// Fills a piece with bytes that depend on its offset (xorshift64*), cheap
/// and incompressible.
fn fill_pseudo_random(offset: u64, buf: &mut [u8]) {
    let mut state = offset ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&next().to_le_bytes());
    }
    let tail = chunks.into_remainder();
    let last = next().to_le_bytes();
    tail.copy_from_slice(&last[..tail.len()]);
}

fn refuse_creating_in_dev(path: &Path) -> Result<(), EngineError> {
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

fn c_path(path: &Path) -> Result<CString, EngineError> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        target_error(
            path,
            "the path contains a NUL byte; give a path without one",
        )
    })
}

fn stat_path(path: &CString) -> io::Result<libc::stat> {
    let mut st = MaybeUninit::<libc::stat>::uninit();
    // SAFETY: a valid C string and room for one `struct stat`.
    if unsafe { libc::stat(path.as_ptr(), st.as_mut_ptr()) } == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: stat succeeded, so it filled the struct.
    Ok(unsafe { st.assume_init() })
}

pub(crate) fn fstat(fd: RawFd) -> io::Result<libc::stat> {
    let mut st = MaybeUninit::<libc::stat>::uninit();
    // SAFETY: room for one `struct stat`.
    if unsafe { libc::fstat(fd, st.as_mut_ptr()) } == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fstat succeeded, so it filled the struct.
    Ok(unsafe { st.assume_init() })
}

/// Identify Controller and Namespace of an NVMe char device, or `None`
/// when it is not one (or the admin commands are not permitted).
fn nvme_identity(fd: RawFd) -> Option<NvmeIdentity> {
    let nsid = namespace_id(fd).ok()?;
    let controller = identify_controller_of(fd).ok()?;
    Some(NvmeIdentity {
        nsid,
        limits: nvm_limits_of(fd, &controller),
        namespace: identify_namespace_of(fd, nsid).ok()?,
        controller,
    })
}

pub(crate) fn block_device_size(fd: RawFd) -> io::Result<u64> {
    let mut bytes: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer.
    if unsafe { libc::ioctl(fd, BLKGETSIZE64, &mut bytes as *mut u64) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(bytes)
}

fn block_device_sector_size(fd: RawFd) -> io::Result<u32> {
    let mut size: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one int through the pointer.
    if unsafe { libc::ioctl(fd, libc::BLKSSZGET, &mut size as *mut libc::c_int) } == -1 {
        return Err(io::Error::last_os_error());
    }
    u32::try_from(size).ok().filter(|&s| s > 0).ok_or_else(|| {
        io::Error::other(format!("the device reports a logical block size of {size}"))
    })
}

/// `stx_dio_offset_align` for an open file, when the kernel (6.1+) and the
/// filesystem report it and it is non-zero (zero means the file does not
/// support O_DIRECT, which the open would already have refused).
fn direct_io_offset_align(fd: RawFd) -> Option<u32> {
    let mut stx = MaybeUninit::<libc::statx>::zeroed();
    // SAFETY: an empty C path with AT_EMPTY_PATH asks about `fd` itself;
    // the buffer has room for one `struct statx`.
    let rc = unsafe {
        libc::statx(
            fd,
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_DIOALIGN,
            stx.as_mut_ptr(),
        )
    };
    if rc == -1 {
        return None;
    }
    // SAFETY: zero-initialised and (partly) filled by statx; every field is an integer.
    let stx = unsafe { stx.assume_init() };
    if stx.stx_mask & libc::STATX_DIOALIGN == 0 || stx.stx_dio_offset_align == 0 {
        return None;
    }
    Some(stx.stx_dio_offset_align)
}

fn target_error(path: &Path, message: &str) -> EngineError {
    EngineError::Target {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

fn io_error(path: &Path, what: &'static str, source: io::Error) -> EngineError {
    EngineError::Io {
        path: path.to_path_buf(),
        what,
        source,
    }
}

/// Open failures with a known cause get a sentence saying what to change;
/// the rest keep the system's words.
fn open_error(path: &Path, e: io::Error, opts: &OpenOptions) -> EngineError {
    let hint = match e.raw_os_error() {
        Some(libc::EINVAL) if opts.direct => {
            "cannot be opened with O_DIRECT: the filesystem does not support direct I/O; use direct=0 or another filesystem"
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
    target_error(path, hint)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn rw_create() -> OpenOptions {
        OpenOptions {
            read: true,
            write: true,
            create: true,
            direct: false,
        }
    }

    fn read_only() -> OpenOptions {
        OpenOptions {
            read: true,
            ..Default::default()
        }
    }

    #[test]
    fn creates_and_describes_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let t = Target::open(&path, &rw_create()).unwrap();
        assert_eq!(t.kind(), TargetKind::RegularFile);
        assert_eq!(t.size(), 0);
        assert_eq!(t.path(), path);
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.mode() & 0o777 & !0o022, 0o644 & !0o022);
        assert_eq!(t.logical_block_size(), (meta.blksize() as u32).max(512));
        assert!(t.fd() >= 0);
        assert!(!t.direct());
        // The descriptor is close-on-exec.
        let flags = unsafe { libc::fcntl(t.fd(), libc::F_GETFD) };
        assert_ne!(flags & libc::FD_CLOEXEC, 0);
    }

    #[test]
    fn size_is_the_file_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![1u8; 12345]).unwrap();
        let t = Target::open(&path, &read_only()).unwrap();
        assert_eq!(t.size(), 12345);
    }

    #[test]
    fn missing_path_is_an_error_unless_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing");
        let e = Target::open(&path, &read_only()).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("missing") && msg.contains("does not exist"),
            "{msg}"
        );
        assert!(!path.exists());
    }

    #[test]
    fn missing_directory_when_creating_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no-such-dir").join("f");
        let msg = Target::open(&path, &rw_create()).unwrap_err().to_string();
        assert!(msg.contains("does not exist"), "{msg}");
    }

    #[test]
    fn directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for opts in [read_only(), rw_create()] {
            let msg = Target::open(dir.path(), &opts).unwrap_err().to_string();
            assert!(msg.contains("is a directory"), "{msg}");
            assert!(msg.contains(&dir.path().display().to_string()), "{msg}");
        }
    }

    #[test]
    fn fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fifo");
        let c = c_path(&path).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let msg = Target::open(&path, &read_only()).unwrap_err().to_string();
        assert!(msg.contains("is a FIFO"), "{msg}");
    }

    #[test]
    fn neither_read_nor_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let msg = Target::open(&dir.path().join("f"), &OpenOptions::default())
            .unwrap_err()
            .to_string();
        assert!(msg.contains("neither reading nor writing"), "{msg}");
    }

    #[test]
    fn never_creates_files_under_dev() {
        let path = Path::new("/dev/ioscope-no-such-device");
        let msg = Target::open(path, &rw_create()).unwrap_err().to_string();
        assert!(msg.contains("does not create files under /dev"), "{msg}");
        assert!(!path.exists());
        let msg = layout_file(path, 4096, 4096).unwrap_err().to_string();
        assert!(msg.contains("does not create files under /dev"), "{msg}");
        let msg = preallocate_file(path, 4096).unwrap_err().to_string();
        assert!(msg.contains("does not create files under /dev"), "{msg}");
        assert!(!path.exists());
    }

    #[test]
    fn preallocated_files_have_their_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        preallocate_file(&path, 10000).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 10000);
    }

    #[test]
    fn a_stopped_layout_leaves_what_it_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let asked = std::cell::Cell::new(0);
        let stop_at_third = || {
            asked.set(asked.get() + 1);
            asked.get() > 2
        };
        let e = layout_file_until(&path, 8 * 4096, 4096, &stop_at_third).unwrap_err();
        assert!(matches!(e, EngineError::Stopped { .. }), "{e}");
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 2 * 4096);
    }

    #[test]
    fn dev_shm_is_a_place_for_files() {
        assert!(refuse_creating_in_dev(Path::new("/dev/shm/ioscope-test")).is_ok());
    }

    #[test]
    fn char_device_opens() {
        let t = Target::open(Path::new("/dev/null"), &read_only()).unwrap();
        assert_eq!(t.kind(), TargetKind::CharDevice);
        assert_eq!(t.size(), 0);
    }

    /// Opens a temp file with O_DIRECT, or says why the filesystem will not.
    fn direct_temp_file(dir: &Path) -> Option<Target> {
        let opts = OpenOptions {
            direct: true,
            ..rw_create()
        };
        match Target::open(&dir.join("direct"), &opts) {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("skipping: O_DIRECT refused on the temp directory's filesystem: {e}");
                None
            }
        }
    }

    #[test]
    fn check_direct_io_names_the_value_and_the_alignment() {
        let dir = tempfile::tempdir().unwrap();
        let Some(t) = direct_temp_file(dir.path()) else {
            return;
        };
        assert!(t.direct());
        let align = u64::from(t.direct_io_align());
        assert!(align >= 512 && align.is_power_of_two(), "align {align}");
        t.check_direct_io(&[align, 4 * align, 1 << 20], 8 * align)
            .unwrap();

        let odd = align + 100;
        let msg = t.check_direct_io(&[align, odd], 0).unwrap_err().to_string();
        assert!(msg.contains(&t.path().display().to_string()), "{msg}");
        assert!(
            msg.contains(&format!(
                "block size {odd} is not a multiple of {align} bytes"
            )),
            "{msg}"
        );
        assert!(msg.contains("direct=0"), "{msg}");

        let msg = t.check_direct_io(&[align], 100).unwrap_err().to_string();
        assert!(
            msg.contains(&format!(
                "start offset 100 is not a multiple of {align} bytes"
            )),
            "{msg}"
        );
    }

    #[test]
    fn buffered_targets_accept_any_size() {
        let dir = tempfile::tempdir().unwrap();
        let t = Target::open(&dir.path().join("f"), &rw_create()).unwrap();
        t.check_direct_io(&[1, 1000, 4097], 3).unwrap();
    }

    #[test]
    fn layout_writes_the_exact_size_in_allocated_random_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        assert!(needs_layout(&path, 10000).unwrap());
        layout_file(&path, 10000, 4096).unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.len(), 10000);
        assert!(
            meta.blocks() * 512 >= 10000,
            "blocks are allocated, not holes"
        );
        let data = std::fs::read(&path).unwrap();
        // Pseudo-random: every 4 KiB piece differs and none is all zeroes.
        assert_ne!(data[..4096], data[4096..8192]);
        assert!(data.chunks(512).all(|c| c.iter().any(|&b| b != 0)));
        assert!(!needs_layout(&path, 10000).unwrap());
        assert!(needs_layout(&path, 10001).unwrap());
    }

    #[test]
    fn layout_leaves_a_long_enough_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 8192]).unwrap();
        layout_file(&path, 4096, 4096).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 8192]);
    }

    #[test]
    fn layout_rewrites_a_short_file_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 1000]).unwrap();
        layout_file_with(&path, 3 * 4096, 4096, |offset, buf| {
            buf.fill((offset / 4096) as u8 + 1)
        })
        .unwrap();
        let data = std::fs::read(&path).unwrap();
        assert_eq!(data.len(), 3 * 4096);
        for (i, piece) in data.chunks(4096).enumerate() {
            assert!(piece.iter().all(|&b| b == i as u8 + 1), "piece {i}");
        }
    }

    #[test]
    fn layout_refuses_what_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let msg = layout_file(dir.path(), 4096, 4096).unwrap_err().to_string();
        assert!(msg.contains("is a directory"), "{msg}");
        let msg = layout_file(Path::new("/dev/null"), 4096, 4096)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("is a character device, not a regular file"),
            "{msg}"
        );
        assert!(!needs_layout(Path::new("/dev/null"), 4096).unwrap());
        let msg = layout_file(&dir.path().join("f"), 4096, 0)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("block size is 0"), "{msg}");
    }

    #[test]
    fn mountinfo_lines_parse_with_escapes() {
        let line =
            "36 35 98:0 / /mnt/my\\040disk rw,noatime master:1 - ext3 /dev/root rw,errors=continue";
        let m = parse_mountinfo_line(line).unwrap();
        assert_eq!(m.dev, libc::makedev(98, 0));
        assert_eq!(m.mount_point, "/mnt/my disk");
        assert_eq!(m.source, "/dev/root");
        assert!(parse_mountinfo_line("garbage").is_none());
        assert_eq!(unescape_octal("a\\134b\\011"), "a\\b\t");
        assert_eq!(unescape_octal("trailing\\04"), "trailing\\04");
    }

    #[test]
    fn mounted_use_is_none_for_files_and_missing_paths() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        assert_eq!(mounted_use(&path).unwrap(), None);
        std::fs::write(&path, b"x").unwrap();
        assert_eq!(mounted_use(&path).unwrap(), None);
        assert_eq!(mounted_use(Path::new("/dev/null")).unwrap(), None);
    }

    #[test]
    fn mounted_use_reports_the_root_filesystem_device() {
        // The device "/" is mounted from, when it is a block device node
        // here (not in containers on overlayfs).
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        let Some(root) = mountinfo
            .lines()
            .filter_map(parse_mountinfo_line)
            .find(|m| m.mount_point == "/")
        else {
            eprintln!("skipping: no mount on / in /proc/self/mountinfo");
            return;
        };
        let source = Path::new(&root.source);
        let is_block = std::fs::metadata(source)
            .map(|m| m.mode() & libc::S_IFMT == libc::S_IFBLK)
            .unwrap_or(false);
        if !is_block {
            eprintln!(
                "skipping: / is mounted from {}, not a block device",
                root.source
            );
            return;
        }
        let use_ = mounted_use(source)
            .unwrap()
            .expect("the root device is in use");
        assert!(use_.contains("is mounted on /"), "{use_}");
    }

    /// Pages of `path` in the page cache, counted with mincore.
    fn resident_pages(path: &Path) -> usize {
        let file = std::fs::File::open(path).unwrap();
        let len = file.metadata().unwrap().len() as usize;
        let page = 4096;
        // SAFETY: a read-only shared mapping of the whole file, unmapped below.
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                std::os::fd::AsRawFd::as_raw_fd(&file),
                0,
            )
        };
        assert_ne!(addr, libc::MAP_FAILED);
        let mut vec = vec![0u8; len.div_ceil(page)];
        // SAFETY: vec has one byte per page of the mapping.
        let rc = unsafe { libc::mincore(addr, len, vec.as_mut_ptr()) };
        unsafe { libc::munmap(addr, len) };
        assert_eq!(rc, 0);
        vec.iter().filter(|&&b| b & 1 == 1).count()
    }

    #[test]
    fn invalidate_drops_a_files_cached_pages() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let t = Target::open(&path, &rw_create()).unwrap();
        // SAFETY: fsync on an open fd; dirty pages cannot be dropped.
        assert_eq!(unsafe { libc::fsync(t.fd()) }, 0);
        std::fs::read(&path).unwrap();
        assert!(
            resident_pages(&path) > 0,
            "the read should have cached the file"
        );
        t.invalidate_cache(0, 0).unwrap();
        assert_eq!(resident_pages(&path), 0);
    }
}

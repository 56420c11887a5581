//! Opening the files peak reads: read-only, once, checked before any
//! thread starts so a bad file is one clear error rather than a failed read.

use anyhow::bail;
use ioscope_engine::{OpenOptions, Target, TargetKind};

use super::options::{peak_error, Settings};

/// Opens every file in `s.files` for reading (O_DIRECT when asked) and
/// checks that each holds a whole block and suits O_DIRECT's alignment.
pub fn open(s: &Settings) -> anyhow::Result<Vec<Target>> {
    let opts = OpenOptions {
        read: true,
        direct: s.direct,
        ..Default::default()
    };
    let mut targets = Vec::with_capacity(s.files.len());
    for path in &s.files {
        let target = Target::open(path, &opts).map_err(peak_error)?;
        if target.kind() == TargetKind::CharDevice {
            bail!(
                "{}: a character device's size cannot be read; peak reads regular files and \
                 block devices",
                path.display()
            );
        }
        if target.size() < u64::from(s.block_size) {
            bail!(
                "{}: {} bytes is less than one {}-byte block; use a larger file or a smaller -b",
                path.display(),
                target.size(),
                s.block_size
            );
        }
        target
            .check_direct_io(&[u64::from(s.block_size)], 0)
            .map_err(peak_error)?;
        targets.push(target);
    }
    Ok(targets)
}

/// The buffer alignment the targets need: the page size, or more where
/// O_DIRECT on one of them asks for more.
pub fn buffer_align(targets: &[Target]) -> usize {
    // SAFETY: sysconf only reads a system value.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    targets
        .iter()
        .map(|t| t.direct_io_align() as usize)
        .fold(page, usize::max)
}

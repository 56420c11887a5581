//! Zoned block devices: the kernel's zone model of a block device, read
//! from `/sys/dev/block/MAJ:MIN/queue/zoned` (fio's
//! `blkzoned_get_zoned_model`).

use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// fio's `enum zbd_zoned_model`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZonedModel {
    /// A regular file, or a block device without zones.
    None,
    HostAware,
    HostManaged,
}

impl ZonedModel {
    /// The kernel's word for it in `queue/zoned`.
    pub fn name(self) -> &'static str {
        match self {
            ZonedModel::None => "none",
            ZonedModel::HostAware => "host-aware",
            ZonedModel::HostManaged => "host-managed",
        }
    }

    fn parse(text: &str) -> Option<ZonedModel> {
        match text.trim() {
            "none" => Some(ZonedModel::None),
            "host-aware" => Some(ZonedModel::HostAware),
            "host-managed" => Some(ZonedModel::HostManaged),
            _ => None,
        }
    }
}

/// The zone model of `path`: None for anything but a block device; for a
/// partition, its disk's (the partition's sysfs directory has no queue).
pub fn zoned_model(path: &Path) -> io::Result<ZonedModel> {
    let meta = std::fs::metadata(path)?;
    if !meta.file_type().is_block_device() {
        return Ok(ZonedModel::None);
    }
    let rdev = meta.rdev();
    let dir = format!("/sys/dev/block/{}:{}", libc::major(rdev), libc::minor(rdev));
    let text = std::fs::read_to_string(format!("{dir}/queue/zoned"))
        .or_else(|_| std::fs::read_to_string(format!("{dir}/../queue/zoned")));
    // Kernels without zone support have no such attribute: no zones.
    let Ok(text) = text else {
        return Ok(ZonedModel::None);
    };
    ZonedModel::parse(&text).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{dir}/queue/zoned: unknown zone model '{}'", text.trim()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_have_no_zones_and_models_parse() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        assert_eq!(zoned_model(&path).unwrap(), ZonedModel::None);
        assert_eq!(
            ZonedModel::parse("host-managed\n"),
            Some(ZonedModel::HostManaged)
        );
        assert_eq!(ZonedModel::parse("host-aware"), Some(ZonedModel::HostAware));
        assert_eq!(ZonedModel::parse("odd"), None);
    }
}

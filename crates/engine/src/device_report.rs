//! One report of what a device is and can do, learnt two ways, as xNVMe's
//! admin backends do: `nvme` asks the controller (Identify through the
//! driver's admin ioctl), `block` asks the block layer (sysfs and the
//! BLKGETSIZE64/BLKSSZGET ioctls), so devices that are not NVMe get the same
//! report.

use std::path::{Path, PathBuf};

use crate::error::EngineError;
use crate::nvme::{
    identify_controller_of, identify_namespace_of, namespace_id, nvm_limits_of, Controller,
    Namespace, NvmLimits,
};
use crate::target::{OpenOptions, Target, TargetKind};

/// Where a [`DeviceReport`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdminPath {
    /// Identify Controller and Namespace through NVME_IOCTL_ADMIN_CMD.
    Nvme,
    /// sysfs and block device ioctls.
    Block,
}

impl AdminPath {
    pub fn from_name(name: &str) -> Option<AdminPath> {
        match name {
            "nvme" => Some(AdminPath::Nvme),
            "block" => Some(AdminPath::Block),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            AdminPath::Nvme => "nvme",
            AdminPath::Block => "block",
        }
    }
}

/// The block layer's queue settings (`/sys/block/<dev>/queue`), each `None`
/// where sysfs has no such file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueSettings {
    /// io_poll: the device has poll queues.
    pub io_poll: Option<bool>,
    /// The NVMe driver's poll_queues module parameter.
    pub nvme_poll_queues: Option<u32>,
    /// The scheduler in use (the bracketed one).
    pub scheduler: Option<String>,
    pub nr_requests: Option<u64>,
    pub write_cache: Option<String>,
    pub logical_block_size: Option<u64>,
    pub physical_block_size: Option<u64>,
    pub max_hw_sectors_kb: Option<u64>,
    pub discard_max_bytes: Option<u64>,
    pub write_zeroes_max_bytes: Option<u64>,
}

impl QueueSettings {
    /// Reads /sys/block/`disk`/queue.
    pub fn read(disk: &str) -> QueueSettings {
        let dir = PathBuf::from(format!("/sys/block/{disk}/queue"));
        let text = |name: &str| {
            std::fs::read_to_string(dir.join(name))
                .ok()
                .map(|s| s.trim().to_string())
        };
        let number = |name: &str| text(name).and_then(|s| s.parse().ok());
        QueueSettings {
            io_poll: text("io_poll").map(|s| s == "1"),
            nvme_poll_queues: std::fs::read_to_string("/sys/module/nvme/parameters/poll_queues")
                .ok()
                .and_then(|s| s.trim().parse().ok()),
            scheduler: text("scheduler").map(|s| {
                s.split_whitespace()
                    .find(|w| w.starts_with('['))
                    .map(|w| w.trim_matches(['[', ']']).to_string())
                    .unwrap_or(s)
            }),
            nr_requests: number("nr_requests"),
            write_cache: text("write_cache"),
            logical_block_size: number("logical_block_size"),
            physical_block_size: number("physical_block_size"),
            max_hw_sectors_kb: number("max_hw_sectors_kb"),
            discard_max_bytes: number("discard_max_bytes"),
            write_zeroes_max_bytes: number("write_zeroes_max_bytes"),
        }
    }
}

/// What a device is and which commands it takes, whichever path said so.
#[derive(Clone, Debug)]
pub struct DeviceReport {
    pub path: PathBuf,
    pub admin: AdminPath,
    /// /dev/ngXnY for an NVMe namespace.
    pub char_device: Option<PathBuf>,
    /// /dev/nvmeXnY, or the block device itself.
    pub block_device: Option<PathBuf>,
    pub nsid: Option<u32>,
    pub size_bytes: u64,
    pub block_size: u64,
    /// Largest transfer one command may carry, when known.
    pub max_transfer_bytes: Option<u64>,
    pub write_zeroes: bool,
    /// Dataset Management (NVMe) or discard (block).
    pub deallocate: bool,
    /// Identify data (admin path `nvme` only).
    pub controller: Option<Controller>,
    pub namespace: Option<Namespace>,
    /// The NVM command set's limits (admin path `nvme` only).
    pub limits: Option<NvmLimits>,
    pub queue: QueueSettings,
}

impl DeviceReport {
    /// Learns about `path` through `admin`.
    pub fn probe(path: &Path, admin: AdminPath) -> Result<DeviceReport, EngineError> {
        let target = Target::open(
            path,
            &OpenOptions {
                read: true,
                ..Default::default()
            },
        )?;
        let (char_device, block_device) = nvme_names(path, target.kind());
        let disk = block_device
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned());
        let queue = disk.as_deref().map(QueueSettings::read).unwrap_or_default();
        let mut report = DeviceReport {
            path: path.to_path_buf(),
            admin,
            char_device,
            block_device,
            nsid: None,
            size_bytes: 0,
            block_size: 0,
            max_transfer_bytes: queue.max_hw_sectors_kb.map(|kb| kb * 1024),
            write_zeroes: false,
            deallocate: false,
            controller: None,
            namespace: None,
            limits: None,
            queue,
        };
        match admin {
            AdminPath::Nvme => {
                let fd = target.fd();
                let target_error = |message: String| EngineError::Target {
                    path: path.to_path_buf(),
                    message,
                };
                let nsid = namespace_id(fd).map_err(|e| {
                    target_error(format!(
                        "NVME_IOCTL_ID failed ({e}): not an NVMe namespace; try --admin=block"
                    ))
                })?;
                let ctrl = identify_controller_of(fd).map_err(|e| target_error(e.to_string()))?;
                let ns =
                    identify_namespace_of(fd, nsid).map_err(|e| target_error(e.to_string()))?;
                report.nsid = Some(nsid);
                report.block_size = ns.block_size();
                report.size_bytes = ns.nsze * ns.block_size();
                report.max_transfer_bytes = ctrl.max_transfer_bytes(4096);
                report.write_zeroes = ctrl.has_write_zeroes();
                report.deallocate = ctrl.has_dataset_management();
                report.limits = Some(nvm_limits_of(fd, &ctrl));
                report.controller = Some(ctrl);
                report.namespace = Some(ns);
            }
            AdminPath::Block => {
                let q = &report.queue;
                if target.kind() == TargetKind::BlockDevice {
                    report.size_bytes = target.size();
                    report.block_size = u64::from(target.logical_block_size());
                } else {
                    let Some(disk) = disk.as_deref() else {
                        return Err(EngineError::Target {
                            path: path.to_path_buf(),
                            message: "has no block device whose sysfs entry describes it; \
                                      try --admin=nvme"
                                .into(),
                        });
                    };
                    let sectors: u64 = std::fs::read_to_string(format!("/sys/block/{disk}/size"))
                        .ok()
                        .and_then(|s| s.trim().parse().ok())
                        .unwrap_or(0);
                    report.size_bytes = sectors * 512;
                    report.block_size = q.logical_block_size.unwrap_or(512);
                }
                report.write_zeroes = q.write_zeroes_max_bytes.is_some_and(|b| b > 0);
                report.deallocate = q.discard_max_bytes.is_some_and(|b| b > 0);
            }
        }
        Ok(report)
    }
}

/// The char and block device names of one NVMe namespace (/dev/ngXnY and
/// /dev/nvmeXnY), or the block device alone for any other disk.
pub fn nvme_names(path: &Path, kind: TargetKind) -> (Option<PathBuf>, Option<PathBuf>) {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dev = |n: String| Some(PathBuf::from("/dev").join(n));
    if let Some(rest) = name.strip_prefix("ng") {
        (Some(real.clone()), dev(format!("nvme{rest}")))
    } else if let Some(rest) = name.strip_prefix("nvme").filter(|r| r.contains('n')) {
        (dev(format!("ng{rest}")), Some(real.clone()))
    } else if kind == TargetKind::BlockDevice {
        (None, Some(real.clone()))
    } else {
        (None, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvme_char_and_block_names_pair_up() {
        let ng = Path::new("/dev/ng0n1");
        let nvme = Path::new("/dev/nvme0n1");
        let (c, b) = nvme_names(ng, TargetKind::CharDevice);
        assert_eq!((c.as_deref(), b.as_deref()), (Some(ng), Some(nvme)));
        let (c, b) = nvme_names(nvme, TargetKind::BlockDevice);
        assert_eq!((c.as_deref(), b.as_deref()), (Some(ng), Some(nvme)));
        let (c, _) = nvme_names(Path::new("/dev/zram0"), TargetKind::BlockDevice);
        assert_eq!(c, None);
    }
}

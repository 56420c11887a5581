//! NVMe: the passthrough command model ([`Command`] and its builders), the
//! decoding of completion status and Identify data, and the admin paths
//! that describe a device ([`DeviceReport`]). The `uring_cmd` backend sends
//! these commands through io_uring; a program can also use them alone.

mod abi;
mod admin;
pub mod command;
mod device;
mod identify;
mod status;

pub use abi::{
    Command, Command64, NVME_IOCTL_ADMIN64_CMD, NVME_IOCTL_ADMIN_CMD, NVME_IOCTL_ID,
    NVME_IOCTL_IO64_CMD, NVME_IOCTL_IO_CMD, NVME_URING_CMD_ADMIN, NVME_URING_CMD_IO,
    NVME_URING_CMD_IO_VEC,
};
pub use admin::{
    admin_command, identify_controller_of, identify_namespace_of, namespace_id, nvm_limits_of,
    AdminError,
};
pub use command::DsmRange;
pub use device::{nvme_names, AdminPath, DeviceReport, QueueSettings};
pub use identify::{Controller, LbaFormat, Namespace, NvmLimits, ONCS_BITS};
pub use status::{Outcome, Status};

//! Admin commands through the NVMe driver's ioctls, which work on the
//! controller (/dev/nvmeX), on a namespace's block device (/dev/nvmeXnY) and
//! on its generic char device (/dev/ngXnY), and synchronous I/O commands on
//! a namespace's devices. They need CAP_SYS_ADMIN.

use std::io;
use std::os::fd::RawFd;

use super::abi::{Command, NVME_IOCTL_ADMIN_CMD, NVME_IOCTL_ID, NVME_IOCTL_IO_CMD};
use super::command::{
    identify_controller, identify_namespace, identify_nvm_controller, identify_nvm_namespace,
    identify_zoned_controller, identify_zoned_namespace, IDENTIFY_LEN,
};
use super::identify::{Controller, Namespace, NvmLimits, NvmNamespace, ZonedNamespace};
use super::status::{Outcome, Status};
use crate::buffer::AlignedBuffer;

/// Why an admin command failed.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("{what}: {source}")]
    Kernel {
        what: &'static str,
        source: io::Error,
    },
    #[error("{what}: the device answered {status}")]
    Device { what: &'static str, status: Status },
}

/// The namespace id of an NVMe block or char device (NVME_IOCTL_ID).
pub fn namespace_id(fd: RawFd) -> io::Result<u32> {
    // SAFETY: NVME_IOCTL_ID takes no argument.
    let r = unsafe { libc::ioctl(fd, NVME_IOCTL_ID as _) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(r as u32)
}

/// Sends one admin command whose data (if any) goes to or comes from `data`;
/// returns completion dword 0.
pub fn admin_command(
    fd: RawFd,
    what: &'static str,
    cmd: Command,
    data: &mut [u8],
) -> Result<u32, AdminError> {
    passthru(fd, NVME_IOCTL_ADMIN_CMD, what, cmd, data)
}

/// Sends one I/O command to the namespace behind `fd` and waits for it;
/// its data (if any) goes to or comes from `data`. Returns completion
/// dword 0.
pub fn io_command(
    fd: RawFd,
    what: &'static str,
    cmd: Command,
    data: &mut [u8],
) -> Result<u32, AdminError> {
    passthru(fd, NVME_IOCTL_IO_CMD, what, cmd, data)
}

fn passthru(
    fd: RawFd,
    request: u32,
    what: &'static str,
    mut cmd: Command,
    data: &mut [u8],
) -> Result<u32, AdminError> {
    if data.is_empty() {
        cmd.addr = 0;
        cmd.data_len = 0;
    } else {
        cmd.addr = data.as_mut_ptr() as u64;
        cmd.data_len = data.len() as u32;
    }
    // SAFETY: the argument is one struct nvme_passthru_cmd whose data
    // pointer names `data` (or nothing), which outlives the synchronous
    // call.
    let r = unsafe { libc::ioctl(fd, request as _, &mut cmd as *mut Command) };
    let r = if r < 0 {
        -i64::from(
            io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO),
        )
    } else {
        i64::from(r)
    };
    match Outcome::from_result(r) {
        Outcome::Success => Ok(cmd.rsvd2),
        Outcome::Errno(e) => Err(AdminError::Kernel {
            what,
            source: io::Error::from_raw_os_error(e),
        }),
        Outcome::Nvme(status) => Err(AdminError::Device { what, status }),
    }
}

/// Identify Controller.
pub fn identify_controller_of(fd: RawFd) -> Result<Controller, AdminError> {
    let mut data = AlignedBuffer::new(IDENTIFY_LEN as usize, 4096);
    admin_command(
        fd,
        "Identify Controller",
        identify_controller(0),
        data.as_mut_slice(),
    )?;
    Ok(Controller::parse(data.as_slice()))
}

/// The NVM command set's limits, asked of controllers of version 1.2 or
/// later as the kernel asks them (nvme_init_non_mdts_limits); a controller
/// that is older or refuses the command has none.
pub fn nvm_limits_of(fd: RawFd, controller: &Controller) -> NvmLimits {
    if controller.version < 0x0001_0200 {
        return NvmLimits::default();
    }
    let mut data = AlignedBuffer::new(IDENTIFY_LEN as usize, 4096);
    match admin_command(
        fd,
        "Identify Controller (NVM command set)",
        identify_nvm_controller(0),
        data.as_mut_slice(),
    ) {
        Ok(_) => NvmLimits::parse(data.as_slice()),
        Err(_) => NvmLimits::default(),
    }
}

/// Identify Namespace of `nsid`.
pub fn identify_namespace_of(fd: RawFd, nsid: u32) -> Result<Namespace, AdminError> {
    let mut data = AlignedBuffer::new(IDENTIFY_LEN as usize, 4096);
    admin_command(
        fd,
        "Identify Namespace",
        identify_namespace(nsid, 0),
        data.as_mut_slice(),
    )?;
    Ok(Namespace::parse(data.as_slice()))
}

/// The NVM command set's Identify Namespace of `nsid` where `controller`
/// says it describes extended LBA formats (their protection information
/// formats); None where it does not, or the command failed.
pub fn nvm_namespace_of(fd: RawFd, nsid: u32, controller: &Controller) -> Option<NvmNamespace> {
    if !controller.has_extended_lba_formats() {
        return None;
    }
    identify_nvm_namespace_of(fd, nsid).ok()
}

fn identify_nvm_namespace_of(fd: RawFd, nsid: u32) -> Result<NvmNamespace, AdminError> {
    let mut data = AlignedBuffer::new(IDENTIFY_LEN as usize, 4096);
    admin_command(
        fd,
        "Identify Namespace (NVM command set)",
        identify_nvm_namespace(nsid, 0),
        data.as_mut_slice(),
    )?;
    Ok(NvmNamespace::parse(data.as_slice()))
}

/// The Zoned Namespace command set's Identify Namespace of `nsid`, where
/// the controller has that command set and the namespace is zoned (fio's
/// `fio_nvme_get_zoned_model` asks the same two things); None otherwise.
pub fn zoned_namespace_of(fd: RawFd, nsid: u32) -> Option<ZonedNamespace> {
    let mut data = AlignedBuffer::new(IDENTIFY_LEN as usize, 4096);
    admin_command(
        fd,
        "Identify Controller (Zoned Namespace command set)",
        identify_zoned_controller(0),
        data.as_mut_slice(),
    )
    .ok()?;
    admin_command(
        fd,
        "Identify Namespace (Zoned Namespace command set)",
        identify_zoned_namespace(nsid, 0),
        data.as_mut_slice(),
    )
    .ok()?;
    Some(ZonedNamespace::parse(data.as_slice()))
}

//! `ioscope info`'s command line.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use ioscope_engine::nvme::AdminPath;

#[derive(Parser, Debug)]
#[command(
    name = "ioscope info",
    bin_name = "ioscope info",
    about = "What a device is and which commands it takes",
    long_about = "What a device is and which commands it takes: model, firmware, \
serial, size, LBA formats, MDTS, optional NVMe commands (ONCS), DLFEAT and the block \
queue's settings. --admin=nvme asks the controller (Identify; needs the right to send \
admin commands), --admin=block asks the block layer, for devices that are not NVMe."
)]
struct Cli {
    /// The device: /dev/ngXnY, /dev/nvmeXnY, or any block device with --admin=block
    device: PathBuf,
    /// Where the facts come from
    #[arg(long = "admin", value_enum, default_value_t = Admin::Nvme)]
    admin: Admin,
    /// How to print them
    #[arg(long = "output-format", value_enum, default_value_t = Format::Normal)]
    format: Format,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Admin {
    /// Identify Controller and Namespace through the NVMe driver
    Nvme,
    /// sysfs and the block device ioctls
    Block,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Normal,
    Json,
}

/// The settled options.
pub struct Options {
    pub device: PathBuf,
    pub admin: AdminPath,
    pub format: Format,
}

pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Options, clap::Error> {
    let cli = Cli::try_parse_from(std::iter::once(OsString::from("ioscope info")).chain(args))?;
    Ok(Options {
        device: cli.device,
        admin: match cli.admin {
            Admin::Nvme => AdminPath::Nvme,
            Admin::Block => AdminPath::Block,
        },
        format: cli.format,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn defaults_and_choices() {
        let o = parse(args(&["/dev/ng0n1"])).unwrap();
        assert_eq!((o.admin, o.format), (AdminPath::Nvme, Format::Normal));
        let o = parse(args(&["--admin=block", "--output-format=json", "/dev/sda"])).unwrap();
        assert_eq!((o.admin, o.format), (AdminPath::Block, Format::Json));
        assert!(parse(args(&["--admin=scsi", "/dev/sda"])).is_err());
        assert!(parse(args(&[])).is_err());
    }
}

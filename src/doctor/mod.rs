//! `ioscope doctor [DEVICE|FILE]`: the checklist of a latency run, before
//! the run: the machine, and the device under the named file or device.
//! Findings are advice, so the exit status is 0 when the checks ran. A
//! front end over [`ioscope_run::doctor`].

mod render;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use ioscope_run::doctor::{self, Check, Outcome, Root};

#[derive(Parser, Debug)]
#[command(
    name = "ioscope doctor",
    bin_name = "ioscope doctor",
    about = "Check the machine (and a device) before a latency run",
    long_about = "Check the machine before a latency run, and the device under TARGET \
when one is named: CPU frequency governor, idle states, haltpoll in a guest, clocksource, \
virtual machine; the device's I/O scheduler, iostats, add_random, write cache, and the NUMA \
node of its interrupts. Each finding says what was seen, why it matters and what to change; \
what was found fine is listed too."
)]
struct Cli {
    /// A block device, an NVMe char device (/dev/ngXnY), or a file on the
    /// device to check
    target: Option<PathBuf>,
    /// How to print the checklist
    #[arg(long = "output-format", value_enum, default_value_t = Format::Normal)]
    format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Normal,
    Json,
}

/// What was checked: the target as named, and its disk.
pub struct Target {
    pub path: PathBuf,
    /// The sysfs name of the disk under it, None when it is on none.
    pub disk: Option<String>,
}

/// Runs `ioscope doctor` with the arguments after `doctor`.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli =
        match Cli::try_parse_from(std::iter::once(OsString::from("ioscope doctor")).chain(args)) {
            Ok(cli) => cli,
            Err(e) => return crate::output::usage("ioscope doctor", &e),
        };
    let root = Root::system();
    let target = match cli.target {
        None => None,
        Some(path) => match doctor::disk_of(&root, &path) {
            Ok(disk) => Some(Target { path, disk }),
            Err(e) => return crate::output::fail("ioscope doctor", &anyhow::anyhow!(e)),
        },
    };
    let disk = target.as_ref().and_then(|t| t.disk.as_deref());
    let mut checks = doctor::checkup(&root, disk, &doctor::allowed_cpus(), true);
    if let Some(Target { path, disk: None }) = &target {
        checks.push(Check {
            what: "device",
            outcome: Outcome::Unknown(format!(
                "{} is on no block device that sysfs knows (tmpfs, a network filesystem)",
                path.display()
            )),
        });
    }
    let text = match cli.format {
        Format::Normal => render::normal(target.as_ref(), &checks),
        Format::Json => render::json(target.as_ref(), &checks),
    };
    match crate::output::print(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => crate::output::fail("ioscope doctor", &e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(list: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("ioscope doctor").chain(list.iter().copied()))
    }

    #[test]
    fn a_target_is_optional_and_the_format_is_checked() {
        let c = parse(&[]).unwrap();
        assert_eq!((c.target, c.format), (None, Format::Normal));
        let c = parse(&["--output-format=json", "/dev/zram0"]).unwrap();
        assert_eq!(c.target, Some(PathBuf::from("/dev/zram0")));
        assert_eq!(c.format, Format::Json);
        assert!(parse(&["--output-format=html"]).is_err());
        assert!(parse(&["/a", "/b"]).is_err());
    }
}

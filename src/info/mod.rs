//! `ioscope info DEVICE`: what a device is and which commands it takes, from
//! Identify (`--admin=nvme`) or from the block layer (`--admin=block`), with
//! the block queue's settings from sysfs. A front end over
//! [`ioscope_engine::nvme::DeviceReport`].

mod json;
mod normal;
mod options;

use std::ffi::OsString;
use std::process::ExitCode;

use ioscope_engine::nvme::DeviceReport;

/// Runs `ioscope info` with the arguments after `info`.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let options = match options::parse(args) {
        Ok(options) => options,
        Err(e) => return crate::output::usage("ioscope info", &e),
    };
    match DeviceReport::probe(&options.device, options.admin) {
        Ok(report) => {
            let text = match options.format {
                options::Format::Normal => normal::render(&report),
                options::Format::Json => json::render(&report),
            };
            match crate::output::print(&text) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => crate::output::fail("ioscope info", &e.into()),
            }
        }
        Err(e) => crate::output::fail("ioscope info", &e.into()),
    }
}

//! The report as aligned `name: value` lines, one fact a line.

use std::fmt::Write;

use ioscope_engine::nvme::{DeviceReport, NvmLimits, ONCS_BITS};

pub fn render(r: &DeviceReport) -> String {
    let mut out = String::new();
    let mut line = |name: &str, value: String| {
        let _ = writeln!(out, "{name:>22}: {value}");
    };
    line("device", r.path.display().to_string());
    line("admin", r.admin.name().to_string());
    if let Some(p) = &r.char_device {
        line("char device", p.display().to_string());
    }
    if let Some(p) = &r.block_device {
        line("block device", p.display().to_string());
    }
    if let Some(c) = &r.controller {
        line("model", c.model.clone());
        line("serial", c.serial.clone());
        line("firmware", c.firmware.clone());
        line(
            "version",
            format!("{}.{}", c.version >> 16, (c.version >> 8) & 0xff),
        );
        line("namespaces", c.nn.to_string());
        line(
            "mdts",
            match r.max_transfer_bytes {
                Some(b) => format!("{b} bytes (MDTS {})", c.mdts),
                None => "no limit (MDTS 0)".into(),
            },
        );
        line("oncs", format!("{:#x}", c.oncs));
        for (bit, name) in ONCS_BITS {
            let has = if c.oncs & bit != 0 { "yes" } else { "no" };
            line(&format!("  {name}"), has.to_string());
        }
        if let Some(l) = &r.limits {
            // The commands write_mode sends without data, each with a
            // size limit of its own.
            for (what, field, value) in [
                ("verify limit", "VSL", l.vsl),
                ("write zeroes limit", "WZSL", l.wzsl),
                ("write uncor limit", "WUSL", l.wusl),
            ] {
                line(
                    what,
                    match NvmLimits::max_bytes(value, 4096) {
                        Some(b) => format!("{b} bytes ({field} {value})"),
                        None => format!("no limit ({field} 0)"),
                    },
                );
            }
            line("dsm ranges", limit(u64::from(l.dmrl), "ranges", "DMRL"));
            line(
                "dsm range size",
                limit(u64::from(l.dmrsl), "blocks", "DMRSL"),
            );
            line("dsm size", limit(l.dmsl, "blocks", "DMSL"));
        }
    } else if let Some(b) = r.max_transfer_bytes {
        line("max transfer", format!("{b} bytes"));
    }
    if let Some(nsid) = r.nsid {
        line("namespace id", nsid.to_string());
    }
    line("size", format!("{} bytes", r.size_bytes));
    line("block size", format!("{} bytes", r.block_size));
    if let Some(ns) = &r.namespace {
        line("blocks", format!("{} (capacity {})", ns.nsze, ns.ncap));
        line("lba formats", ns.formats.len().to_string());
        let in_use = ns.format_index();
        for (i, f) in ns.formats.iter().enumerate() {
            line(
                &format!("  lbaf {i}"),
                format!(
                    "{} bytes, {} metadata bytes, relative performance {}{}",
                    f.block_size(),
                    f.ms,
                    f.rp,
                    if i == in_use { " (in use)" } else { "" }
                ),
            );
        }
        if ns.format().ms != 0 {
            // What io_uring_cmd's bs and md_per_io_size must allow for.
            line(
                "metadata",
                match ns.extended_lba() {
                    true => "after each block's data (extended LBA)",
                    false => "in a separate buffer (md_per_io_size)",
                }
                .into(),
            );
            line(
                "protection",
                match ns.dps & 0x7 {
                    0 => "none".into(),
                    t => format!(
                        "type {t}, in the {} bytes of the metadata",
                        if ns.dps & 0x8 != 0 { "first" } else { "last" }
                    ),
                },
            );
        }
        line(
            "dlfeat",
            format!(
                "{:#x}{}",
                ns.dlfeat,
                if ns.deallocated_reads_zeroes() {
                    " (deallocated blocks read as zeroes)"
                } else {
                    ""
                }
            ),
        );
    }
    line("write zeroes", yes_no(r.write_zeroes));
    line("deallocate", yes_no(r.deallocate));
    let q = &r.queue;
    let show = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    line("io_poll", show(q.io_poll.map(|b| u8::from(b).to_string())));
    line(
        "nvme poll_queues",
        show(q.nvme_poll_queues.map(|v| v.to_string())),
    );
    line("scheduler", show(q.scheduler.clone()));
    line("nr_requests", show(q.nr_requests.map(|v| v.to_string())));
    line("write_cache", show(q.write_cache.clone()));
    line(
        "logical_block_size",
        show(q.logical_block_size.map(|v| v.to_string())),
    );
    line(
        "physical_block_size",
        show(q.physical_block_size.map(|v| v.to_string())),
    );
    out
}

/// A limit from Identify, where 0 means none.
fn limit(value: u64, unit: &str, field: &str) -> String {
    if value == 0 {
        format!("no limit ({field} 0)")
    } else {
        format!("{value} {unit} ({field})")
    }
}

fn yes_no(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

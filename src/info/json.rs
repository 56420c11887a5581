//! The report as one JSON object.

use ioscope_engine::nvme::{DeviceReport, NvmLimits, ONCS_BITS};
use serde_json::{json, Value};

pub fn render(r: &DeviceReport) -> String {
    let path = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let controller = r.controller.as_ref().map(|c| {
        json!({
            "model": c.model,
            "serial": c.serial,
            "firmware": c.firmware,
            "vendor_id": c.vendor_id,
            "version": format!("{}.{}", c.version >> 16, (c.version >> 8) & 0xff),
            "namespaces": c.nn,
            "mdts": c.mdts,
            "oncs": c.oncs,
            "optional_commands": ONCS_BITS
                .iter()
                .filter(|(bit, _)| c.oncs & bit != 0)
                .map(|&(_, name)| name)
                .collect::<Vec<_>>(),
        })
    });
    let namespace = r.namespace.as_ref().map(|ns| {
        let in_use = ns.format_index();
        json!({
            "nsze": ns.nsze,
            "ncap": ns.ncap,
            "nuse": ns.nuse,
            "flbas": ns.flbas,
            "dlfeat": ns.dlfeat,
            "deallocated_reads_zeroes": ns.deallocated_reads_zeroes(),
            "dps": ns.dps,
            "extended_lba": ns.extended_lba(),
            "lba_formats": ns.formats.iter().enumerate().map(|(i, f)| json!({
                "index": i,
                "block_size": f.block_size(),
                "metadata_size": f.ms,
                "relative_performance": f.rp,
                "in_use": i == in_use,
            })).collect::<Vec<Value>>(),
        })
    });
    let limits = r.limits.map(|l| {
        json!({
            "vsl": l.vsl,
            "verify_max_bytes": NvmLimits::max_bytes(l.vsl, 4096),
            "wzsl": l.wzsl,
            "write_zeroes_max_bytes": l.write_zeroes_max_bytes(4096),
            "wusl": l.wusl,
            "write_uncorrectable_max_bytes": NvmLimits::max_bytes(l.wusl, 4096),
            "dmrl": l.dmrl,
            "dmrsl": l.dmrsl,
            "dmsl": l.dmsl,
        })
    });
    let q = &r.queue;
    let report = json!({
        "device": r.path.display().to_string(),
        "admin": r.admin.name(),
        "char_device": path(&r.char_device),
        "block_device": path(&r.block_device),
        "nsid": r.nsid,
        "size_bytes": r.size_bytes,
        "block_size": r.block_size,
        "max_transfer_bytes": r.max_transfer_bytes,
        "write_zeroes": r.write_zeroes,
        "deallocate": r.deallocate,
        "controller": controller,
        "namespace": namespace,
        "nvm_limits": limits,
        "queue": {
            "io_poll": q.io_poll,
            "nvme_poll_queues": q.nvme_poll_queues,
            "scheduler": q.scheduler,
            "nr_requests": q.nr_requests,
            "write_cache": q.write_cache,
            "logical_block_size": q.logical_block_size,
            "physical_block_size": q.physical_block_size,
            "max_hw_sectors_kb": q.max_hw_sectors_kb,
            "discard_max_bytes": q.discard_max_bytes,
            "write_zeroes_max_bytes": q.write_zeroes_max_bytes,
        },
    });
    let mut text = serde_json::to_string_pretty(&report).expect("a JSON value serialises");
    text.push('\n');
    text
}

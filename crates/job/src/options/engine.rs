//! The I/O engine and the engines' own options. An engine option is taken
//! only while an engine that has it is in effect (its `engines`); a newly
//! chosen engine starts from its options' defaults, as fio loads a fresh
//! engine option block.
//!
//! The engine names and which engine takes which option come from the
//! engine crate's registry (each engine's descriptor lists its options);
//! the rows here say how each option is written and applied.

use super::{apply_defaults, Kind, OptionDef};
use ioscope_engine::{Backend, XnvmeAdmin, XnvmeAsync, XnvmeBe, XnvmeMem, XnvmeSync};

use crate::spec::{EngineOptions, InjectedFault, VerifyMode, WriteMode, WriteModes, WriteShare};
use crate::values;

const ENGINE: OptionDef = OptionDef::of("I/O engine");

/// One `write_mode` command by fio's name.
fn write_mode(name: &str) -> Option<WriteMode> {
    Some(match name {
        "write" => WriteMode::Write,
        "uncor" => WriteMode::Uncorrectable,
        "zeroes" => WriteMode::Zeroes,
        "verify" => WriteMode::Verify,
        "zone_append" => WriteMode::ZoneAppend,
        _ => return None,
    })
}

/// fio's `write_mode` (engines/io_uring.c `str_write_mode_cb`): a command's
/// name, or a mix of two to five `name/percent` entries joined by `:`. A
/// blank percent shares what the others leave evenly. fio lets blanks that
/// do not divide the rest evenly leave a few percent to no command, and
/// fails each write whose draw lands there; ioscope refuses such a mix.
fn write_modes(text: &str) -> Result<WriteModes, String> {
    let named = |name: &str| {
        write_mode(name).ok_or_else(|| {
            format!(
                "invalid write_mode value: {name} (expected {})",
                WRITE_MODE_VALUES
                    .iter()
                    .map(|(v, _)| *v)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    };
    if !text.contains(':') {
        return named(text).map(WriteModes::single);
    }
    let mut entries = Vec::new();
    for entry in text.split(':') {
        if entries.len() == WRITE_MODE_VALUES.len() {
            return Err(format!(
                "write_mode: too many entries (max {})",
                WRITE_MODE_VALUES.len()
            ));
        }
        let Some((name, percent)) = entry.split_once('/') else {
            return Err(format!("write_mode: missing '/' in entry: {entry}"));
        };
        let mode = named(name)?;
        let percent = match percent.strip_suffix('%').unwrap_or(percent) {
            "" => None,
            digits => Some(digits.parse::<u32>().map_err(|_| {
                format!("write_mode: {percent} in entry {entry} is not a percentage (0 to 100)")
            })?),
        };
        entries.push((mode, percent));
    }
    if entries.len() < 2 {
        return Err("write_mode needs at least 2 entries".into());
    }
    let given: u32 = entries.iter().filter_map(|e| e.1).sum();
    if given > 100 {
        return Err("write_mode percentages exceed 100%".into());
    }
    let blanks = entries.iter().filter(|e| e.1.is_none()).count() as u32;
    if blanks == 0 && given != 100 {
        return Err("write_mode percentages should add up to 100%".into());
    }
    let fill = (100 - given).checked_div(blanks).unwrap_or(0);
    if blanks > 0 && given + fill * blanks != 100 {
        return Err(format!(
            "write_mode: the {blanks} entries without a percentage share {}% as {fill}% each, \
             which leaves {}% of the writes to no command (fio fails those writes); give \
             them percentages that add up to 100%",
            100 - given,
            100 - given - fill * blanks
        ));
    }
    Ok(WriteModes::mix(
        entries
            .into_iter()
            .map(|(mode, percent)| WriteShare {
                mode,
                percent: percent.unwrap_or(fill),
            })
            .collect(),
    ))
}

const CMD_TYPE_VALUES: &[(&str, &str)] = &[
    ("nvme", "Issue nvme-uring-cmd"),
    (
        "bsg",
        "Issue SCSI commands through /dev/bsg (fio after 3.42; refused: no SCSI device here)",
    ),
];
// fio 3.42's words (engines/io_uring.c); a newer fio also takes a mix.
const WRITE_MODE_VALUES: &[(&str, &str)] = &[
    ("write", "Issue Write commands for write operations"),
    (
        "uncor",
        "Issue Write Uncorrectable commands for write operations",
    ),
    ("zeroes", "Issue Write Zeroes commands for write operations"),
    ("verify", "Issue Verify commands for write operations"),
    (
        "zone_append",
        "Use zone append commands for write operations. Requires zonemode=zbd",
    ),
];
// fio 3.42's words (engines/io_uring.c).
const VERIFY_MODE_VALUES: &[(&str, &str)] = &[
    ("read", "Issue Read commands in the verification phase"),
    (
        "compare",
        "Issue Compare commands in the verification phase (verify=pattern only)",
    ),
];
// The xnvme engine's values, with fio's HOWTO words.
const XNVME_ASYNC_VALUES: &[(&str, &str)] = &[
    (
        "emu",
        "Emulate asynchronous I/O by using a single thread to create a queue pair on top of a synchronous I/O interface (xnvme_sync)",
    ),
    (
        "thrpool",
        "Emulate an asynchronous I/O interface with a pool of userspace threads on top of a synchronous I/O interface (xnvme_sync)",
    ),
    (
        "io_uring",
        "Linux native asynchronous I/O interface which supports both direct and buffered I/O",
    ),
    (
        "io_uring_cmd",
        "Fast Linux native asynchronous I/O interface for NVMe pass through commands (/dev/ngXnY)",
    ),
    ("libaio", "Use Linux aio for Asynchronous I/O"),
    (
        "posix",
        "Use the posix asynchronous I/O interface to perform one or more I/O operations asynchronously",
    ),
    (
        "vfio",
        "Use the user-space VFIO-based backend (libvfn; refused: ioscope has no user-space NVMe driver)",
    ),
    (
        "spdk",
        "Use SPDK's user-space NVMe driver (refused: ioscope has no user-space NVMe driver)",
    ),
    (
        "nil",
        "Do not transfer any data; just pretend to (for introspective performance evaluation)",
    ),
];
const XNVME_SYNC_VALUES: &[(&str, &str)] = &[
    (
        "nvme",
        "Use the Linux NVMe driver ioctl() for synchronous I/O",
    ),
    (
        "psync",
        "Use pread()/pwrite() (and their vectored forms) for synchronous I/O",
    ),
    (
        "block",
        "The same as psync, with Linux block layer ioctls for zone management",
    ),
];
const XNVME_ADMIN_VALUES: &[(&str, &str)] = &[
    (
        "nvme",
        "Use the Linux NVMe driver ioctl() for admin commands",
    ),
    (
        "block",
        "Use the Linux block layer ioctl() and sysfs for admin commands",
    ),
];
const XNVME_MEM_VALUES: &[(&str, &str)] = &[
    (
        "posix",
        "The default posix memory backend for the Linux NVMe driver",
    ),
    (
        "hugepage",
        "Use hugepages on hugetlbfs (the I/O buffers come from huge pages, as mem=mmaphuge)",
    ),
    (
        "spdk",
        "Use SPDK's memory allocator (refused: user-space driver)",
    ),
    (
        "vfio",
        "Use libvfn's memory allocator (refused: user-space driver)",
    ),
];
const XNVME_BE_VALUES: &[(&str, &str)] = &[
    (
        "linux",
        "Linux's kernel interfaces (the only backend ioscope has)",
    ),
    ("spdk", "SPDK's user-space NVMe driver (refused)"),
    ("vfio", "libvfn's user-space NVMe driver (refused)"),
    ("fbsd", "FreeBSD's interfaces (refused)"),
    ("macos", "macOS's interfaces (refused)"),
    ("windows", "Windows's interfaces (refused)"),
    ("ramdisk", "xNVMe's RAM disk (refused)"),
];
const FAULT_VALUES: &[(&str, &str)] = &[
    ("bitflip", "Flip one bit of a write's data"),
    ("drop", "Drop a write, reporting success"),
    (
        "misdirect",
        "Write to the neighbouring block, reporting success",
    ),
    (
        "torn",
        "Write only the first half of a block, reporting success",
    ),
    ("short_read", "Report half of a read's length"),
    ("read_eio", "Fail a read with EIO"),
    ("write_eio", "Fail a write with EIO"),
];

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "ioengine",
        kind: Kind::Engine,
        default: "psync",
        help: "I/O engine to use",
        apply: |s, v| {
            let engine = engine(v.text)?;
            // Switching engines gives the new engine's options their
            // defaults, as fio loads a fresh engine option block.
            if engine != s.spec.ioengine {
                s.spec.ioengine = engine;
                s.spec.hipri = false;
                s.spec.engine_options = EngineOptions::default();
                s.spec.net = crate::NetSpec::default();
                s.spec.cmdprio = crate::CmdprioSpec::blank();
                apply_defaults(s, true);
            }
            Ok(())
        },
        ..ENGINE
    },
    // Engine options, with fio's types and defaults (`fio --enghelp=ENGINE,OPTION`).
    OptionDef {
        name: "hipri",
        kind: Kind::Flag,
        help: "Use polled I/O completions (RWF_HIPRI for pvsync2, IORING_SETUP_IOPOLL for io_uring)",
        apply: |s, v| {
            s.spec.hipri = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "sqthread_poll",
        kind: Kind::Flag,
        help: "Offload submission/completion to kernel thread (IORING_SETUP_SQPOLL)",
        apply: |s, v| {
            s.spec.engine_options.sqthread_poll = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "sqthread_poll_cpu",
        kind: Kind::Int,
        help: "What CPU to run SQ thread polling on (needs sqthread_poll)",
        apply: |s, v| {
            s.spec.engine_options.sqthread_poll_cpu = Some(v.uint(0)?);
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "fixedbufs",
        kind: Kind::Flag,
        help: "Pre map IO buffers (registered with the ring)",
        apply: |s, v| {
            s.spec.engine_options.fixedbufs = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "registerfiles",
        kind: Kind::Flag,
        help: "Pre-open/register files with the ring",
        apply: |s, v| {
            s.spec.engine_options.registerfiles = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "nonvectored",
        kind: Kind::Int,
        default: "-1",
        help: "Use non-vectored read/write commands (1), vectored ones (0), or non-vectored where the kernel has them (-1; io_uring_cmd: non-vectored)",
        apply: |s, v| {
            s.spec.engine_options.nonvectored = nonvectored(v.text, v.kb)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "cmd_type",
        kind: Kind::Choice(CMD_TYPE_VALUES),
        default: "nvme",
        help: "Specify uring-cmd type",
        // NVMe is the only type; the value is checked, nothing kept.
        apply: |_, v| match v.text {
            "bsg" => Err("cmd_type=bsg (SCSI passthrough on /dev/bsg/*, from a fio newer than \
                 3.42) needs a SCSI device and a kernel that takes io_uring commands for it, which \
                 this project's machines do not have, so ioscope's io_uring_cmd sends NVMe \
                 commands only (cmd_type=nvme)"
                .to_string()),
            _ => v.pick(&[("nvme", ())]),
        },
        ..ENGINE
    },
    OptionDef {
        name: "write_mode",
        kind: Kind::Choice(WRITE_MODE_VALUES),
        default: "write",
        help: "The command of each write, or a mix drawn per write (write/60:zeroes/30:uncor/10)",
        apply: |s, v| {
            s.spec.engine_options.write_mode = write_modes(v.text)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "verify_mode",
        kind: Kind::Choice(VERIFY_MODE_VALUES),
        default: "read",
        help: "Issue Read or Compare command in the verification phase",
        apply: |s, v| {
            s.spec.engine_options.verify_mode = v.pick(&[
                ("read", VerifyMode::Read),
                ("compare", VerifyMode::Compare),
            ])?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "deac",
        kind: Kind::Bool,
        default: "0",
        help: "Set DEAC (deallocate) flag for write zeroes command",
        apply: |s, v| {
            s.spec.engine_options.deac = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "md_per_io_size",
        kind: Kind::Int,
        default: "0",
        help: "Size of separate metadata buffer per I/O (Default: 0)",
        apply: |s, v| {
            s.spec.engine_options.pi.md_per_io_size = v.uint(0)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "pi_act",
        kind: Kind::Bool,
        default: "1",
        help: "Protection Information Action bit (pi_act=1 or pi_act=0)",
        apply: |s, v| {
            s.spec.engine_options.pi.pi_act = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "pi_chk",
        kind: Kind::Text,
        help: "Control of Protection Information Checking (pi_chk=GUARD,REFTAG,APPTAG)",
        apply: |s, v| {
            s.spec.engine_options.pi.pi_chk = v.text.to_string();
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "apptag",
        kind: Kind::Int,
        default: "0x1234",
        help: "Application Tag used in Protection Information field (Default: 0x1234)",
        apply: |s, v| {
            s.spec.engine_options.pi.apptag = tag16(v)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "apptag_mask",
        kind: Kind::Int,
        default: "0xffff",
        help: "Application Tag Mask used with Application Tag (Default: 0xffff)",
        apply: |s, v| {
            s.spec.engine_options.pi.apptag_mask = tag16(v)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "readfua",
        kind: Kind::Bool,
        default: "0",
        help: "Set FUA flag (force unit access) for all Read operations",
        apply: |s, v| {
            s.spec.engine_options.readfua = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "writefua",
        kind: Kind::Bool,
        default: "0",
        help: "Set FUA flag (force unit access) for all Write operations",
        apply: |s, v| {
            s.spec.engine_options.writefua = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "force_async",
        kind: Kind::Int,
        help: "Set IOSQE_ASYNC every N requests (0: never)",
        apply: |s, v| {
            s.spec.engine_options.force_async = v.uint(0)?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "nowait",
        kind: Kind::Bool,
        help: "Use RWF_NOWAIT for reads/writes",
        apply: |s, v| {
            s.spec.engine_options.nowait = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "uncached",
        kind: Kind::Int,
        help: "Drop buffered reads/writes from the page cache when done (any value but 0; RWF_DONTCACHE, Linux 6.14)",
        // fio 3.33 reads uncached as a number and tests it for non-zero.
        apply: |s, v| {
            s.spec.engine_options.uncached = v.uint(0)? != 0;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "count_punts",
        kind: Kind::Bool,
        default: "0",
        help: "ioscope only: count the requests the ring punts to io-wq workers (a kernel tracepoint counter: needs root and tracefs, and costs some IOPS where the job's threads switch often)",
        apply: |s, v| {
            s.spec.engine_options.count_punts = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "userspace_reap",
        kind: Kind::Flag,
        help: "Use alternative user-space reap implementation",
        apply: |s, v| {
            s.spec.engine_options.userspace_reap = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "libaio_vectored",
        kind: Kind::Bool,
        help: "Use libaio {preadv,pwritev} instead of libaio {pread,pwrite} (a newer fio's option; fio 3.33 lacks it)",
        apply: |s, v| {
            s.spec.engine_options.vectored = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    // fio's xnvme engine (engines/xnvme.c), run on the backend its
    // interfaces name. Values the engine crate cannot run are taken here
    // and refused by the plan with the reason.
    OptionDef {
        name: "xnvme_async",
        kind: Kind::Choice(XNVME_ASYNC_VALUES),
        default: "emu",
        help: "Select xNVMe async. interface: [emu,thrpool,io_uring,io_uring_cmd,libaio,posix,vfio,nil]",
        apply: |s, v| {
            s.spec.engine_options.xnvme.async_iface = v.pick(&[
                ("emu", XnvmeAsync::Emu),
                ("thrpool", XnvmeAsync::Thrpool),
                ("io_uring", XnvmeAsync::IoUring),
                ("io_uring_cmd", XnvmeAsync::IoUringCmd),
                ("libaio", XnvmeAsync::Libaio),
                ("posix", XnvmeAsync::Posix),
                ("vfio", XnvmeAsync::Vfio),
                ("spdk", XnvmeAsync::Spdk),
                ("nil", XnvmeAsync::Nil),
            ])?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "xnvme_sync",
        kind: Kind::Choice(XNVME_SYNC_VALUES),
        default: "nvme",
        help: "Select xNVMe sync. interface: [nvme,psync,block] (the I/O path of xnvme_async=emu and thrpool)",
        apply: |s, v| {
            s.spec.engine_options.xnvme.sync_iface = v.pick(&[
                ("nvme", XnvmeSync::Nvme),
                ("psync", XnvmeSync::Psync),
                ("block", XnvmeSync::Block),
            ])?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "xnvme_admin",
        kind: Kind::Choice(XNVME_ADMIN_VALUES),
        default: "nvme",
        help: "Select xNVMe admin. cmd-interface: [nvme,block]",
        apply: |s, v| {
            s.spec.engine_options.xnvme.admin =
                v.pick(&[("nvme", XnvmeAdmin::Nvme), ("block", XnvmeAdmin::Block)])?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "xnvme_dev_nsid",
        kind: Kind::Int,
        help: "xNVMe Namespace-Identifier, for user-space NVMe driver (ioscope: must be the device's own; 0 or unset: any)",
        apply: |s, v| {
            let nsid = v.uint(0)?;
            s.spec.engine_options.xnvme.dev_nsid = (nsid != 0).then_some(nsid);
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "xnvme_dev_subnqn",
        kind: Kind::Text,
        help: "Subsystem NQN for Fabrics (xNVMe's user-space fabrics initiator; a kernel device ignores it)",
        apply: |s, v| {
            s.spec.engine_options.xnvme.dev_subnqn = Some(v.text.to_string());
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "xnvme_iovec",
        kind: Kind::Flag,
        help: "Send vectored IOs",
        apply: |s, v| {
            s.spec.engine_options.xnvme.iovec = v.bool()?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "xnvme_mem",
        kind: Kind::Choice(XNVME_MEM_VALUES),
        default: "posix",
        help: "Select xNVMe memory backend",
        apply: |s, v| {
            s.spec.engine_options.xnvme.mem = v.pick(&[
                ("posix", XnvmeMem::Posix),
                ("hugepage", XnvmeMem::Hugepage),
                ("spdk", XnvmeMem::Spdk),
                ("vfio", XnvmeMem::Vfio),
            ])?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "xnvme_be",
        kind: Kind::Choice(XNVME_BE_VALUES),
        default: "linux",
        help: "Select xNVMe backend [spdk,linux,fbsd]",
        apply: |s, v| {
            s.spec.engine_options.xnvme.be = v.pick(&[
                ("linux", XnvmeBe::Linux),
                ("spdk", XnvmeBe::Spdk),
                ("vfio", XnvmeBe::Vfio),
                ("fbsd", XnvmeBe::Fbsd),
                ("macos", XnvmeBe::Macos),
                ("windows", XnvmeBe::Windows),
                ("ramdisk", XnvmeBe::Ramdisk),
            ])?;
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "fault",
        kind: Kind::Choice(FAULT_VALUES),
        help: "The fault to inject",
        apply: |s, v| {
            s.spec.engine_options.fault = Some(v.pick(&[
                ("bitflip", InjectedFault::BitFlip),
                ("drop", InjectedFault::Drop),
                ("misdirect", InjectedFault::Misdirect),
                ("torn", InjectedFault::Torn),
                ("short_read", InjectedFault::ShortRead),
                ("read_eio", InjectedFault::ReadEio),
                ("write_eio", InjectedFault::WriteEio),
            ])?);
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "fault_rate",
        kind: Kind::Float,
        default: "1",
        help: "Percentage of eligible requests that get the fault",
        // The job holds None for this row's default (the run crate reads
        // None as 1%), so that giving the default changes nothing.
        apply: |s, v| {
            let rate = fault_rate_micro(v.text)?;
            let default = fault_rate_micro(v.def.default)?;
            s.spec.engine_options.fault_rate_micro = (rate != default).then_some(rate);
            Ok(())
        },
        ..ENGINE
    },
    OptionDef {
        name: "fault_engine",
        kind: Kind::Engine,
        default: "psync",
        help: "The engine whose requests get the faults",
        // As fault_rate: None for this row's default (the run crate reads
        // None as psync).
        apply: |s, v| {
            let inner = engine(v.text)?;
            if inner.desc().kind == ioscope_engine::EngineKind::Wrapper {
                return Err(format!(
                    "the faulty engine cannot wrap ioengine={}, which has no queue of its own",
                    inner.name()
                ));
            }
            let default = engine(v.def.default)?;
            s.spec.engine_options.fault_engine = (inner != default).then_some(inner);
            Ok(())
        },
        ..ENGINE
    },
];

/// `fault_rate` in millionths of a percent.
fn fault_rate_micro(text: &str) -> Result<u64, String> {
    let rate: f64 = text
        .parse()
        .ok()
        .filter(|r: &f64| (0.0..=100.0).contains(r))
        .ok_or_else(|| format!("'{text}': expected a percentage from 0 to 100"))?;
    Ok((rate * 1e6).round() as u64)
}

/// The engine `ioengine=text` names, from the engine registry.
pub(crate) fn engine(text: &str) -> Result<Backend, String> {
    if let Some(engine) = Backend::from_name(text) {
        return Ok(engine);
    }
    if let Some(why) = Backend::needs(text) {
        return Err(why);
    }
    let known: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
    Err(format!(
        "unknown ioengine '{text}'; ioscope supports {}",
        known.join(", ")
    ))
}

/// io_uring's `nonvectored`: fio's `-1` (its default) detects, 0 is off and
/// any other value on, as fio tests it. Other negative values are refused.
pub(crate) fn nonvectored(text: &str, kb: u32) -> Result<Option<bool>, String> {
    match text.strip_prefix('-') {
        Some(rest) if values::uint(rest, kb, 0) == Ok(1) => Ok(None),
        Some(_) => Err(format!(
            "'{text}': expected -1 (use READ/WRITE where the kernel has them), 0 or 1"
        )),
        None => Ok(Some(values::uint(text, kb, 0)? != 0)),
    }
}

/// An application tag or its mask: 16 bits in the command (fio takes any
/// integer and lets a larger tag spill into the mask's bits).
fn tag16(v: &super::Value) -> Result<u16, String> {
    let n = v.uint(0)?;
    u16::try_from(n).map_err(|_| format!("{n} does not fit the 16 bits of an application tag"))
}

#[cfg(test)]
mod write_mode_tests {
    use super::write_modes;
    use crate::spec::{WriteMode, WriteModes, WriteShare};

    fn share(mode: WriteMode, percent: u32) -> WriteShare {
        WriteShare { mode, percent }
    }

    #[test]
    fn single_modes_and_mixes_are_read_as_fio_reads_them() {
        assert_eq!(
            write_modes("uncor"),
            Ok(WriteModes::single(WriteMode::Uncorrectable))
        );
        assert_eq!(
            write_modes("verify"),
            Ok(WriteModes::single(WriteMode::Verify))
        );
        let mix = write_modes("write/40:zeroes/30:uncor/20:verify/10").unwrap();
        assert_eq!(
            mix.shares(),
            [
                share(WriteMode::Write, 40),
                share(WriteMode::Zeroes, 30),
                share(WriteMode::Uncorrectable, 20),
                share(WriteMode::Verify, 10)
            ]
        );
        assert_eq!(mix.text(), "write/40:zeroes/30:uncor/20:verify/10");
        // Blanks share the rest evenly, as bssplit's do.
        let blanks = write_modes("write/50:zeroes/:uncor/").unwrap();
        assert_eq!(
            blanks.shares()[1..],
            [
                share(WriteMode::Zeroes, 25),
                share(WriteMode::Uncorrectable, 25)
            ]
        );
        assert_eq!(write_modes("zeroes/100:write/0").unwrap().only(), None);
    }

    #[test]
    fn bad_write_modes_are_refused_with_fios_reason() {
        for (text, why) in [
            ("bogus", "invalid write_mode value: bogus"),
            // One entry is a single mode's name, as in fio.
            ("write/100", "invalid write_mode value: write/100"),
            ("write/50:bogus/50", "invalid write_mode value: bogus"),
            ("write/50:zeroes", "missing '/' in entry: zeroes"),
            ("write/100:", "missing '/' in entry: "),
            ("write/60:zeroes/60", "percentages exceed 100%"),
            ("write/60:zeroes/30", "should add up to 100%"),
            ("write/x:zeroes/", "x in entry write/x is not a percentage"),
            (
                "write/1:write/1:write/1:write/1:write/1:write/",
                "too many entries (max 5)",
            ),
            (
                "write/50:zeroes/:uncor/:verify/",
                "the 3 entries without a percentage share 50% as 16% each, which leaves 2% of \
                 the writes to no command",
            ),
        ] {
            let err = write_modes(text).unwrap_err();
            assert!(err.contains(why), "{text}: {err}");
        }
    }
}

#[cfg(test)]
mod verify_mode_tests {
    use crate::{parse, ParseInput, VerifyMode};

    fn parse_cli(options: &[&str]) -> Result<VerifyMode, String> {
        let cli = [
            "--name=j",
            "--ioengine=io_uring_cmd",
            "--size=1m",
            "--rw=write",
        ]
        .iter()
        .chain(options)
        .map(|o| o.to_string())
        .collect();
        let input = ParseInput {
            cli_options: cli,
            ..ParseInput::default()
        };
        parse(&input)
            .map(|mut p| p.jobs.remove(0).engine_options.verify_mode)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn compare_takes_a_pattern_and_read_is_the_default() {
        assert_eq!(parse_cli(&[]), Ok(VerifyMode::Read));
        let pattern = [
            "--verify=pattern",
            "--verify_pattern=0xaa",
            "--verify_mode=compare",
        ];
        assert_eq!(parse_cli(&pattern), Ok(VerifyMode::Compare));
        // A pattern alone is fio's pattern with headers (verify=pattern_hdr):
        // fio's Compare carries headers made anew (the time of the check),
        // which good blocks fail.
        for hdr in [
            &["--verify_pattern=0xaa", "--verify_mode=compare"][..],
            &[
                "--verify=pattern_hdr",
                "--verify_pattern=0xaa",
                "--verify_mode=compare",
            ],
        ] {
            let err = parse_cli(hdr).unwrap_err();
            assert!(
                err.contains("only valid with verify=pattern")
                    && err.contains("verify=pattern_hdr")
                    && err.contains("puts a header in each block"),
                "{err}"
            );
        }
        let err = parse_cli(&["--verify=sha256", "--verify_mode=compare"]).unwrap_err();
        assert!(
            err.contains("only valid with verify=pattern")
                && err.contains("verify=sha256 has none"),
            "{err}"
        );
        let err = parse_cli(&["--verify_mode=compare"]).unwrap_err();
        assert!(err.contains("verify=0 has none"), "{err}");
        // A newly chosen engine starts from verify_mode's default, as
        // fio loads a fresh option block for it.
        let later_engine = [
            "--verify_pattern=0xaa",
            "--verify_mode=compare",
            "--ioengine=libaio",
        ];
        assert_eq!(parse_cli(&later_engine), Ok(VerifyMode::Read));
    }
}

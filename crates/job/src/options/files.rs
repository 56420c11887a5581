//! The job's name and description, and the files and devices it works on.

use super::{Kind, OptionDef, Value};
use crate::file_handling::{
    Fallocate, FileLock, FileService, FileServiceKind, FileType, WriteHint,
};
use crate::placement::Distribution;
use crate::spec::SizeSpec;
use crate::values;
use crate::zones::zone_count;

const JOB: OptionDef = OptionDef::of("Job description");
const FILES: OptionDef = OptionDef::of("Files and devices");

pub(super) const OPTIONS: &[OptionDef] = &[
    OptionDef {
        name: "name",
        help: "Name of this job",
        apply: |s, v| {
            s.spec.name = v.text.to_string();
            Ok(())
        },
        ..JOB
    },
    OptionDef {
        name: "description",
        help: "Text job description",
        apply: |s, v| {
            s.spec.description = Some(v.text.to_string());
            Ok(())
        },
        ..JOB
    },
    OptionDef {
        name: "filename",
        help: "File(s) to use for the workload, ':'-separated ('\\:' for a colon in a name)",
        apply: |s, v| {
            let names = values::filenames(v.text);
            if names.iter().any(|n| n == "-") {
                // fio reads standard input for reads and writes standard
                // output for writes; ioscope's targets are files and
                // devices it can open, size and lay out.
                return Err(
                    "'-' (fio: standard input or output) is not supported by ioscope; \
                     name a file or device"
                        .to_string(),
                );
            }
            s.spec.filenames = names;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "directory",
        help: "Directory to store files in",
        apply: |s, v| {
            s.spec.directory = Some(v.text.to_string());
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "size",
        kind: Kind::SizeOrPercent,
        help: "Total size of device or files",
        // fio reads size=0 as "not set".
        apply: |s, v| {
            s.spec.zones.counts.size = 0;
            if let Some(n) = zone_count(v.text) {
                s.spec.zones.counts.size = n?;
                s.spec.size = None;
                return Ok(());
            }
            s.spec.size = match values::size_or_percent(v.text, v.kb)? {
                SizeSpec::Bytes(0) => None,
                size => Some(size),
            };
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "filesize",
        kind: Kind::Range,
        help: "Size of individual files",
        apply: |s, v| {
            let one = |t: &str| values::size(t, v.kb);
            let range = if v.text.contains(['-', ':']) {
                values::range(v.text, one)?
            } else {
                let size = one(v.text)?;
                (size, size)
            };
            if range.0 == 0 {
                return Err("a file size must be at least 1 byte".to_string());
            }
            s.spec.filesize = Some(range);
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "offset",
        aliases: &["fileoffset"],
        kind: Kind::SizeOrPercent,
        default: "0",
        help: "Start I/O from this offset",
        apply: |s, v| {
            s.spec.zones.counts.offset = 0;
            if let Some(n) = zone_count(v.text) {
                s.spec.zones.counts.offset = n?;
                s.spec.offset = SizeSpec::Bytes(0);
                return Ok(());
            }
            s.spec.offset = values::size_or_percent(v.text, v.kb)?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "offset_increment",
        kind: Kind::SizeOrPercent,
        default: "0",
        help: "What is the increment from one offset to the next (clone N starts at offset + N * this)",
        apply: |s, v| {
            s.spec.zones.counts.offset_increment = 0;
            if let Some(n) = zone_count(v.text) {
                s.spec.zones.counts.offset_increment = n?;
                s.spec.offset_increment = SizeSpec::Bytes(0);
                return Ok(());
            }
            s.spec.offset_increment = values::size_or_percent(v.text, v.kb)?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "io_size",
        aliases: &["io_limit"],
        kind: Kind::SizeOrPercent,
        help: "Total size of I/O to be performed",
        // fio reads io_size=0 as "not set".
        apply: |s, v| {
            s.spec.zones.counts.io_size = 0;
            s.spec.io_size_percent = None;
            if let Some(n) = zone_count(v.text) {
                s.spec.zones.counts.io_size = n?;
                s.spec.io_size = None;
                return Ok(());
            }
            s.spec.io_size = match values::size_or_percent(v.text, v.kb)? {
                SizeSpec::Bytes(b) => Some(b).filter(|&b| b > 0),
                // fio keeps a whole percentage (str_io_size_cb).
                SizeSpec::Percent(p) if p.fract() == 0.0 => {
                    s.spec.io_size_percent = Some(p as u32).filter(|&p| p < 100);
                    None
                }
                SizeSpec::Percent(p) => {
                    return Err(format!(
                        "{p}% is not a whole percentage: fio takes io_size=N% in whole \
                         percents; give one (io_size={}%) or a size in bytes",
                        p.round().max(1.0)
                    ))
                }
            };
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "nrfiles",
        aliases: &["nr_files"],
        kind: Kind::Int,
        default: "1",
        help: "Split job workload between this number of files",
        apply: |s, v| {
            s.spec.nrfiles = v.uint(1)?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "unlink",
        kind: Kind::Bool,
        default: "0",
        help: "Unlink created files after job has completed",
        apply: |s, v| {
            s.spec.unlink = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "unlink_each_loop",
        kind: Kind::Bool,
        default: "0",
        help: "Unlink created files after each loop in a job has completed",
        apply: |s, v| {
            s.spec.file_handling.unlink_each_loop = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "allow_mounted_write",
        kind: Kind::Bool,
        default: "0",
        help: "Allow writes to a mounted partition",
        apply: |s, v| {
            s.spec.allow_mounted_write = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "allow_signature_write",
        kind: Kind::Bool,
        default: "0",
        help: "ioscope only: allow writes to a block device that holds a filesystem, partition table or other signature",
        apply: |s, v| {
            s.spec.allow_signature_write = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "create_on_open",
        kind: Kind::Bool,
        default: "0",
        help: "Create files when they are opened for I/O",
        apply: |s, v| {
            s.spec.create_on_open = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "filetype",
        kind: Kind::Choice(FILETYPE_VALUES),
        default: "none",
        help: "Assume all files defined in a job are of this type",
        apply: |s, v| {
            s.spec.file_handling.filetype = v.pick(&[
                ("none", None),
                ("file", Some(FileType::File)),
                ("block", Some(FileType::Block)),
                ("char", Some(FileType::Char)),
            ])?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "fallocate",
        kind: Kind::Choice(FALLOCATE_VALUES),
        default: "native",
        help: "Whether pre-allocation is performed when laying out files",
        apply: |s, v| {
            s.spec.file_handling.fallocate = v.pick(&[
                ("none", Fallocate::None),
                ("native", Fallocate::Native),
                ("posix", Fallocate::Posix),
                ("keep", Fallocate::Keep),
                ("truncate", Fallocate::Truncate),
                ("0", Fallocate::None),
                ("1", Fallocate::Posix),
            ])?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "lockfile",
        kind: Kind::Choice(LOCKFILE_VALUES),
        default: "none",
        help: "Lock file when doing IO to it",
        apply: |s, v| {
            s.spec.file_handling.lockfile = v.pick(&[
                ("none", FileLock::None),
                ("exclusive", FileLock::Exclusive),
                ("readwrite", FileLock::ReadWrite),
            ])?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "create_serialize",
        kind: Kind::Bool,
        default: "1",
        // ioscope lays every worker's files out one after another before
        // the phase starts; fio's create_serialize=0 lays them out in the
        // workers, in parallel: only the layout's duration differs.
        help: "Serialize creation of job files (ioscope always does)",
        apply: |s, v| {
            s.spec.file_handling.create_serialize = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "create_fsync",
        kind: Kind::Bool,
        default: "1",
        help: "fsync file after creation",
        apply: |s, v| {
            s.spec.file_handling.create_fsync = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "create_only",
        kind: Kind::Bool,
        default: "0",
        help: "Only perform file creation phase",
        apply: |s, v| {
            s.spec.file_handling.create_only = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "allow_file_create",
        kind: Kind::Bool,
        default: "1",
        help: "Permit fio to create files, if they don't exist",
        apply: |s, v| {
            s.spec.file_handling.allow_file_create = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "pre_read",
        kind: Kind::Bool,
        default: "0",
        help: "Pre-read files before starting official testing",
        apply: |s, v| {
            s.spec.file_handling.pre_read = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "file_append",
        kind: Kind::Bool,
        default: "0",
        help: "IO will start at the end of the file(s)",
        apply: |s, v| {
            s.spec.file_handling.file_append = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "overwrite",
        kind: Kind::Bool,
        default: "0",
        help: "When writing, set whether to overwrite current data",
        apply: |s, v| {
            s.spec.file_handling.overwrite = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "fill_device",
        aliases: &["fill_fs"],
        kind: Kind::Bool,
        default: "0",
        help: "Write until an ENOSPC error occurs",
        apply: |s, v| {
            s.spec.file_handling.fill_device = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "openfiles",
        kind: Kind::Int,
        help: "Number of files to keep open at the same time",
        // 0, as unset, is all of them (fio's fixup_options makes it nrfiles).
        apply: |s, v| {
            s.spec.file_handling.openfiles = v.uint(0)?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "file_service_type",
        kind: Kind::Choice(SERVICE_VALUES),
        default: "roundrobin",
        help: "How to select which file to service next (KIND[:N]: N I/Os per file)",
        apply: |s, v| {
            s.spec.file_handling.service = file_service(v)?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "filename_format",
        default: "$jobname.$jobnum.$filenum",
        help: "Override default $jobname.$jobnum.$filenum naming",
        apply: |s, v| {
            s.spec.file_handling.filename_format = v.text.to_string();
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "unique_filename",
        kind: Kind::Bool,
        default: "1",
        // Only a job a fio client sent to `--server` over TCP is named
        // after the server's address (FileHandling::client_uid); fio's
        // help text as it is.
        help: "For network clients, prefix file with source IP (no effect without client/server)",
        apply: |s, v| {
            s.spec.file_handling.unique_filename = v.bool()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "write_hint",
        kind: Kind::Choice(WRITE_HINT_VALUES),
        help: "Set expected write life time",
        apply: |s, v| {
            s.spec.file_handling.write_hint = Some(v.pick(&[
                ("none", WriteHint::None),
                ("short", WriteHint::Short),
                ("medium", WriteHint::Medium),
                ("long", WriteHint::Long),
                ("extreme", WriteHint::Extreme),
            ])?);
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "ioscheduler",
        help: "Use this IO scheduler on the backing device",
        apply: |s, v| {
            s.spec.file_handling.ioscheduler = Some(v.text.to_string());
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "opendir",
        help: "Recursively add files from this directory and down",
        apply: |s, v| {
            s.spec.file_handling.opendir = Some(v.text.to_string());
            Ok(())
        },
        ..FILES
    },
];

// fio 3.42 gives its values no help text; these are its HOWTO's.
const FILETYPE_VALUES: &[(&str, &str)] = &[
    ("none", "Unset. The default"),
    ("file", "Regular file"),
    ("block", "Block device file"),
    ("char", "Char device file"),
];
const FALLOCATE_VALUES: &[(&str, &str)] = &[
    ("none", "Do not pre-allocate space"),
    ("native", "Use native pre-allocation if possible"),
    ("posix", "Use posix_fallocate()"),
    ("keep", "Use fallocate(..., FALLOC_FL_KEEP_SIZE, ...)"),
    (
        "truncate",
        "Truncate file to final size instead of allocating",
    ),
    ("0", "Alias for 'none'"),
    ("1", "Alias for 'posix'"),
];

const LOCKFILE_VALUES: &[(&str, &str)] = &[
    ("none", "No file locking"),
    ("exclusive", "Exclusive file lock"),
    ("readwrite", "Read vs write lock"),
];

const WRITE_HINT_VALUES: &[(&str, &str)] = &[
    ("none", "No particular life time associated with this file"),
    ("short", "Data written to this file has a short life time"),
    ("medium", "Data written to this file has a medium life time"),
    ("long", "Data written to this file has a long life time"),
    (
        "extreme",
        "Data written to this file has a very long life time",
    ),
];

const SERVICE_VALUES: &[(&str, &str)] = &[
    ("random", "Choose a file at random"),
    ("roundrobin", "Round robin select files"),
    ("sequential", "Finish one file before moving to the next"),
    (
        "zipf",
        "Zipf randomized file selection (zipf[:theta[:center]])",
    ),
    (
        "pareto",
        "Pareto randomized file selection (pareto[:h[:center]])",
    ),
    (
        "normal",
        "Normal (Gaussian) randomized file selection (normal[:dev[:center]])",
    ),
    ("gauss", "Alias for 'normal'"),
];

/// `file_service_type=KIND[:N]` (fio's `str_fst_cb`): for random,
/// roundrobin and sequential, N (default 1) I/Os go to the chosen file
/// before the next choice; for zipf, pareto and normal (gauss), the
/// distribution's value and center as `random_distribution` reads them,
/// one I/O per choice.
fn file_service(v: &Value) -> Result<FileService, String> {
    let (kind, nr) = match v.text.split_once(':') {
        Some((k, n)) => (k, Some(n)),
        None => (v.text, None),
    };
    let kind = match kind {
        "random" => FileServiceKind::Random,
        "roundrobin" => FileServiceKind::RoundRobin,
        "sequential" => FileServiceKind::Sequential,
        "zipf" | "pareto" | "normal" | "gauss" => {
            // fio's `split_parse_distr` and range checks are
            // random_distribution's; gauss is fio's other name for normal.
            let text = match kind {
                "gauss" => format!("normal{}", &v.text[kind.len()..]),
                _ => v.text.to_string(),
            };
            let kind = match super::placement::distribution(&text, v.kb)? {
                Distribution::Zipf { theta, center } => FileServiceKind::Zipf { theta, center },
                Distribution::Pareto { h, center } => FileServiceKind::Pareto { h, center },
                Distribution::Normal { dev, center } => FileServiceKind::Gauss { dev, center },
                _ => return Err(v.not_a_choice()),
            };
            return Ok(FileService { kind, batch: 1 });
        }
        _ => return Err(v.not_a_choice()),
    };
    let batch = match nr {
        // fio reads N with atoi: what is not a number is 0, which it
        // then treats as 1 (one I/O per choice).
        Some(n) => values::uint(n, v.kb, 0)?.max(1),
        None => 1,
    };
    Ok(FileService { kind, batch })
}

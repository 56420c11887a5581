//! The job's name and description, and the files and devices it works on.

use super::{Kind, OptionDef};
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
        kind: Kind::Size,
        default: "0",
        help: "What is the increment from one offset to the next (clone N starts at offset + N * this)",
        apply: |s, v| {
            s.spec.zones.counts.offset_increment = 0;
            if let Some(n) = zone_count(v.text) {
                s.spec.zones.counts.offset_increment = n?;
                s.spec.offset_increment = 0;
                return Ok(());
            }
            s.spec.offset_increment = v.size()?;
            Ok(())
        },
        ..FILES
    },
    OptionDef {
        name: "io_size",
        aliases: &["io_limit"],
        kind: Kind::Size,
        help: "Total size of I/O to be performed",
        // fio reads io_size=0 as "not set".
        apply: |s, v| {
            s.spec.zones.counts.io_size = 0;
            if let Some(n) = zone_count(v.text) {
                s.spec.zones.counts.io_size = n?;
                s.spec.io_size = None;
                return Ok(());
            }
            s.spec.io_size = Some(v.size()?).filter(|&b| b > 0);
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
];

//! fio's engines that ioscope will not have because they need a library,
//! an operating system or hardware that ioscope does not link or drive,
//! each with what it needs, so that a job naming one is told why.

/// `(engine, what it needs)`: the refusal reads "ioengine=NAME needs WHAT,
/// which ioscope does not link" (or, for hardware and other systems, the
/// reason as written).
const NEEDS_LIBRARY: &[(&str, &str)] = &[
    ("rdma", "librdmacm and libibverbs (RDMA)"),
    ("libhdfs", "libhdfs (Hadoop HDFS) and a Java VM"),
    ("http", "libcurl and OpenSSL (HTTP, S3 and Swift)"),
    ("dev-dax", "libpmem (PMDK) for device DAX (/dev/daxN.M)"),
    ("libpmem", "libpmem (PMDK)"),
    ("pmemblk", "libpmemblk (PMDK)"),
    ("ime_psync", "DDN's IME native client library"),
    ("ime_psyncv", "DDN's IME native client library"),
    ("ime_aio", "DDN's IME native client library"),
    ("gfapi", "libgfapi (GlusterFS)"),
    ("gfapi_async", "libgfapi (GlusterFS)"),
    ("rbd", "librbd (Ceph)"),
    ("rados", "librados (Ceph)"),
    ("nbd", "libnbd"),
    ("libiscsi", "libiscsi"),
    ("libcufile", "NVIDIA cuFile (GPUDirect Storage) and CUDA"),
    ("dfs", "libdfs (DAOS)"),
    ("nfs", "libnfs"),
    ("mtd", "libmtd (MTD flash devices, /dev/mtdN)"),
    ("libzbc", "libzbc"),
    ("librpma_apm_client", "librpma (PMDK's RDMA library)"),
    ("librpma_apm_server", "librpma (PMDK's RDMA library)"),
    ("librpma_gpspm_client", "librpma (PMDK's RDMA library)"),
    ("librpma_gpspm_server", "librpma (PMDK's RDMA library)"),
    ("guasi", "libguasi"),
    (
        "libblkio",
        "libblkio (virtio-blk, vhost-user and vhost-vdpa block devices)",
    ),
];

/// Engines that need something other than a library.
const NEEDS_OTHER: &[(&str, &str)] = &[
    (
        "sg",
        "needs a SCSI generic device (/dev/sgN) driven through SG_IO, which ioscope does not do",
    ),
    (
        "windowsaio",
        "needs Windows (I/O completion ports); ioscope runs on Linux",
    ),
    (
        "solarisaio",
        "needs Solaris's asynchronous I/O; ioscope runs on Linux",
    ),
    (
        "binject",
        "needs the binject kernel module, which Linux never merged",
    ),
    (
        "spdk",
        "is SPDK's external fio plugin (spdk_nvme, spdk_bdev); ioscope does not load C engines",
    ),
    (
        "cpp_null",
        "is one of fio's external C++ test engines; ioscope does not load C engines",
    ),
];

/// Why `ioengine=name` cannot be had in ioscope, as a whole sentence, or
/// None when the engine is not one of these.
pub(crate) fn why(name: &str) -> Option<String> {
    if let Some((_, lib)) = NEEDS_LIBRARY.iter().find(|(n, _)| *n == name) {
        return Some(format!(
            "ioengine={name} needs {lib}, which ioscope does not link"
        ));
    }
    if let Some((_, why)) = NEEDS_OTHER.iter().find(|(n, _)| *n == name) {
        return Some(format!("ioengine={name} {why}"));
    }
    // fio's `external:/path/engine.so`, or a path given as the engine.
    if name == "external" || name.starts_with("external:") || name.contains('/') {
        return Some(format!(
            "ioengine={name} is an external engine (a shared object fio loads); \
             ioscope does not load C engines"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_names_what_is_missing() {
        assert_eq!(
            why("rbd").unwrap(),
            "ioengine=rbd needs librbd (Ceph), which ioscope does not link"
        );
        assert!(why("sg")
            .unwrap()
            .contains("SCSI generic device (/dev/sgN)"));
        assert!(why("external:/usr/lib/fio/x.so")
            .unwrap()
            .contains("does not load C engines"));
        assert!(why("cpp_null").unwrap().contains("does not load C engines"));
        assert_eq!(why("psync"), None);
    }

    #[test]
    fn no_engine_is_listed_twice() {
        let mut names: Vec<&str> = NEEDS_LIBRARY
            .iter()
            .chain(NEEDS_OTHER)
            .map(|(n, _)| *n)
            .collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all);
    }
}

//! The names of fio options (and fio engine options) that ioscope does not
//! support yet, so that a job using one is told so rather than "unknown
//! option". Taken from fio 3.42's option tables.
//! The options of engines ioscope does not have are in
//! [`FIO_ENGINE_OPTIONS`], so that the refusal can name the engine.

pub(crate) const FIO_ONLY_OPTIONS: &[&str] = &[
    "dataplacement",
    "dp_scheme",
    "fdp",
    "fdp_pli",
    "fdp_pli_select",
    "gpu_dev_id",
    "plid_select",
    "plids",
];

/// Why some of [`FIO_ONLY_OPTIONS`] are refused, where there is more to
/// say than "not yet".
pub(crate) const FIO_ONLY_REASONS: &[(&str, &str)] = &[
    ("fdp", FDP),
    ("dataplacement", FDP),
    ("fdp_pli", FDP),
    ("fdp_pli_select", FDP),
    ("plids", FDP),
    ("plid_select", FDP),
    ("dp_scheme", FDP),
    (
        "gpu_dev_id",
        "it picks the GPU of fio's CUDA memory (mem=cudamalloc, GPUDirect RDMA), which \
         ioscope does not link",
    ),
];

// QEMU's NVMe emulation has FDP from 8.0 on; the project's test guest
// runs 7.2, so no placement directive could be checked against a device.
const FDP: &str = "it needs an NVMe namespace with flexible data placement (FDP), hardware \
    ioscope cannot test here, so it sends no placement directives";

/// The options of fio 3.42's engines that ioscope does not have (its
/// `engines/*.c` option tables), with the engines that take each: a job
/// that sets one is told which engine it belongs to rather than "unknown
/// option". Options these engines share with ioscope's own engines
/// (`hipri`, `readfua`, `sqthread_poll`...) are in the option table.
pub(crate) const FIO_ENGINE_OPTIONS: &[(&[&str], &[&str])] = &[
    (
        &["dfs"],
        &["chunk_size", "cont", "object_class", "pool", "svcl"],
    ),
    (
        &["gfapi", "gfapi_async"],
        &["brick", "single-instance", "volume"],
    ),
    (
        &["http"],
        &[
            "http_host",
            "http_mode",
            "http_object_mode",
            "http_pass",
            "http_s3_key",
            "http_s3_keyid",
            "http_s3_region",
            "http_s3_security_token",
            "http_s3_sse_customer_algorithm",
            "http_s3_sse_customer_key",
            "http_s3_storage_class",
            "http_swift_auth_token",
            "http_user",
            "http_verbose",
            "https",
        ],
    ),
    (
        &["libblkio"],
        &[
            "libblkio_driver",
            "libblkio_force_enable_completion_eventfd",
            "libblkio_num_entries",
            "libblkio_path",
            "libblkio_pre_connect_props",
            "libblkio_pre_start_props",
            "libblkio_queue_size",
            "libblkio_vectored",
            "libblkio_wait_mode",
            "libblkio_write_zeroes_on_trim",
        ],
    ),
    (&["libcufile"], &["cuda_io", "gpu_dev_ids"]),
    (
        &["libhdfs"],
        &[
            "chunk_size",
            "hdfs_use_direct",
            "hdfsdirectory",
            "namenode",
            "single_instance",
        ],
    ),
    (&["libiscsi"], &["initiator"]),
    (
        &[
            "librpma_apm_client",
            "librpma_apm_server",
            "librpma_gpspm_client",
            "librpma_gpspm_server",
        ],
        &["busy_wait_polling", "direct_write_to_pmem", "serverip"],
    ),
    (&["mtd"], &["skip_bad"]),
    (&["nbd"], &["uri"]),
    (&["nfs"], &["nfs_url"]),
    (
        &["rados"],
        &[
            "busy_poll",
            "clientname",
            "clustername",
            "conf",
            "pool",
            "touch_objects",
        ],
    ),
    (
        &["rbd"],
        &[
            "busy_poll",
            "clientname",
            "clustername",
            "pool",
            "rbd_encryption_format",
            "rbd_encryption_passphrase",
            "rbdname",
        ],
    ),
    // `hostname` and `port` of these engines are the net engines' names,
    // which ioscope has: a job naming them with one of these engines is
    // refused for its ioengine.
    (&["rdma"], &["bindname", "verb"]),
    (&["sg"], &["sg_write_mode", "stream_id"]),
    (&["windowsaio"], &["no_completion_thread"]),
];

/// The fio engines (none of them ioscope's) whose option `name` is, or None.
pub(crate) fn fio_engines_of(name: &str) -> Option<Vec<&'static str>> {
    let engines: Vec<&str> = FIO_ENGINE_OPTIONS
        .iter()
        .filter(|(_, options)| options.contains(&name))
        .flat_map(|(engines, _)| engines.iter().copied())
        .collect();
    (!engines.is_empty()).then_some(engines)
}

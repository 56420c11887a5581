//! Identifies an NVMe namespace and reads one block (the first, or the LBA
//! given) through io_uring passthrough, using only this crate. A block past
//! the end shows how a device's error comes back: "LBA Out of Range".
//!
//! ```sh
//! cargo run -p ioscope-engine --example nvme_read -- /dev/ng0n1 [LBA]
//! ```

use std::path::PathBuf;

use ioscope_engine::nvme::{identify_controller_of, identify_namespace_of, namespace_id};
use ioscope_engine::{
    describe_error, open_queue, Backend, Op, OpenOptions, Queue, QueueConfig, QueueUser, Request,
    Submitted, Target,
};

/// Reads `len` bytes at `offset` into slot 0.
struct ReadBlock {
    offset: u64,
    len: u32,
}

impl QueueUser for ReadBlock {
    type Output = Result<Vec<u8>, String>;

    fn run<Q: Queue>(self, mut queue: Q) -> Self::Output {
        let req = Request {
            op: Op::Read,
            file: 0,
            offset: self.offset,
            len: self.len,
            slot: 0,
        };
        let mut result = 0;
        match queue.submit(&req).map_err(|e| e.to_string())? {
            Submitted::Completed(r) => result = r,
            Submitted::Queued => {
                queue.commit().map_err(|e| e.to_string())?;
                queue
                    .reap(1, 1, |c| result = c.result)
                    .map_err(|e| e.to_string())?;
            }
        }
        if result < 0 {
            return Err(describe_error(-result));
        }
        Ok(queue.buffer(0)[..result as usize].to_vec())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "/dev/ng0n1".into()),
    );
    let lba: u64 = match std::env::args().nth(2) {
        Some(text) => text.parse()?,
        None => 0,
    };
    let target = Target::open(
        &path,
        &OpenOptions {
            read: true,
            ..Default::default()
        },
    )?;
    let nsid = namespace_id(target.fd())?;
    let ctrl = identify_controller_of(target.fd())?;
    let ns = identify_namespace_of(target.fd(), nsid)?;
    let block = ns.block_size();
    println!(
        "{}: {} (serial {}, firmware {}), namespace {nsid}: {} blocks of {block} bytes",
        path.display(),
        ctrl.model,
        ctrl.serial,
        ctrl.firmware,
        ns.nsze
    );
    let config = QueueConfig {
        depth: 1,
        buffer_size: block as usize,
        buffer_align: 4096,
        ..Default::default()
    };
    let data = open_queue(
        Backend::IoUringCmd,
        &config,
        &[target.fd()],
        ReadBlock {
            offset: lba * block,
            len: block as u32,
        },
    )??;
    let shown: Vec<String> = data[..16].iter().map(|b| format!("{b:02x}")).collect();
    println!(
        "block {lba}: {} bytes, first 16: {}",
        data.len(),
        shown.join(" ")
    );
    Ok(())
}

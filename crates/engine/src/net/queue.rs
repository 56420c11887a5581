//! The queue of the network engines: one connected socket, each request
//! sent or received inside [`Queue::submit`], as fio's net engine (a
//! FIO_SYNCIO engine) does.

use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};

use super::halt::Halt;
use super::wire::{self, RawAddr};
use crate::buffer::SlotBuffers;
use crate::engine_options::NetOptions;
use crate::error::EngineError;
use crate::queue::{Queue, Submitted};
use crate::queue_config::QueueConfig;
use crate::request::{bad_request, Op, Request};
use crate::syscall::io_result;
use crate::whole;

/// A queue over one socket. A stream read waits for the whole request
/// (MSG_WAITALL), so only the end of the stream makes it short; a
/// datagram read takes one datagram. After the peer has closed (or sent
/// fio's close message), [`Queue::ended`] says so.
pub struct NetQueue {
    fd: RawFd,
    opts: NetOptions,
    /// UDP: where datagrams go.
    peer: Option<RawAddr>,
    /// netsplice over TCP or vsock: the pipe data goes through (read end,
    /// write end).
    pipe: Option<(OwnedFd, OwnedFd)>,
    /// Bytes the pipe holds at most, so that a vmsplice never waits for
    /// room no one will make.
    pipe_size: usize,
    buffers: SlotBuffers,
    /// When a blocked send or receive stops waiting.
    halt: Halt,
    sent: u64,
    udp_seq: u64,
    wrote: bool,
    ended: bool,
}

// SAFETY: the peer address is plain data; nothing else is shared.
unsafe impl Send for NetQueue {}

impl NetQueue {
    /// A queue over the one connected socket in `fds`, which must stay open
    /// as long as the queue is used. `splice` moves TCP and vsock data
    /// through a pipe (fio's netsplice).
    pub fn new(config: &QueueConfig, fds: &[RawFd], splice: bool) -> Result<NetQueue, EngineError> {
        crate::queue::check_fds("net", fds)?;
        if fds.len() != 1 {
            return Err(EngineError::Setup(format!(
                "the net backend takes one connection, not {}",
                fds.len()
            )));
        }
        let opts = config.net;
        let pipe = if splice && opts.protocol.is_remote_stream() {
            let mut p = [0; 2];
            // SAFETY: `p` has room for the two descriptors.
            if unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
                return Err(EngineError::Setup(format!(
                    "netsplice: pipe: {}",
                    io::Error::last_os_error()
                )));
            }
            // SAFETY: descriptors just made and owned by no one else.
            Some(unsafe { (OwnedFd::from_raw_fd(p[0]), OwnedFd::from_raw_fd(p[1])) })
        } else {
            None
        };
        let pipe_size = match &pipe {
            // SAFETY: plain fcntl on our own descriptor.
            Some((_, w)) => {
                unsafe { libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(w), libc::F_GETPIPE_SZ) }
                    .max(4096) as usize
            }
            None => 0,
        };
        Ok(NetQueue {
            fd: fds[0],
            opts,
            peer: opts
                .peer
                .filter(|_| opts.protocol.is_udp())
                .map(RawAddr::inet),
            pipe,
            pipe_size,
            buffers: SlotBuffers::new(config)?,
            halt: Halt::new(
                fds[0],
                config.stop.clone(),
                // A ramp of unknown length (ramp_size) leaves the waits
                // unbounded by time: the peer or a stop ends them.
                config
                    .runtime
                    .zip(config.ramp_time)
                    .map(|(r, ramp)| r + ramp),
            )?,
            sent: 0,
            udp_seq: 0,
            wrote: false,
            ended: false,
        })
    }

    /// Sends all `len` bytes at `ptr` (one datagram for UDP). Returns the
    /// bytes sent or a negative errno.
    fn send(&mut self, ptr: *mut u8, len: usize, more: bool) -> i64 {
        if let Some(to) = &self.peer {
            loop {
                // SAFETY: `ptr` addresses `len` bytes of this queue's buffers.
                let r = io_result(|| unsafe {
                    libc::sendto(
                        self.fd,
                        ptr.cast(),
                        len,
                        libc::MSG_NOSIGNAL,
                        to.as_ptr(),
                        to.len(),
                    )
                });
                if !self.halt.again(r) {
                    return r;
                }
            }
        }
        if let Some((r, w)) = &self.pipe {
            return splice_out(ptr, len, self.fd, (r, w), self.pipe_size, &self.halt);
        }
        // MSG_NOSIGNAL: a receiver gone away is an EPIPE result, not a
        // signal that ends the process (fio dies of SIGPIPE there).
        let flags = libc::MSG_NOSIGNAL | if more { libc::MSG_MORE } else { 0 };
        let fd = self.fd;
        whole::moved(
            len,
            // SAFETY: as above, for the bytes not sent yet.
            |done| io_result(|| unsafe { libc::send(fd, ptr.add(done).cast(), len - done, flags) }),
            |r| self.halt.again(r),
        )
    }

    /// Receives up to `len` bytes into `ptr`: all of them from a stream
    /// unless it ends first, one datagram from UDP.
    fn recv(&mut self, ptr: *mut u8, len: usize) -> i64 {
        if self.opts.protocol.is_udp() {
            loop {
                // SAFETY: `ptr` addresses `len` bytes of this queue's buffers.
                let r = io_result(|| unsafe { libc::recv(self.fd, ptr.cast(), len, 0) });
                if !self.halt.again(r) {
                    return r;
                }
            }
        }
        if let Some((r, w)) = &self.pipe {
            return splice_in(ptr, len, self.fd, (r, w), self.pipe_size, &self.halt);
        }
        let fd = self.fd;
        whole::moved(
            len,
            |done| {
                // SAFETY: as above, for the bytes not received yet.
                io_result(|| unsafe {
                    libc::recv(fd, ptr.add(done).cast(), len - done, libc::MSG_WAITALL)
                })
            },
            |r| self.halt.again(r),
        )
    }

    fn write(&mut self, ptr: *mut u8, len: usize) -> i64 {
        self.wrote = true;
        if self.opts.protocol.is_udp() {
            // SAFETY: `ptr` addresses `len` bytes of this queue's buffers,
            // which `&mut self` keeps from being used elsewhere.
            let datagram = unsafe { std::slice::from_raw_parts_mut(ptr, len) };
            wire::store_udp_seq(datagram, self.udp_seq);
            self.udp_seq += 1;
        }
        let more = !self.opts.pingpong && self.sent + (len as u64) < self.opts.total_bytes;
        let r = self.send(ptr, len, more);
        if r > 0 {
            self.sent += r as u64;
        }
        if r != len as i64 || !self.opts.pingpong {
            return r;
        }
        // The reply: the same bytes back from the receiver.
        let back = self.recv(ptr, len);
        if back == 0 {
            self.ended = true;
        }
        if back < 0 {
            back
        } else {
            r.min(back)
        }
    }

    fn read(&mut self, ptr: *mut u8, len: usize) -> i64 {
        let r = self.recv(ptr, len);
        if r < 0 {
            return r;
        }
        let got = r as usize;
        // SAFETY: the kernel wrote `got` bytes there.
        let data = unsafe { std::slice::from_raw_parts(ptr, got) };
        if got == wire::LINK_MSG_LEN && wire::is_close_message(data) {
            // fio's sender says it is done; the message is not data.
            self.ended = true;
            return 0;
        }
        if got < len && !self.opts.protocol.is_udp() {
            self.ended = true;
        }
        if got > 0 && self.opts.pingpong {
            let back = self.send(ptr, got, false);
            if back < 0 {
                return back;
            }
        }
        r
    }
}

/// fio's netsplice send: the buffer mapped into the pipe with vmsplice,
/// then spliced to the socket, a pipe's worth at a time.
fn splice_out(
    ptr: *mut u8,
    len: usize,
    sock: RawFd,
    (r, w): (&OwnedFd, &OwnedFd),
    chunk: usize,
    halt: &Halt,
) -> i64 {
    use std::os::fd::AsRawFd;
    let mut done = 0;
    while done < len {
        let n = chunk.min(len - done);
        // SAFETY: within the caller's `len` bytes.
        let put = whole::vmsplice(w.as_raw_fd(), unsafe { ptr.add(done) }, n);
        if put <= 0 {
            return if done > 0 { done as i64 } else { put };
        }
        let out = whole::splice(
            (r.as_raw_fd(), None),
            (sock, None),
            put as usize,
            libc::SPLICE_F_MOVE,
            |r| halt.again(r),
        );
        if out < 0 {
            return out;
        }
        done += out as usize;
        if out < put {
            break;
        }
    }
    done as i64
}

/// fio's netsplice receive: socket data spliced into the pipe, then copied
/// out of it into the buffer with vmsplice.
fn splice_in(
    ptr: *mut u8,
    len: usize,
    sock: RawFd,
    (r, w): (&OwnedFd, &OwnedFd),
    chunk: usize,
    halt: &Halt,
) -> i64 {
    use std::os::fd::AsRawFd;
    let mut done = 0;
    while done < len {
        let n = chunk.min(len - done);
        let got = whole::splice(
            (sock, None),
            (w.as_raw_fd(), None),
            n,
            libc::SPLICE_F_MOVE,
            |r| halt.again(r),
        );
        if got <= 0 {
            return if done > 0 { done as i64 } else { got };
        }
        // SAFETY: within the caller's `len` bytes.
        let out = whole::vmsplice(r.as_raw_fd(), unsafe { ptr.add(done) }, got as usize);
        if out < 0 {
            return out;
        }
        done += out as usize;
        if (got as usize) < n {
            break;
        }
    }
    done as i64
}

impl Drop for NetQueue {
    /// A sender ends the link with fio's close message, which a UDP
    /// receiver needs to know the sender is done. A receiver gone already
    /// makes it fail, which changes nothing.
    fn drop(&mut self) {
        if !self.wrote {
            return;
        }
        // Copied by send(2), not mapped into the pipe as netsplice maps
        // data: the message lives on this stack frame, which is gone
        // before the kernel would read a mapped page (the receiver then
        // saw 8 bytes of whatever replaced it, not the close message).
        self.pipe = None;
        let mut msg = wire::close_message();
        let _ = self.send(msg.as_mut_ptr(), msg.len(), false);
    }
}

impl Queue for NetQueue {
    #[inline]
    fn submit(&mut self, req: &Request) -> io::Result<Submitted> {
        if req.file != 0 {
            return Err(bad_request(
                req,
                "names a file the queue was not opened with",
            ));
        }
        let write = match req.op {
            Op::Read => false,
            Op::Write => true,
            _ => return Err(bad_request(req, "is not supported by the net backend")),
        };
        let Some(ptr) = self.buffers.io_ptr(req.slot, req.len) else {
            return Err(bad_request(
                req,
                "lies outside the queue's buffers (slot >= depth or len > buffer size)",
            ));
        };
        let len = req.len as usize;
        self.halt.begin();
        let result = if write {
            self.write(ptr, len)
        } else {
            self.read(ptr, len)
        };
        if result == -i64::from(libc::EAGAIN) || (result < len as i64 && self.halt.due()) {
            // The job stopped waiting on its peer: what moved counts, and
            // the job ends as at the end of its stream.
            self.ended = true;
            return Ok(Submitted::Completed(result.max(0)));
        }
        if result == -i64::from(libc::ECONNRESET) && !write {
            // The sender went away: the stream has ended.
            self.ended = true;
            return Ok(Submitted::Completed(0));
        }
        Ok(Submitted::Completed(result))
    }

    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }

    fn ended(&self) -> bool {
        self.ended
    }
}

//! fio's client/server framing (server.c, protocol version 97, fio 3.33):
//! each command is a 24-byte little-endian header (struct fio_net_cmd)
//! checked by a CRC-16, then its payload, also checked; a payload over
//! 1024 bytes goes in pieces, each flagged "more" but the last.

use std::io::{Read, Write};

use crc::{Crc, CRC_16_ARC};

/// fio's FIO_SERVER_VER: a client of another version refuses every
/// command, as ioscope's server refuses theirs.
pub const VERSION: u16 = 97;

/// fio's FIO_NET_PORT.
pub const DEFAULT_PORT: u16 = 8765;

/// fio's FIO_SERVER_MAX_FRAGMENT_PDU.
const MAX_PIECE: usize = 1024;

/// fio's FIO_SERVER_MAX_CMD_MB: the largest command accepted, in pieces.
const MAX_COMMAND: usize = 2048 << 20;

/// FIO_NET_CMD_F_MORE: another piece of this payload follows.
const F_MORE: u32 = 1;

const HEADER: usize = 24;

/// The header's checksummed part: all but its two CRCs.
const CHECKED: usize = HEADER - 4;

/// fio's crc16 is the Linux kernel's, CRC-16/ARC.
const CRC16: Crc<u16> = Crc::<u16>::new(&CRC_16_ARC);

/// fio's FIO_NET_CMD_* opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum Op {
    Quit = 1,
    Exit = 2,
    Job = 3,
    JobLine = 4,
    Text = 5,
    Ts = 6,
    Gs = 7,
    SendEta = 8,
    Eta = 9,
    Probe = 10,
    Start = 11,
    Stop = 12,
    Du = 13,
    ServerStart = 14,
    AddJob = 15,
    Run = 16,
    IoLog = 17,
    UpdateJob = 18,
    LoadFile = 19,
    VTrigger = 20,
    SendFile = 21,
    JobOpt = 22,
}

impl Op {
    fn from_u16(v: u16) -> Option<Op> {
        use Op::*;
        const ALL: [Op; 22] = [
            Quit,
            Exit,
            Job,
            JobLine,
            Text,
            Ts,
            Gs,
            SendEta,
            Eta,
            Probe,
            Start,
            Stop,
            Du,
            ServerStart,
            AddJob,
            Run,
            IoLog,
            UpdateJob,
            LoadFile,
            VTrigger,
            SendFile,
            JobOpt,
        ];
        ALL.into_iter().find(|op| *op as u16 == v)
    }
}

/// One command, its pieces joined.
#[derive(Debug)]
pub struct Command {
    pub op: Op,
    /// Echoed in a reply, so that the client matches it to its request.
    pub tag: u64,
    pub payload: Vec<u8>,
}

/// Writes `op` with `payload`, in pieces as fio sends a long payload.
pub fn send(to: &mut impl Write, op: Op, tag: u64, payload: &[u8]) -> std::io::Result<()> {
    let mut pieces = payload.chunks(MAX_PIECE).peekable();
    if pieces.peek().is_none() {
        return to.write_all(&header(op, tag, 0, &[]));
    }
    let mut bytes = Vec::with_capacity(payload.len() + payload.len().div_ceil(MAX_PIECE) * HEADER);
    while let Some(piece) = pieces.next() {
        let flags = if pieces.peek().is_some() { F_MORE } else { 0 };
        bytes.extend_from_slice(&header(op, tag, flags, piece));
        bytes.extend_from_slice(piece);
    }
    to.write_all(&bytes)
}

fn header(op: Op, tag: u64, flags: u32, piece: &[u8]) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[0..2].copy_from_slice(&VERSION.to_le_bytes());
    h[2..4].copy_from_slice(&(op as u16).to_le_bytes());
    h[4..8].copy_from_slice(&flags.to_le_bytes());
    h[8..16].copy_from_slice(&tag.to_le_bytes());
    h[16..20].copy_from_slice(&(piece.len() as u32).to_le_bytes());
    let crc = CRC16.checksum(&h[..CHECKED]);
    h[20..22].copy_from_slice(&crc.to_le_bytes());
    h[22..24].copy_from_slice(&CRC16.checksum(piece).to_le_bytes());
    h
}

/// A QUIT command, whole: what fio's client sends its servers on Ctrl-C,
/// made beforehand so that a signal handler can write it.
pub const QUIT: [u8; HEADER] = {
    let mut h = [0u8; HEADER];
    let [v0, v1] = VERSION.to_le_bytes();
    let [o0, o1] = (Op::Quit as u16).to_le_bytes();
    h[0] = v0;
    h[1] = v1;
    h[2] = o0;
    h[3] = o1;
    let [c0, c1] = CRC16.checksum(h.split_at(CHECKED).0).to_le_bytes();
    h[20] = c0;
    h[21] = c1;
    h
};

/// What ended the reading of a command.
#[derive(Debug)]
pub enum RecvError {
    /// The peer closed the connection between commands.
    Closed,
    Io(std::io::Error),
    /// Not fio's protocol, or not its version: the reason.
    Bad(String),
}

impl std::fmt::Display for RecvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecvError::Closed => write!(f, "the client closed the connection"),
            RecvError::Io(e) => write!(f, "{e}"),
            RecvError::Bad(why) => write!(f, "{why}"),
        }
    }
}

/// Reads one command, joining its pieces (fio_net_recv_cmd).
pub fn recv(from: &mut impl Read) -> Result<Command, RecvError> {
    let mut first: Option<(Op, u64)> = None;
    let mut payload = Vec::new();
    loop {
        let mut h = [0u8; HEADER];
        if let Err(e) = from.read_exact(&mut h) {
            return Err(match (e.kind(), first) {
                (std::io::ErrorKind::UnexpectedEof, None) => RecvError::Closed,
                _ => RecvError::Io(e),
            });
        }
        let u16_at = |at: usize| u16::from_le_bytes([h[at], h[at + 1]]);
        let u32_at = |at: usize| u32::from_le_bytes(h[at..at + 4].try_into().unwrap());
        if CRC16.checksum(&h[..CHECKED]) != u16_at(20) {
            return Err(RecvError::Bad(
                "bad crc on a command's header (not a fio client?)".into(),
            ));
        }
        let version = u16_at(0);
        if version != VERSION {
            return Err(RecvError::Bad(format!(
                "client/server version mismatch ({version} != {VERSION}): this server speaks fio 3.33's protocol"
            )));
        }
        let code = u16_at(2);
        let op =
            Op::from_u16(code).ok_or_else(|| RecvError::Bad(format!("unknown opcode {code}")))?;
        let flags = u32_at(4);
        let tag = u64::from_le_bytes(h[8..16].try_into().unwrap());
        let len = u32_at(16) as usize;
        if len > MAX_PIECE {
            return Err(RecvError::Bad(format!("command payload too large: {len}")));
        }
        match first {
            None => first = Some((op, tag)),
            Some((was, _)) if was != op => {
                return Err(RecvError::Bad(format!(
                    "fragment opcode mismatch ({} != {})",
                    was as u16, code
                )))
            }
            Some(_) => {}
        }
        if payload.len() + len > MAX_COMMAND {
            return Err(RecvError::Bad("command too large".into()));
        }
        let at = payload.len();
        payload.resize(at + len, 0);
        from.read_exact(&mut payload[at..]).map_err(RecvError::Io)?;
        if CRC16.checksum(&payload[at..]) != u16_at(22) {
            return Err(RecvError::Bad("bad crc on a command's payload".into()));
        }
        if flags & F_MORE == 0 {
            let (op, tag) = first.expect("set above");
            return Ok(Command { op, tag, payload });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_payload_goes_in_pieces_and_comes_back_whole() {
        let payload: Vec<u8> = (0..2500u32).map(|i| i as u8).collect();
        let mut wire = Vec::new();
        send(&mut wire, Op::Ts, 9, &payload).unwrap();
        // Three pieces of at most 1024 bytes, each with its header.
        assert_eq!(wire.len(), payload.len() + 3 * HEADER);
        assert_eq!(u32::from_le_bytes(wire[4..8].try_into().unwrap()), F_MORE);
        let got = recv(&mut wire.as_slice()).unwrap();
        assert_eq!((got.op, got.tag), (Op::Ts, 9));
        assert_eq!(got.payload, payload);
    }

    #[test]
    fn a_header_is_byte_for_byte_fios() {
        // A fio 3.33 client's RUN command, captured on the wire: version
        // 97, opcode 16, no flags, tag 0, no payload, its header's CRC
        // 0xbcb0 and the empty payload's 0.
        let captured = [
            0x61, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xb0, 0xbc,
            0x00, 0x00,
        ];
        assert_eq!(header(Op::Run, 0, 0, &[]), captured);
        let mut wire = Vec::new();
        send(&mut wire, Op::Run, 0, &[]).unwrap();
        assert_eq!(wire, captured);
    }

    #[test]
    fn the_prepared_quit_is_a_quit() {
        assert_eq!(QUIT, header(Op::Quit, 0, 0, &[]));
        let got = recv(&mut &QUIT[..]).unwrap();
        assert_eq!((got.op, got.payload.len()), (Op::Quit, 0));
    }

    #[test]
    fn damaged_or_foreign_commands_are_refused() {
        let mut wire = Vec::new();
        send(&mut wire, Op::Probe, 1, b"hello").unwrap();
        let mut bad = wire.clone();
        bad[HEADER] ^= 1;
        assert!(matches!(recv(&mut bad.as_slice()), Err(RecvError::Bad(_))));
        let mut other = wire.clone();
        other[0] = 96;
        let crc = CRC16.checksum(&other[..CHECKED]);
        other[20..22].copy_from_slice(&crc.to_le_bytes());
        let e = recv(&mut other.as_slice()).unwrap_err().to_string();
        assert!(e.contains("96 != 97"), "{e}");
        assert!(matches!(recv(&mut &[][..]), Err(RecvError::Closed)));
    }
}

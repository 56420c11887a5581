//! What the host moves for each logical block of a namespace, from its
//! LBA format (fio's fio_nvme_get_info): the data bytes, the metadata
//! bytes and where they travel (after each block's data in an extended
//! LBA, or in a buffer of their own), and the protection information
//! format. The target's size, the job's checks and the passthrough queue
//! all take it from here.

use super::identify::{Controller, Namespace, NvmNamespace};
use super::pi::{Format, Guard, Layout};

/// A namespace's blocks as the host sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Data bytes per block.
    pub lba: u32,
    /// Metadata bytes per block the host moves: 0 where there is none, or
    /// where PRACT has the controller insert and strip protection
    /// information that is all the metadata there is.
    pub ms: u32,
    /// The metadata follows each block's data in the data buffer.
    pub extended: bool,
    /// The protection information format; None without one.
    pub pi: Option<Format>,
}

impl Geometry {
    /// The geometry of the format in use. `pi_act`: the job sets PRACT
    /// (fio's default). `nvm` is the NVM command set's Identify Namespace,
    /// which the protection information format needs where the controller
    /// describes extended LBA formats.
    pub fn of(
        controller: &Controller,
        ns: &Namespace,
        nvm: Option<&NvmNamespace>,
        pi_act: bool,
    ) -> Result<Geometry, String> {
        let format = ns.format();
        let lba = format.block_size() as u32;
        let mut ms = u32::from(format.ms);
        let pi_type = ns.dps & 0x7;
        let pi = if ms != 0 && pi_type != 0 {
            let guard = if controller.has_extended_lba_formats() {
                let Some(nvm) = nvm else {
                    return Err("failed to fetch identify nvm namespace".into());
                };
                let elbaf = nvm.elbaf.get(ns.format_index()).copied().unwrap_or(0);
                if elbaf & 0x7f != 0 {
                    return Err("Storage tag not supported".into());
                }
                match (elbaf >> 7) & 0x3 {
                    0 => Guard::Crc16,
                    2 => Guard::Crc64,
                    other => {
                        return Err(format!(
                            "protection information format {other} (a 32-bit guard needs \
                             storage tags) is not supported"
                        ))
                    }
                }
            } else {
                Guard::Crc16
            };
            Some(Format {
                pi_type,
                guard,
                first: ns.dps & 0x8 != 0,
            })
        } else {
            None
        };
        // PRACT with nothing but protection information in the metadata:
        // the controller adds and removes all of it, the host moves data.
        if pi_act && pi.is_some_and(|f| ms as usize == f.size()) {
            ms = 0;
        }
        Ok(Geometry {
            lba,
            ms,
            extended: ms != 0 && ns.extended_lba(),
            pi,
        })
    }

    /// Bytes of one block in the data buffer (fio's lba_ext or lba_size).
    pub fn block(&self) -> u32 {
        if self.extended {
            self.lba + self.ms
        } else {
            self.lba
        }
    }

    /// Metadata the host moves in a buffer of its own, per block.
    pub fn separate_ms(&self) -> u32 {
        if self.extended {
            0
        } else {
            self.ms
        }
    }

    pub fn layout(&self) -> Layout {
        Layout {
            lba: self.lba as usize,
            ms: self.ms as usize,
            extended: self.extended,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvme::LbaFormat;

    fn namespace(ms: u16, flbas: u8, dps: u8) -> Namespace {
        Namespace {
            flbas,
            dps,
            formats: vec![LbaFormat {
                ms,
                lbads: 9,
                rp: 0,
            }],
            ..Namespace::default()
        }
    }

    #[test]
    fn pract_strips_metadata_that_is_only_protection_information() {
        let c = Controller::default();
        // 8 bytes of type 1 PI, extended: PRACT leaves plain 512-byte
        // blocks; without it each block is 520 bytes.
        let ns = namespace(8, 0x10, 1);
        let g = Geometry::of(&c, &ns, None, true).unwrap();
        assert_eq!((g.block(), g.ms, g.extended), (512, 0, false));
        assert!(g.pi.is_some());
        let g = Geometry::of(&c, &ns, None, false).unwrap();
        assert_eq!((g.block(), g.ms, g.extended), (520, 8, true));
        // 16 bytes of metadata in a separate buffer stay with PRACT.
        let ns = namespace(16, 0, 0x9);
        let g = Geometry::of(&c, &ns, None, true).unwrap();
        assert_eq!((g.block(), g.separate_ms()), (512, 16));
        assert!(g.pi.unwrap().first);
        // Metadata without protection information.
        let g = Geometry::of(&c, &namespace(8, 0, 0), None, true).unwrap();
        assert_eq!((g.ms, g.pi), (8, None));
    }

    #[test]
    fn the_guard_size_comes_from_the_extended_lba_format() {
        let c = Controller {
            ctratt: 1 << 15,
            ..Controller::default()
        };
        let ns = namespace(16, 0, 1);
        let nvm = |elbaf: u32| NvmNamespace {
            elbaf: vec![elbaf; 64],
        };
        let g = Geometry::of(&c, &ns, Some(&nvm(2 << 7)), false).unwrap();
        assert_eq!(g.pi.unwrap().guard, Guard::Crc64);
        // PRACT with 16 bytes of 64-bit-guard PI: nothing for the host.
        assert_eq!(
            Geometry::of(&c, &ns, Some(&nvm(2 << 7)), true).unwrap().ms,
            0
        );
        let err = Geometry::of(&c, &ns, Some(&nvm(8)), false).unwrap_err();
        assert_eq!(err, "Storage tag not supported");
        assert!(Geometry::of(&c, &ns, None, false).is_err());
    }
}

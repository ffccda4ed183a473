//! The memory a hart executes against. The chip supplies the implementation (private tile memory, later
//! memory-mapped network interfaces); the executor is generic over it so accesses inline.

/// Why an access failed. Misaligned accesses are reported, not emulated: a classic 5-stage core traps on them,
/// and with no trap handler in a bare-metal program that stops the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemFault {
    #[error("{kind} of {size} bytes at {addr:#x} is outside memory")]
    OutOfRange { addr: u64, size: u32, kind: AccessKind },
    #[error("misaligned {kind} of {size} bytes at {addr:#x}")]
    Misaligned { addr: u64, size: u32, kind: AccessKind },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Load,
    Store,
    Fetch,
}

impl std::fmt::Display for AccessKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AccessKind::Load => "load",
            AccessKind::Store => "store",
            AccessKind::Fetch => "instruction fetch",
        })
    }
}

/// Byte-addressed little-endian memory. `size` is 1, 2, 4 or 8.
pub trait Memory {
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, MemFault>;
    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), MemFault>;
}

/// A contiguous RAM at `base`: the memory of one tile, and a convenient memory for tests.
#[derive(Clone, Debug)]
pub struct Ram {
    pub base: u64,
    pub bytes: Vec<u8>,
}

impl Ram {
    /// `size` bytes of zeroed memory. Large sizes cost nothing until touched (the allocation is lazily zeroed by
    /// the operating system).
    pub fn new(base: u64, size: usize) -> Ram {
        Ram { base, bytes: vec![0; size] }
    }

    pub fn end(&self) -> u64 {
        self.base + self.bytes.len() as u64
    }

    /// The byte range of an access, if it lies inside the RAM and is naturally aligned.
    #[inline(always)]
    fn range(&self, addr: u64, size: u32, kind: AccessKind) -> Result<usize, MemFault> {
        let off = addr.wrapping_sub(self.base);
        if off >= self.bytes.len() as u64 || self.bytes.len() as u64 - off < u64::from(size) {
            return Err(MemFault::OutOfRange { addr, size, kind });
        }
        if addr & u64::from(size - 1) != 0 {
            return Err(MemFault::Misaligned { addr, size, kind });
        }
        Ok(off as usize)
    }

    /// Copies `data` to `addr` (program loading); fails if it does not fit.
    pub fn write_bytes(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        let off = addr.wrapping_sub(self.base);
        if off > self.bytes.len() as u64 || (self.bytes.len() as u64 - off) < data.len() as u64 {
            return Err(MemFault::OutOfRange { addr, size: data.len() as u32, kind: AccessKind::Store });
        }
        self.bytes[off as usize..off as usize + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// The bytes at `addr..addr+len`, if inside the RAM.
    pub fn slice(&self, addr: u64, len: usize) -> Option<&[u8]> {
        let off = addr.checked_sub(self.base)? as usize;
        self.bytes.get(off..off.checked_add(len)?)
    }

    pub fn slice_mut(&mut self, addr: u64, len: usize) -> Option<&mut [u8]> {
        let off = addr.checked_sub(self.base)? as usize;
        self.bytes.get_mut(off..off.checked_add(len)?)
    }
}

impl Memory for Ram {
    #[inline(always)]
    fn load(&mut self, addr: u64, size: u32) -> Result<u64, MemFault> {
        let off = self.range(addr, size, AccessKind::Load)?;
        let b = &self.bytes[off..];
        Ok(match size {
            1 => u64::from(b[0]),
            2 => u64::from(u16::from_le_bytes([b[0], b[1]])),
            4 => u64::from(u32::from_le_bytes(b[..4].try_into().unwrap())),
            _ => u64::from_le_bytes(b[..8].try_into().unwrap()),
        })
    }

    #[inline(always)]
    fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), MemFault> {
        let off = self.range(addr, size, AccessKind::Store)?;
        let b = &mut self.bytes[off..];
        match size {
            1 => b[0] = value as u8,
            2 => b[..2].copy_from_slice(&(value as u16).to_le_bytes()),
            4 => b[..4].copy_from_slice(&(value as u32).to_le_bytes()),
            _ => b[..8].copy_from_slice(&value.to_le_bytes()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn little_endian_round_trip_and_faults() {
        let mut m = Ram::new(0x1000, 64);
        m.store(0x1008, 8, 0x0102_0304_0506_0708).unwrap();
        assert_eq!(m.load(0x1008, 1).unwrap(), 0x08);
        assert_eq!(m.load(0x100c, 4).unwrap(), 0x0102_0304);
        assert_eq!(m.load(0x1038, 8).unwrap(), 0);
        assert_eq!(m.load(0x1040, 1), Err(MemFault::OutOfRange { addr: 0x1040, size: 1, kind: AccessKind::Load }));
        assert_eq!(m.load(0x0fff, 1), Err(MemFault::OutOfRange { addr: 0x0fff, size: 1, kind: AccessKind::Load }));
        assert_eq!(m.store(0x1002, 4, 0), Err(MemFault::Misaligned { addr: 0x1002, size: 4, kind: AccessKind::Store }));
        assert_eq!(m.load(u64::MAX - 2, 8), Err(MemFault::OutOfRange { addr: u64::MAX - 2, size: 8, kind: AccessKind::Load }));
        assert!(m.write_bytes(0x1030, &[0; 17]).is_err());
        assert!(m.write_bytes(0x1030, &[0; 16]).is_ok());
    }
}

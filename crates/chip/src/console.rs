//! Per-core console output. Bytes a core writes are collected into lines stamped with the cycle the line was
//! completed, so the chip can print all cores' lines in simulated-time order, the same whatever order the cores
//! were simulated in.

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Stdout,
    Stderr,
}

/// One line of a core's output, without its newline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsoleLine {
    pub cycle: u64,
    pub core: usize,
    pub stream: Stream,
    /// The bytes as written (not necessarily UTF-8).
    pub text: Vec<u8>,
    /// False for a last line that ended without a newline.
    pub newline: bool,
}

/// A core's partly written lines and the finished ones not yet handed out.
#[derive(Clone, Debug, Default)]
pub struct Console {
    partial: [Vec<u8>; 2],
    pub finished: Vec<ConsoleLine>,
    pub bytes_written: u64,
}

impl Console {
    pub fn write(&mut self, core: usize, stream: Stream, bytes: &[u8], cycle: u64) {
        self.bytes_written += bytes.len() as u64;
        let partial = &mut self.partial[stream as usize];
        for &b in bytes {
            if b == b'\n' {
                self.finished.push(ConsoleLine { cycle, core, stream, text: std::mem::take(partial), newline: true });
            } else {
                partial.push(b);
            }
        }
    }

    /// Forgets the lines completed after `cycle` and the unfinished ones (a core stopped at `cycle` by another's
    /// abort, which may have run past it).
    pub fn discard_after(&mut self, cycle: u64) {
        self.finished.retain(|l| l.cycle <= cycle);
        self.partial = Default::default();
    }

    /// Turns unfinished lines into lines (at the end of the run).
    pub fn flush_partial(&mut self, core: usize, cycle: u64) {
        for stream in [Stream::Stdout, Stream::Stderr] {
            let partial = &mut self.partial[stream as usize];
            if !partial.is_empty() {
                self.finished.push(ConsoleLine { cycle, core, stream, text: std::mem::take(partial), newline: false });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lines_and_keeps_streams_apart() {
        let mut c = Console::default();
        c.write(3, Stream::Stdout, b"ab", 10);
        c.write(3, Stream::Stderr, b"err\n", 11);
        c.write(3, Stream::Stdout, b"c\nd", 12);
        c.flush_partial(3, 20);
        let got: Vec<_> = c.finished.iter().map(|l| (l.cycle, l.stream, String::from_utf8_lossy(&l.text).into_owned(), l.newline)).collect();
        assert_eq!(
            got,
            vec![
                (11, Stream::Stderr, "err".to_string(), true),
                (12, Stream::Stdout, "abc".to_string(), true),
                (20, Stream::Stdout, "d".to_string(), false),
            ]
        );
    }
}

//! Where a line lives: its home tile, as the Tilera chips choose it.
//!
//! - **Local homing**: a page is homed at the tile that touches it first (in global time order, so the choice is
//!   deterministic).
//! - **Remote homing**: every page at one chosen tile.
//! - **Hash-for-home**: each line at a tile picked by a hash of its address, spreading a page's lines over all tiles.
//!
//! The hybrid MPI/OpenMP study on the TilePro applies hash-for-home per program section, in five modes
//! ([`HashMode`]); the sections it does not hash keep the base policy (local or remote).

use std::collections::HashMap;

/// Kinds of program sections, as the hashing modes name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Section {
    Text,
    ReadOnly,
    Data,
    Bss,
    Heap,
    Stack,
}

/// Which sections are hashed for home: the five modes of the hybrid study.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HashMode {
    /// Nothing: every section keeps the base policy (the default of `nocmsg run --hash-mode`).
    #[default]
    None,
    /// Text and read-only data.
    Ro,
    /// Text, read-only data, data and bss.
    Static,
    /// Everything but the stacks.
    Allbutstack,
    /// Everything.
    All,
}

impl HashMode {
    pub const ALL: [HashMode; 5] = [HashMode::None, HashMode::Ro, HashMode::Static, HashMode::Allbutstack, HashMode::All];

    /// Whether the mode hashes `section`.
    pub fn hashes(self, section: Section) -> bool {
        use Section::*;
        match self {
            HashMode::None => false,
            HashMode::Ro => matches!(section, Text | ReadOnly),
            HashMode::Static => matches!(section, Text | ReadOnly | Data | Bss),
            HashMode::Allbutstack => section != Stack,
            HashMode::All => true,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            HashMode::None => "none",
            HashMode::Ro => "ro",
            HashMode::Static => "static",
            HashMode::Allbutstack => "allbutstack",
            HashMode::All => "all",
        }
    }

    pub fn parse(text: &str) -> Result<HashMode, String> {
        HashMode::ALL.into_iter().find(|m| m.name() == text).ok_or_else(|| {
            let names: Vec<&str> = HashMode::ALL.iter().map(|m| m.name()).collect();
            format!("unknown hashing mode {text:?}: expected one of {}", names.join(", "))
        })
    }
}

/// Where the lines the mode does not hash are homed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Base {
    /// At the tile that touches the page first.
    #[default]
    Local,
    /// At this tile.
    Remote(usize),
}

impl Base {
    /// `local`, or `remote:T` (T: the index of a core of the run, whose tile homes every page).
    pub fn parse(text: &str) -> Result<Base, String> {
        match text.split_once(':') {
            None if text == "local" => Ok(Base::Local),
            Some(("remote", t)) => t.parse().map(Base::Remote).map_err(|_| format!("homing {text:?}: remote:T takes a core index")),
            _ => Err(format!("unknown homing {text:?}: expected local or remote:T (T a core index)")),
        }
    }
}

/// The home of every line of one address space.
#[derive(Clone, Debug)]
pub struct Homing {
    /// Sections as `[lo, hi)` address ranges, sorted; addresses in none count as heap.
    sections: Vec<(u64, u64, Section)>,
    mode: HashMode,
    base: Base,
    /// The tiles lines are hashed over (the process's tiles).
    tiles: Vec<usize>,
    page_bytes: u64,
    line_bytes: u64,
    /// Pages homed so far by first touch.
    first_touch: HashMap<u64, usize>,
}

impl Homing {
    pub fn new(mut sections: Vec<(u64, u64, Section)>, mode: HashMode, base: Base, tiles: Vec<usize>, page_bytes: u64, line_bytes: u64) -> Homing {
        assert!(!tiles.is_empty(), "lines are homed over at least one tile");
        sections.sort_by_key(|s| s.0);
        Homing { sections, mode, base, tiles, page_bytes, line_bytes, first_touch: HashMap::new() }
    }

    /// The section holding `addr` (bits from 40 up name the address space, see `crate::memory`, and are ignored).
    pub fn section(&self, addr: u64) -> Section {
        let addr = addr & ((1 << 40) - 1);
        let i = self.sections.partition_point(|s| s.0 <= addr);
        match i.checked_sub(1).map(|i| self.sections[i]) {
            Some((_, hi, section)) if addr < hi => section,
            _ => Section::Heap,
        }
    }

    /// The home of the line holding `addr`, which tile `toucher` accesses (the first touch of a locally homed page
    /// homes it there).
    pub fn home(&mut self, addr: u64, toucher: usize) -> usize {
        if self.mode.hashes(self.section(addr)) {
            return self.tiles[(mix(addr / self.line_bytes) % self.tiles.len() as u64) as usize];
        }
        match self.base {
            Base::Remote(tile) => tile,
            Base::Local => *self.first_touch.entry(addr / self.page_bytes).or_insert(toucher),
        }
    }

    /// The home `home` would give, without homing a page untouched so far (`None` then).
    pub fn known_home(&self, addr: u64) -> Option<usize> {
        if self.mode.hashes(self.section(addr)) {
            return Some(self.tiles[(mix(addr / self.line_bytes) % self.tiles.len() as u64) as usize]);
        }
        match self.base {
            Base::Remote(tile) => Some(tile),
            Base::Local => self.first_touch.get(&(addr / self.page_bytes)).copied(),
        }
    }
}

/// A fixed mixing of a line number (SplitMix64's finaliser), so that strided lines still spread over the tiles.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sections() -> Vec<(u64, u64, Section)> {
        vec![
            (0x1000, 0x2000, Section::Text),
            (0x2000, 0x3000, Section::ReadOnly),
            (0x3000, 0x4000, Section::Data),
            (0x4000, 0x5000, Section::Bss),
            (0xf000, 0x10000, Section::Stack),
        ]
    }

    #[test]
    fn modes_hash_the_sections_the_study_names() {
        use Section::*;
        let table = [
            (HashMode::None, vec![]),
            (HashMode::Ro, vec![Text, ReadOnly]),
            (HashMode::Static, vec![Text, ReadOnly, Data, Bss]),
            (HashMode::Allbutstack, vec![Text, ReadOnly, Data, Bss, Heap]),
            (HashMode::All, vec![Text, ReadOnly, Data, Bss, Heap, Stack]),
        ];
        for (mode, hashed) in table {
            for s in [Text, ReadOnly, Data, Bss, Heap, Stack] {
                assert_eq!(mode.hashes(s), hashed.contains(&s), "{mode:?} {s:?}");
            }
            assert_eq!(HashMode::parse(mode.name()), Ok(mode));
        }
        assert!(HashMode::parse("most").unwrap_err().contains("none, ro, static, allbutstack, all"));
    }

    #[test]
    fn base_policies_parse() {
        assert_eq!(Base::parse("local"), Ok(Base::Local));
        assert_eq!(Base::parse("remote:12"), Ok(Base::Remote(12)));
        assert!(Base::parse("remote:x").unwrap_err().contains("takes a core index"));
        assert!(Base::parse("hash").unwrap_err().contains("expected local or remote:T"));
    }

    #[test]
    fn local_homing_follows_the_first_touch_of_each_page() {
        let mut h = Homing::new(sections(), HashMode::None, Base::Local, (0..4).collect(), 4096, 64);
        assert_eq!(h.known_home(0x8000), None);
        assert_eq!(h.home(0x8010, 3), 3);
        assert_eq!(h.home(0x8ff8, 1), 3, "same page");
        assert_eq!(h.home(0x9000, 1), 1, "next page");
        assert_eq!(h.section(0x8000), Section::Heap);
        assert_eq!(h.section(0xf800), Section::Stack);
    }

    #[test]
    fn hashed_lines_spread_over_the_tiles_and_remote_homing_picks_one() {
        let tiles: Vec<usize> = (0..16).collect();
        let mut h = Homing::new(sections(), HashMode::All, Base::Local, tiles.clone(), 4096, 64);
        let mut count = [0u32; 16];
        for line in 0..1600u64 {
            let home = h.home(0x10_0000 + 64 * line, 0);
            assert_eq!(home, h.home(0x10_0000 + 64 * line + 63, 5), "one home per line, whoever asks");
            count[home] += 1;
        }
        assert!(count.iter().all(|&c| (60..=140).contains(&c)), "spread: {count:?}");
        let mut r = Homing::new(sections(), HashMode::Ro, Base::Remote(7), tiles, 4096, 64);
        assert_eq!(r.home(0x3000, 2), 7, "data is not hashed in ro mode");
        assert_eq!(r.home(0xf000, 2), 7);
        let text_homes: std::collections::HashSet<usize> = (0..64).map(|l| r.home(0x1000 + 64 * l, 2)).collect();
        assert!(text_homes.len() > 4, "text is hashed: {text_homes:?}");
    }
}

//! Seeded perturbation of the cores (`nocmsg run --perturb`), to study how much run times vary from run to run while
//! each seed stays deterministic: every core starts up to `skew` cycles late, and loses `noise` cycles about every
//! `period` cycles (a timer tick, an interrupt, a daemon: the operating-system noise of a real chip), at jittered
//! times. The lost cycles are `stalls.noise` in `stats.json`.
//!
//! A core is perturbed at the boundaries of its runs ([`crate::core::Core::run`] stops at its next noise cycle), so
//! the fast loop pays nothing and both clockings perturb at the same instruction boundary.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// `--perturb seed=S,skew=C,period=P,noise=N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerturbSpec {
    pub seed: u64,
    /// Each core starts at a cycle drawn from `[0, skew]`.
    pub skew: u64,
    /// Mean cycles between two noise events of a core (0: none); each interval is drawn from `[period/2, 3 period/2]`.
    pub period: u64,
    /// Cycles each noise event takes from the core.
    pub noise: u64,
}

impl PerturbSpec {
    /// Parses `key=value` pairs separated by commas: `seed` (default 1), `skew`, `period`, `noise` (cycles; default 0).
    pub fn parse(text: &str) -> Result<PerturbSpec, String> {
        let mut spec = PerturbSpec { seed: 1, skew: 0, period: 0, noise: 0 };
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) =
                part.split_once('=').ok_or_else(|| format!("--perturb: '{part}' is not key=value (keys: seed, skew, period, noise)"))?;
            let v: u64 = value.parse().map_err(|_| format!("--perturb {key}={value}: not a whole number"))?;
            match key {
                "seed" => spec.seed = v,
                "skew" => spec.skew = v,
                "period" => spec.period = v,
                "noise" => spec.noise = v,
                other => return Err(format!("--perturb: unknown key '{other}' (keys: seed, skew, period, noise)")),
            }
        }
        if (spec.period == 0) != (spec.noise == 0) {
            return Err(format!("--perturb {text}: give both period= and noise= (or neither)"));
        }
        if spec.period > 0 && spec.noise >= spec.period {
            return Err(format!("--perturb {text}: noise= ({}) must be shorter than period= ({})", spec.noise, spec.period));
        }
        Ok(spec)
    }
}

/// The perturbation of a run's cores.
#[derive(Clone, Debug)]
pub struct Perturbation {
    spec: PerturbSpec,
    rng: Vec<Xoshiro256PlusPlus>,
    /// Per core: the cycle of its next noise event (`u64::MAX`: none).
    next: Vec<u64>,
}

impl Perturbation {
    /// For `cores` cores; returns it and each core's start delay.
    pub fn new(spec: PerturbSpec, cores: usize) -> (Perturbation, Vec<u64>) {
        let mut rng: Vec<Xoshiro256PlusPlus> =
            (0..cores).map(|c| Xoshiro256PlusPlus::seed_from_u64(spec.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ c as u64)).collect();
        let skews: Vec<u64> = rng.iter_mut().map(|r| if spec.skew > 0 { r.random_range(0..=spec.skew) } else { 0 }).collect();
        let mut p = Perturbation { spec, rng, next: vec![u64::MAX; cores] };
        for (c, &s) in skews.iter().enumerate() {
            p.next[c] = p.interval(c).map_or(u64::MAX, |i| s + i);
        }
        (p, skews)
    }

    fn interval(&mut self, core: usize) -> Option<u64> {
        let p = self.spec.period;
        (p > 0).then(|| self.rng[core].random_range(p / 2..=p + p / 2).max(1))
    }

    /// The cycle at which core `core` must stop for its next noise event.
    pub fn next(&self, core: usize) -> u64 {
        self.next[core]
    }

    /// Core `core` stopped at `cycle`: the cycles it loses now (0 if its next event is still ahead).
    pub fn due(&mut self, core: usize, cycle: u64) -> u64 {
        if cycle < self.next[core] {
            return 0;
        }
        let noise = self.spec.noise;
        self.next[core] = self.interval(core).map_or(u64::MAX, |i| cycle + noise + i);
        noise
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_say_why() {
        assert_eq!(PerturbSpec::parse("seed=3,skew=100,period=1000,noise=50"), Ok(PerturbSpec { seed: 3, skew: 100, period: 1000, noise: 50 }));
        assert_eq!(PerturbSpec::parse("skew=7"), Ok(PerturbSpec { seed: 1, skew: 7, period: 0, noise: 0 }));
        assert!(PerturbSpec::parse("period=100").unwrap_err().contains("give both"));
        assert!(PerturbSpec::parse("period=100,noise=100").unwrap_err().contains("shorter"));
        assert!(PerturbSpec::parse("jitter=3").unwrap_err().contains("unknown key 'jitter'"));
        assert!(PerturbSpec::parse("skew=x").unwrap_err().contains("not a whole number"));
    }

    #[test]
    fn a_seed_gives_the_same_perturbation_and_another_seed_another() {
        let spec = PerturbSpec { seed: 5, skew: 1000, period: 500, noise: 20 };
        let run = |spec: PerturbSpec| {
            let (mut p, skews) = Perturbation::new(spec, 4);
            let mut lost = vec![0u64; 4];
            for c in 0..4 {
                let mut cycle = skews[c];
                while cycle < 100_000 {
                    cycle = p.next(c).min(100_000);
                    let n = p.due(c, cycle);
                    lost[c] += n;
                    cycle += n;
                }
            }
            (skews, lost)
        };
        let (a, b) = (run(spec), run(spec));
        assert_eq!(a, b);
        assert!(a.0.iter().all(|&s| s <= 1000) && a.0.iter().any(|&s| s > 0));
        // About 100,000 / 500 events of 20 cycles each per core.
        assert!(a.1.iter().all(|&l| (3_000..=5_000).contains(&l)), "{:?}", a.1);
        assert_ne!(run(PerturbSpec { seed: 6, ..spec }), a);
    }
}

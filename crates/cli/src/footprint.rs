//! Memory a run will need, checked against what this machine can give before anything large is built.
//!
//! Issue 14 item 8: a configuration too large for the machine used to abort on a failed allocation
//! (`traffic --mesh 1024x1024 --concentration 4 --vcs 8 --buffer-flits 64` asked for 64 GiB at once, after 17 s and
//! 5 GB of smaller ones). The estimates come from the crates that allocate (`noc::NetworkConfig::memory`,
//! `chip::footprint`); this module adds the process itself, finds out what the machine can give and refuses with one
//! line saying how much is needed.
//!
//! What the machine can give: `MemAvailable` from `/proc/meminfo`, lowered to the cgroup's memory limit when one is
//! set (`memory.max`, or `memory.limit_in_bytes` under cgroup v1). The environment variable
//! `NOCMSG_MEMORY_AVAILABLE` overrides both: a size such as `16G`, `512M` or `1000000` (bytes), or `unlimited` to
//! skip the check. Where neither `/proc/meminfo` nor the variable is there, nothing is checked.

use crate::Exit;

/// The process before any simulation state: code, libraries, stacks, allocator, chip file and program. The peak
/// resident memory of `nocmsg traffic --mesh 2x2 --rate 0.01 --warmup 10 --measure 10 -q` and of `nocmsg run` of
/// `tests/programs/hello.c` on 1 core of pimp-4x4 measured 3.9 to 4.1 MiB; rounded up for more threads' stacks.
pub const PROCESS_BASE_BYTES: u64 = 6 << 20;

/// The variable that overrides the memory this machine is taken to have.
pub const AVAILABLE_VAR: &str = "NOCMSG_MEMORY_AVAILABLE";

/// Memory the machine can give and where the figure comes from, or `None` when no limit is known or wanted.
pub fn available() -> Result<Option<(u64, String)>, Exit> {
    if let Some(value) = std::env::var_os(AVAILABLE_VAR) {
        let value = value.to_string_lossy();
        if value.trim() == "unlimited" {
            return Ok(None);
        }
        let bytes = parse_size(&value).map_err(|e| Exit::Usage(format!("{AVAILABLE_VAR}={value}: {e}")))?;
        return Ok(Some((bytes, format!("{AVAILABLE_VAR} allows {}", human(bytes)))));
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| meminfo_available(&text));
    let Some(mem) = meminfo else { return Ok(None) };
    let limit = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
        .iter()
        .find_map(|path| std::fs::read_to_string(path).ok().and_then(|t| t.trim().parse::<u64>().ok()));
    Ok(Some(match limit {
        Some(limit) if limit < mem => (limit, format!("this machine's memory limit (cgroup) is {}", human(limit))),
        _ => (mem, format!("this machine has {} available", human(mem))),
    }))
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn meminfo_available(text: &str) -> Option<u64> {
    let kib = text.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()?;
    Some(kib.saturating_mul(1024))
}

/// "16G", "512 MiB", "1000000": a size in bytes (K, M, G and T are powers of 1024).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let number: f64 = number.parse().map_err(|_| "not a size (e.g. 16G, 512M or a number of bytes)".to_string())?;
    let shift = match unit.trim().to_ascii_uppercase().trim_end_matches("IB").trim_end_matches('B') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("unknown unit '{}' (use K, M, G or T)", unit.trim())),
    };
    let bytes = number * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err("too large".into());
    }
    Ok(bytes as u64)
}

/// A size for people: "68.7 GiB", "312 MiB", "900 bytes".
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if value >= 99.95 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Refuses (exit 2, one line) when `needed` bytes exceed what the machine can give: "`what` needs about N[ (why)];
/// this machine has M available".
pub fn check(needed: u64, what: &str, breakdown: &str) -> anyhow::Result<()> {
    if let Some((available, source)) = available()? {
        if needed > available {
            let why = if breakdown.is_empty() { String::new() } else { format!(" ({breakdown})") };
            return Err(Exit::Usage(format!("{what} needs about {}{why}; {source}", human(needed))).into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_and_print() {
        assert_eq!(parse_size("16G"), Ok(16 << 30));
        assert_eq!(parse_size("512 MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert_eq!(parse_size("1000000"), Ok(1_000_000));
        assert!(parse_size("lots").unwrap_err().contains("not a size"));
        assert!(parse_size("3 parsecs").unwrap_err().contains("unknown unit"));
        assert!(parse_size("99999999999T").unwrap_err().contains("too large"));
        assert_eq!(human(900), "900 bytes");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(312 << 20), "312 MiB");
        assert_eq!(human(73_786_976_294), "68.7 GiB");
    }

    #[test]
    fn mem_available_is_read_from_meminfo() {
        let text = "MemTotal:       24684096 kB\nMemFree:        23441344 kB\nMemAvailable:   23854404 kB\n";
        assert_eq!(meminfo_available(text), Some(23_854_404 * 1024));
        assert_eq!(meminfo_available("MemTotal: 1 kB\n"), None);
    }
}

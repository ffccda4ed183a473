//! Small argument types, each parsed and tested on its own.

use std::str::FromStr;

/// `WxH`, both at least 1: the router mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshSize {
    pub width: u32,
    pub height: u32,
}

impl FromStr for MeshSize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("mesh '{s}' is not of the form WxH (e.g. 8x8)"))?;
        let parse = |v: &str, what: &str| -> Result<u32, String> {
            v.trim().parse::<u32>().map_err(|_| format!("mesh '{s}': {what} '{v}' is not a whole number"))
        };
        let (width, height) = (parse(w, "width")?, parse(h, "height")?);
        if width == 0 || height == 0 {
            return Err(format!("mesh '{s}': both dimensions must be at least 1"));
        }
        if width > noc::config::MAX_MESH_SIDE || height > noc::config::MAX_MESH_SIDE {
            return Err(format!("mesh '{s}': each dimension must be at most {}", noc::config::MAX_MESH_SIDE));
        }
        Ok(MeshSize { width, height })
    }
}

/// A rate in flits/node/cycle, in [0, 1].
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let r: f64 = s.trim().parse().map_err(|_| format!("rate '{s}' is not a number"))?;
    if !(0.0..=1.0).contains(&r) {
        return Err(format!("rate {s} is outside [0, 1] flits/node/cycle"));
    }
    Ok(r)
}

/// `START:STOP:STEP`, inclusive of STOP, all in [0, 1].
#[derive(Clone, Debug, PartialEq)]
pub struct RateRange(pub Vec<f64>);

pub const MAX_RATES: usize = 1000;

impl FromStr for RateRange {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(':').collect();
        if parts.len() != 3 {
            return Err(format!("rate range '{s}' is not of the form START:STOP:STEP (e.g. 0.05:0.5:0.05)"));
        }
        let start = parse_rate(parts[0]).map_err(|e| format!("rate range '{s}': {e}"))?;
        let stop = parse_rate(parts[1]).map_err(|e| format!("rate range '{s}': {e}"))?;
        let step: f64 = parts[2].trim().parse().map_err(|_| format!("rate range '{s}': step '{}' is not a number", parts[2]))?;
        if step.is_nan() || step <= 0.0 {
            return Err(format!("rate range '{s}': step must be positive"));
        }
        if stop < start {
            return Err(format!("rate range '{s}': stop {stop} is below start {start}"));
        }
        let count = ((stop - start) / step + 1e-9).floor() as usize + 1;
        if count > MAX_RATES {
            return Err(format!("rate range '{s}' has {count} rates; at most {MAX_RATES}"));
        }
        // Round to 1e-9 so 0.1 + 2 * 0.05 prints as 0.2, not 0.20000000000000004.
        Ok(RateRange((0..count).map(|k| ((start + k as f64 * step) * 1e9).round() / 1e9).collect()))
    }
}

/// A comma-separated list of node ids, as one value. (A parser returning a bare `Vec` would make clap store a `Vec`
/// where the derive code reads back single ids: the mismatch panicked on every use of `--hotspot-nodes`.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeList(pub Vec<u32>);

impl FromStr for NodeList {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        s.split(',')
            .map(|v| v.trim().parse::<u32>().map_err(|_| format!("node list '{s}': '{v}' is not a node id")))
            .collect::<Result<_, _>>()
            .map(NodeList)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mesh_sizes() {
        assert_eq!("8x8".parse::<MeshSize>(), Ok(MeshSize { width: 8, height: 8 }));
        assert_eq!("6X4".parse::<MeshSize>(), Ok(MeshSize { width: 6, height: 4 }));
        assert!("0x8".parse::<MeshSize>().unwrap_err().contains("at least 1"));
        assert!("8".parse::<MeshSize>().unwrap_err().contains("WxH"));
        assert!("8xa".parse::<MeshSize>().unwrap_err().contains("height 'a'"));
        assert!("2000x2".parse::<MeshSize>().unwrap_err().contains("at most"));
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("0.25"), Ok(0.25));
        assert_eq!(parse_rate("0"), Ok(0.0));
        assert!(parse_rate("1.5").unwrap_err().contains("outside [0, 1]"));
        assert!(parse_rate("-0.1").unwrap_err().contains("outside"));
        assert!(parse_rate("fast").unwrap_err().contains("not a number"));
    }

    #[test]
    fn rate_ranges_include_the_stop_value() {
        let r: RateRange = "0.05:0.5:0.05".parse().unwrap();
        assert_eq!(r.0.len(), 10);
        assert_eq!(r.0[0], 0.05);
        assert_eq!(r.0[2], 0.15);
        assert_eq!(*r.0.last().unwrap(), 0.5);
        assert_eq!("0.1:0.1:0.5".parse::<RateRange>().unwrap().0, vec![0.1]);
    }

    #[test]
    fn malformed_rate_ranges_are_rejected() {
        assert!("0.1:0.5".parse::<RateRange>().unwrap_err().contains("START:STOP:STEP"));
        assert!("0.5:0.1:0.1".parse::<RateRange>().unwrap_err().contains("below start"));
        assert!("0.1:0.5:0".parse::<RateRange>().unwrap_err().contains("positive"));
        assert!("0.1:1.5:0.1".parse::<RateRange>().unwrap_err().contains("outside"));
        assert!("0:1:0.0001".parse::<RateRange>().unwrap_err().contains("at most"));
    }

    #[test]
    fn node_lists() {
        assert_eq!("1, 2,3".parse::<NodeList>(), Ok(NodeList(vec![1, 2, 3])));
        assert!("1,x".parse::<NodeList>().unwrap_err().contains("'x'"));
    }
}

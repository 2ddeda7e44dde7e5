//! The SSD-iq paper's colour rules (Tables 2 and 3). Thresholds the paper states are used as
//! stated; where it only says "conformity" or "comparison", the bands are ours and named here.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    Green,
    Yellow,
    Red,
}

/// Read latency average: < 100 µs green, else red.
pub fn read_avg(us: f64) -> Colour {
    if us < 100.0 {
        Colour::Green
    } else {
        Colour::Red
    }
}

/// Read latency P99.9: < 500 µs green, < 1000 µs yellow, else red.
pub fn read_p999(us: f64) -> Colour {
    if us < 500.0 {
        Colour::Green
    } else if us < 1000.0 {
        Colour::Yellow
    } else {
        Colour::Red
    }
}

/// Write latency average: < 20 µs green, else yellow.
pub fn write_avg(us: f64) -> Colour {
    if us < 20.0 {
        Colour::Green
    } else {
        Colour::Yellow
    }
}

/// Write latency P99.9: < 20 µs green, < 100 µs yellow, else red.
pub fn write_p999(us: f64) -> Colour {
    if us < 20.0 {
        Colour::Green
    } else if us < 100.0 {
        Colour::Yellow
    } else {
        Colour::Red
    }
}

/// Measured against the spec ("conformity"): at least 95% of spec green, at least 80%
/// yellow, else red. (Our bands; the paper does not state them.)
pub fn against_spec(measured: f64, spec: f64) -> Colour {
    let r = measured / spec;
    if r >= 0.95 {
        Colour::Green
    } else if r >= 0.80 {
        Colour::Yellow
    } else {
        Colour::Red
    }
}

/// A skewed workload against uniform, where larger is better (throughput): more than 2%
/// better green, more than 2% worse red, else no colour. (Our 2% band.)
pub fn skew_higher_is_better(skewed: f64, uniform: f64) -> Option<Colour> {
    let r = skewed / uniform;
    if r > 1.02 {
        Some(Colour::Green)
    } else if r < 0.98 {
        Some(Colour::Red)
    } else {
        None
    }
}

/// A skewed workload against uniform, where smaller is better (WAF).
pub fn skew_lower_is_better(skewed: f64, uniform: f64) -> Option<Colour> {
    skew_higher_is_better(uniform, skewed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_thresholds() {
        assert_eq!(read_avg(62.0), Colour::Green);
        assert_eq!(read_avg(126.0), Colour::Red);
        assert_eq!(read_p999(487.0), Colour::Green);
        assert_eq!(read_p999(734.0), Colour::Yellow);
        assert_eq!(read_p999(1153.0), Colour::Red);
        assert_eq!(write_avg(13.0), Colour::Green);
        assert_eq!(write_avg(27.0), Colour::Yellow);
        assert_eq!(write_p999(17.0), Colour::Green);
        assert_eq!(write_p999(36.0), Colour::Yellow);
        assert_eq!(write_p999(10790.0), Colour::Red);
        assert_eq!(skew_lower_is_better(3.4, 3.5), Some(Colour::Green));
        assert_eq!(skew_lower_is_better(4.5, 4.2), Some(Colour::Red));
        assert_eq!(skew_higher_is_better(67.0, 71.0), Some(Colour::Red));
        assert_eq!(against_spec(146.0, 220.0), Colour::Red);
        assert_eq!(against_spec(71.0, 70.0), Colour::Green);
    }
}

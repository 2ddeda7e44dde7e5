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

/// Write latency average: < 20 µs green (the paper's rule), < 100 µs yellow, else red (ours:
/// the paper colours every average it shows above 20 µs yellow, and none of its drives
/// averages 100 µs; an average as slow as the P99.9's red bound is not fair).
pub fn write_avg(us: f64) -> Colour {
    if us < 20.0 {
        Colour::Green
    } else if us < 100.0 {
        Colour::Yellow
    } else {
        Colour::Red
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

/// Write amplification above this is bad in absolute terms: worse than the uniform-write WA
/// of every drive in the paper's Table 3 (the highest, 6.5, is the SN640's). Our bound.
pub const WA_BAD: f64 = 6.5;

/// Random-write kIOPS of a skewed workload (TwoZ, Zipf): graded against Unif, the paper's
/// rule, but only where Unif has a verdict (a spec to grade it by: else no colour), and never
/// green where the figure is itself below 80% of the spec (it is then red: a bad number is not
/// praised for being less bad than Unif).
pub fn skewed_kiops(skewed: f64, uniform: Option<f64>, spec: Option<f64>) -> Option<Colour> {
    let (u, s) = (uniform?, spec?);
    match skew_higher_is_better(skewed, u) {
        Some(Colour::Green) if against_spec(skewed, s) == Colour::Red => Some(Colour::Red),
        c => c,
    }
}

/// WA of a skewed workload: graded against Unif, the paper's rule, but only where Unif has a
/// verdict (`uniform` is `None` where there is no meaningful uniform WA: no colour), and never
/// green above [`WA_BAD`] (it is then red).
pub fn skewed_wa(skewed: f64, uniform: Option<f64>) -> Option<Colour> {
    match skew_lower_is_better(skewed, uniform?) {
        Some(Colour::Green) if skewed > WA_BAD => Some(Colour::Red),
        c => c,
    }
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

    #[test]
    fn skewed_cells_never_praise_a_bad_number() {
        // The paper's Table 2: the D7-P5520's two-zone 129 against 118 uniform, spec 114.
        assert_eq!(
            skewed_kiops(129.0, Some(118.0), Some(114.0)),
            Some(Colour::Green)
        );
        // Better than a terrible uniform figure, far below the spec: red, not green.
        assert_eq!(skewed_kiops(1.27, Some(1.1), Some(70.0)), Some(Colour::Red));
        // No spec: Unif has no verdict, so neither has the skewed cell.
        assert_eq!(skewed_kiops(1.27, Some(1.1), None), None);
        // The paper's Table 3: the SN640's two-zone WA 6.1 against 6.5 uniform.
        assert_eq!(skewed_wa(6.1, Some(6.5)), Some(Colour::Green));
        assert_eq!(skewed_wa(9.0, Some(10.0)), Some(Colour::Red));
        assert_eq!(skewed_wa(250.9, None), None);
    }
}

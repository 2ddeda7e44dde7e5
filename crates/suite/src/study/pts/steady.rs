//! SNIA PTS steady state: over a measurement window of the last 5 rounds of the tracking
//! variable, the range (max - min) is at most 20% of the window's average and the best-fit
//! line's excursion across the window (|slope| x 4 rounds) at most 10% of it.

pub const WINDOW: usize = 5;
pub const MAX_RANGE: f64 = 0.20;
pub const MAX_EXCURSION: f64 = 0.10;
/// Rounds after which a test stops without steady state.
pub const MAX_ROUNDS: usize = 25;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Steady {
    /// Rounds (1-based, inclusive) of the window.
    pub first: usize,
    pub last: usize,
    pub avg: f64,
    /// (max - min) / avg.
    pub range: f64,
    /// |slope| x (WINDOW - 1) / avg: the best-fit line's excursion across the window.
    pub excursion: f64,
    pub reached: bool,
}

/// The check over the last `WINDOW` values of `ys` (round 1 first); `None` before 5 rounds.
/// The rule is the suite's own ([`crate::steady`]), with the PTS bands.
pub fn check(ys: &[f64]) -> Option<Steady> {
    let first = ys.len().checked_sub(WINDOW)?;
    let criteria = crate::steady::SteadyCriteria {
        rounds: WINDOW,
        range_band: MAX_RANGE,
        slope_band: MAX_EXCURSION,
    };
    let c = criteria.check(first, &ys[first..]);
    Some(Steady {
        first: first + 1,
        last: ys.len(),
        avg: c.mean,
        range: c.range_ratio,
        excursion: c.slope_ratio,
        reached: c.steady,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_rounds_are_steady_and_a_ramp_is_not() {
        assert_eq!(check(&[1.0; 4]), None);
        let s = check(&[50.0, 10.0, 10.0, 10.5, 9.5, 10.0, 10.0]).unwrap();
        assert!(s.reached);
        assert_eq!((s.first, s.last), (3, 7));
        assert!((s.avg - 10.0).abs() < 1e-12);
        assert!((s.range - 0.1).abs() < 1e-12);
        // 10, 10.5, 11, 11.5, 12: range 2/11 = 18% (within 20%), excursion 4*0.5/11 = 18%.
        let ramp = check(&[10.0, 10.5, 11.0, 11.5, 12.0]).unwrap();
        assert!((ramp.excursion - 2.0 / 11.0).abs() < 1e-12);
        assert!(ramp.range <= MAX_RANGE && ramp.excursion > MAX_EXCURSION);
        assert!(!ramp.reached);
        // A spike breaks the range rule alone.
        let spike = check(&[10.0, 10.0, 13.0, 10.0, 10.0]).unwrap();
        assert!(spike.excursion <= MAX_EXCURSION && spike.range > MAX_RANGE && !spike.reached);
    }
}

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
    /// Least-squares slope per round.
    pub slope: f64,
    /// |slope| x (WINDOW - 1) / avg.
    pub excursion: f64,
    pub reached: bool,
}

/// The check over the last `WINDOW` values of `ys` (round 1 first); `None` before 5 rounds.
pub fn check(ys: &[f64]) -> Option<Steady> {
    if ys.len() < WINDOW {
        return None;
    }
    let w = &ys[ys.len() - WINDOW..];
    let n = WINDOW as f64;
    let avg = w.iter().sum::<f64>() / n;
    let (lo, hi) = w
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), y| (l.min(*y), h.max(*y)));
    let xm = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in w.iter().enumerate() {
        let dx = i as f64 - xm;
        sxy += dx * (y - avg);
        sxx += dx * dx;
    }
    let slope = sxy / sxx;
    let (range, excursion) = if avg > 0.0 {
        ((hi - lo) / avg, slope.abs() * (n - 1.0) / avg)
    } else {
        (f64::INFINITY, f64::INFINITY)
    };
    Some(Steady {
        first: ys.len() - WINDOW + 1,
        last: ys.len(),
        avg,
        range,
        slope,
        excursion,
        reached: range <= MAX_RANGE && excursion <= MAX_EXCURSION,
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
        assert!((ramp.slope - 0.5).abs() < 1e-12);
        assert!(ramp.range <= MAX_RANGE && ramp.excursion > MAX_EXCURSION);
        assert!(!ramp.reached);
        // A spike breaks the range rule alone.
        let spike = check(&[10.0, 10.0, 13.0, 10.0, 10.0]).unwrap();
        assert!(spike.excursion <= MAX_EXCURSION && spike.range > MAX_RANGE && !spike.reached);
    }
}

//! The flash channels' calendars: when each channel carries which transfer.
//!
//! Invariants:
//! - A channel carries one transfer at a time: its bookings never overlap, and they are kept
//!   in time order.
//! - A transfer goes at the earliest time from its request on which the channel is free for
//!   its whole length. A transfer booked for later (a read whose data is out only after tR
//!   and its read-retry steps) does not hold the channel before it starts, so transfers
//!   ready sooner go in the gap before it. (A single "free from" time per channel would make
//!   every die on the channel wait for the slowest read booked on it.)
//! - Bookings that ended by the drive's clock are dropped: nothing is booked before it.

/// Booked transfers per channel, `(start, end)` in ns.
#[derive(Clone, Debug)]
pub struct Channels {
    booked: Vec<Vec<(u64, u64)>>,
}

impl Channels {
    pub fn new(channels: usize) -> Self {
        Channels {
            booked: vec![Vec::new(); channels],
        }
    }

    pub fn len(&self) -> usize {
        self.booked.len()
    }

    /// Forgets every booking (a drive reset).
    pub fn clear(&mut self) {
        self.booked.iter_mut().for_each(Vec::clear);
    }

    /// Books `x` ns on channel `c` from `t` or the first gap after it long enough; returns
    /// the end of the transfer. `now` is the drive's clock (`now <= t`).
    #[inline]
    pub fn carry(&mut self, c: usize, t: u64, x: u64, now: u64) -> u64 {
        if x == 0 {
            return t;
        }
        let b = &mut self.booked[c];
        let gone = b.iter().take_while(|&&(_, end)| end <= now).count();
        b.drain(..gone);
        let mut s = t;
        let mut at = b.len();
        for (i, &(start, end)) in b.iter().enumerate() {
            if end <= s {
                continue;
            }
            if start >= s + x {
                at = i;
                break;
            }
            s = end;
        }
        b.insert(at, (s, s + x));
        s + x
    }
}

#[cfg(test)]
mod tests {
    use super::Channels;

    #[test]
    fn a_transfer_booked_for_later_leaves_the_gap_before_it_to_others() {
        let mut c = Channels::new(2);
        // A read whose data is out at 1000 (after its retries).
        assert_eq!(c.carry(0, 1000, 30, 0), 1030);
        // A read ready at 100 goes at once, not after 1030.
        assert_eq!(c.carry(0, 100, 30, 0), 130);
        // One that would overlap the booking at 1000 goes after it.
        assert_eq!(c.carry(0, 980, 30, 0), 1060);
        // A gap too short for it is skipped: [130, 1000) holds 870, not 900.
        assert_eq!(c.carry(0, 100, 900, 0), 1960);
        // The other channel is free.
        assert_eq!(c.carry(1, 100, 30, 0), 130);
    }

    #[test]
    fn bookings_never_overlap_and_stay_in_time_order() {
        let mut c = Channels::new(1);
        let mut r = ssdiq_workload::SeededRng::new(7);
        let mut now = 0;
        for _ in 0..2000 {
            now += r.below(50);
            let t = now + r.below(400);
            let x = 1 + r.below(60);
            let end = c.carry(0, t, x, now);
            assert!(end >= t + x);
            let b = &c.booked[0];
            assert!(b.windows(2).all(|w| w[0].1 <= w[1].0), "{b:?}");
            assert!(b.iter().all(|&(_, e)| e > now));
        }
    }
}

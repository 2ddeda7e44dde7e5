//! The memory estimate of an emulated drive against what `Drive::new` and `Drive::reset`
//! really allocate, counted by a global allocator.

#[path = "../../flash/tests/support/counting.rs"]
mod counting;
use counting::{bounds, peak_of};

use ssdiq_emu::memory::drive_bytes;
use ssdiq_emu::{builtin, Drive, Profile};

#[test]
fn the_drive_estimate_bounds_what_is_allocated() {
    for (name, overrides) in [
        ("default", vec![("capacity", "1GiB")]),
        ("default", vec![("capacity", "4GiB")]),
        ("2r", vec![("capacity", "2GiB")]),
        ("smallbuf", vec![("capacity", "1GiB")]),
    ] {
        let p = Profile::parse(builtin(name).unwrap(), &overrides).unwrap();
        let est = drive_bytes(&p).unwrap();
        let actual = peak_of(|| Drive::new(&p).unwrap());
        bounds(&format!("drive {name} {overrides:?}"), est.total(), actual);
        let mut d = Drive::new(&p).unwrap();
        let reset = peak_of(|| d.reset());
        assert!(
            est.peak_with_reset() - est.total() >= reset.saturating_sub(est.rest),
            "reset peak {reset} above the estimate"
        );
    }
}

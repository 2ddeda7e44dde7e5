//! What one command may ask of the machine, checked before any work: memory (estimated,
//! against what is available), and counts that would otherwise run for hours or for ever.
//!
//! Invariants:
//! - Every refusal is a usage error (exit 2, one line) naming the estimate, the memory
//!   available and where that figure comes from.
//! - Available memory is the least of `MemAvailable` (/proc/meminfo), the room left under
//!   the cgroup's `memory.max`, and the room left under the address-space limit (`ulimit
//!   -v`); `SSDIQ_MEMORY` (a size, e.g. 8GiB) replaces all three, for sharing a machine or
//!   for tests.
//! - [`MemoryBudget`] never lets the estimates of the runs in flight exceed the budget, and
//!   never deadlocks: a run waits only while others hold memory, and every run alone fits.

use std::sync::{Condvar, Mutex};

use ssdiq_workload::units::{format_size_approx, parse_size};

use crate::error::refused as usage;

/// Most draws `ssdiq pattern` makes: about 20 minutes at 100 M draws/s.
pub const MAX_DRAWS: u64 = 100_000_000_000;

/// Most workload page writes of one `ssdiq sim` run: hours at the simulator's speed.
pub const MAX_SIM_PAGE_WRITES: f64 = 1e11;

/// Bytes this process may use, and where the figure comes from.
pub fn available_memory() -> anyhow::Result<(u64, &'static str)> {
    if let Some(v) = std::env::var_os("SSDIQ_MEMORY") {
        let s = v.to_string_lossy();
        let b = parse_size(&s).map_err(|e| usage(format!("SSDIQ_MEMORY: {e}")))?;
        return Ok((b, "SSDIQ_MEMORY"));
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| mem_available(&t));
    let cgroup = cgroup_room();
    let found = match (meminfo, cgroup) {
        (Some(m), Some(c)) if c < m => (c, "the cgroup's memory.max"),
        (Some(m), _) => (m, "MemAvailable"),
        (None, Some(c)) => (c, "the cgroup's memory.max"),
        (None, None) => (u64::MAX, "unknown"),
    };
    Ok(match address_space_room() {
        Some(r) if r < found.0 => (r, "the address-space limit, ulimit -v"),
        _ => found,
    })
}

/// Room left under this process's address-space limit (`ulimit -v`), if it has one: the
/// limit less the virtual memory it already maps.
fn address_space_room() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(r.rlim_cur.saturating_sub(kib * 1024))
}

fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `memory.max - memory.current` of this process's cgroup (v2), if it has a limit.
fn cgroup_room() -> Option<u64> {
    let cg = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cg.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    let max: u64 = read("memory.max")?.trim().parse().ok()?;
    let cur: u64 = read("memory.current")
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    Some(max.saturating_sub(cur))
}

fn too_much(what: &str, need: u64, avail: u64, source: &str, hint: &str) -> anyhow::Error {
    usage(format!(
        "{what} needs about {} of memory, more than the {} available ({source}){}",
        format_size_approx(need as f64),
        format_size_approx(avail as f64),
        if hint.is_empty() {
            String::new()
        } else {
            format!("; {hint}")
        }
    ))
}

/// Usage error unless `need` bytes fit in the memory available.
pub fn check_memory(what: &str, need: u64, hint: &str) -> anyhow::Result<()> {
    let (avail, source) = available_memory()?;
    if need > avail {
        return Err(too_much(what, need, avail, source, hint));
    }
    Ok(())
}

/// Memory shared by the runs of a sweep: each takes its estimate before it starts and gives
/// it back when done.
pub struct MemoryBudget {
    total: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

impl MemoryBudget {
    /// A budget of the memory available, or a usage error if the largest run alone does not
    /// fit. `what` names that run in the message.
    pub fn for_runs(largest: u64, what: &str, hint: &str) -> anyhow::Result<MemoryBudget> {
        let (avail, source) = available_memory()?;
        if largest > avail {
            return Err(too_much(what, largest, avail, source, hint));
        }
        Ok(MemoryBudget::new(avail))
    }

    pub fn new(total: u64) -> MemoryBudget {
        MemoryBudget {
            total,
            used: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    /// How many runs of `each` bytes fit at once.
    pub fn fits(&self, each: u64) -> u64 {
        self.total.checked_div(each).unwrap_or(u64::MAX)
    }

    /// Waits until `bytes` fit beside the runs in flight, then holds them until the lease
    /// drops. A request larger than the whole budget waits for an empty budget.
    pub fn acquire(&self, bytes: u64) -> Lease<'_> {
        let mut used = self.used.lock().expect("budget");
        while *used > 0 && used.saturating_add(bytes) > self.total {
            used = self.freed.wait(used).expect("budget");
        }
        *used += bytes;
        Lease {
            budget: self,
            bytes,
        }
    }
}

pub struct Lease<'a> {
    budget: &'a MemoryBudget,
    bytes: u64,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        *self.budget.used.lock().expect("budget") -= self.bytes;
        self.budget.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn meminfo_is_read_in_bytes() {
        let t = "MemTotal:       24000000 kB\nMemAvailable:   2000 kB\n";
        assert_eq!(mem_available(t), Some(2000 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn leases_never_exceed_the_budget() {
        let b = MemoryBudget::new(100);
        let in_use = AtomicU64::new(0);
        let peak = AtomicU64::new(0);
        std::thread::scope(|s| {
            for i in 0..8u64 {
                let (b, in_use, peak) = (&b, &in_use, &peak);
                s.spawn(move || {
                    for _ in 0..50 {
                        let need = 30 + 10 * (i % 4);
                        let _l = b.acquire(need);
                        let now = in_use.fetch_add(need, Ordering::SeqCst) + need;
                        peak.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        in_use.fetch_sub(need, Ordering::SeqCst);
                    }
                });
            }
        });
        assert!(peak.load(Ordering::SeqCst) <= 100);
        assert_eq!(*b.used.lock().unwrap(), 0);
        assert_eq!(b.fits(30), 3);
    }
}

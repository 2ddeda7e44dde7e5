//! What the flash did: cumulative counters and the per-operation effects a caller (the
//! emulated SSD's timing model, issue 6) turns into NAND busy time.

use serde::Serialize;

/// Flash work caused by one host write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WriteEffect {
    /// Host pages programmed (1 for a write that reached flash).
    pub programs: u32,
    /// Valid pages GC copied (each a read plus a program) to make room for this write.
    pub relocations: u32,
    /// Blocks GC erased to make room for this write.
    pub erases: u32,
}

/// Flash work of one GC step: one victim (2R: a group of victims merged; with a GC frontier
/// share, as many as bring the pool back to the reserve) relocated and erased.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GcEffect {
    /// The (first) victim.
    pub victim: u32,
    /// Valid pages the victims held when chosen (= pages relocated).
    pub relocations: u32,
    /// Blocks erased (victims).
    pub erases: u32,
}

/// Cumulative counters since the FTL was created.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Host pages programmed to flash (writes absorbed by a write buffer are not here).
    pub host_programs: u64,
    /// Pages programmed by GC relocation.
    pub gc_programs: u64,
    pub erases: u64,
    /// Logical pages trimmed while mapped.
    pub trims: u64,
    /// Victims static wear levelling chose instead of the policy.
    pub wear_level_victims: u64,
    /// `victim_valid[v]`: victims that held `v` valid pages.
    pub victim_valid: Vec<u64>,
}

impl Counters {
    pub fn flash_programs(&self) -> u64 {
        self.host_programs + self.gc_programs
    }
    /// Mean valid fraction of victims (checks against the victim valid fraction x of docs/sources.md#wa-models).
    pub fn mean_victim_valid(&self) -> f64 {
        let n: u64 = self.victim_valid.iter().sum();
        if n == 0 {
            return 0.0;
        }
        let s: f64 = self
            .victim_valid
            .iter()
            .enumerate()
            .map(|(v, &c)| v as f64 * c as f64)
            .sum();
        s / n as f64
    }
}

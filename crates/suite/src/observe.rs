//! Progress of a run, for whoever draws it. The suite never prints: it reports phases,
//! progress within a phase and finished rounds through this trait, all with empty defaults.

/// What a phase's progress is counted in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    Bytes,
    Seconds,
}

/// A phase of the run: reset, preconditioning, or one step.
#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    pub name: String,
    /// 1-based position among all phases, and their number.
    pub index: usize,
    pub count: usize,
    pub unit: Unit,
    /// Upper bound of the phase in `unit` (a steady-state step may end earlier).
    pub total: f64,
}

/// A finished measurement round.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundReport {
    pub step: String,
    /// 0-based.
    pub round: u32,
    pub mb_s: f64,
    pub waf: Option<f64>,
    /// Whether the detector has found its steady window.
    pub steady: bool,
}

pub trait Observer: Sync {
    fn phase(&self, _p: &Phase) {}
    /// `done` of the phase's total, and the current throughput in MB/s (target clock).
    fn advance(&self, _done: f64, _mb_s: f64) {}
    fn round(&self, _r: &RoundReport) {}
    fn phase_done(&self) {}
}

pub struct Silent;
impl Observer for Silent {}

//! Progress of a run, for whoever draws it. The suite never prints: it reports phases,
//! progress within a phase and finished steps through this trait, all with empty defaults.

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

/// A finished step's numbers, reported just before its phase ends.
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport {
    pub step: String,
    /// Cut short: `rounds` of the detector's rounds ran, of `of` (write steps).
    pub stopped: bool,
    pub rounds: Option<(u32, u32)>,
    /// The reference value, MB/s and IOPS.
    pub mb_s: Option<f64>,
    pub iops: Option<f64>,
    pub waf: Option<f64>,
    /// The share of the step's writes still in the drive's buffer, when `waf` lags it.
    pub waf_lag: Option<f64>,
    /// Write steps: whether a steady window was found, and for a workload bounded by drive
    /// writes the drive writes at which it ended.
    pub steady: Option<bool>,
    pub steady_drive_writes: Option<f64>,
    /// Latency under load: the read and write probe medians (mean, P99.9), µs.
    pub probes: Vec<(String, f64, f64)>,
}

pub trait Observer: Sync {
    fn phase(&self, _p: &Phase) {}
    /// `done` of the phase's total, and the current throughput in MB/s (target clock).
    fn advance(&self, _done: f64, _mb_s: f64) {}
    fn step(&self, _r: &StepReport) {}
    fn phase_done(&self) {}
}

pub struct Silent;
impl Observer for Silent {}

//! The SSD-iq procedure as data: passes of phases, each phase a reset, an idle pause, the
//! sequential init or a measured step, with the reference's parameters
//! (`scripts/benchbench.sh` of the authors' artifact; `docs/protocol.md` compares them row by
//! row with the paper and says where ssdiq differs and why).
//!
//! One pass per random-write workload (uniform, two-zone 80/20, Zipf 0.8), as the reference
//! loops `i = 1..3`: each pass starts from a fresh reset and sequential init, measures the
//! reads and writes, runs its workload, measures the reads and writes again and ends with
//! latency under load. The passes double as three repetitions of everything but the workloads;
//! `--repeat N` runs the three passes N times.
//!
//! Durations here are the reference's; the runner multiplies them by the run's time scales
//! ([`Scales`]), and drive writes by its drive-write scale.

use ssdiq_schema::steps;
use ssdiq_workload::{Pattern, RwMix};

/// The capacity of the paper's smallest drives (PM9A3, PE8110, SN640, 7450 PRO: 960 GB). An
/// emulated drive is that drive scaled down; see [`Scales::for_target`].
pub const REFERENCE_CAPACITY_BYTES: f64 = 960e9;

/// Large and small requests of the reference (`SEQ_BS`, `UNI_BS`).
pub const LARGE_BS: u64 = 512 * 1024;
pub const SMALL_BS: u64 = 4096;

/// `NORMAL_SLEEP`: the pause after the reset, the init, every write step and the workload.
pub const IDLE_S: f64 = 300.0;
/// `BW_RUNTIME` (reads) and `PROBE_RUNTIME` (QD1 latency, sequential writes).
pub const BW_RUNTIME_S: f64 = 300.0;
pub const PROBE_RUNTIME_S: f64 = 150.0;
/// `OVERWRITE_UNI`, `OVERWRITE_SKEWED`.
pub const UNIFORM_DRIVE_WRITES: f64 = 3.0;
pub const SKEWED_DRIVE_WRITES: f64 = 4.0;
/// The heavy-skew pass (ssdiq's, not the paper's; see [`HEAVY_SKEW`]): drive writes of its
/// workload. Two suffice to part the policies: a cost-benefit drive's WA under heavy skew
/// climbs for many drive writes where greedy's settles within one, so they part most early.
pub const HEAVY_SKEW_DRIVE_WRITES: f64 = 2.0;

/// Latency under load (`run_lat_exp` and iob's latency thread).
pub const LOAD_FRACTION: f64 = 0.25;
pub const LOAD_RUNTIME_S: f64 = 1000.0;
pub const PROBE_IOPS: f64 = 10_000.0;
pub const PROBE_READ_PERCENT: u8 = 50;
/// The write burst (ssdiq's, not the paper's): after the last pass and an idle pause, this
/// many bytes of 4 KiB random writes at QD 32, timed per [`BURST_INTERVAL_S`]. It runs last
/// so that no step of the paper sees the drive it leaves; it identifies the write buffer,
/// which the paper's steps do not (`ssdiq fit`).
pub const BURST_BYTES: u64 = 1 << 30;
/// At most this share of the capacity. A burst must outlast the buffer: where the host link
/// is barely faster than the dies program (the i4i: 2840 against about 2300 MB/s), a buffer of
/// 1/16 of a 1 GiB drive takes some 360 MiB to fill.
pub const BURST_SHARE_MAX: f64 = 0.5;
pub const BURST_INTERVAL_S: f64 = 1e-3;
pub const BURST_QD: u32 = 32;

/// iob's `threadStatsInterval`.
pub const PROBE_INTERVAL_S: f64 = 60.0;
/// `THREADS=8` with `LATENCYTHREAD=1`: thread 0 is the probe, 7 threads load.
pub const LOAD_THREADS: u32 = 7;
pub const LOAD_QD: u32 = 64;
/// `RW=0.99`: 99% writes.
pub const LOAD_READ_PERCENT: u32 = 1;

/// Quick mode: every time bound, idle and interval x 1/1000, drive writes x 1/3.
pub const QUICK_TIME_SCALE: f64 = 1e-3;
pub const QUICK_DRIVE_WRITE_SCALE: f64 = 1.0 / 3.0;

/// `--until-steady` extends a workload up to this many times its reference drive writes.
pub const UNTIL_STEADY_CAP: f64 = 3.0;
/// Rounds of the steady-state detector per step (of its reference bound).
pub const ROUNDS_PER_STEP: u32 = 30;

/// What a phase measures, for the tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    SeqRead,
    ReadLatency,
    RandRead,
    SeqWrite,
    WriteLatency,
    Workload,
    LatencyUnderLoad,
    WriteBurst,
    MapRead,
}

/// Before or after the pass's write workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Before,
    After,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Before => "before",
            Stage::After => "after",
        }
    }
}

/// How long a step runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// Seconds of the target's clock, before scaling.
    Seconds(f64),
    /// Host writes of this many times the capacity, before scaling.
    DriveWrites(f64),
    /// Host writes of this many bytes (a third in quick mode), at most [`BURST_SHARE_MAX`] of
    /// the capacity.
    Bytes(u64),
}

/// The load and probe of latency under load.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Load {
    /// Total I/O rate as a fraction of the spec random-write IOPS, the probe's writes included.
    pub fraction: f64,
    /// The probes' I/O rate in all, and the share of reads: iob's one thread mixing reads and
    /// writes at random is two probes here, one per op, each with `probe_qd` in flight. With
    /// one shared queue the reads wait for slots held by writes while the write path stalls,
    /// which charges the drive's write stalls to its read latency (`docs/protocol.md`).
    pub probe_iops: f64,
    pub probe_read_percent: u8,
    pub probe_qd: u32,
    pub probe_interval_s: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub name: &'static str,
    pub role: Role,
    pub stage: Option<Stage>,
    pub mix: RwMix,
    pub pattern: Pattern,
    pub bs: u64,
    pub qd: u32,
    pub threads: u32,
    pub bound: Bound,
    pub load: Option<Load>,
    /// The step addresses the first 1/`span` of the range (1: all of it).
    pub span: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    /// Erase the drive (sanitize, discard), or recreate a file, or reset the emulated drive.
    Reset,
    /// No I/O for this many seconds (before scaling).
    Idle(f64),
    /// Sequential writes of `drive_writes` x the used range at `bs`, `qd`, one thread.
    Init {
        bs: u64,
        qd: u32,
        drive_writes: f64,
    },
    Step(Step),
}

/// The phases of one pass, around one write workload.
#[derive(Clone, Debug, PartialEq)]
pub struct Pass {
    /// 1-based.
    pub repetition: u32,
    pub pass: u32,
    pub workload: &'static str,
    pub phases: Vec<Phase>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub passes: Vec<Pass>,
}

/// Knobs of the procedure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanOptions {
    pub repeat: u32,
}

/// Factors the runner applies to the plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scales {
    /// Time bounds of the steps other than latency under load.
    pub time: f64,
    /// The idle pauses.
    pub idle: f64,
    /// Latency under load's duration and probe interval.
    pub load_time: f64,
    pub drive_writes: f64,
}

impl Scales {
    pub const REFERENCE: Scales = Scales {
        time: 1.0,
        idle: 1.0,
        load_time: 1.0,
        drive_writes: 1.0,
    };

    /// The default scales of a target: the reference on real drives; on an emulated drive of
    /// `capacity` bytes the steps bounded by time (not latency under load) run for
    /// `capacity / 960 GB` of their time, so they write and read the same share of the drive
    /// as on the paper's drive (a 16 GiB drive written for 150 s at full speed would be
    /// overwritten 15 times where the paper's 960 GB drive is written a quarter). Idle pauses
    /// keep their length: they let background GC finish, which takes as long as it takes, and
    /// cost the emulator next to nothing. Quick mode: [`QUICK_TIME_SCALE`] and
    /// [`QUICK_DRIVE_WRITE_SCALE`] on any target.
    pub fn for_target(quick: bool, emulated_capacity: Option<u64>) -> Scales {
        if quick {
            return Scales {
                time: QUICK_TIME_SCALE,
                idle: QUICK_TIME_SCALE,
                load_time: QUICK_TIME_SCALE,
                drive_writes: QUICK_DRIVE_WRITE_SCALE,
            };
        }
        match emulated_capacity {
            Some(c) => Scales {
                time: (c as f64 / REFERENCE_CAPACITY_BYTES).min(1.0),
                ..Scales::REFERENCE
            },
            None => Scales::REFERENCE,
        }
    }
}

fn mix(s: &str) -> RwMix {
    RwMix::parse(s).expect("built-in mix")
}

fn pattern(s: &str) -> Pattern {
    Pattern::parse(s).expect("built-in pattern")
}

/// The three write workloads: result name, pattern, reference drive writes.
pub const WORKLOADS: [(&str, &str, f64); 3] = [
    (steps::RAND_WRITE_UNIFORM, "uniform", UNIFORM_DRIVE_WRITES),
    (
        steps::RAND_WRITE_TWOZONE,
        "twozone:80/20",
        SKEWED_DRIVE_WRITES,
    ),
    (steps::RAND_WRITE_ZIPF, "zipf:0.8", SKEWED_DRIVE_WRITES),
];

/// The heavy-skew pass's workload: result name, pattern, reference drive writes. It runs as
/// a pass of its own after the protocol's last (after the write burst and the map reads), from
/// a reset and a sequential init like every pass, so that no step of the paper sees the drive
/// it leaves and the twin can run it alone.
pub const HEAVY_SKEW: (&str, &str, f64) = (
    steps::RAND_WRITE_ZIPF_HEAVY,
    "zipf:1.1",
    HEAVY_SKEW_DRIVE_WRITES,
);

/// Short workload name of a result step name (`rand_write_zipf` -> `zipf`).
pub fn workload_key(step: &str) -> &str {
    step.trim_start_matches("rand_write_")
}

#[allow(clippy::too_many_arguments)]
fn step(
    name: &'static str,
    role: Role,
    stage: Option<Stage>,
    m: &str,
    p: &str,
    bs: u64,
    qd: u32,
    threads: u32,
    bound: Bound,
) -> Step {
    Step {
        name,
        role,
        stage,
        mix: mix(m),
        pattern: pattern(p),
        bs,
        qd,
        threads,
        bound,
        load: None,
        span: 1,
    }
}

/// `run_read_exp` then `run_write_exp` of the reference.
fn reads_and_writes(stage: Stage) -> Vec<Phase> {
    let s = Some(stage);
    vec![
        // "Sequential" reads and writes are 512 KiB requests at uniformly random aligned
        // offsets in the reference (PATTERN=uniform).
        Phase::Step(step(
            steps::SEQ_READ,
            Role::SeqRead,
            s,
            "randread",
            "uniform",
            LARGE_BS,
            32,
            10,
            Bound::Seconds(BW_RUNTIME_S),
        )),
        Phase::Step(step(
            steps::READ_LATENCY,
            Role::ReadLatency,
            s,
            "randread",
            "uniform",
            SMALL_BS,
            1,
            1,
            Bound::Seconds(PROBE_RUNTIME_S),
        )),
        Phase::Step(step(
            steps::RAND_READ,
            Role::RandRead,
            s,
            "randread",
            "uniform",
            SMALL_BS,
            128,
            10,
            Bound::Seconds(BW_RUNTIME_S),
        )),
        Phase::Step(step(
            steps::SEQ_WRITE,
            Role::SeqWrite,
            s,
            "randwrite",
            "uniform",
            LARGE_BS,
            32,
            10,
            Bound::Seconds(PROBE_RUNTIME_S),
        )),
        Phase::Idle(IDLE_S),
        Phase::Step(step(
            steps::WRITE_LATENCY,
            Role::WriteLatency,
            s,
            "randwrite",
            "uniform",
            SMALL_BS,
            1,
            1,
            Bound::Seconds(PROBE_RUNTIME_S),
        )),
        Phase::Idle(IDLE_S),
    ]
}

/// The write burst after idle (see [`BURST_BYTES`]).
pub fn write_burst() -> Step {
    step(
        steps::WRITE_BURST,
        Role::WriteBurst,
        None,
        "randwrite",
        "uniform",
        SMALL_BS,
        BURST_QD,
        1,
        Bound::Bytes(BURST_BYTES),
    )
}

/// The map reads (see `ssdiq_schema::steps::MAP_READS`), smallest span first: its reads
/// find the map pages they need cached, once the first of them have brought them in.
pub fn map_reads() -> Vec<Step> {
    ssdiq_schema::steps::MAP_READS
        .iter()
        .map(|&(name, span)| Step {
            span,
            ..step(
                name,
                Role::MapRead,
                None,
                "randread",
                "uniform",
                SMALL_BS,
                1,
                1,
                Bound::Seconds(PROBE_RUNTIME_S),
            )
        })
        .collect()
}

/// A pass's random-write workload (iob's 4 threads x QD128, bounded by drive writes).
fn workload(name: &'static str, pattern: &str, drive_writes: f64) -> Step {
    step(
        name,
        Role::Workload,
        None,
        "randwrite",
        pattern,
        SMALL_BS,
        128,
        4,
        Bound::DriveWrites(drive_writes),
    )
}

/// How every pass starts: a reset, then a sequential init of the whole drive, each followed
/// by an idle pause.
fn fresh_drive() -> Vec<Phase> {
    vec![
        Phase::Reset,
        Phase::Idle(IDLE_S),
        Phase::Init {
            bs: LARGE_BS,
            qd: 1,
            drive_writes: 1.0,
        },
        Phase::Idle(IDLE_S),
    ]
}

impl Plan {
    /// The SSD-iq benchmark (`scripts/benchbench.sh`).
    pub fn ssd_iq(o: PlanOptions) -> Plan {
        let mut passes = Vec::new();
        for rep in 1..=o.repeat.max(1) {
            for (i, (name, pat, dw)) in WORKLOADS.into_iter().enumerate() {
                let mut phases = fresh_drive();
                phases.extend(reads_and_writes(Stage::Before));
                phases.push(Phase::Step(workload(name, pat, dw)));
                phases.push(Phase::Idle(IDLE_S));
                phases.extend(reads_and_writes(Stage::After));
                let mut lat = step(
                    steps::LATENCY_UNDER_LOAD,
                    Role::LatencyUnderLoad,
                    None,
                    &format!("randrw:{LOAD_READ_PERCENT}"),
                    "uniform",
                    SMALL_BS,
                    LOAD_QD,
                    LOAD_THREADS,
                    Bound::Seconds(LOAD_RUNTIME_S),
                );
                lat.load = Some(Load {
                    fraction: LOAD_FRACTION,
                    probe_iops: PROBE_IOPS,
                    probe_read_percent: PROBE_READ_PERCENT,
                    probe_qd: LOAD_QD,
                    probe_interval_s: PROBE_INTERVAL_S,
                });
                phases.push(Phase::Step(lat));
                if rep == o.repeat.max(1) && i + 1 == WORKLOADS.len() {
                    phases.push(Phase::Idle(IDLE_S));
                    phases.push(Phase::Step(write_burst()));
                    phases.push(Phase::Idle(IDLE_S));
                    phases.extend(map_reads().into_iter().map(Phase::Step));
                }
                passes.push(Pass {
                    repetition: rep,
                    pass: i as u32 + 1,
                    workload: name,
                    phases,
                });
            }
        }
        let (name, pat, dw) = HEAVY_SKEW;
        let mut phases = fresh_drive();
        phases.push(Phase::Step(workload(name, pat, dw)));
        passes.push(Pass {
            repetition: o.repeat.max(1),
            pass: WORKLOADS.len() as u32 + 1,
            workload: name,
            phases,
        });
        Plan { passes }
    }

    /// Every measured step, in order.
    pub fn steps(&self) -> impl Iterator<Item = &Step> {
        self.passes.iter().flat_map(|p| {
            p.phases.iter().filter_map(|ph| match ph {
                Phase::Step(s) => Some(s),
                _ => None,
            })
        })
    }

    /// Number of phases, for progress.
    pub fn phase_count(&self) -> usize {
        self.passes.iter().map(|p| p.phases.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn describe(ph: &Phase) -> String {
        match ph {
            Phase::Reset => "reset".into(),
            Phase::Idle(s) => format!("idle {s}s"),
            Phase::Init {
                bs,
                qd,
                drive_writes,
            } => format!("init seq bs={bs} qd={qd} dw={drive_writes}"),
            Phase::Step(s) => format!(
                "{}{} {} {} bs={} {}x{} {}{}",
                s.name,
                s.stage
                    .map(|x| format!(" ({})", x.name()))
                    .unwrap_or_default(),
                s.mix,
                s.pattern,
                s.bs,
                s.threads,
                s.qd,
                match s.bound {
                    Bound::Seconds(x) => format!("{x}s"),
                    Bound::DriveWrites(x) => format!("{x}dw"),
                    Bound::Bytes(x) => format!("{x}B"),
                },
                match s.load {
                    Some(l) => format!(
                        " load={}% probe={}iops rw:{} qd{} every {}s",
                        l.fraction * 100.0,
                        l.probe_iops,
                        l.probe_read_percent,
                        l.probe_qd,
                        l.probe_interval_s
                    ),
                    None => String::new(),
                }
            ),
        }
    }

    /// The reference's pass, phase by phase (scripts/benchbench.sh): a golden list.
    #[test]
    fn the_reference_pass() {
        let p = Plan::ssd_iq(PlanOptions { repeat: 1 });
        let got: Vec<String> = p.passes[0].phases.iter().map(describe).collect();
        let want = [
            "reset",
            "idle 300s",
            "init seq bs=524288 qd=1 dw=1",
            "idle 300s",
            "seq_read (before) randread uniform bs=524288 10x32 300s",
            "read_latency (before) randread uniform bs=4096 1x1 150s",
            "rand_read (before) randread uniform bs=4096 10x128 300s",
            "seq_write (before) randwrite uniform bs=524288 10x32 150s",
            "idle 300s",
            "write_latency (before) randwrite uniform bs=4096 1x1 150s",
            "idle 300s",
            "rand_write_uniform randwrite uniform bs=4096 4x128 3dw",
            "idle 300s",
            "seq_read (after) randread uniform bs=524288 10x32 300s",
            "read_latency (after) randread uniform bs=4096 1x1 150s",
            "rand_read (after) randread uniform bs=4096 10x128 300s",
            "seq_write (after) randwrite uniform bs=524288 10x32 150s",
            "idle 300s",
            "write_latency (after) randwrite uniform bs=4096 1x1 150s",
            "idle 300s",
            "latency_under_load randrw:1 uniform bs=4096 7x64 1000s load=25% probe=10000iops rw:50 qd64 every 60s",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn three_passes_one_per_workload_each_repeated() {
        let p = Plan::ssd_iq(PlanOptions { repeat: 2 });
        let w: Vec<(u32, u32, &str)> = p
            .passes
            .iter()
            .map(|x| (x.repetition, x.pass, x.workload))
            .collect();
        assert_eq!(
            w,
            [
                (1, 1, "rand_write_uniform"),
                (1, 2, "rand_write_twozone"),
                (1, 3, "rand_write_zipf"),
                (2, 1, "rand_write_uniform"),
                (2, 2, "rand_write_twozone"),
                (2, 3, "rand_write_zipf"),
                (2, 4, "rand_write_zipf_heavy"),
            ]
        );
        let workloads: Vec<String> = p
            .steps()
            .filter(|s| s.role == Role::Workload)
            .map(|s| format!("{} {:?}", s.pattern, s.bound))
            .collect();
        assert_eq!(
            workloads[..3],
            [
                "uniform DriveWrites(3.0)",
                "twozone:80/20 DriveWrites(4.0)",
                "zipf:0.8 DriveWrites(4.0)"
            ]
        );
        // The heavy-skew pass runs once, last, from a reset and an init of its own.
        assert_eq!(workloads.len(), 7);
        assert_eq!(workloads[6], "zipf:1.1 DriveWrites(2.0)");
        let heavy: Vec<String> = p.passes[6].phases.iter().map(describe).collect();
        assert_eq!(heavy[0], "reset");
        assert_eq!(heavy.len(), 5);
        // Every pass starts from a reset.
        assert!(p.passes.iter().all(|x| x.phases[0] == Phase::Reset));
        // The write burst and the map reads run once, last, each after an idle pause: no
        // step of the paper's sees the drive they leave. The map reads narrow no span after
        // a wider one (a wider span's reads would leave the narrower's map pages cached).
        let last = &p.passes[5].phases;
        let tail: Vec<String> = last[last.len() - 10..].iter().map(describe).collect();
        assert_eq!(
            tail[..3],
            [
                "idle 300s",
                "write_burst randwrite uniform bs=4096 1x32 1073741824B",
                "idle 300s",
            ]
        );
        assert_eq!(tail[3], "map_read_1/256 randread uniform bs=4096 1x1 150s");
        let spans: Vec<u32> = p
            .steps()
            .filter(|s| s.role == Role::MapRead)
            .map(|s| s.span)
            .collect();
        assert_eq!(spans, [256, 64, 16, 8, 4, 2, 1]);
        let bursts = p.steps().filter(|s| s.role == Role::WriteBurst).count();
        assert_eq!(bursts, 1);
    }

    #[test]
    fn scales() {
        assert_eq!(Scales::for_target(false, None), Scales::REFERENCE);
        let e = Scales::for_target(false, Some(16 << 30));
        assert!((e.time - 17.179869184 / 960.0).abs() < 1e-12);
        assert_eq!((e.idle, e.load_time, e.drive_writes), (1.0, 1.0, 1.0));
        // A drive larger than the reference runs the reference durations.
        assert_eq!(Scales::for_target(false, Some(4 << 40)).time, 1.0);
        let q = Scales::for_target(true, Some(16 << 30));
        assert_eq!(q.time, QUICK_TIME_SCALE);
        assert_eq!((q.idle, q.load_time), (QUICK_TIME_SCALE, QUICK_TIME_SCALE));
        assert_eq!(q, Scales::for_target(true, None));
    }
}

//! Emulated 4 KiB I/Os per wall-clock second: QD 32 uniform random writes on `emu:default`
//! in GC steady state (fill + 2 drive writes first), against the baseline of the plain FTL
//! write loop (`ssdiq sim`'s inner loop) on the same geometry and policy, in the same process.
//! `SSDIQ_BENCH_CAPACITY` (default 16GiB) sets the emulated capacity.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ssdiq_emu::EmuExecutor;
use ssdiq_engine::{Executor, FillMode, Job, RunControl};
use ssdiq_flash::{fill_and_warm, Ftl, FtlConfig};
use ssdiq_workload::{RwMix, SeededRng};

const BATCH: u64 = 1 << 18;

fn bench(c: &mut Criterion) {
    let cap = std::env::var("SSDIQ_BENCH_CAPACITY").unwrap_or_else(|_| "16GiB".into());
    let mut e = EmuExecutor::open(&format!("emu:default,capacity={cap}")).unwrap();
    let bytes = e.capacity_bytes();
    let mut warm = Job::new("emu", RwMix::parse("randwrite").unwrap(), 4096, bytes);
    warm.qd = 32;
    warm.fill = Some(FillMode::Seq);
    warm.bound.bytes = Some(bytes * 2);
    e.run(&warm, &RunControl::default()).unwrap();
    let mut job = warm.clone();
    job.fill = None;
    job.bound.bytes = Some(BATCH * 4096);

    let g = *e.drive().ftl().geometry();
    let u = g.logical_pages;
    let mut ftl = Ftl::new(FtlConfig::new(g, e.drive().ftl().policy())).unwrap();
    let mut rng = SeededRng::new(7);
    fill_and_warm(&mut ftl, 2, &mut rng);

    let mut group = c.benchmark_group("emu");
    group.throughput(Throughput::Elements(BATCH));
    group.sample_size(10);
    group.bench_function("emu_default_randwrite_qd32_steady", |b| {
        b.iter(|| {
            let mut j = job.clone();
            // A new seed per batch: the workload keeps moving, like one long job.
            j.seed = rng.next_u64();
            e.run(&j, &RunControl::default()).unwrap()
        })
    });
    group.bench_function("baseline_ftl_write_loop", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                ftl.write(rng.below(u), 0);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

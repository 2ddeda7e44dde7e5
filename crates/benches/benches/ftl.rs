//! Host page writes per second of the FTL: greedy, uniform random writes, fill 0.875,
//! 4 KiB pages, 8 MiB blocks. `SSDIQ_BENCH_CAPACITY` (default 16GiB) sets the physical size.
//! Steady state is reached first (fill + 1 drive write); each iteration then times a batch
//! of writes, including the random-number draw (as `ssdiq sim` does).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ssdiq_flash::{fill_and_warm, Ftl, FtlConfig, GcPolicy, Geometry, Provision};
use ssdiq_workload::SeededRng;

fn capacity() -> u64 {
    std::env::var("SSDIQ_BENCH_CAPACITY")
        .ok()
        .and_then(|s| ssdiq_workload::units::parse_size(&s).ok())
        .unwrap_or(16 << 30)
}

fn bench(c: &mut Criterion) {
    let g = Geometry::new(capacity(), 4096, 8 << 20, Provision::Fill(0.875), 2).unwrap();
    let u = g.logical_pages;
    for policy in [GcPolicy::Greedy, GcPolicy::TwoRGreedy] {
        let mut ftl = Ftl::new(FtlConfig::new(g, policy)).unwrap();
        let mut rng = SeededRng::new(7);
        fill_and_warm(&mut ftl, 1, &mut rng);
        const BATCH: u64 = 1 << 20;
        let mut group = c.benchmark_group("ftl");
        group.throughput(Throughput::Elements(BATCH));
        group.sample_size(10);
        group.bench_function(format!("{policy}_uniform_fill0.875_4k_8m"), |b| {
            b.iter(|| {
                for _ in 0..BATCH {
                    ftl.write(rng.below(u), 0);
                }
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

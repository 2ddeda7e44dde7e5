//! Samples per second of every pattern on one core.
//! Run: `cargo bench -p ssdiq-benches --bench patterns`.
//! The `rand_distr::Zipf` row is the baseline the Zipf sampler is compared against.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rand::SeedableRng;
use rand_distr::Distribution;
use ssdiq_workload::{PageStream, Pattern, StreamConfig};

const PAGES: u64 = 500_000_000; // a 2 TB drive in 4 KiB pages, as in the SSD-iq paper
const BATCH: u64 = 100_000;

fn patterns(c: &mut Criterion) {
    let mut g = c.benchmark_group("pattern");
    g.throughput(Throughput::Elements(BATCH));
    for p in [
        "seq",
        "uniform",
        "randperm",
        "zipf:0.8",
        "zipf:1.0",
        "zipf:1.2",
        "twozone:80/20",
        "zones:60@10,30@30,10@60",
        "readonly:0.5",
        "skipseq:0.5",
        "window:64",
        "zns:1GiBx4",
    ] {
        let pattern = Pattern::parse(p).unwrap();
        let mut s = PageStream::new(&pattern, StreamConfig::single(PAGES, 4096, 1)).unwrap();
        g.bench_function(p, |b| {
            b.iter(|| {
                for _ in 0..BATCH {
                    black_box(s.next_draw());
                }
            })
        });
    }
    let z = rand_distr::Zipf::new(PAGES as f64, 0.8).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    g.bench_function("baseline:rand_distr::Zipf(0.8)", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                black_box(z.sample(&mut rng));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, patterns);
criterion_main!(benches);

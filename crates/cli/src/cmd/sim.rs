//! `ssdiq sim`: simulate a flash translation layer and report write amplification.
//!
//! Every parameter takes a comma list; the runs form the cartesian product, executed in
//! parallel with rayon and printed as one table. All input is validated (geometry, patterns,
//! output paths) before the first run starts, so bad input costs nothing and writes nothing.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
use ssdiq_flash::memory::sim_bytes;
use ssdiq_flash::{
    simulate, FtlConfig, GcMode, GcPolicy, Geometry, Provision, SimConfig, SimReport,
};
use ssdiq_workload::units::{format_size, format_size_approx, parse_size};
use ssdiq_workload::{PageStream, Pattern, StreamConfig};

#[path = "sim_html.rs"]
mod html;

use crate::error::{usage, OrUsage};
use crate::limits::{MemoryBudget, MAX_SIM_PAGE_WRITES};
use crate::output::{check_writable, write_json, write_output};

#[derive(clap::Args)]
#[command(
    about = "Simulate a flash translation layer and report write amplification",
    after_help = "Every option takes a comma list; the runs form a sweep executed on all cores.\n\n\
Example:\n  ssdiq sim --capacity 16GiB --block 8MiB --fill 0.875 --gc greedy,2r-fifo --pattern twozone:80/20 --writes 10x\n\n\
GC policies: greedy | fifo | random | dchoices:D | cost-benefit | fifo-scan | 2r-greedy | 2r-fifo | optimal\n\
Patterns: uniform | randperm | zipf:THETA | twozone:W/S | zones:W1@S1,W2@S2,... | readonly:F | seq |\n\
skipseq:P | window:N | zns:SIZE[xK]  (README: Access patterns)"
)]
pub struct Args {
    /// Physical (raw) capacity, e.g. 16GiB.
    #[arg(long, default_value = "16GiB")]
    capacity: String,
    /// Flash page size.
    #[arg(long, default_value = "4KiB")]
    page: String,
    /// Erase block (or superblock) size.
    #[arg(long, default_value = "8MiB")]
    block: String,
    /// Logical / physical capacity (0.875 = SSD-iq's default). Mutually exclusive with --op.
    #[arg(long, conflicts_with = "op")]
    fill: Option<String>,
    /// Over-provisioning (physical - logical) / logical, e.g. 0.1 or 10%.
    #[arg(long)]
    op: Option<String>,
    /// Free blocks GC copies victims into, kept *beyond* the physical capacity (so the host
    /// and GC share exactly the capacity's spare space, as in SSD-iq's simulator).
    #[arg(long, default_value = "1")]
    reserve: String,
    /// GC policy.
    #[arg(long, default_value = "greedy")]
    gc: String,
    /// When GC stops: naive (one victim per trigger; relocated and host pages share one log,
    /// SSD-iq's naive greedy) or batched (victims until a whole block is free, so relocated
    /// pages fill blocks of their own: an implicit hot/cold separation).
    #[arg(long, default_value = "naive")]
    gc_mode: String,
    /// Relocate GC pages to their own write frontier.
    #[arg(long)]
    gc_frontier: bool,
    /// Workload pattern, applied after a sequential fill.
    #[arg(long, default_value = "uniform")]
    pattern: String,
    /// Unmeasured workload writes after the fill, in drive writes, or "physical" (one physical
    /// capacity, SSD-iq's simulator's warm-up).
    #[arg(long, default_value = "0")]
    warmup: String,
    /// Measured workload writes after the warm-up, in drive writes (10x = 10 x logical
    /// capacity).
    #[arg(long, default_value = "10x")]
    writes: String,
    /// Seed of the workload and of random GC choices.
    #[arg(long, default_value = "1")]
    seed: String,
    /// LRU write buffer: a fraction of the physical capacity (0.02%) or a size (64MiB).
    #[arg(long, default_value = "0")]
    write_buffer: String,
    /// Write the runs as JSON ({"schema":"ssdiq/1","kind":"sim",...}).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write every run's WAF series as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write a self-contained HTML page: WAF over the workload per run, WAF against OP for
    /// sweeps over it, the runs table.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Print only the summary table.
    #[arg(long, short)]
    quiet: bool,
}

/// One run's parameters, as recorded in JSON.
#[derive(Clone, Debug, Serialize)]
struct Params {
    capacity_bytes: u64,
    logical_bytes: u64,
    page_bytes: u64,
    block_bytes: u64,
    pages_per_block: u32,
    blocks: u32,
    logical_pages: u64,
    reserve_blocks: u32,
    fill: f64,
    op: f64,
    spare_factor: f64,
    gc: String,
    gc_mode: GcMode,
    gc_frontier: bool,
    pattern: String,
    warmup: f64,
    writes: f64,
    seed: u64,
    write_buffer_pages: u64,
}

#[derive(Serialize)]
struct RunOut<'a> {
    params: &'a Params,
    method: &'a str,
    waf: f64,
    cumulative_waf: f64,
    host_writes: u64,
    flash_writes: u64,
    erases: u64,
    gc_relocations: u64,
    buffer_hits: u64,
    trims: u64,
    mean_victim_valid: Option<f64>,
    greedy_model_waf: f64,
    seconds: f64,
    series: &'a [ssdiq_flash::SeriesPoint],
}

/// Splits a comma list. Patterns may contain commas themselves (`zones:80@20,20@80`): a
/// token that does not start with a letter continues the previous item.
fn split_list(text: &str, what: &str) -> anyhow::Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for tok in text.split(',') {
        let t = tok.trim();
        let starts_item = t.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        match out.last_mut() {
            Some(prev) if what == "--pattern" && !starts_item => {
                prev.push(',');
                prev.push_str(t);
            }
            _ => out.push(t.to_string()),
        }
    }
    if out.iter().any(|s| s.is_empty()) {
        return Err(usage(format!(
            "invalid {what} \"{text}\": empty item in the list"
        )));
    }
    Ok(out)
}

fn parse_list<T>(
    text: &str,
    what: &str,
    f: impl Fn(&str) -> anyhow::Result<T>,
) -> anyhow::Result<Vec<T>> {
    split_list(text, what)?.iter().map(|s| f(s)).collect()
}

fn size(s: &str, what: &str) -> anyhow::Result<u64> {
    let v = parse_size(s).map_err(|e| usage(format!("invalid {what} \"{s}\": {e}")))?;
    if v == 0 {
        return Err(usage(format!("invalid {what} \"{s}\": must be > 0")));
    }
    Ok(v)
}

fn number(s: &str, what: &str) -> anyhow::Result<f64> {
    let (v, pct) = match s.strip_suffix('%') {
        Some(p) => (p.trim().parse::<f64>(), true),
        None => (s.parse::<f64>(), false),
    };
    let v = v
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| usage(format!("invalid {what} \"{s}\": expected a number")))?;
    Ok(if pct { v / 100.0 } else { v })
}

/// `--warmup`: drive writes >= 0, or "physical".
#[derive(Clone, Copy, Debug)]
enum Warmup {
    DriveWrites(f64),
    Physical,
}

fn warmup(s: &str) -> anyhow::Result<Warmup> {
    if s.eq_ignore_ascii_case("physical") {
        return Ok(Warmup::Physical);
    }
    let t = s.strip_suffix('x').unwrap_or(s);
    t.parse()
        .ok()
        .filter(|v: &f64| *v >= 0.0 && v.is_finite())
        .map(Warmup::DriveWrites)
        .ok_or_else(|| {
            usage(format!(
                "invalid --warmup \"{s}\": expected drive writes like 1x or 0, or physical"
            ))
        })
}

fn writes(s: &str) -> anyhow::Result<f64> {
    let t = s.strip_suffix('x').unwrap_or(s);
    let v: f64 = t
        .parse()
        .ok()
        .filter(|v: &f64| *v > 0.0 && v.is_finite())
        .ok_or_else(|| {
            usage(format!(
                "invalid --writes \"{s}\": expected drive writes like 10x or 2.5"
            ))
        })?;
    Ok(v)
}

/// `--write-buffer`: "0", a fraction ("0.02%", "0.0002") of the physical capacity, or a size.
#[derive(Clone, Copy, Debug)]
enum BufSpec {
    Fraction(f64),
    Bytes(u64),
}

fn buffer(s: &str) -> anyhow::Result<BufSpec> {
    if s.ends_with('%') || s.parse::<f64>().is_ok() {
        let v = number(s, "--write-buffer")?;
        if !(0.0..1.0).contains(&v) {
            return Err(usage(format!(
                "invalid --write-buffer \"{s}\": a fraction must be >= 0 and < 1"
            )));
        }
        Ok(BufSpec::Fraction(v))
    } else {
        Ok(BufSpec::Bytes(size(s, "--write-buffer")?))
    }
}

struct Spec {
    params: Params,
    cfg: SimConfig,
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let caps = parse_list(&args.capacity, "--capacity", |s| size(s, "--capacity"))?;
    let pages = parse_list(&args.page, "--page", |s| size(s, "--page"))?;
    let blocks = parse_list(&args.block, "--block", |s| size(s, "--block"))?;
    let provisions: Vec<Provision> = match (&args.fill, &args.op) {
        (_, Some(op)) => parse_list(op, "--op", |s| Ok(Provision::Op(number(s, "--op")?)))?,
        (Some(f), None) => parse_list(f, "--fill", |s| Ok(Provision::Fill(number(s, "--fill")?)))?,
        (None, None) => vec![Provision::Fill(0.875)],
    };
    let reserves = parse_list(&args.reserve, "--reserve", |s| {
        s.parse::<u32>().ok().filter(|&r| r >= 1).ok_or_else(|| {
            usage(format!(
                "invalid --reserve \"{s}\": expected a whole number >= 1"
            ))
        })
    })?;
    let policies = parse_list(&args.gc, "--gc", |s| s.parse::<GcPolicy>().or_usage())?;
    let modes = parse_list(&args.gc_mode, "--gc-mode", |s| {
        s.parse::<GcMode>().map_err(usage)
    })?;
    let warmups = parse_list(&args.warmup, "--warmup", warmup)?;
    let patterns = parse_list(&args.pattern, "--pattern", |s| Pattern::parse(s).or_usage())?;
    let writes_l = parse_list(&args.writes, "--writes", writes)?;
    let seeds = parse_list(&args.seed, "--seed", |s| {
        s.parse::<u64>()
            .map_err(|_| usage(format!("invalid --seed \"{s}\": expected a whole number")))
    })?;
    let buffers = parse_list(&args.write_buffer, "--write-buffer", buffer)?;
    for p in [&args.json, &args.csv, &args.html].into_iter().flatten() {
        check_writable(p)?;
    }

    let mut specs = Vec::new();
    for &cap in &caps {
        for &page in &pages {
            for &block in &blocks {
                for &prov in &provisions {
                    for &reserve in &reserves {
                        let g = Geometry::new(cap, page, block, prov, reserve).or_usage()?;
                        for &policy in &policies {
                            for &mode in &modes {
                                for pattern in &patterns {
                                    for &warm in &warmups {
                                        for &w in &writes_l {
                                            for &seed in &seeds {
                                                for &buf in &buffers {
                                                    specs.push(spec(
                                                        g,
                                                        block,
                                                        policy,
                                                        mode,
                                                        args.gc_frontier,
                                                        pattern,
                                                        warm,
                                                        w,
                                                        seed,
                                                        buf,
                                                    )?);
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    let need: Vec<u64> = specs.iter().map(|s| sim_bytes(&s.cfg)).collect();
    let largest = (0..specs.len())
        .max_by_key(|&i| need[i])
        .expect("at least one run");
    let budget = MemoryBudget::for_runs(
        need[largest],
        &format!(
            "a simulation of {} ({} physical pages)",
            format_size(specs[largest].params.capacity_bytes),
            specs[largest].cfg.geometry.physical_pages()
        ),
        "use a smaller --capacity or a larger --page",
    )?;
    let single = specs.len() == 1;
    let quiet = args.quiet;
    if !quiet {
        let g = &specs[0].cfg.geometry;
        if single
            || caps.len() * pages.len() * blocks.len() * provisions.len() * reserves.len() == 1
        {
            println!("{}", describe_geometry(g));
        }
        if !single {
            let threads = rayon::current_num_threads() as u64;
            let at_once = budget.fits(need[largest]);
            println!(
                "sweep of {} runs on {threads} threads{}",
                specs.len(),
                if at_once < threads.min(specs.len() as u64) {
                    format!(
                        ", at most {at_once} at a time within the memory budget ({} available)",
                        format_size_approx(budget.total() as f64)
                    )
                } else {
                    String::new()
                }
            );
        }
    }
    let print_lock = Mutex::new(());
    let results: Vec<(SimReport, f64)> = specs
        .par_iter()
        .enumerate()
        .map(|(i, s)| {
            let _memory = budget.acquire(need[i]);
            let t0 = Instant::now();
            let label = label(&s.params);
            let r = simulate(&s.cfg, |pt| {
                if quiet {
                    return;
                }
                // Sweeps print whole drive writes only, so lines stay readable.
                let whole = (pt.drive_writes - pt.drive_writes.round()).abs() < 1e-9;
                if single || whole {
                    let _guard = print_lock.lock().unwrap();
                    let prefix = if single {
                        String::new()
                    } else {
                        format!("[{}] {label} ", i + 1)
                    };
                    println!(
                        "{prefix}{:>6.2} dw  running WAF {:>7.4}  cumulative {:>7.4}",
                        pt.drive_writes, pt.running_waf, pt.cumulative_waf
                    );
                }
            })
            .expect("inputs were validated before the sweep");
            (r, t0.elapsed().as_secs_f64())
        })
        .collect();

    print!("{}", table(&specs, &results));

    if let Some(path) = &args.csv {
        let mut s = String::from(
            "run,gc,pattern,fill,op,pages_per_block,write_buffer_pages,seed,drive_writes,host_writes,flash_writes,running_waf,cumulative_waf\n",
        );
        for (i, (spec, (r, _))) in specs.iter().zip(&results).enumerate() {
            let p = &spec.params;
            for pt in &r.series {
                writeln!(
                    s,
                    "{},{},\"{}\",{},{},{},{},{},{},{},{},{},{}",
                    i + 1,
                    p.gc,
                    p.pattern,
                    p.fill,
                    p.op,
                    p.pages_per_block,
                    p.write_buffer_pages,
                    p.seed,
                    pt.drive_writes,
                    pt.host_writes,
                    pt.flash_writes,
                    pt.running_waf,
                    pt.cumulative_waf
                )?;
            }
        }
        write_output(path, s.as_bytes())?;
    }
    if let Some(path) = &args.html {
        let geometry = describe_geometry(&specs[0].cfg.geometry);
        let sub =
            if caps.len() * pages.len() * blocks.len() * provisions.len() * reserves.len() == 1 {
                geometry
            } else {
                String::new()
            };
        write_output(path, html::page(&sub, &specs, &results).as_bytes())?;
    }
    if let Some(path) = &args.json {
        let runs: Vec<RunOut> = specs
            .iter()
            .zip(&results)
            .map(|(s, (r, secs))| RunOut {
                params: &s.params,
                method: r.method,
                waf: r.waf,
                cumulative_waf: r.cumulative_waf,
                host_writes: r.host_writes,
                flash_writes: r.flash_writes,
                erases: r.erases,
                gc_relocations: r.gc_relocations,
                buffer_hits: r.buffer_hits,
                trims: r.trims,
                mean_victim_valid: r
                    .mean_victim_valid
                    .is_finite()
                    .then_some(r.mean_victim_valid),
                greedy_model_waf: r.greedy_model_waf,
                seconds: *secs,
                series: &r.series,
            })
            .collect();
        let doc = serde_json::json!({"schema": "ssdiq/1", "kind": "sim", "runs": runs});
        write_json(path, &doc)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[allow(clippy::too_many_arguments)]
fn spec(
    g: Geometry,
    block_bytes: u64,
    policy: GcPolicy,
    mode: GcMode,
    gc_frontier: bool,
    pattern: &Pattern,
    warm: Warmup,
    w: f64,
    seed: u64,
    buf: BufSpec,
) -> anyhow::Result<Spec> {
    let page_writes = w * g.logical_pages as f64;
    if page_writes > MAX_SIM_PAGE_WRITES {
        let shown = if w >= 1e15 {
            format!("{w:e}")
        } else {
            format!("{w}")
        };
        return Err(usage(format!(
            "invalid --writes \"{shown}x\": {page_writes:.3e} page writes of {} logical pages; at most {MAX_SIM_PAGE_WRITES:.0e} per run",
            g.logical_pages
        )));
    }
    let buffer_pages = match buf {
        BufSpec::Fraction(f) => (f * g.physical_pages() as f64).round() as u64,
        BufSpec::Bytes(b) => b.div_ceil(g.page_bytes),
    };
    if buffer_pages >= g.logical_pages {
        return Err(usage(format!(
            "invalid --write-buffer: {buffer_pages} pages would hold the whole logical space"
        )));
    }
    if gc_frontier && policy.is_two_r() {
        return Err(usage(format!(
            "invalid --gc-frontier with --gc {policy}: 2R merges victims in place, it has no GC frontier"
        )));
    }
    if policy != GcPolicy::Optimal {
        let mut fc = FtlConfig::new(g, policy);
        fc.gc_frontier = gc_frontier;
        fc.mode = mode;
        fc.check().or_usage()?;
    }
    // Surface pattern/geometry mismatches (zns zone size, empty zones) now, not mid-sweep.
    PageStream::new(
        pattern,
        StreamConfig::single(g.logical_pages, g.page_bytes, seed),
    )
    .or_usage()?;
    if policy == GcPolicy::Optimal
        && matches!(
            ssdiq_flash::classes::pattern_classes(pattern, g.logical_pages),
            ssdiq_flash::classes::Classes::Unknown
        )
    {
        return Err(usage(format!(
            "invalid --gc optimal: no optimal bound is implemented for pattern {pattern}"
        )));
    }
    let warmup = match warm {
        Warmup::DriveWrites(d) => d,
        Warmup::Physical => g.physical_pages() as f64 / g.logical_pages as f64,
    };
    let params = Params {
        capacity_bytes: g.physical_bytes(),
        logical_bytes: g.logical_bytes(),
        page_bytes: g.page_bytes,
        block_bytes,
        pages_per_block: g.pages_per_block,
        blocks: g.blocks,
        logical_pages: g.logical_pages,
        reserve_blocks: g.reserve_blocks,
        fill: g.fill(),
        op: g.op(),
        spare_factor: g.spare_factor(),
        gc: policy.to_string(),
        gc_mode: mode,
        gc_frontier: gc_frontier || policy.implies_gc_frontier(),
        pattern: pattern.to_string(),
        warmup,
        writes: w,
        seed,
        write_buffer_pages: buffer_pages,
    };
    Ok(Spec {
        params,
        cfg: SimConfig {
            geometry: g,
            policy,
            gc_frontier,
            gc_mode: mode,
            pattern: pattern.clone(),
            warmup_drive_writes: warmup,
            drive_writes: w,
            seed,
            buffer_pages,
            points_per_drive_write: 10,
        },
    })
}

fn describe_geometry(g: &Geometry) -> String {
    format!(
        "geometry: {} physical, {} logical; page {}, block {} ({} pages) x {} blocks; fill {:.4}, OP {:.2}%, spare factor {:.2}%; GC reserve {} blocks beyond these",
        format_size(g.physical_bytes()),
        format_size(g.logical_bytes()),
        format_size(g.page_bytes),
        format_size(g.ppb() * g.page_bytes),
        g.pages_per_block,
        g.blocks,
        g.fill(),
        g.op() * 100.0,
        g.spare_factor() * 100.0,
        g.reserve_blocks
    )
}

fn label(p: &Params) -> String {
    format!("{} {}", p.gc, p.pattern)
}

fn table(specs: &[Spec], results: &[(SimReport, f64)]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>3} {:<16} {:<22} {:>6} {:>7} {:>5} {:>7} {:>6} {:>8} {:>8} {:>8} {:>7}",
        "#",
        "gc",
        "pattern",
        "fill",
        "OP",
        "b",
        "buffer",
        "writes",
        "WAF",
        "cum.WAF",
        "greedy*",
        "secs"
    );
    for (i, (spec, (r, secs))) in specs.iter().zip(results).enumerate() {
        let p = &spec.params;
        let mut gc = p.gc.clone();
        if p.gc_frontier && !spec.cfg.policy.implies_gc_frontier() {
            gc.push_str("+gcf");
        }
        if p.gc_mode == GcMode::Batched {
            gc.push_str("+batch");
        }
        let waf = if r.method == "analytic" {
            format!("{:.4}a", r.waf)
        } else {
            format!("{:.4}", r.waf)
        };
        let _ = writeln!(
            s,
            "{:>3} {:<16} {:<22} {:>6.4} {:>6.2}% {:>5} {:>7} {:>5}x {:>8} {:>8.4} {:>8.4} {:>7.1}",
            i + 1,
            gc,
            p.pattern,
            p.fill,
            p.op * 100.0,
            p.pages_per_block,
            p.write_buffer_pages,
            p.writes,
            waf,
            r.cumulative_waf,
            r.greedy_model_waf,
            secs
        );
    }
    let _ = writeln!(
        s,
        "WAF: over the final half of the workload writes. a = analytic bound. greedy* = greedy mean-field model for uniform writes at this geometry."
    );
    s
}

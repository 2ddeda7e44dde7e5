//! `ssdiq report`: render one result or put several drives side by side.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use ssdiq_report::paper::{self, Reference};
use ssdiq_report::run_charts;
use ssdiq_report::table::tables;
use ssdiq_report::RunResult;
use ssdiq_report::{html, markdown, terminal};

use crate::error::{usage, OrUsage};
use crate::output::{check_outputs, write_output};
use ssdiq_suite::result_file::{expand_runs, load_run};

#[derive(clap::Args)]
#[command(
    about = "Render or compare SSD-iq results (terminal, Markdown, self-contained HTML)",
    after_help = "Several results are compared: one table column and one chart colour per drive, \
differences from the first drive marked. --against ssd-iq adds the nine drives the SSD-iq paper \
published (Tables 2 and 3) beside yours.\n\n\
Examples:\n  ssdiq report r/a r/b r/c --html compare.html\n  \
ssdiq report r/a/run.json --against ssd-iq --markdown vs-paper.md --html vs-paper.html"
)]
pub struct Args {
    /// Results of `ssdiq run`: run.json files or the directories holding them (one column
    /// per drive), or directories of results (DIR/*/run.json and DIR/*.json of kind "run",
    /// e.g. the results of `ssdiq run --slurm DIR`).
    #[arg(required_unless_present = "against")]
    files: Vec<PathBuf>,
    /// Put published results beside yours: ssd-iq (the nine drives of the SSD-iq paper).
    #[arg(long, value_name = "NAME")]
    against: Option<String>,
    /// Write the Tables 2 and 3 layout as Markdown.
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Write a single self-contained HTML file with tables and SVG charts.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Colour the terminal tables: auto (when stdout is a terminal), always, never.
    #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
}

fn reference(name: Option<&str>) -> anyhow::Result<Option<Reference>> {
    name.map(|n| {
        paper::reference(n).ok_or_else(|| {
            usage(format!(
                "invalid --against \"{n}\": expected one of {}",
                paper::NAMES.join(", ")
            ))
        })
    })
    .transpose()
}

pub fn main(args: Args) -> anyhow::Result<ExitCode> {
    let reference = reference(args.against.as_deref())?;
    let input_files: Vec<PathBuf> = expand_runs(&args.files).or_usage()?;
    let outputs = [
        ("--markdown", args.markdown.as_deref()),
        ("--html", args.html.as_deref()),
    ];
    check_outputs(&outputs, &input_files)?;
    let results = input_files
        .iter()
        .map(|p| load_run(p).or_usage())
        .collect::<anyhow::Result<Vec<_>>>()?;
    let refs: Vec<&RunResult> = results.iter().collect();
    // A quick run beside published full-length figures: say how rough it is.
    let quick_note = reference.as_ref().and_then(|_| {
        let quick: Vec<String> = input_files
            .iter()
            .zip(&results)
            .filter(|(_, r)| r.run.as_ref().is_some_and(|i| i.quick))
            .map(|(p, _)| p.display().to_string())
            .collect();
        (!quick.is_empty()).then(|| {
            format!(
                "note: {} {} --quick (durations x 1/1000, drive writes x 1/3): rough numbers beside the paper's full-length measurements; compare a full run",
                quick.join(", "),
                if quick.len() == 1 { "is" } else { "are" }
            )
        })
    });
    if let Some(n) = &quick_note {
        eprintln!("{n}");
    }
    let figures = html::all_figures(&run_charts::drives(&refs), reference.as_ref());
    let (t2, t3) = tables(&figures);
    let ansi = match args.color.as_str() {
        "always" => true,
        "never" => false,
        _ => std::io::stdout().is_terminal(),
    };
    print!(
        "{}\n{}",
        terminal::table(&t2, ansi),
        terminal::table(&t3, ansi)
    );
    if let Some(p) = &args.markdown {
        let mut md = format!("{}\n{}", markdown::table(&t2), markdown::table(&t3));
        if let Some(n) = &quick_note {
            md.push_str(&format!("\n{n}\n"));
        }
        write_output(p, md.as_bytes())?;
    }
    if let Some(p) = &args.html {
        write_output(
            p,
            html::render_against(&refs, reference.as_ref()).as_bytes(),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

//! Exit codes: 0 success, 1 failure while running, 2 bad input (nothing was written).

use std::fmt;
use std::process::ExitCode;

/// Bad input from the user: reported in one line, exit code 2, before anything is written.
/// The checks before writing (`ssdiq_target`) raise the same type.
pub use ssdiq_target::Refused as UsageError;

/// Shorthand: `return Err(usage(format!(...)))`.
pub fn usage(msg: impl Into<String>) -> anyhow::Error {
    ssdiq_target::refused(msg)
}

/// clap's own usage error (an unknown flag, a missing argument) as one line, like every other
/// bad input: its text before the usage block, lines joined, and where to read more
/// (`command`: the subcommand given, if any).
pub fn clap_line(e: &clap::Error, command: Option<&str>) -> String {
    let text = e.render().to_string();
    let message: Vec<&str> = text
        .split("\n\n")
        .filter(|p| !p.starts_with("Usage:") && !p.starts_with("For more information"))
        .collect();
    let message = message.join("\n");
    let message = message.trim_start_matches("error: ");
    // A line ending in ':' introduces the next ("not provided:" / "<TARGET>"); others are
    // separate remarks ("... found" / "tip: ...").
    let mut joined = String::new();
    for line in message.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !joined.is_empty() {
            joined.push_str(if joined.ends_with(':') { " " } else { "; " });
        }
        joined.push_str(line);
    }
    match command {
        Some(c) => format!("{joined}; see 'ssdiq {c} --help'"),
        None => format!("{joined}; see 'ssdiq --help'"),
    }
}

/// The one line for a command given without the subcommand it needs (`ssdiq trace`);
/// `None` for a bare `ssdiq`, whose help is printed instead.
pub fn missing_subcommand(path: &[String]) -> Option<String> {
    use clap::CommandFactory;
    let mut cmd = crate::Cli::command();
    for p in path {
        cmd = cmd.find_subcommand(p)?.clone();
    }
    if path.is_empty() {
        return None;
    }
    let subs: Vec<String> = cmd
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
        .map(|c| c.get_name().to_string())
        .collect();
    let name = path.join(" ");
    Some(format!(
        "{name} needs a subcommand: {}; see 'ssdiq {name} --help'",
        subs.join(", ")
    ))
}

/// A sweep's error: bad input (exit 2) or a failure while running (exit 1).
pub fn sweep_error(e: ssdiq_sweep::SweepError) -> anyhow::Error {
    if e.is_input() {
        usage(e.to_string())
    } else {
        e.into()
    }
}

/// Converts any parse error into a usage error.
pub trait OrUsage<T> {
    fn or_usage(self) -> anyhow::Result<T>;
}

impl<T, E: fmt::Display> OrUsage<T> for Result<T, E> {
    fn or_usage(self) -> anyhow::Result<T> {
        self.map_err(|e| usage(e.to_string()))
    }
}

pub fn report(e: &anyhow::Error) -> ExitCode {
    if let Some(u) = e.downcast_ref::<UsageError>() {
        eprintln!("ssdiq: error: {}", printable(&u.0));
        return ExitCode::from(2);
    }
    eprintln!("ssdiq: error: {}", printable(&chain_text(e)));
    ExitCode::from(1)
}

/// The message as one line of visible text: control characters (NUL, newlines, escapes a
/// terminal would act on) and the invisible byte order mark are shown escaped, as `\u{0}`,
/// and a long run of digits (a number pasted 5000 digits long) is shortened.
fn printable(s: &str) -> String {
    let visible: String = s
        .chars()
        .map(|c| {
            if c.is_control() || c == '\u{feff}' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    shorten_digit_runs(&visible)
}

/// Digit runs longer than this are shown by their start and length.
const LONGEST_NUMBER: usize = 40;

fn shorten_digit_runs(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(4096));
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.len() > LONGEST_NUMBER {
            out.push_str(&run[..20]);
            out.push_str(&format!("...({} digits)", run.len()));
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in s.chars() {
        if c.is_ascii_digit() {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// The error and each cause down to the root (the errno text among them), leaving out a
/// cause whose words the text already holds: many errors quote their source.
fn chain_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error that quotes its source in its own text, as `"{what}: {source}"` errors do.
    #[derive(Debug)]
    struct Quoting(std::io::Error);

    impl fmt::Display for Quoting {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "cannot map: {}", self.0)
        }
    }

    impl std::error::Error for Quoting {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn errors_are_one_line_of_visible_text() {
        assert_eq!(
            printable("a\0b\x1b[2Jc\nd\u{feff}é"),
            "a\\u{0}b\\u{1b}[2Jc\\u{a}d\\u{feff}é"
        );
    }

    #[test]
    fn long_numbers_are_shortened() {
        let n = "9".repeat(5000);
        let shown = printable(&format!("invalid --bs \"{n}\": too large"));
        assert_eq!(
            shown,
            "invalid --bs \"99999999999999999999...(5000 digits)\": too large"
        );
        assert_eq!(printable("seed 1234567890"), "seed 1234567890");
    }

    #[test]
    fn a_cause_is_shown_once_and_the_root_cause_always() {
        let quoted = anyhow::Error::new(Quoting(std::io::Error::from_raw_os_error(12)));
        assert_eq!(
            chain_text(&quoted.context("store")),
            "store: cannot map: Cannot allocate memory (os error 12)"
        );
        let root = anyhow::Error::new(std::io::Error::from_raw_os_error(2)).context("reading x");
        assert_eq!(
            chain_text(&root),
            "reading x: No such file or directory (os error 2)"
        );
    }
}

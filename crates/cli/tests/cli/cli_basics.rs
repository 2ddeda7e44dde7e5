//! End-to-end checks of the `ssdiq` binary that every subcommand shares.

use crate::common;
use common::{ssdiq, usage_error};

#[test]
fn every_subcommand_has_help_with_a_purpose_and_an_example() {
    for sub in ["run", "io", "sim", "info", "report", "pattern"] {
        let out = ssdiq(&[sub, "--help"]);
        assert!(out.status.success(), "{sub} --help failed");
        let text = String::from_utf8(out.stdout).unwrap();
        let first = text.lines().next().unwrap_or("");
        assert!(first.len() > 20, "{sub}: no one-line purpose: {first:?}");
        assert!(text.contains("Example"), "{sub}: no example in --help");
        assert!(
            text.contains(&format!("ssdiq {sub}")),
            "{sub}: example does not show the command"
        );
    }
    let top = String::from_utf8(ssdiq(&["--help"]).stdout).unwrap();
    for sub in ["run", "io", "sim", "info", "report", "pattern"] {
        assert!(top.contains(sub), "top-level help lacks {sub}");
    }
    // io's help names every shipped emulated profile.
    let io = String::from_utf8(ssdiq(&["io", "--help"]).stdout)
        .unwrap()
        .replace('\n', " ");
    for (name, _) in ssdiq_emu::BUILTIN {
        assert!(
            io.contains(&format!(" {name},")) || io.contains(&format!(" {name};")),
            "io --help lacks the profile {name}"
        );
    }
}

#[test]
fn unknown_subcommand_and_flag_exit_2_in_one_line() {
    // clap's own errors read like every other bad input: one line, exit 2, where to look.
    for (args, needle) in [
        (
            &["frobnicate"][..],
            "unrecognized subcommand 'frobnicate'; see 'ssdiq --help'",
        ),
        (&["fi"], "tip: a similar subcommand exists: 'fit'"),
        (
            &["pattern", "uniform", "--nope"],
            "unexpected argument '--nope' found; tip: ",
        ),
        (
            &["io"],
            "required arguments were not provided: <TARGET>; see 'ssdiq io --help'",
        ),
        (
            &["sim", "--writes"],
            "a value is required for '--writes <WRITES>'",
        ),
        (&["sim", "--op", "-1"], "see 'ssdiq sim --help'"),
    ] {
        usage_error(args, needle);
        let err = String::from_utf8_lossy(&ssdiq(args).stderr).to_string();
        assert!(err.starts_with("ssdiq: error: "), "{err}");
    }
    // Help is not an error.
    let o = ssdiq(&["sim", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Usage:"));
}

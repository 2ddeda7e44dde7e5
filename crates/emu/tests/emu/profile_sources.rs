//! The shipped profiles say where every value comes from, and `sources` reads that back.

use ssdiq_emu::{builtin, sources, Drive, Profile, BUILTIN};

/// The drive library: profiles of the SSD-iq paper's nine drives.
const DRIVES: [&str; 9] = [
    "pm9a3", "pe8110", "p5520", "sn640", "7450pro", "7450max", "pm1733", "cm7r", "i4i",
];

#[test]
fn every_shipped_profile_parses_and_builds() {
    for (name, text) in BUILTIN {
        let p =
            Profile::parse(text, &[("capacity", "1GiB")]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            &p.name, name,
            "the file's name key matches its registry name"
        );
        Drive::new(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn sources_are_cited_so_a_clone_anywhere_finds_them() {
    // No path outside the repository: a citation names a public source (a paper's section, a
    // data sheet, a specification) or a docs/sources.md anchor, which a clone has.
    for (name, text) in BUILTIN {
        for (i, line) in text.lines().enumerate() {
            for word in line.split_whitespace() {
                let w = word.trim_matches(|c: char| "\"'(),;:".contains(c));
                assert!(
                    !(w.starts_with('/') && w[1..].contains('/')),
                    "{name}.toml line {}: absolute path {w}",
                    i + 1
                );
            }
        }
    }
}

#[test]
fn every_parameter_of_a_drive_profile_names_its_source() {
    for name in DRIVES {
        let text = builtin(name).expect("shipped");
        let params = sources(text);
        assert!(params.len() > 30, "{name}: {} parameters", params.len());
        for p in params {
            assert!(
                !p.source.is_empty(),
                "{name}: [{}] {} = {} has no source comment",
                p.section,
                p.key,
                p.value
            );
        }
    }
}

#[test]
fn sources_reads_sections_values_and_comments() {
    let text = "name = \"x # not a comment\" # the name\n# a comment line\n\n[drive]\nop = 0.1 # Table 3\nseed = 1\n";
    let s = sources(text);
    assert_eq!(s.len(), 3);
    assert_eq!(s[0].value, "\"x # not a comment\"");
    assert_eq!(s[0].source, "the name");
    assert_eq!((s[1].section.as_str(), s[1].key.as_str()), ("drive", "op"));
    assert_eq!(s[1].source, "Table 3");
    assert_eq!(s[2].source, "");
}

#[test]
fn optional_keys_can_be_overridden_and_are_checked() {
    let text = builtin("default").unwrap();
    let p = Profile::parse(
        text,
        &[
            ("gc_mode", "batched"),
            ("write_stall_rate", "0.01"),
            ("write_stall_us", "500"),
        ],
    )
    .unwrap();
    assert_eq!(p.drive.gc_mode, "batched");
    assert_eq!(p.host.write_stall_rate, 0.01);
    let e = Profile::parse(text, &[("gc_mode", "lazy")]).unwrap_err();
    assert!(e.to_string().contains("gc_mode=lazy"), "{e}");
    let e = Profile::parse(text, &[("write_stall_rate", "2")]).unwrap_err();
    assert!(e.to_string().contains("write_stall_rate"), "{e}");
}

/// Buffered writes complete after `write_us`, except a `write_stall_rate` share, which waits
/// between half of `write_stall_us` and all of it.
#[test]
fn write_stalls_delay_the_configured_share_of_writes() {
    let text = builtin("default").unwrap();
    let base = [("capacity", "256MiB")];
    let stalled = [
        ("capacity", "256MiB"),
        ("write_stall_rate", "0.01"),
        ("write_stall_us", "4000"),
    ];
    let lat = |ov: &[(&str, &str)]| {
        let mut d = Drive::new(&Profile::parse(text, ov).unwrap()).unwrap();
        let mut v = Vec::new();
        // One 4 KiB write every 50 us: far below the drive's rate, so the buffer never fills.
        for i in 0..20_000u64 {
            let now = i * 50_000;
            d.advance(now);
            let done = d.write(now, i % 1000, 1, i).expect("the buffer has room");
            v.push(done - now);
        }
        v
    };
    let plain = lat(&base);
    assert!(
        plain.iter().all(|&ns| ns < 20_000),
        "no stalls without the keys"
    );
    let v = lat(&stalled);
    let slow: Vec<u64> = v.iter().copied().filter(|&ns| ns > 100_000).collect();
    let share = slow.len() as f64 / v.len() as f64;
    assert!((0.007..0.013).contains(&share), "share {share}");
    assert!(slow.iter().all(|&ns| (1_990_000..4_020_000).contains(&ns)));
}

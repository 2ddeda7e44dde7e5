//! Edits a profile's TOML text key by key, keeping every other line and its source comment:
//! the twin is the base profile's file with the fitted lines replaced, so `ssdiq info` shows
//! each value's source, fitted or inherited.

/// The section each line of `text` lies in ("" before the first header), and whether the
/// line is that section's header.
fn sections(text: &str) -> Vec<(String, bool)> {
    let mut current = String::new();
    text.lines()
        .map(|l| {
            let t = l.trim();
            match t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                Some(name) => {
                    current = name.trim().to_string();
                    (current.clone(), true)
                }
                None => (current.clone(), false),
            }
        })
        .collect()
}

/// The index of the `section.key` line.
fn find(text: &str, section: &str, key: &str) -> Option<usize> {
    text.lines()
        .zip(sections(text))
        .position(|(l, (sec, header))| !header && sec == section && key_of(l.trim()) == Some(key))
}

/// The value of `section.key` as the text holds it (a TOML literal, comment left out).
pub fn get(text: &str, section: &str, key: &str) -> Option<String> {
    let line = text.lines().nth(find(text, section, key)?)?;
    let (_, v) = line.split_once('=')?;
    let v = v.trim();
    // A `#` inside a quoted string is not a comment.
    let end = match v.strip_prefix('"') {
        Some(rest) => rest.find('"').map(|q| q + 2),
        None => v.find('#'),
    };
    Some(v[..end.unwrap_or(v.len())].trim().to_string())
}

/// The source comment of the `section.key` line (after its value's `#`).
pub fn comment(text: &str, section: &str, key: &str) -> Option<String> {
    let line = text.lines().nth(find(text, section, key)?)?;
    let value = get(text, section, key)?;
    let (_, rest) = line.split_once('=')?;
    let rest = rest.trim_start().strip_prefix(value.as_str())?;
    Some(rest.trim_start().strip_prefix('#')?.trim().to_string())
}

/// `text` without `section.key` (an optional key back at its default).
pub fn unset(text: &str, section: &str, key: &str) -> String {
    let drop = find(text, section, key);
    joined(
        text.lines()
            .enumerate()
            .filter(|(i, _)| Some(*i) != drop)
            .map(|(_, l)| l.to_string())
            .collect(),
    )
}

/// `text` with `section.key` set to `value` (a TOML literal) and `comment` as its source;
/// an empty `value` removes the key ([`unset`]). `section` "" is the top level. A key the
/// section lacks is added at its end; a missing section is appended.
pub fn set(text: &str, section: &str, key: &str, value: &str, comment: &str) -> String {
    if value.is_empty() {
        return unset(text, section, key);
    }
    let line = format!("{key} = {value} # {}", one_line(comment));
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if let Some(i) = find(text, section, key) {
        lines[i] = line;
        return joined(lines);
    }
    let last = sections(text).iter().rposition(|(sec, _)| sec == section);
    match last {
        Some(last) => {
            // After the section's last non-blank line.
            let mut at = last + 1;
            while at > 0 && lines[at - 1].trim().is_empty() {
                at -= 1;
            }
            lines.insert(at, line);
        }
        None if section.is_empty() => lines.insert(0, line),
        None => {
            lines.push(String::new());
            lines.push(format!("[{section}]"));
            lines.push(line);
        }
    }
    joined(lines)
}

/// The key of a `key = value` line.
fn key_of(line: &str) -> Option<&str> {
    if line.starts_with('#') {
        return None;
    }
    let (k, _) = line.split_once('=')?;
    Some(k.trim())
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn joined(lines: Vec<String>) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// A size as the profile's size keys read it: whole GiB or MiB where exact, else bytes.
pub fn size_literal(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    if bytes.is_multiple_of(GIB) {
        format!("\"{}GiB\"", bytes / GIB)
    } else if bytes.is_multiple_of(MIB) {
        format!("\"{}MiB\"", bytes / MIB)
    } else {
        format!("\"{bytes}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str =
        "name = \"x\" # n\n\n[drive]\nop = 0.1 # old\nseed = 1\n\n[nand]\nread_us = 20 # r\n";

    #[test]
    fn replaces_a_key_in_its_section_only() {
        let s = set(T, "nand", "read_us", "31.5", "fitted");
        assert!(s.contains("read_us = 31.5 # fitted"), "{s}");
        assert!(s.contains("op = 0.1 # old"));
        let s = set(T, "drive", "op", "0.2", "fitted");
        assert!(s.contains("op = 0.2 # fitted") && !s.contains("op = 0.1"));
    }

    #[test]
    fn adds_a_missing_key_at_its_sections_end_and_a_missing_section_at_the_end() {
        let s = set(T, "drive", "gc_frontier", "true", "fitted");
        let at = s.find("gc_frontier").unwrap();
        assert!(
            at > s.find("seed = 1").unwrap() && at < s.find("[nand]").unwrap(),
            "{s}"
        );
        let s = set(T, "host", "write_us", "12", "fitted");
        assert!(s.ends_with("[host]\nwrite_us = 12 # fitted\n"), "{s}");
        let s = set(T, "nand", "program_us", "900", "fitted");
        assert!(
            s.ends_with("read_us = 20 # r\nprogram_us = 900 # fitted\n"),
            "{s}"
        );
    }

    #[test]
    fn an_empty_value_removes_the_key_of_that_section_only() {
        let t = format!("{T}[x]\nread_us = 1\n");
        let s = set(&t, "nand", "read_us", "", "gone");
        assert!(
            !s.contains("read_us = 20") && s.contains("read_us = 1"),
            "{s}"
        );
    }

    #[test]
    fn get_reads_a_value_of_its_section_without_the_comment() {
        assert_eq!(get(T, "nand", "read_us").as_deref(), Some("20"));
        assert_eq!(get(T, "drive", "read_us"), None);
        assert_eq!(get(T, "", "name").as_deref(), Some("\"x\""));
        let t = "[a]\nk = \"p#q\" # c\n";
        assert_eq!(get(t, "a", "k").as_deref(), Some("\"p#q\""));
    }

    #[test]
    fn the_result_parses_as_toml_and_sizes_read_back() {
        let s = set(T, "drive", "capacity", &size_literal(3 << 30), "c\nd");
        let v: toml::Value = toml::from_str(&s).unwrap();
        assert_eq!(v["drive"]["capacity"].as_str(), Some("3GiB"));
        assert_eq!(size_literal(5 << 20), "\"5MiB\"");
        assert_eq!(size_literal(4096), "\"4096\"");
    }
}

//! The line numbers Puppet puts in hiera.yaml error messages, found the way Puppet finds them.
//!
//! Puppet does not know where a value came from in the YAML; for some errors it scans the raw file
//! for the first line matching a regex (`HieraConfig#find_line_matching`, reference §1.4): comments
//! are stripped (a `#` outside quotes ends the line), and the regex (a Ruby regex built from the
//! offending name) is matched against what is left, newline included. The line it finds can differ
//! from where the problem really is (a name that also appears earlier, in a comment-free string);
//! our spans are exact, and Puppet's message keeps Puppet's line.

/// `find_line_matching(regexp, start_line)`: the 1-based number of the first line at or after
/// `start_line` whose comment-stripped text matches the Ruby regex `pattern`. `None` when nothing
/// matches (or the pattern is not a valid regex).
pub fn find_line_matching(text: &str, pattern: &str, start_line: usize) -> Option<usize> {
    // Compiled as Ruby compiles it (ASCII `\w`, Onigmo's dialect), once per pattern.
    let re = crate::engine::ruby::ruby_regex(pattern).ok()?;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let n = i + 1;
        if n < start_line {
            continue;
        }
        let mut quote: Option<char> = None;
        let mut stripped = String::with_capacity(line.len());
        for c in line.chars() {
            if c == '"' || c == '\'' {
                if quote == Some(c) {
                    quote = None;
                } else if quote.is_none() {
                    quote = Some(c);
                }
            } else if c == '#' {
                // Puppet's loop breaks on any '#' that is not itself a quote character,
                // whatever the quote state (hiera_config.rb find_line_matching).
                break;
            }
            stripped.push(c);
        }
        if re.find(&stripped).is_some() {
            return Some(n);
        }
    }
    None
}

/// The line pair Puppet computes for "defined more than once" errors: the first matching line,
/// then the next one after it; when there is no second one the first becomes the error line and
/// no "First defined at" is printed (`HieraConfigV5#create_configured_data_providers`).
pub fn first_and_second(text: &str, pattern: &str) -> (Option<usize>, Option<usize>) {
    let first = find_line_matching(text, pattern, 1);
    let second = first.and_then(|f| find_line_matching(text, pattern, f + 1));
    match second {
        Some(s) => (first, Some(s)),
        None => (None, first),
    }
}

/// Puppet's error location suffix (`Puppet::Util::Errors.error_location_with_space`): ` (file: p,
/// line: n)`, ` (file: p)`, ` (line: n)` or nothing.
pub fn location_suffix(path: Option<&str>, line: Option<usize>) -> String {
    match (path, line) {
        (Some(p), Some(l)) => format!(" (file: {p}, line: {l})"),
        (Some(p), None) => format!(" (file: {p})"),
        (None, Some(l)) => format!(" (line: {l})"),
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_comments_and_respects_start() {
        let text = "version: 5\n# name: Common\nhierarchy:\n  - name: Common\n  - name: 'Common'\n";
        let pat = r#"\s+name:\s+['"]?Common(?:[^\w]|$)"#;
        assert_eq!(find_line_matching(text, pat, 1), Some(4));
        assert_eq!(find_line_matching(text, pat, 5), Some(5));
        assert_eq!(first_and_second(text, pat), (Some(4), Some(5)));
        // A hash inside quotes is still a comment start for Puppet's scan.
        assert_eq!(find_line_matching("  - name: 'a#b'\n", r"a#b", 1), None);
    }

    #[test]
    fn suffixes() {
        assert_eq!(location_suffix(Some("/x"), Some(3)), " (file: /x, line: 3)");
        assert_eq!(location_suffix(Some("/x"), None), " (file: /x)");
    }
}

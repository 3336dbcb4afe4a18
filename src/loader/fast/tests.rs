//! The fast reader against saphyr-parser itself: whatever it accepts must be saphyr's exact
//! event stream (events, values, styles, spans with index, line and column).

use super::events;

/// Checks `text`; true when the fast reader took it.
fn agree(text: &str) -> bool {
    super::differential(text).unwrap_or_else(|e| panic!("{e}"))
}

fn accepts(text: &str) {
    assert!(agree(text), "the fast reader should read {text:?}");
}

fn declines(text: &str) {
    assert!(
        events(text).is_none(),
        "the fast reader should leave {text:?} to saphyr"
    );
}

#[test]
fn reads_the_shapes_of_hiera_data() {
    for text in [
        "",
        "# only a comment\n",
        "\n\n",
        "a: 1\n",
        "a: 1",
        "---\na: 1\n",
        "--- # comment\na: 1\n",
        "# header\n---\na: 1\n",
        "a: 1\n\n# trailing\n\n",
        "a:\n  b: 1\n  c:\n    d: x y  # com\ne: 2\n",
        "a:\nb: 1\nc:",
        "a:   \nb: # c\n  c: 1\nd: # c\ne:\n",
        "- a\n- b\n",
        "-\n- b\n-",
        "  a: 1\n  b: 2\n",
        "e:\n- 1\n- k: v\n  j: w\nf: 's'\ng:\n",
        "e:\n  - 1\n  -\n  - k: v\n    j:\n  - y\n",
        "e:\n- x\n-\n- y\nb: 2\n",
        "a: \"q\"\nb: \"q\"  \nc: \"q\"  # c\nd: 'it''s'\n\"k 1\": v\n'k 2': v\n",
        "a: []\nb: [x, \"y\" , z ]  # c\nc: {}\nd: [x,y]\ne: { k: v, j: \"w\" }\n",
        "a:\n- [x]\n- {k: v, j: \"w\"}\n- []\n",
        "a: b#c\nd: e # f\ng: -1\nh: a:b\ni: http://x/y\nj: '%{facts.x}'\nk: x, y [z] {w}\n",
        "profile::base::packages:\n  - vim\n  - 'curl'\nlookup_options:\n  profile::base::packages:\n    merge: unique\n",
        "clé: «valeur» # commentaire ü\nb: [ä, 'ö']\n\"ñ\": x\n",
        "a: n -]\nb: [x - ]\nc: [x -- ]\nd: [n -x]\n",
    ] {
        accepts(text);
    }
}

#[test]
fn leaves_everything_else_to_saphyr() {
    for text in [
        "a: 1\n---\nb: 2\n",
        "a: 1\n...\n",
        "---\n",
        "%YAML 1.1\n---\na: 1\n",
        "a:\tb\n",
        "a: 1\r\n",
        "a: &x 1\nb: *x\n",
        "a: !ruby/sym x\n",
        "a: |\n  x\n",
        "a: >\n  x\n",
        "a: b\n  c\n",
        "a:\n  b\n",
        "a: \"x\\ty\"\n",
        "a: 'x\n  y'\n",
        "a: [x,\n  y]\n",
        "a: [[x]]\n",
        "a: [x, ]\n",
        "? a\n: b\n",
        "a : 1\n",
        "a: b: c\n",
        "- - a\n",
        "- # c\n  x\n",
        "a:\n- # c\n  x\n",
        "a: 1\n- b\n",
        "a:\n    b: 1\n  c: 2\n",
        "x\n",
        "[a, b]\n",
        "a: %{x}\n",
        "a: @x\n",
        "a: 'x'y\n",
        "a:#x\n",
        "---x\na: 1\n",
        "\u{FEFF}a: 1\n",
        "a: \u{85}\n",
        "a: [n -]\n",
        "a: [x, n -, y]\n",
        "a: {k: n -}\n",
    ] {
        declines(text);
    }
}

/// The texts of the YAML files (`.yaml`, `.yml`, `.eyaml`) under `dir`, in walk order.
fn yaml_texts(dir: &std::path::Path) -> impl Iterator<Item = String> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| {
            e.file_type().is_file()
                && e.path()
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| matches!(x, "yaml" | "yml" | "eyaml"))
        })
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
}

/// Every YAML file in the repository's fixtures: the fast reader agrees with saphyr wherever it
/// reads, and reads most of them (the test fails if it stops reading).
#[test]
fn agrees_on_every_fixture() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let (mut seen, mut read) = (0, 0);
    for text in yaml_texts(&root) {
        seen += 1;
        read += usize::from(agree(&text));
    }
    assert!(seen > 1000, "{seen} fixture files");
    eprintln!("the fast reader read {read} of {seen} fixture files");
    assert!(
        read * 2 > seen,
        "the fast reader read {read} of {seen} fixture files"
    );
}

/// A small deterministic generator (xorshift) of texts built from the pieces Hiera data is made
/// of, with indentation slips and stray characters.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'s>(&mut self, from: &[&'s str]) -> &'s str {
        from[(self.next() % from.len() as u64) as usize]
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const KEYS: &[&str] = &[
    "a",
    "profile::x",
    "\"q k\"",
    "'s k'",
    "'it''s'",
    "k-1",
    "<<",
    "ü",
    "a b",
    "a:b",
    "-k",
    "x#y",
    "\"\"",
    "''",
    "?k",
    "%k",
    "k ",
    "\"a\\b\"",
];
const VALUES: &[&str] = &[
    "1",
    "x",
    "x y",
    "'s'",
    "\"d\"",
    "''",
    "\"\"",
    "[]",
    "{}",
    "[a, b]",
    "[ a ,'b' , \"c\" ]",
    "{k: v}",
    "{ k: v, 'j': \"w\" }",
    "-1",
    "%{x}",
    "'%{x}'",
    "a # c",
    "a#c",
    "'q'  # c",
    "[a]  # c",
    "[a,]",
    "[a",
    "{k}",
    "{k: [v]}",
    "x: y",
    "&a x",
    "*a",
    "!t x",
    "|",
    ">",
    "ä ö",
    "'a''b'",
    "\"a\\\"b\"",
    "http://x",
    "[a:b]",
    "[a, b]x",
    "- x",
    "yes",
    "~",
    "2001-01-01",
];

fn generate(g: &mut Gen) -> String {
    let mut s = String::new();
    if g.below(4) == 0 {
        s.push_str(g.pick(&["---\n", "--- # c\n", "# h\n---\n", "---", "--- x\n"]));
    }
    let lines = 1 + g.below(12);
    for _ in 0..lines {
        let indent = match g.below(10) {
            0..=3 => 0,
            4..=6 => 2,
            7 => 4,
            _ => g.below(7) as usize,
        };
        s.push_str(&" ".repeat(indent));
        match g.below(12) {
            0 => s.push_str("# comment"),
            1 => {}
            2 | 3 => {
                s.push('-');
                if g.below(3) > 0 {
                    s.push(' ');
                    if g.below(2) == 0 {
                        s.push_str(g.pick(KEYS));
                        s.push(':');
                        if g.below(3) > 0 {
                            s.push(' ');
                            s.push_str(g.pick(VALUES));
                        }
                    } else {
                        s.push_str(g.pick(VALUES));
                    }
                }
            }
            4 => s.push_str(g.pick(VALUES)),
            _ => {
                s.push_str(g.pick(KEYS));
                s.push(':');
                if g.below(3) > 0 {
                    s.push_str(g.pick(&[" ", "  ", " "]));
                    s.push_str(g.pick(VALUES));
                }
            }
        }
        if g.below(8) == 0 {
            s.push_str(g.pick(&[" ", "  # c", "\t", " x", ":", "'", "\""]));
        }
        s.push('\n');
    }
    if g.below(4) == 0 {
        s.pop();
    }
    s
}

const GOOD_KEYS: &[&str] = &[
    "a",
    "profile::x::y",
    "\"q k\"",
    "'s k'",
    "'it''s'",
    "k-1",
    "<<",
    "ü",
    "a b",
    "a:b",
    "x#y",
    "lookup_options",
    "\"\"",
    "é::ç",
];
const GOOD_VALUES: &[&str] = &[
    "1",
    "x",
    "x y",
    "'s'",
    "\"d\"",
    "''",
    "\"\"",
    "[]",
    "{}",
    "[a, b]",
    "[ a ,'b' , \"c\" ]",
    "{k: v}",
    "{ k: v, 'j': \"w\" }",
    "-1",
    "'%{x}'",
    "a # c",
    "a#c",
    "'q'  # c",
    "[a]  # c",
    "ä ö",
    "'a''b'",
    "http://x",
    "yes",
    "~",
    "\"2001-01-01\"",
    "x, y",
    "a [b] {c}",
    "\"%{facts.a}\"",
];

/// A well-formed block structure (mostly in the subset), with a few slips.
fn structured(g: &mut Gen, out: &mut String, indent: usize, depth: usize, seq: bool) {
    let entries = 1 + g.below(4);
    for _ in 0..entries {
        match g.below(14) {
            0 => out.push_str(&format!("{}# c\n", " ".repeat(g.below(6) as usize))),
            1 => out.push('\n'),
            _ => {}
        }
        let slip = g.below(40) == 0;
        let pad = match (slip, g.below(2)) {
            (true, 0) => indent + 1,
            (true, _) => indent.saturating_sub(1),
            _ => indent,
        };
        out.push_str(&" ".repeat(pad));
        let nested = depth < 4 && g.below(3) == 0;
        if seq {
            out.push('-');
            if !nested && g.below(6) == 0 {
                out.push('\n');
                continue;
            }
            out.push(' ');
            if nested && g.below(2) == 0 {
                // A compact mapping in the entry.
                out.push_str(g.pick(GOOD_KEYS));
                out.push_str(": ");
                out.push_str(g.pick(GOOD_VALUES));
                out.push('\n');
                structured(g, out, indent + 2, depth + 1, false);
                continue;
            }
            out.push_str(g.pick(GOOD_VALUES));
        } else {
            out.push_str(g.pick(GOOD_KEYS));
            out.push(':');
            if nested {
                if g.below(4) == 0 {
                    out.push_str(" # c");
                }
                out.push('\n');
                let child_seq = g.below(2) == 0;
                let step = if child_seq && g.below(2) == 0 {
                    0
                } else {
                    2 + 2 * g.below(2) as usize
                };
                structured(g, out, indent + step, depth + 1, child_seq);
                continue;
            }
            if g.below(6) > 0 {
                out.push(' ');
                out.push_str(g.pick(GOOD_VALUES));
            }
        }
        if slip || g.below(30) == 0 {
            out.push_str(g.pick(&[" ", "  # c", ":", " x: y", "'", " &a", "\t"]));
        }
        out.push('\n');
    }
}

#[test]
fn agrees_on_generated_texts() {
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    let (mut tried, mut read) = (0, 0);
    for round in 0..60_000 {
        let text = if round % 3 == 0 {
            generate(&mut g)
        } else {
            let mut s = String::new();
            if g.below(3) == 0 {
                s.push_str("---\n");
            }
            let seq = g.below(5) == 0;
            structured(&mut g, &mut s, 0, 0, seq);
            if g.below(5) == 0 {
                s.pop();
            }
            s
        };
        tried += 1;
        if agree(&text) {
            read += 1;
        }
    }
    // The generator must keep producing texts the fast reader takes, or this test checks
    // nothing.
    eprintln!("read {read} of {tried}");
    assert!(read * 3 > tried, "read {read} of {tried}");
}

/// The same check over any trees named in `HIERALINT_FAST_YAML_DIRS` (colon-separated), such as
/// the public control repositories `tools/realrepos` fetches: `cargo test --lib
/// loader::fast::tests::agrees_on_trees -- --ignored --nocapture`.
#[test]
#[ignore = "reads the trees named in HIERALINT_FAST_YAML_DIRS"]
fn agrees_on_trees() {
    let dirs = std::env::var("HIERALINT_FAST_YAML_DIRS").unwrap_or_default();
    let (mut seen, mut read) = (0, 0);
    for dir in dirs.split(':').filter(|d| !d.is_empty()) {
        for text in yaml_texts(std::path::Path::new(dir)) {
            seen += 1;
            read += usize::from(agree(&text));
        }
    }
    eprintln!("the fast reader read {read} of {seen} files");
}

#[test]
fn control_characters_are_found_anywhere() {
    for len in [0usize, 1, 31, 32, 33, 64, 100] {
        for at in 0..len {
            for c in [b'\t', b'\r', 0u8, 0x1f, 0x7f] {
                let mut b = vec![b'a'; len];
                b[at] = c;
                assert!(super::has_control(&b), "{c:#x} at {at} of {len}");
            }
            let mut b = vec![b'a'; len];
            b[at] = b'\n';
            assert!(!super::has_control(&b));
        }
    }
}

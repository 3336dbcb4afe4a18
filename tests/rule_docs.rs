//! The examples in the rule pages are tests: every ```` ```yaml,fails ```` block must make its
//! rule report at least one diagnostic, every ```` ```yaml,passes ```` block none.
//!
//! A block whose first line is a comment naming a path (`# modules/ntp/data/common.yaml`) is
//! written there inside a temporary environment (without that line for a `.json` path);
//! otherwise it is `data/common.yaml`. A later
//! line that is only `# <path>` starts another file of the same example. The environment gets
//! a default v5 `hiera.yaml` (and each module one) unless the example writes it. A ```` ```json,facts ```` block is a fact set for the example that
//! follows it (written to the environment's `facts/`, which the harness passes as `--facts`).

mod support;

use support::*;

/// The examples of a page: (fails, body, fact sets given before it).
fn examples(doc: &str) -> Vec<(bool, String, Vec<String>)> {
    let mut out = Vec::new();
    let mut facts: Vec<String> = Vec::new();
    let mut lines = doc.lines();
    while let Some(l) = lines.next() {
        let t = l.trim();
        let fails = match t {
            "```yaml,fails" | "```json,fails" => Some(true),
            "```yaml,passes" | "```json,passes" => Some(false),
            "```json,facts" => None,
            _ => continue,
        };
        let mut body = String::new();
        for l in lines.by_ref() {
            if l.trim() == "```" {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        match fails {
            Some(fails) => out.push((fails, body, std::mem::take(&mut facts))),
            None => facts.push(body),
        }
    }
    out
}

const DEFAULT_HIERA: &str = "version: 5\ndefaults:\n  datadir: data\n  data_hash: yaml_data\nhierarchy:\n  - name: Common\n    path: common.yaml\n";

fn place(body: &str) -> (String, String) {
    let first = body.lines().next().unwrap_or("");
    match first.strip_prefix("# ") {
        Some(p) if p.contains('/') || p.ends_with(".yaml") || p.ends_with(".json") => {
            let p = p.split_whitespace().next().unwrap().to_string();
            // JSON has no comments: the path line is not part of the file.
            if p.ends_with(".json") {
                let rest = body.split_once('\n').map_or("", |(_, r)| r);
                return (p, rest.to_string());
            }
            (p, body.to_string())
        }
        _ => ("data/common.yaml".to_string(), body.to_string()),
    }
}

/// A later line that is only `# <path>` (a path ending in a data extension) starts another
/// file of the same example, for rules about several files (merges across levels).
fn file_start(line: &str) -> Option<&str> {
    let p = line.strip_prefix("# ")?;
    let ok = !p.is_empty()
        && p.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c))
        && [".yaml", ".yml", ".json", ".eyaml", ".conf"]
            .iter()
            .any(|e| p.ends_with(e));
    ok.then_some(p)
}

/// The files of an example: the first placed by [`place`], each later `# <path>` line starting
/// another.
fn files(body: &str) -> Vec<(String, String)> {
    let mut chunks: Vec<String> = vec![String::new()];
    for (i, l) in body.lines().enumerate() {
        if i > 0 && file_start(l).is_some() {
            chunks.push(String::new());
        }
        let last = chunks.last_mut().unwrap();
        last.push_str(l);
        last.push('\n');
    }
    chunks.iter().map(|c| place(c)).collect()
}

#[test]
fn rule_page_examples_behave_as_labelled() {
    let mut checked = 0;
    for rule in hieralint::rules::registry() {
        let m = rule.meta();
        for (i, (fails, body, facts)) in examples(m.doc).into_iter().enumerate() {
            let env = TempDir::new(&format!("doc-{}-{i}", m.name));
            let placed = files(&body);
            for (path, text) in &placed {
                env.write(path, text);
            }
            for (n, f) in facts.iter().enumerate() {
                env.write(&format!("facts/{n}.json"), f);
            }
            for (path, _) in &placed {
                if path != "hiera.yaml" && !env.0.join("hiera.yaml").exists() {
                    env.write("hiera.yaml", DEFAULT_HIERA);
                }
                if let Some(rest) = path.strip_prefix("modules/") {
                    let module = rest.split('/').next().unwrap();
                    let cfg = format!("modules/{module}/hiera.yaml");
                    if !env.0.join(&cfg).exists() {
                        env.write(&cfg, DEFAULT_HIERA);
                    }
                }
            }
            let diags = check_with_rule(&env.0, m.name);
            let own: Vec<_> = diags.iter().filter(|d| d.rule.name == m.name).collect();
            if fails {
                assert!(
                    !own.is_empty(),
                    "{}: example {i} is labelled `fails` but reports nothing:\n{body}",
                    m.name
                );
            } else {
                assert!(
                    own.is_empty(),
                    "{}: example {i} is labelled `passes` but reports:\n{}",
                    m.name,
                    hieralint::render::full_plain(&diags)
                );
            }
            checked += 1;
        }
    }
    eprintln!("{checked} rule-page examples checked");
}

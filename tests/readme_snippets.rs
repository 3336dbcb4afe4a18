//! README.md's CI and pre-commit snippets are the ones docs/integrations.md explains, they are
//! valid YAML, and every `hieralint` command in them runs (no usage error) on the bundled example
//! control repository, writing the report file it names.

use std::path::Path;
use std::process::Command;

use hieralint::loader::yaml;
use hieralint::span::SourceFile;

const BIN: &str = env!("CARGO_BIN_EXE_hieralint");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The ```yaml blocks of README.md's "In CI and pre-commit" section.
fn snippets() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("## In CI and pre-commit")
        .expect("README.md has the CI section");
    let rest = &readme[start + 3..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    let mut out = Vec::new();
    let mut s = section;
    while let Some(i) = s.find("```yaml\n") {
        let body = &s[i..];
        let end = body[8..].find("```").expect("closed block") + 8 + 3;
        out.push(body[..end].to_string());
        s = &body[end..];
    }
    out
}

#[test]
fn readme_snippets_match_the_guide_and_parse() {
    let blocks = snippets();
    assert_eq!(blocks.len(), 3, "pre-commit, GitHub Actions, GitLab CI");
    let guide = std::fs::read_to_string(root().join("docs/integrations.md")).unwrap();
    for b in &blocks {
        assert!(
            guide.contains(b.as_str()),
            "docs/integrations.md gives the same snippet:\n{b}"
        );
        let text = b.trim_start_matches("```yaml\n").trim_end_matches("```");
        let doc = yaml::load(&SourceFile::from_bytes(
            std::path::PathBuf::from("snippet.yaml"),
            text.as_bytes(),
        ));
        assert!(doc.issues.is_empty(), "{:?} in\n{text}", doc.issues);
        assert!(doc.root.is_some());
    }
    assert!(blocks[0].contains("id: hieralint"));
    assert!(blocks[1].contains("upload-sarif"));
    assert!(blocks[2].contains("codequality:"));
}

#[test]
fn readme_snippet_commands_run() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme_snippets");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let repo = root().join("fixtures/example-control-repo");
    let mut ran = 0;
    for b in snippets() {
        for line in b.lines() {
            let Some(i) = line.find("hieralint check") else {
                continue;
            };
            let words: Vec<&str> = line[i..].split_whitespace().skip(1).collect();
            let mut args: Vec<String> = Vec::new();
            let mut report = None;
            let mut it = words.iter();
            while let Some(w) = it.next() {
                args.push(w.to_string());
                if *w == "--output-file" {
                    let name = it.next().expect("a file after --output-file");
                    let p = work.join(name);
                    args.push(p.display().to_string());
                    report = Some(p);
                }
            }
            let out = Command::new(BIN)
                .args(&args)
                .current_dir(&repo)
                .env_remove("GITHUB_ACTIONS")
                .output()
                .unwrap();
            let code = out.status.code().unwrap_or(-1);
            assert!(
                code == 0 || code == 1,
                "`hieralint {}` exited {code}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
            if let Some(p) = report {
                let len = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
                assert!(
                    len > 0,
                    "`hieralint {}` wrote {}",
                    args.join(" "),
                    p.display()
                );
            }
            ran += 1;
        }
    }
    // pre-commit's `entry: hieralint check` is the bare command; GitHub and GitLab add the
    // report formats.
    assert!(ran >= 3, "ran {ran} commands");
}

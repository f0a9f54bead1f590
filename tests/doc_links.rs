//! Every relative link in the documentation resolves: README.md, the files
//! of docs/ and nnue/README.md. A link's file (or folder) must exist in the
//! repository; a `#anchor` on a Markdown file (or on the same page) must
//! name one of its headings, as GitHub makes anchors of them. Links with a
//! scheme (https:, mailto:) are not followed. Text in code spans and code
//! blocks is not a link.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files checked, relative to the repository root.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut docs = vec![PathBuf::from("README.md"), PathBuf::from("nnue/README.md")];
    let mut extra: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.expect("readable docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| p.strip_prefix(&root).unwrap().to_path_buf())
        .collect();
    extra.sort();
    docs.extend(extra);
    docs
}

/// The lines of `text` outside fenced and indented code blocks, with their
/// numbers, code spans removed.
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut prev_blank = true;
    let mut indented = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            prev_blank = false;
            continue;
        }
        if fenced {
            continue;
        }
        let blank = line.trim().is_empty();
        // An indented code block starts after a blank line with four spaces
        // (list items continue with two or three) and runs until a line
        // that is neither blank nor indented.
        if line.starts_with("    ") && (prev_blank || indented) {
            indented = true;
            prev_blank = blank;
            continue;
        }
        if !blank {
            indented = false;
        }
        prev_blank = blank;
        out.push((i + 1, strip_code_spans(line)));
    }
    out
}

fn strip_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code {
            out.push(c);
        }
    }
    out
}

/// The targets of inline links and images, `[text](target)`, and of
/// reference definitions, `[name]: target`.
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        // `<target>` and `target "title"` forms.
        let target = after[..end].trim();
        let target = target.split_whitespace().next().unwrap_or("");
        let target = target.trim_start_matches('<').trim_end_matches('>');
        out.push(target.to_string());
        rest = &after[end..];
    }
    let t = line.trim_start();
    if t.starts_with('[') {
        if let Some(i) = t.find("]:") {
            if let Some(target) = t[i + 2..].split_whitespace().next() {
                out.push(target.to_string());
            }
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation other than `-`
/// and `_` dropped, spaces made hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| {
            if c == ' ' {
                Some('-')
            } else if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c)
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated heading gets
/// `-1`, `-2` ... as on GitHub).
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for (_, line) in prose_lines(text) {
        let t = line.trim_start();
        if !t.starts_with('#') {
            continue;
        }
        let heading = t.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading.trim_end_matches('#'));
        let mut s = base.clone();
        let mut n = 0;
        while seen.contains(&s) {
            n += 1;
            s = format!("{base}-{n}");
        }
        seen.insert(s);
    }
    seen
}

fn has_scheme(target: &str) -> bool {
    match target.find(':') {
        Some(i) => target[..i]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)),
        None => false,
    }
}

/// The problems with one link of `doc` (a path relative to the root).
fn check_link(root: &Path, doc: &Path, target: &str) -> Option<String> {
    if target.is_empty() {
        return Some("empty link".into());
    }
    if has_scheme(target) {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        root.join(doc)
    } else if let Some(abs) = path.strip_prefix('/') {
        root.join(abs)
    } else {
        root.join(doc.parent().unwrap_or(Path::new(""))).join(path)
    };
    // Stay inside the repository.
    let normal = normalise(&file);
    if !normal.starts_with(normalise(root)) {
        return Some(format!("{target} leaves the repository"));
    }
    if !normal.exists() {
        return Some(format!("{target}: no such file"));
    }
    let anchor = anchor.filter(|a| !a.is_empty())?;
    if normal.extension().is_some_and(|x| x == "md") {
        let text = fs::read_to_string(&normal).ok()?;
        if !anchors(&text).contains(&anchor.to_lowercase()) {
            return Some(format!("{target}: no heading with anchor #{anchor}"));
        }
    }
    None
}

/// `a/b/../c` as `a/c`, without touching the file system.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let root = root();
    let mut problems = Vec::new();
    let mut links = 0;
    for doc in documents() {
        let text = fs::read_to_string(root.join(&doc))
            .unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
        for (n, line) in prose_lines(&text) {
            for target in link_targets(&line) {
                links += 1;
                if let Some(p) = check_link(&root, &doc, &target) {
                    problems.push(format!("{}:{n}: {p}", doc.display()));
                }
            }
        }
    }
    assert!(links > 0, "no links found: the scan is broken");
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    let text =
        "# Top\n\n## Repetition (棋例)\n\n### A side's cycle\n\n## Top\n\n    # not a heading\n";
    let a = anchors(text);
    for want in ["top", "repetition-棋例", "a-sides-cycle", "top-1"] {
        assert!(a.contains(want), "{want} in {a:?}");
    }
    assert!(!a.contains("not-a-heading"));
    assert_eq!(
        link_targets("see [RULES](docs/RULES.md#the-verdict) and ![x](a.png \"t\")"),
        ["docs/RULES.md#the-verdict", "a.png"]
    );
    assert!(link_targets(&strip_code_spans("`[a](b)` plain")).is_empty());
    assert!(has_scheme("https://rustup.rs"));
    assert!(!has_scheme("docs/RULES.md#a:b"));
}

//! Text test cases: `# title`, `== input`, the input text, `== expected`
//! (or `== expected error`), the expected text; cases a blank line apart.
//! Lines of a `# skipped:` block at the end are comments.

/// One case of a `.cases` file.
#[derive(Debug, Clone)]
pub struct Case {
    pub title: String,
    pub input: String,
    pub expected: String,
    pub expect_error: bool,
}

/// The cases of `text`.
pub fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut current: Option<Case> = None;
    let mut section = "";
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("# ") {
            if section == "skipped" {
                continue;
            }
            if title.starts_with("skipped:") {
                section = "skipped";
                continue;
            }
            if let Some(c) = current.take() {
                cases.push(c);
            }
            current = Some(Case {
                title: title.trim().to_owned(),
                input: String::new(),
                expected: String::new(),
                expect_error: false,
            });
            section = "";
            continue;
        }
        if section == "skipped" || line.starts_with('#') {
            continue;
        }
        let Some(case) = current.as_mut() else {
            continue;
        };
        match line.trim_end() {
            "== input" => section = "input",
            "== expected" => section = "expected",
            "== expected error" => {
                section = "expected";
                case.expect_error = true;
            }
            _ => {
                let target = match section {
                    "input" => &mut case.input,
                    "expected" => &mut case.expected,
                    _ => continue,
                };
                target.push_str(line);
                target.push('\n');
            }
        }
    }
    cases.extend(current);
    for c in &mut cases {
        c.input = c.input.trim_end().to_owned();
        c.expected = c.expected.trim_end().to_owned();
    }
    cases
}

/// Runs every case through `run`, then checks the outcome against the list
/// of known failures (`pending`, one title per line): every other case must
/// pass, and every pending case must still fail, so that the list shrinks as
/// the pass learns (a fixed case is reported until it leaves the list).
pub fn check_cases(
    file: &str,
    cases: &[Case],
    pending: &str,
    mut run: impl FnMut(&Case) -> Result<String, String>,
) {
    let pending: Vec<&str> = pending
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .collect();
    let mut failures = Vec::new();
    let mut fixed = Vec::new();
    let mut passed = 0;
    for case in cases {
        let outcome = run(case);
        let ok = match (&outcome, case.expect_error) {
            (Ok(text), false) => text.trim_end() == case.expected,
            (Err(msg), true) => msg.contains(case.expected.trim()),
            _ => false,
        };
        let is_pending = pending.contains(&case.title.as_str());
        match (ok, is_pending) {
            (true, false) => passed += 1,
            (true, true) => fixed.push(case.title.clone()),
            (false, true) => {}
            (false, false) => failures.push(format!(
                "# {}\n== input\n{}\n== expected\n{}\n== got\n{}\n",
                case.title,
                case.input,
                case.expected,
                match outcome {
                    Ok(t) => t,
                    Err(e) => format!("error: {e}"),
                }
            )),
        }
    }
    eprintln!(
        "{file}: {passed} passed, {} pending, {} failed, {} fixed",
        pending.len(),
        failures.len(),
        fixed.len()
    );
    assert!(
        failures.is_empty() && fixed.is_empty(),
        "{file}: {} case(s) failed:\n{}\n{} pending case(s) now pass (remove them from the pending list):\n{}",
        failures.len(),
        failures.join("\n"),
        fixed.len(),
        fixed.join("\n")
    );
}

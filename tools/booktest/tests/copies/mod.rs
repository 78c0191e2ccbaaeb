//! What a reader copies is what the book's frame always made, minus only
//! what a fresh project must not get.
//!
//! `build.rs` runs the book through the pipeline twice: as readers get it,
//! and with unpruned copies (whole module files through mdBook's `links`,
//! the modules that whole files need). For every block of both editions
//! this walks the unpruned program line by line beside the reader's, and
//! each line the reader's lacks must start one of these, left out whole:
//!
//! - an item whose attributes include a `cfg` that names `test` or `loom`
//!   outside `not(loom)` (a test module, a loom stand-in), with the
//!   attributes, doc comments and comments above it;
//! - a `#[cfg(not(loom))]`, `#[cfg(not(test))]` or `#[cfg_attr(loom, …)]`
//!   attribute line;
//! - an `// ANCHOR:` or `// ANCHOR_END:` marker line, or a blank line;
//! - a whole module of the frame (`pub mod name {` to its `}`, `name` a
//!   module of the listings crate), which the program no longer needs;
//!
//! and the only lines the reader's adds are the comment and the
//! `#[allow(dead_code, unused_imports)]` before `mod listings {`. The walk is written
//! apart from the plug-in's pruning, so that it checks it, now and after
//! any change to either the listings or the plug-in.

/// The lines a pruned copy adds before `mod listings {`.
const ADDED: [&str; 2] = [
    "// The book's `listings` crate: the modules this program uses, whole.",
    "#[allow(dead_code, unused_imports)]",
];

/// What the reader's copy left out of the unpruned one, by kind: items,
/// attributes, marker or blank lines, whole modules.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LeftOut {
    pub items: usize,
    pub attributes: usize,
    pub lines: usize,
    pub modules: Vec<String>,
}

/// Checks that `new` is `old` minus only what pruning may leave out (see
/// the module's documentation), `modules` being the names of the listings
/// crate's modules; returns what it left out, or where the two part
/// otherwise.
pub fn left_out(old: &str, new: &str, modules: &[String]) -> Result<LeftOut, String> {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let mut out = LeftOut::default();
    let (mut i, mut j) = (0, 0);
    while i < old.len() {
        if j < new.len() && old[i] == new[j] {
            i += 1;
            j += 1;
            continue;
        }
        if j + ADDED.len() < new.len()
            && new[j..j + ADDED.len()] == ADDED
            && new[j + ADDED.len()] == "mod listings {"
        {
            j += ADDED.len();
            continue;
        }
        let line = old[i].trim();
        if line.is_empty() || is_marker(line) {
            out.lines += 1;
            i += 1;
        } else if is_noise_attribute(line) {
            out.attributes += 1;
            i += 1;
        } else if let Some(name) = line
            .strip_prefix("pub mod ")
            .and_then(|rest| rest.strip_suffix(" {"))
            .filter(|name| modules.iter().any(|m| m == name))
        {
            out.modules.push(name.to_string());
            i = end_of(&old, i).ok_or(format!("line {}: `pub mod {name}` never closes", i + 1))?;
        } else if let Some(end) = left_out_item(&old, i) {
            out.items += 1;
            i = end;
        } else {
            return Err(format!(
                "line {} of the unpruned copy is not in the reader's, and is not part of \
                 a test, loom code or a module it no longer needs: {:?} (the reader's copy \
                 has {:?} there)",
                i + 1,
                old[i],
                new.get(j)
            ));
        }
    }
    if j < new.len() {
        return Err(format!(
            "the reader's copy adds lines from line {}: {:?}",
            j + 1,
            new[j]
        ));
    }
    Ok(out)
}

/// A `#[cfg(not(loom))]` or `#[cfg(not(test))]` line (or both, under
/// `all`), or a `cfg_attr` of `loom` or `test`: what pruning drops and keeps
/// the item.
fn is_noise_attribute(line: &str) -> bool {
    if line.starts_with("#[cfg_attr(loom,") || line.starts_with("#[cfg_attr(test,") {
        return true;
    }
    let Some(predicate) = line
        .strip_prefix("#[cfg(")
        .and_then(|rest| rest.strip_suffix(")]"))
    else {
        return false;
    };
    let rest = predicate.replace("not(loom)", "").replace("not(test)", "");
    let rest = rest
        .strip_prefix("all(")
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(&rest);
    rest != predicate && rest.chars().all(|c| c == ',' || c == ' ')
}

fn is_marker(line: &str) -> bool {
    line.strip_prefix("//")
        .map(str::trim)
        .is_some_and(|c| c.starts_with("ANCHOR:") || c.starts_with("ANCHOR_END:"))
}

/// If an item under a test or loom `cfg` starts at line `i` (after
/// comments, doc comments and attributes), the line after it.
fn left_out_item(lines: &[&str], mut i: usize) -> Option<usize> {
    let mut gated = false;
    while let Some(line) = lines.get(i).map(|l| l.trim()) {
        if line.starts_with("//") {
            i += 1;
        } else if line.starts_with("#[") {
            gated |= is_left_out_cfg(line);
            // An attribute over several lines ends at the line closing it.
            i = end_of(lines, i)?;
        } else {
            break;
        }
    }
    if !gated {
        return None;
    }
    if is_field(lines.get(i)?) {
        return end_of_field(lines, i);
    }
    end_of(lines, i)
}

/// A line that starts a field of a struct or of a struct literal: a name,
/// after an optional `pub` or `pub(…)`, then `:` (not `::`).
fn is_field(line: &str) -> bool {
    let mut rest = line.trim_start();
    if let Some(after) = rest.strip_prefix("pub") {
        rest = after.trim_start();
        if rest.starts_with('(') {
            let Some(close) = rest.find(')') else {
                return false;
            };
            rest = rest[close + 1..].trim_start();
        }
    }
    let name = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    name > 0 && rest[name..].starts_with(':') && !rest[name..].starts_with("::")
}

/// The line after the field that starts at line `i`: the line that ends
/// with `,` at depth 0, or the line that closes the struct around it (for
/// a last field without a comma).
fn end_of_field(lines: &[&str], mut i: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut in_string = false;
    while let Some(line) = lines.get(i) {
        let code = code_of(line, &mut in_string);
        for c in code.chars() {
            match c {
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return Some(i);
            }
        }
        i += 1;
        if depth == 0 && code.trim_end().ends_with(',') {
            return Some(i);
        }
    }
    None
}

/// A `#[cfg(…)]` line that only tests or loom builds compile.
fn is_left_out_cfg(line: &str) -> bool {
    let Some(predicate) = line.strip_prefix("#[cfg(") else {
        return false;
    };
    let predicate = predicate.replace("not(loom)", "");
    let words = |w: &str| {
        predicate
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == w)
    };
    !predicate.contains("not(") && (words("test") || words("loom"))
}

/// The line after the item or attribute that starts at line `i`: the line
/// that ends with `}`, `;` or `]` at depth 0 (a signature's `) where` line
/// closes its brackets without ending the item).
fn end_of(lines: &[&str], mut i: usize) -> Option<usize> {
    let mut depth = 0i32;
    // A string may go on over several lines (a `\` at the end of a line).
    let mut in_string = false;
    while let Some(line) = lines.get(i) {
        let code = code_of(line, &mut in_string);
        for c in code.chars() {
            match c {
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' => depth -= 1,
                _ => {}
            }
        }
        i += 1;
        if depth == 0 && code.trim_end().ends_with(['}', ';', ']']) {
            return Some(i);
        }
    }
    None
}

/// A line without its comment, strings and characters: what brackets count.
/// `in_string` says whether the line starts inside a string, and is left
/// saying whether it ends inside one.
fn code_of(line: &str, in_string: &mut bool) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let skip_string = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
        while let Some(s) = chars.next() {
            match s {
                '\\' => {
                    chars.next();
                }
                '"' => return false,
                _ => {}
            }
        }
        true
    };
    if *in_string {
        *in_string = skip_string(&mut chars);
    }
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => break,
            '"' => *in_string = skip_string(&mut chars),
            // A character literal ('{', '\n'), not a lifetime ('a).
            '\'' => {
                let rest: String = chars.clone().take(3).collect();
                if rest.starts_with('\\') {
                    for s in chars.by_ref() {
                        if s == '\'' {
                            break;
                        }
                    }
                } else if rest.chars().nth(1) == Some('\'') {
                    chars.next();
                    chars.next();
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modules() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    const OLD: &str = "\
fn main() {}
mod listings {
pub mod a {
//! A.
#[cfg(loom)]
use loom::sync::{Arc, Mutex};
#[cfg(not(loom))]
use std::sync::{Arc, Mutex};
// ANCHOR: f
pub fn f() { let _ = ('{', \"}\"); }
// ANCHOR_END: f

// Why the test.
#[cfg(all(test, not(loom)))]
mod tests {
    #[test]
    fn t() {}
}
}
pub mod b {
pub fn g() {}
}
}
";

    #[test]
    fn the_walk_accepts_only_what_pruning_leaves_out() {
        let new = "\
fn main() {}
// The book's `listings` crate: the modules this program uses, whole.
#[allow(dead_code, unused_imports)]
mod listings {
pub mod a {
//! A.
use std::sync::{Arc, Mutex};
pub fn f() { let _ = ('{', \"}\"); }

}
}
";
        assert_eq!(
            left_out(OLD, new, &modules()),
            Ok(LeftOut {
                items: 2,
                attributes: 1,
                lines: 2,
                modules: vec!["b".into()],
            })
        );
        assert_eq!(left_out(OLD, OLD, &modules()).map(|l| l.items), Ok(0));
    }

    #[test]
    fn a_string_that_goes_on_over_lines_hides_its_braces() {
        let old = "#[cfg(test)]\nmod tests {\n    fn f() {\n        let _ = \"a {{ b \\\n             c }} }\";\n    }\n}\nfn main() {}\n";
        assert_eq!(
            left_out(old, "fn main() {}\n", &modules()).map(|l| l.items),
            Ok(1)
        );
    }

    #[test]
    fn an_item_with_a_where_clause_ends_at_its_body() {
        let old = "#[cfg(loom)]\npub fn f<F>(\n    x: F,\n) where\n    F: Unpin,\n{\n    let _ = x;\n}\nfn main() {}\n";
        assert_eq!(
            left_out(old, "fn main() {}\n", &modules()).map(|l| l.items),
            Ok(1)
        );
    }

    #[test]
    fn a_loom_field_ends_at_its_comma_or_at_the_struct_it_closes() {
        let old = "struct S {\n    a: u8,\n    #[cfg(loom)]\n    b: (u8, u8),\n    \
                   // Why.\n    #[cfg(loom)]\n    pub(crate) c: fn(u8) -> u8\n}\n\
                   fn s() -> S {\n    S {\n        a: 1,\n        #[cfg(loom)]\n        \
                   b: (1,\n            2),\n    }\n}\n";
        let new = "struct S {\n    a: u8,\n}\nfn s() -> S {\n    S {\n        a: 1,\n    }\n}\n";
        assert_eq!(left_out(old, new, &modules()).map(|l| l.items), Ok(3));
        // A test field stays in the reader's copy: nothing left out.
        let kept = "struct S {\n    #[cfg(test)]\n    n: u8,\n}\n";
        assert_eq!(left_out(kept, kept, &modules()).map(|l| l.items), Ok(0));
    }

    #[test]
    fn the_walk_refuses_anything_else() {
        // A line of code gone.
        let lost = OLD.replace("pub fn f() { let _ = ('{', \"}\"); }\n", "");
        let error = left_out(OLD, &lost, &modules()).unwrap_err();
        assert!(error.contains("line 10 "), "{error}");
        // An item under a cfg that the reader's program does build.
        let old = "#[cfg(unix)]\nfn u() {}\nfn main() {}\n";
        assert!(left_out(old, "fn main() {}\n", &modules()).is_err());
        // A line added, or the allowance anywhere but before the frame.
        assert!(left_out("fn main() {}\n", "fn main() {}\nfn x() {}\n", &modules()).is_err());
        let added = format!("{}\n{}\nfn main() {{}}\n", ADDED[0], ADDED[1]);
        assert!(left_out("fn main() {}\n", &added, &modules()).is_err());
        // A module that is not one of the crate's.
        let inline = "mod listings {\npub mod c {\n}\n}\n";
        assert!(left_out(inline, "mod listings {\n}\n", &modules()).is_err());
    }
}

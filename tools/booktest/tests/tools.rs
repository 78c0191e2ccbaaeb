//! The pinned tools: `tools/book-tools` installs the versions in
//! `[workspace.metadata.book-tools]` of the repository's Cargo.toml, and the
//! plug-in and these tests use mdBook's crates at `[workspace.dependencies]`.
//! Both must name the same mdBook, and the script must read what toml reads.

mod common;

use toml::Table;

fn manifest() -> (String, Table) {
    let path = common::root().join("Cargo.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let table = text.parse::<Table>().unwrap();
    (text, table)
}

fn section<'a>(table: &'a Table, path: &[&str]) -> &'a Table {
    path.iter().fold(table, |t, key| {
        t.get(*key)
            .and_then(|v| v.as_table())
            .unwrap_or_else(|| panic!("Cargo.toml: no [{}]", path.join(".")))
    })
}

#[test]
fn the_mdbook_crates_are_the_mdbook_that_is_installed() {
    let (_, table) = manifest();
    let tools = section(&table, &["workspace", "metadata", "book-tools"]);
    let mdbook = tools["mdbook"].as_str().unwrap();
    let dependencies = section(&table, &["workspace", "dependencies"]);
    let pinned: Vec<(&String, String)> = dependencies
        .iter()
        .filter(|(name, _)| name.starts_with("mdbook-"))
        .map(|(name, value)| {
            let version = match value {
                toml::Value::String(v) => v.clone(),
                other => other["version"].as_str().unwrap().to_owned(),
            };
            (name, version)
        })
        .collect();
    assert!(pinned.len() >= 4, "mdBook's crates: {pinned:?}");
    for (name, version) in pinned {
        assert_eq!(version, format!("={mdbook}"), "{name}");
    }
}

#[test]
fn book_tools_reads_each_pin_from_its_own_line() {
    // tools/book-tools reads `key = "value"` lines with sed: every pin must
    // be written so, and say what toml reads.
    let (text, table) = manifest();
    let tools = section(&table, &["workspace", "metadata", "book-tools"]);
    let body = text
        .split("[workspace.metadata.book-tools]\n")
        .nth(1)
        .expect("the section")
        .split("\n[")
        .next()
        .unwrap();
    for (key, value) in tools {
        let line = format!("{key} = \"{}\"", value.as_str().unwrap());
        assert!(
            body.lines().any(|l| l == line),
            "Cargo.toml: write `{line}` on a line of its own"
        );
    }
    let script = std::fs::read_to_string(common::root().join("tools/book-tools")).unwrap();
    for key in tools.keys() {
        assert!(
            script.contains(&format!("pin {key})")),
            "tools/book-tools does not use {key}"
        );
    }
}

/// Chapter 0's `[dependencies]` block (the one a reader copies, and
/// `tools/copies/run` builds with) names the same rustix features as the
/// workspace, which the book's blocks are compiled with, in both editions.
#[test]
fn chapter_0_names_the_workspaces_rustix_features() {
    let (_, table) = manifest();
    let workspace = &section(&table, &["workspace", "dependencies"])["rustix"]["features"];
    for edition in ["ja", "zh"] {
        let path = common::root().join(format!("src/{edition}/ch00-introduction.md"));
        let text = std::fs::read_to_string(&path).unwrap();
        let block = text
            .split("```toml\n")
            .skip(1)
            .map(|rest| rest.split("```").next().unwrap())
            .find(|block| block.starts_with("[dependencies]"))
            .unwrap_or_else(|| panic!("{edition}: no [dependencies] block in chapter 0"));
        let dependencies = block.parse::<Table>().unwrap();
        let rustix = &dependencies["dependencies"]["rustix"]["features"];
        assert_eq!(rustix, workspace, "{edition}: chapter 0's rustix features");
    }
}

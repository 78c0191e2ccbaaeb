//! The hidden frame that makes a block of listing code a whole program.
//!
//! Modules in `listings/src/` reach each other with `super::` and examples
//! reach them with `listings::`, so the crate's files also compile as one
//! program when wrapped in `mod listings { pub mod timer { … } … }`. An author
//! writes only what the reader sees — the visible includes and, hidden, the
//! example whose `main` runs them:
//!
//! ````markdown
//! ```rust
//! {{#rustdoc_include ../../listings/examples/ch03_howdy.rs::0}}
//! {{#rustdoc_include ../../listings/src/executor.rs:spawn}}
//! ```
//! ````
//!
//! and [`Frames::write`] turns every include of a `listings/src` file into
//! the hidden frame: `# mod listings {`, a `# pub mod …` per module in
//! `lib.rs` order, each holding the author's include of that file or else a
//! hidden whole-file include, for every module the block needs. A module is
//! needed when the block includes it, or when a needed file (an example,
//! the block's own lines, a module) names it through `listings::` or
//! `super::`, transitively; comments, strings, tests and loom-only items
//! (whose `cfg` is false when neither `test` nor `loom` is set) do not
//! count. The frame takes the place of the first such include. A block
//! that already has a `mod listings` line is left as its author wrote it.
//!
//! The includes of modules stay directives here: captions read them. Last,
//! [`Frames::expand_includes`] expands them as mdBook's `links` would, but
//! without the tests and loom-only code in the hidden lines
//! ([`crate::expand`]), so that a reader's copy builds without a warning in
//! a fresh project and its `cargo test` passes. `mod listings` carries
//! `#[allow(dead_code, unused_imports)]`: modules come in whole, and a
//! program uses only some of their items. [`Copies::Unpruned`] makes the
//! frames as they were before copies were pruned, for the tests to compare.

use crate::directives::{Include, directives, relative};
use crate::expand::{Fate, expand, fates};
use crate::markdown::fences;
use crate::{Error, Result};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Where the listings crate's modules live, from the repository root.
pub const SRC: &str = "listings/src";

/// A module file of the listings crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// `["exercises", "ch01"]`.
    pub path: Vec<String>,
    /// `listings/src/exercises/ch01.rs`.
    pub file: String,
}

/// How much of the listings crate a block's program copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Copies {
    /// What a reader gets: each module without its tests and loom-only
    /// code, which the plug-in expands itself ([`Frames::expand_includes`]),
    /// and only the modules the rest needs.
    Pruned,
    /// Whole files through mdBook's `links`, and the modules that needs:
    /// what the frame wrote before copies were pruned. The book's tests
    /// compare the two, so that pruning leaves out nothing else.
    Unpruned,
}

/// A module file's text, and what becomes of each of its lines.
type Source = (String, Vec<Fate>);

/// The listings crate's module tree, and what each file needs.
#[derive(Debug)]
pub struct Frames {
    root: PathBuf,
    copies: Copies,
    /// Every module with a file of its own, in `lib.rs` order (a folder
    /// module's children in its `mod.rs` order, where it stands).
    modules: Vec<Module>,
    /// Per file read, the modules it names.
    needs: RefCell<BTreeMap<String, BTreeSet<Vec<String>>>>,
    /// Per module file expanded, its text and what becomes of each line.
    sources: RefCell<BTreeMap<String, Rc<Source>>>,
}

impl Frames {
    /// Reads the module tree from `listings/src/lib.rs` under `root`, for
    /// the copies readers get.
    pub fn load(root: &Path) -> Result<Frames> {
        Frames::load_with(root, Copies::Pruned)
    }

    /// Reads the module tree from `listings/src/lib.rs` under `root`.
    pub fn load_with(root: &Path, copies: Copies) -> Result<Frames> {
        let mut modules = Vec::new();
        collect_modules(root, SRC, "lib.rs", &mut Vec::new(), &mut modules)?;
        Ok(Frames {
            root: root.to_path_buf(),
            copies,
            modules,
            needs: RefCell::default(),
            sources: RefCell::default(),
        })
    }

    /// Which items the dependency analysis passes over.
    fn skip(&self) -> Skip {
        match self.copies {
            Copies::Pruned => Skip::LeftOut,
            Copies::Unpruned => Skip::Tests,
        }
    }

    /// The module files, in `lib.rs` order.
    pub fn modules(&self) -> &[Module] {
        &self.modules
    }

    fn module_of_file(&self, file: &str) -> Option<&Module> {
        self.modules.iter().find(|m| m.file == file)
    }

    /// The body of a ```rust block (the lines between its fences) with the
    /// hidden frame written in, or `None` if it needs none. `dir` is the
    /// folder of the chapter, from the repository root (`src/ja`).
    pub fn write(&self, body: &str, dir: &str) -> Result<Option<String>> {
        if body
            .lines()
            .any(|l| l.trim_start_matches(['#', ' ']).starts_with("mod listings"))
        {
            return Ok(None);
        }
        let lines: Vec<&str> = body.split_inclusive('\n').collect();
        // Per line: the listing module it includes, if it is such an include.
        let mut includes_of: Vec<Option<&Module>> = Vec::with_capacity(lines.len());
        let mut needed: BTreeSet<Vec<String>> = BTreeSet::new();
        let mut own_text = String::new();
        for line in &lines {
            let found = directives(line);
            let mut module = None;
            for directive in &found {
                let Some(include) = Include::of(directive) else {
                    continue;
                };
                let file = include.file_from_root(dir);
                if let Some(m) = self.module_of_file(&file) {
                    let alone = found.len() == 1
                        && line[..directive.range.start].trim().is_empty()
                        && line[directive.range.end..].trim().is_empty();
                    if !alone {
                        return Err(Error::in_file(
                            &file,
                            "an include of a listings module must be alone on its line",
                        ));
                    }
                    needed.insert(m.path.clone());
                    module = Some(m);
                } else if file.starts_with(SRC) {
                    return Err(format!(
                        "{file} is not a module of listings/src/lib.rs (a `mod.rs` only declares \
                         modules: show it as text)"
                    )
                    .into());
                } else if file.ends_with(".rs") {
                    needed.extend(self.needs_of_file(&file, None)?);
                }
            }
            if module.is_none() && found.is_empty() {
                own_text.push_str(line);
            }
            includes_of.push(module);
        }
        // The frame puts the module includes together, in `lib.rs` order:
        // so must the author, or the reader's lines would move.
        let at: Vec<usize> = (0..lines.len())
            .filter(|&i| includes_of[i].is_some())
            .collect();
        if let (Some(&first), Some(&last)) = (at.first(), at.last()) {
            let position = |m: &Module| self.modules.iter().position(|k| k.path == m.path);
            let in_order = at.windows(2).all(|w| {
                position(includes_of[w[0]].unwrap()) <= position(includes_of[w[1]].unwrap())
            });
            let together =
                (first..=last).all(|i| includes_of[i].is_some() || lines[i].trim().is_empty());
            if !in_order || !together {
                return Err(format!(
                    "the includes of listings modules must stand together, in the order of \
                     listings/src/lib.rs ({}): the hidden frame keeps them in that order",
                    self.modules
                        .iter()
                        .map(|m| m.path.join("::"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
                .into());
            }
        }
        let named =
            needs_of_text(&own_text, None, self.skip()).map_err(|e| format!("the block: {e}"))?;
        needed.extend(
            self.modules_named(named, None)
                .map_err(|e| format!("the block: {e}"))?,
        );
        if needed.is_empty() {
            return Ok(None);
        }
        // Follow what the needed modules need.
        let mut queue: Vec<Vec<String>> = needed.iter().cloned().collect();
        while let Some(path) = queue.pop() {
            let module = self.leaf(&path)?;
            for more in self.needs_of_file(&module.file, Some(&module.path))? {
                if needed.insert(more.clone()) {
                    queue.push(more);
                }
            }
        }
        let first = includes_of.iter().position(Option::is_some);
        let mut out = String::with_capacity(body.len() + 512);
        for (index, line) in lines.iter().enumerate() {
            if Some(index) == first {
                out.push_str(&self.frame(&needed, &lines, &includes_of, dir));
            }
            if includes_of[index].is_none() {
                out.push_str(line);
            }
        }
        if first.is_none() {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&self.frame(&needed, &lines, &includes_of, dir));
        }
        Ok(Some(out))
    }

    /// `# mod listings { … # }`: each needed module in tree order, holding
    /// the block's includes of its file, or a hidden include of all of it.
    fn frame(
        &self,
        needed: &BTreeSet<Vec<String>>,
        lines: &[&str],
        includes_of: &[Option<&Module>],
        dir: &str,
    ) -> String {
        // The block's indentation (inside a list item), from its first line
        // that has text: every line of the frame needs it.
        let prefix: String = lines
            .iter()
            .find(|line| !line.trim().is_empty())
            .map(|line| line[..line.len() - line.trim_start().len()].to_string())
            .unwrap_or_default();
        let mut out = match self.copies {
            // Whole modules come in, and a program uses only some of their
            // items (and of their re-exports): pruning each module to what
            // one program calls would take a call graph of the crate, for
            // hidden lines that no reader compiles item by item.
            Copies::Pruned => format!(
                "{prefix}# // The book's `listings` crate: the modules this program uses, whole.\n\
                 {prefix}# #[allow(dead_code, unused_imports)]\n\
                 {prefix}# mod listings {{\n"
            ),
            Copies::Unpruned => format!("{prefix}# mod listings {{\n"),
        };
        let mut open: Vec<&str> = Vec::new();
        for module in self.modules.iter().filter(|m| needed.contains(&m.path)) {
            let parents = &module.path[..module.path.len() - 1];
            let common = open
                .iter()
                .zip(parents)
                .take_while(|(a, b)| **a == b.as_str())
                .count();
            for _ in common..open.len() {
                out.push_str(&format!("{prefix}# }}\n"));
            }
            open.truncate(common);
            for name in &parents[common..] {
                out.push_str(&format!("{prefix}# pub mod {name} {{\n"));
                open.push(name);
            }
            let name = module.path.last().expect("a module has a name");
            out.push_str(&format!("{prefix}# pub mod {name} {{\n"));
            let mut own = lines
                .iter()
                .zip(includes_of)
                .filter(|(_, m)| matches!(m, Some(m) if m.path == module.path))
                .map(|(line, _)| *line)
                .peekable();
            if own.peek().is_none() {
                out.push_str(&format!(
                    "{prefix}{{{{#rustdoc_include {}::0}}}}\n",
                    relative(dir, &module.file)
                ));
            }
            for line in own {
                out.push_str(line);
                if !line.ends_with('\n') {
                    out.push('\n');
                }
            }
            out.push_str(&format!("{prefix}# }}\n"));
        }
        for _ in &open {
            out.push_str(&format!("{prefix}# }}\n"));
        }
        out.push_str(&format!("{prefix}# }}\n"));
        out
    }

    /// `content` (a chapter whose folder is `dir`, from the repository
    /// root) with every include of a listings module in a ```rust block
    /// expanded as mdBook's `links` would, without what a reader's program
    /// leaves out of the hidden lines (see [`crate::expand`]). Unpruned
    /// copies leave the includes to mdBook.
    pub fn expand_includes(&self, content: &str, dir: &str) -> Result<String> {
        if self.copies == Copies::Unpruned {
            return Ok(content.to_string());
        }
        let mut out = String::with_capacity(content.len() * 4);
        let mut copied = 0;
        for fence in fences(content) {
            if fence.language() != "rust" {
                continue;
            }
            let block = &content[fence.range.clone()];
            for directive in directives(block) {
                let Some(include) = Include::of(&directive) else {
                    continue;
                };
                let file = include.file_from_root(dir);
                if self.module_of_file(&file).is_none() {
                    continue;
                }
                let source = self.source(&file)?;
                let (text, fates) = &*source;
                let expanded = expand(text, fates, &include.part, include.rustdoc)
                    .map_err(|e| e.with_file(&file))?;
                let start = fence.range.start + directive.range.start;
                out.push_str(&content[copied..start]);
                out.push_str(&expanded);
                copied = fence.range.start + directive.range.end;
            }
        }
        out.push_str(&content[copied..]);
        Ok(out)
    }

    /// How much of the crate the blocks' programs copy.
    pub fn copies(&self) -> Copies {
        self.copies
    }

    /// A module file (from the repository root) as appendix C shows it:
    /// the module as a reader's program keeps it, and the tests and loom
    /// code it leaves out (see [`crate::expand`]).
    pub fn split(&self, file: &str) -> Result<(String, String)> {
        let source = self.source(file)?;
        let (text, fates) = &*source;
        crate::expand::refuse_directives(text).map_err(|e| e.with_file(file))?;
        Ok(crate::expand::split(text, fates))
    }

    /// A module file's text, and what becomes of each of its lines.
    fn source(&self, file: &str) -> Result<Rc<Source>> {
        if let Some(known) = self.sources.borrow().get(file) {
            return Ok(Rc::clone(known));
        }
        let text =
            std::fs::read_to_string(self.root.join(file)).map_err(|e| Error::in_file(file, e))?;
        let fates = fates(&text).map_err(|e| e.with_file(file))?;
        let source = Rc::new((text, fates));
        self.sources
            .borrow_mut()
            .insert(file.to_string(), Rc::clone(&source));
        Ok(source)
    }

    /// The module whose file is at `path`, or an error naming it.
    fn leaf(&self, path: &[String]) -> Result<&Module> {
        self.modules
            .iter()
            .find(|m| m.path == path)
            .ok_or_else(|| format!("no module listings::{}", path.join("::")).into())
    }

    /// The modules `file` (from the repository root) names; `own` is its
    /// module path if it is a module of the crate.
    fn needs_of_file(&self, file: &str, own: Option<&[String]>) -> Result<BTreeSet<Vec<String>>> {
        if let Some(known) = self.needs.borrow().get(file) {
            return Ok(known.clone());
        }
        let text =
            std::fs::read_to_string(self.root.join(file)).map_err(|e| Error::in_file(file, e))?;
        let named = needs_of_text(&text, own, self.skip()).map_err(|e| e.with_file(file))?;
        let modules = self
            .modules_named(named, own)
            .map_err(|e| e.with_file(file))?;
        self.needs
            .borrow_mut()
            .insert(file.to_string(), modules.clone());
        Ok(modules)
    }

    /// The modules with a file that `paths` (from the crate root) point
    /// into, leaving out `own`: for each path the module it starts with, or
    /// every module under it if it names a folder module.
    fn modules_named(
        &self,
        paths: BTreeSet<Vec<String>>,
        own: Option<&[String]>,
    ) -> Result<BTreeSet<Vec<String>>> {
        let mut modules = BTreeSet::new();
        for path in paths {
            let leaves: Vec<&Module> = self
                .modules
                .iter()
                .filter(|m| path.starts_with(&m.path) || m.path.starts_with(&path))
                .collect();
            if leaves.is_empty() {
                return Err(format!("`{}` names no module of {SRC}", path.join("::")).into());
            }
            modules.extend(
                leaves
                    .into_iter()
                    .filter(|m| Some(m.path.as_slice()) != own)
                    .map(|m| m.path.clone()),
            );
        }
        Ok(modules)
    }
}

/// Reads the `mod x;` declarations of `dir/file` into `out` (depth first).
fn collect_modules(
    root: &Path,
    dir: &str,
    file: &str,
    parents: &mut Vec<String>,
    out: &mut Vec<Module>,
) -> Result<()> {
    let path = format!("{dir}/{file}");
    let text = std::fs::read_to_string(root.join(&path)).map_err(|e| Error::in_file(&path, e))?;
    let tokens = tokens(&text).map_err(|e| e.with_file(&path))?;
    for window in tokens.windows(3) {
        let [Token::Ident(kw), Token::Ident(name), Token::Punct(';')] = window else {
            continue;
        };
        if kw != "mod" {
            continue;
        }
        parents.push(name.clone());
        let leaf = format!("{dir}/{name}.rs");
        if root.join(&leaf).is_file() {
            out.push(Module {
                path: parents.clone(),
                file: leaf,
            });
        } else {
            collect_modules(root, &format!("{dir}/{name}"), "mod.rs", parents, out)?;
        }
        parents.pop();
    }
    Ok(())
}

// Why a small lexer of our own, and not `syn` (or each file's needs
// declared in data/listings.toml):
// - Two users need it: which modules a file names (here), and where, to the
//   byte and the line, each test or loom-only item starts and ends, with
//   its attributes, doc comments and the plain comment lines above it, so
//   that `expand` can leave exactly those lines out of a reader's copy. syn
//   drops plain comments and gives lines only through proc-macro2's
//   `span-locations`; the line bookkeeping would stay, beside a full parse.
// - It reads what an author writes in listings/, which the compile tests
//   then check: a path it missed is a block that fails to compile, an item
//   it cut wrongly is a copy the copies check or the unpruned comparison
//   rejects (tools/booktest/tests/copies). syn would parse more than we
//   need, with its `full` and `visit` features in the plug-in that
//   `mdbook serve` compiles first.
// - Declaring needs by hand in data/listings.toml would repeat what the
//   code says; a missing module fails to compile, but an extra one would
//   go unnoticed.
/// A token of Rust source, as far as paths and attributes need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    Ident(String),
    /// `::`
    PathSep,
    Punct(char),
}

/// The tokens of Rust source that matter for paths: identifiers, `::` and
/// punctuation. Comments, strings, characters and lifetimes are dropped.
fn tokens(text: &str) -> Result<Vec<Token>> {
    Ok(lex(text)?.into_iter().map(|(token, _)| token).collect())
}

/// [`tokens`], each with the byte range it spans in `text`.
pub(crate) fn lex(text: &str) -> Result<Vec<(Token, Range<usize>)>> {
    let chars: Vec<char> = text.chars().collect();
    // Byte offset of each character, and of the end.
    let bytes: Vec<usize> = text
        .char_indices()
        .map(|(at, _)| at)
        .chain([text.len()])
        .collect();
    let mut out: Vec<(Token, Range<usize>)> = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    return Err("unclosed block comment".into());
                }
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && at(i + 1) == '#' && (at(i + 2).is_alphabetic() || at(i + 2) == '_') {
            // A raw identifier: r#async is the identifier `async`.
            let start = i + 2;
            i = start;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            out.push((
                Token::Ident(chars[start..i].iter().collect()),
                bytes[start - 2]..bytes[i],
            ));
        } else if matches!(c, 'b' | 'c') && at(i + 1) == 'r' && matches!(at(i + 2), '"' | '#') {
            // br"…" and cr"…" read as r"…" from the next character.
            i += 1;
        } else if c == 'r'
            && (at(i + 1) == '"' || (at(i + 1) == '#' && matches!(at(i + 2), '"' | '#')))
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    return Err("unclosed raw string".into());
                }
                if chars[j] == '"' && (0..hashes).all(|k| at(j + 1 + k) == '#') {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            loop {
                match chars.get(j) {
                    None => return Err("unclosed string".into()),
                    Some('\\') => j += 2,
                    Some('"') => break,
                    Some(_) => j += 1,
                }
            }
            i = j + 1;
        } else if c == '\'' {
            // A character ('a', '\n', '\u{1F600}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                // Past the backslash and the escaped character.
                let mut j = i + 3;
                while j < chars.len() && chars[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            out.push((
                Token::Ident(chars[start..i].iter().collect()),
                bytes[start]..bytes[i],
            ));
        } else if c == ':' && at(i + 1) == ':' {
            out.push((Token::PathSep, bytes[i]..bytes[i + 2]));
            i += 2;
        } else if c.is_ascii_digit() {
            while at(i).is_alphanumeric()
                || at(i) == '_'
                || at(i) == '.' && at(i + 1).is_ascii_digit()
            {
                i += 1;
            }
        } else {
            out.push((Token::Punct(c), bytes[i]..bytes[i + 1]));
            i += 1;
        }
    }
    Ok(out)
}

/// The paths into the listings crate that Rust source names, each as the
/// module path it starts with: `super::timer::TimerFuture` in module
/// `["state_machine"]` gives `["timer", "TimerFuture"]`. `own` is the
/// source's module path if it is a module of the crate (then `super::` and
/// `self::` count, and `crate::` is an error: in a book block the crate
/// root is the reader's program); otherwise only `listings::` counts.
/// Items under `#[cfg(test)]` are skipped: the reader's program never has
/// them.
fn needs_of_text(text: &str, own: Option<&[String]>, skip: Skip) -> Result<BTreeSet<Vec<String>>> {
    let tokens = tokens(text)?;
    let mut out = BTreeSet::new();
    // The inline modules we are in: (name, brace depth of its body).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Punct('#')
                if match skip {
                    Skip::Tests => is_cfg_test(&tokens[i..]),
                    Skip::LeftOut => leaves_out_at(&tokens, i),
                } =>
            {
                i = skip_item(&tokens, i);
                continue;
            }
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d > depth) {
                    inline.pop();
                }
            }
            Token::Ident(kw) if kw == "mod" => {
                if let (Some(Token::Ident(name)), Some(Token::Punct('{'))) =
                    (tokens.get(i + 1), tokens.get(i + 2))
                {
                    inline.push((name.clone(), depth + 1));
                }
            }
            Token::Ident(word)
                if tokens.get(i + 1) == Some(&Token::PathSep)
                    && !KEYWORDS.contains(&word.as_str())
                    && is_path_start(&tokens, i) =>
            {
                let mut paths = Vec::new();
                let next = use_tree(&tokens, i, Vec::new(), &mut paths);
                for path in paths {
                    if let Some(resolved) = resolve(&path, own, &inline)? {
                        out.insert(resolved);
                    }
                }
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(out)
}

/// Keywords that can stand before a leading `::` (`use ::listings::x`) and
/// never start a path themselves (`self`, `super` and `crate` do).
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "dyn", "else", "enum", "extern", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "type", "unsafe", "use", "where", "while",
];

/// Whether the identifier at `i` starts a path: nothing path-like before
/// it, or only a leading `::` (`::listings::x`).
fn is_path_start(tokens: &[Token], i: usize) -> bool {
    if i == 0 || tokens[i - 1] != Token::PathSep {
        return true;
    }
    // A `::` after a name (`a::listings`) continues a path; after anything
    // else (`use ::listings`, `(::listings`) it starts one.
    match i.checked_sub(2).map(|j| &tokens[j]) {
        Some(Token::Ident(word)) => KEYWORDS.contains(&word.as_str()),
        Some(Token::Punct('>' | ')')) => false,
        _ => true,
    }
}

/// Which items the dependency analysis passes over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// `#[cfg(test)]` and `#[cfg(all(…, test, …))]` items: what the frame
    /// passed over before copies were pruned (the unpruned copy, which the
    /// tests compare the pruned one with).
    Tests,
    /// Every item that a reader's program leaves out ([`Cfg::leaves_out`]):
    /// tests and loom-only code.
    LeftOut,
}

/// A `#[cfg(…)]` or `#[cfg_attr(…, …)]` attribute, as a reader's program
/// sees it. A reader builds and tests a copy in a fresh project, where the
/// copy's tests are gone (they need the listings crate's own test helpers
/// and dev-dependencies) and nothing sets `--cfg loom`: there `test` and
/// `loom` are both off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cfg {
    /// `cfg_attr` rather than `cfg`.
    pub attr: bool,
    /// The predicate with `test` and `loom` off; `None` when it also
    /// depends on something else (a feature, the target).
    pub value: Option<bool>,
    /// Whether the predicate names `loom`.
    pub loom: bool,
    /// Whether the predicate names `test`.
    pub test: bool,
    /// How many tokens the attribute spans, `#[` to `]`.
    pub len: usize,
}

impl Cfg {
    /// The `cfg` or `cfg_attr` attribute the tokens start with, if any.
    pub fn at(tokens: &[Token]) -> Option<Cfg> {
        let [
            Token::Punct('#'),
            Token::Punct('['),
            Token::Ident(name),
            Token::Punct('('),
            ..,
        ] = tokens
        else {
            return None;
        };
        let attr = match name.as_str() {
            "cfg" => false,
            "cfg_attr" => true,
            _ => return None,
        };
        let (value, loom, _) = predicate(&tokens[4..]);
        // The attribute ends at the `]` that closes its `[`.
        let mut depth = 0;
        let len = tokens[1..].iter().position(|t| match t {
            Token::Punct('[' | '(' | '{') => {
                depth += 1;
                false
            }
            Token::Punct(']' | ')' | '}') => {
                depth -= 1;
                depth == 0
            }
            _ => false,
        })? + 2;
        let test = tokens[..len]
            .iter()
            .any(|t| matches!(t, Token::Ident(name) if name == "test"));
        Some(Cfg {
            attr,
            value,
            loom,
            test,
            len,
        })
    }

    /// A `cfg` whose item a reader's program never compiles: a test, or
    /// code for the model checker.
    pub fn leaves_out(&self) -> bool {
        !self.attr && self.value == Some(false)
    }

    /// An attribute that changes nothing in a reader's program once its
    /// tests and loom code are left out: `#[cfg(not(loom))]`, which a fresh
    /// project warns about (`unexpected cfg condition name`);
    /// `#[cfg(not(test))]`, whose item the reader's `cargo test` would
    /// otherwise lose with nothing in its place (the `cfg(test)` stand-in
    /// is left out); or a `cfg_attr` that never applies.
    pub fn is_noise(&self) -> bool {
        if self.attr {
            self.value == Some(false)
        } else {
            self.value == Some(true) && (self.loom || self.test)
        }
    }
}

/// A `cfg` predicate at the start of `tokens`: its value with `test` and
/// `loom` off (`None` if it depends on anything else), whether it names
/// `loom`, and how many tokens it spans.
fn predicate(tokens: &[Token]) -> (Option<bool>, bool, usize) {
    match tokens {
        [Token::Ident(op), Token::Punct('('), ..]
            if matches!(op.as_str(), "all" | "any" | "not") =>
        {
            let mut values = Vec::new();
            let mut loom = false;
            let mut i = 2;
            loop {
                match tokens.get(i) {
                    None => break,
                    Some(Token::Punct(')')) => {
                        i += 1;
                        break;
                    }
                    Some(Token::Punct(',')) => i += 1,
                    Some(_) => {
                        let (value, names_loom, len) = predicate(&tokens[i..]);
                        values.push(value);
                        loom |= names_loom;
                        i += len.max(1);
                    }
                }
            }
            let value = match op.as_str() {
                "not" => values.first().copied().flatten().map(|v| !v),
                "all" if values.contains(&Some(false)) => Some(false),
                "all" => values.iter().all(Option::is_some).then_some(true),
                _ if values.contains(&Some(true)) => Some(true),
                _ => values.iter().all(Option::is_some).then_some(false),
            };
            (value, loom, i)
        }
        // `feature = "x"`: the tokenizer drops the string.
        [Token::Ident(_), Token::Punct('='), ..] => (None, false, 2),
        [Token::Ident(name), ..] => match name.as_str() {
            "test" => (Some(false), false, 1),
            "loom" => (Some(false), true, 1),
            _ => (None, false, 1),
        },
        _ => (None, false, 1),
    }
}

/// Whether the tokens start with an attribute that keeps the item out of
/// every build but the tests: `#[cfg(test)]` or `#[cfg(all(…, test, …))]`.
fn is_cfg_test(tokens: &[Token]) -> bool {
    let open = [
        Token::Punct('#'),
        Token::Punct('['),
        Token::Ident("cfg".into()),
        Token::Punct('('),
    ];
    let Some(predicate) = tokens.strip_prefix(&open[..]) else {
        return false;
    };
    match predicate {
        [Token::Ident(word), Token::Punct(')'), ..] => word == "test",
        [Token::Ident(all), Token::Punct('('), rest @ ..] if all == "all" => {
            // `test` among all(…)'s own arguments, not inside not(…).
            let mut depth = 1;
            for token in rest {
                match token {
                    Token::Punct('(') => depth += 1,
                    Token::Punct(')') => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Token::Ident(word) if depth == 1 && word == "test" => return true,
                    _ => {}
                }
            }
            false
        }
        _ => false,
    }
}

/// Whether the code at `i` (after its attributes) is a field of a struct
/// or of a struct literal: a name, after an optional `pub` or
/// `pub(…)`, followed by `:` (or, in a literal's shorthand, `,` or `}`).
/// An item starts with a keyword followed by a name, a statement never
/// with `name:`.
pub(crate) fn is_field(tokens: &[Token], mut i: usize) -> bool {
    if tokens.get(i) == Some(&Token::Ident("pub".to_owned())) {
        i += 1;
        if tokens.get(i) == Some(&Token::Punct('(')) {
            match tokens[i..].iter().position(|t| *t == Token::Punct(')')) {
                Some(close) => i += close + 1,
                None => return false,
            }
        }
    }
    matches!(tokens.get(i), Some(Token::Ident(_)))
        && matches!(tokens.get(i + 1), Some(Token::Punct(':' | ',' | '}')))
}

/// Whether the `cfg` attribute at `i` leaves its code out of a reader's
/// program. A test-only field (`#[cfg(test)] count: AtomicUsize,` and its
/// `count: Default::default(),` in a struct literal) stays: a chapter may
/// show the struct, or code that uses the field under `#[cfg(test)]`, and
/// visible lines are kept as they are, so the reader's `cargo test` needs
/// the field wherever the struct is built. It names no test helper, so it
/// builds in a fresh project, and without `test` it is not compiled.
pub(crate) fn leaves_out_at(tokens: &[Token], i: usize) -> bool {
    let Some(cfg) = Cfg::at(&tokens[i..]) else {
        return false;
    };
    cfg.leaves_out() && !(cfg.test && !cfg.loom && is_field(tokens, after_attributes(tokens, i)))
}

/// The index after the attributes that start at `i`.
fn after_attributes(tokens: &[Token], mut i: usize) -> usize {
    while tokens.get(i) == Some(&Token::Punct('#')) && tokens.get(i + 1) == Some(&Token::Punct('['))
    {
        let mut depth = 0;
        i += 1;
        while i < tokens.len() {
            match tokens[i] {
                Token::Punct('[') => depth += 1,
                Token::Punct(']') => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    i
}

/// The index after the item that the attribute at `i` applies to (its
/// other attributes, then up to its `;` or the end of its first `{…}`; for
/// a field, up to its `,`).
pub(crate) fn skip_item(tokens: &[Token], i: usize) -> usize {
    // Attributes: `#[…]`, possibly several.
    let mut i = after_attributes(tokens, i);
    // A field of a struct, or of a struct literal, ends after its `,`
    // outside all brackets and generics (`HashMap<K, V>`), or before the
    // bracket that closes the struct when it is the last.
    if is_field(tokens, i) {
        let mut open = 0usize;
        let mut angles = 0usize;
        while i < tokens.len() {
            match tokens[i] {
                Token::Punct(',') if open == 0 && angles == 0 => return i + 1,
                Token::Punct('(' | '[' | '{') => open += 1,
                Token::Punct(')' | ']' | '}') if open == 0 => return i,
                Token::Punct(')' | ']' | '}') => open -= 1,
                Token::Punct('<') if open == 0 => angles += 1,
                // Not the `>` of `->` or `=>`.
                Token::Punct('>')
                    if open == 0 && !matches!(tokens[i - 1], Token::Punct('-' | '=')) =>
                {
                    angles = angles.saturating_sub(1);
                }
                _ => {}
            }
            i += 1;
        }
        return i;
    }
    // The item ends at a `;` outside all brackets (`[u8; 2]` holds one),
    // or where the first `{…}` outside all brackets closes, unless it is
    // an item that always ends with `;` (`use a::{b, c};`, a `const` that
    // holds a struct).
    let to_semicolon = tokens[i..]
        .iter()
        .find_map(|t| match t {
            Token::Ident(word) if matches!(word.as_str(), "pub" | "crate" | "super" | "in") => None,
            Token::Punct('(' | ')') | Token::PathSep => None,
            Token::Ident(word) => Some(matches!(
                word.as_str(),
                "use" | "const" | "static" | "type" | "extern"
            )),
            _ => Some(false),
        })
        .unwrap_or(false);
    let mut open: Vec<char> = Vec::new();
    while i < tokens.len() {
        match tokens[i] {
            Token::Punct(';') if open.is_empty() => return i + 1,
            Token::Punct(c @ ('(' | '[' | '{')) => open.push(c),
            Token::Punct(')' | ']') => {
                open.pop();
            }
            Token::Punct('}') => match open.pop() {
                Some('{') if open.is_empty() && !to_semicolon => return i + 1,
                _ => {}
            },
            _ => {}
        }
        i += 1;
    }
    i
}

/// Reads a path or `use` tree starting at `i` (`a::b::{c, d::e}`), pushing
/// each full path to `out`; returns the index after it.
fn use_tree(
    tokens: &[Token],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        match tokens.get(i) {
            Some(Token::Ident(name)) => {
                prefix.push(name.clone());
                i += 1;
                if tokens.get(i) == Some(&Token::PathSep) {
                    i += 1;
                    continue;
                }
                out.push(prefix);
                return i;
            }
            Some(Token::Punct('{')) => {
                i += 1;
                while i < tokens.len() && tokens[i] != Token::Punct('}') {
                    i = use_tree(tokens, i, prefix.clone(), out);
                    if tokens.get(i) == Some(&Token::Punct(',')) {
                        i += 1;
                    }
                }
                return i + 1;
            }
            _ => {
                out.push(prefix);
                return i;
            }
        }
    }
}

/// A path as a module path from the crate root, if it points into the
/// listings crate.
fn resolve(
    path: &[String],
    own: Option<&[String]>,
    inline: &[(String, usize)],
) -> Result<Option<Vec<String>>> {
    let shown = path.join("::");
    let Some(first) = path.first() else {
        return Ok(None);
    };
    let mut base: Vec<String> = match (first.as_str(), own) {
        ("listings", None) => Vec::new(),
        ("super" | "self", Some(own)) => own
            .iter()
            .cloned()
            .chain(inline.iter().map(|(name, _)| name.clone()))
            .collect(),
        ("crate", Some(_)) => {
            return Err(format!(
                "`{shown}`: outside its tests a listings module reaches its siblings with \
                 `super::`, never `crate::` (in a book block the crate is the reader's program)"
            )
            .into());
        }
        _ => return Ok(None),
    };
    let mut rest = &path[1..];
    if first == "super" {
        base.pop();
    }
    while rest.first().is_some_and(|s| s == "super") {
        if base.pop().is_none() {
            return Err(format!("`{shown}` goes above the crate root").into());
        }
        rest = &rest[1..];
    }
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    Ok(Some(base).filter(|p| !p.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(set: &BTreeSet<Vec<String>>) -> Vec<String> {
        set.iter().map(|p| p.join("::")).collect()
    }

    #[test]
    fn paths_are_read_from_code_not_from_comments_strings_or_tests() {
        let text = r#"
//! Uses `super::super::pinning` in prose only.
use super::super::timer::TimerFuture;
use super::super::{executor::Spawner, state_machine};
/* super::super::combinators::Log */
const S: &str = "super::super::simple_future";
fn f<'a>(x: &'a str) -> char { let _ = super::super::combinators::Join::new; '\'' }
mod inner { use super::super::super::pinning::SelfRef; }
#[cfg(test)]
mod tests { use super::super::super::real_future::SocketRead; }
#[cfg(all(test, not(loom)))]
mod more_tests { use crate::test_wakers::TestWaker; }
#[cfg(all(not(test), loom))]
use super::super::std_executor::Task;
"#;
        let own = ["exercises".to_string(), "ch09".to_string()];
        let found = needs_of_text(text, Some(&own), Skip::LeftOut).unwrap();
        let expected = [
            "combinators::Join::new",
            "executor::Spawner",
            "pinning::SelfRef",
            "state_machine",
            "timer::TimerFuture",
        ];
        assert_eq!(names(&found), expected);
        // Unpruned, only tests were passed over: loom-only code counted.
        let found = needs_of_text(text, Some(&own), Skip::Tests).unwrap();
        let mut with_loom = expected.to_vec();
        with_loom.insert(4, "std_executor::Task");
        assert_eq!(names(&found), with_loom);
        let example = "use listings::{timer::TimerFuture, executor};\nfn main() { crate::x(); }";
        assert_eq!(
            names(&needs_of_text(example, None, Skip::LeftOut).unwrap()),
            ["executor", "timer::TimerFuture"]
        );
        let bad = needs_of_text("use crate::timer::X;", Some(&own), Skip::LeftOut).unwrap_err();
        assert!(bad.message().contains("never `crate::`"), "{bad}");
    }

    #[test]
    fn raw_identifiers_raw_strings_and_brackets() {
        let text = r##"
const A: &[u8] = br#"super::super::pinning"#;
use ::listings::timer;
#[cfg(test)]
const B: [u8; 2] = [0; 2];
#[cfg(test)]
use crate::test_wakers::TestWaker;
use super::r#async::Thing;
"##;
        let found = needs_of_text(text, Some(&["a".to_string()]), Skip::LeftOut).unwrap();
        assert_eq!(names(&found), ["async::Thing"]);
        assert_eq!(
            names(&needs_of_text("use ::listings::timer;", None, Skip::LeftOut).unwrap()),
            ["timer"]
        );
    }

    /// A listings crate in a folder of its own: a folder module first (out
    /// of alphabetical order), then three modules, `a` using `b`, and a
    /// test helper.
    fn fixture(name: &str) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("asyncbook-frame-{name}-{}", std::process::id()));
        let src = root.join(SRC);
        std::fs::create_dir_all(src.join("d")).unwrap();
        for (file, text) in [
            (
                "lib.rs",
                "pub mod d;\npub mod a;\npub mod b;\npub mod c;\n#[cfg(test)]\nmod helpers;\n",
            ),
            ("d/mod.rs", "pub mod e;\n"),
            ("d/e.rs", "pub fn five() -> u8 {\n    5\n}\n"),
            (
                "a.rs",
                "//! A.\n\n#[cfg(loom)]\nuse loom::sync::Mutex;\n#[cfg(not(loom))]\nuse std::sync::Mutex;\n\n\
                 // ANCHOR: f\npub fn f() -> Mutex<u8> {\n    Mutex::new(super::b::two())\n}\n// ANCHOR_END: f\n\n\
                 #[cfg(test)]\nmod tests {\n    use super::super::c::three;\n    #[test]\n    fn three_is_three() {\n        assert_eq!(three(), 3);\n    }\n}\n",
            ),
            (
                "b.rs",
                "// ANCHOR: two\npub fn two() -> u8 {\n    2\n}\n// ANCHOR_END: two\n\
                 #[cfg(loom)]\npub fn model() {\n    super::c::three();\n}\n",
            ),
            ("c.rs", "pub fn three() -> u8 {\n    3\n}\n"),
            ("helpers.rs", "pub fn help() {}\n"),
        ] {
            std::fs::write(src.join(file), text).unwrap();
        }
        root
    }

    #[test]
    fn the_module_tree_follows_lib_rs() {
        let root = fixture("tree");
        let frames = Frames::load(&root).unwrap();
        let modules: Vec<(String, &str)> = frames
            .modules()
            .iter()
            .map(|m| (m.path.join("::"), m.file.as_str()))
            .collect();
        // lib.rs's order, a folder's modules where the folder stands.
        assert_eq!(
            modules,
            [
                ("d::e".to_string(), "listings/src/d/e.rs"),
                ("a".to_string(), "listings/src/a.rs"),
                ("b".to_string(), "listings/src/b.rs"),
                ("c".to_string(), "listings/src/c.rs"),
                ("helpers".to_string(), "listings/src/helpers.rs"),
            ]
        );
        std::fs::remove_dir_all(root).unwrap();
    }

    /// Markdown in, Markdown out: what the preprocessor does to a block.
    fn framed(frames: &Frames, body: &str) -> String {
        let body = frames.write(body, "src/ja").unwrap().unwrap();
        frames
            .expand_includes(&format!("```rust\n{body}```\n"), "src/ja")
            .unwrap()
    }

    #[test]
    fn a_pruned_copy_has_no_tests_no_loom_code_and_only_the_modules_it_needs() {
        let root = fixture("pruned");
        let frames = Frames::load(&root).unwrap();
        let body = "{{#rustdoc_include ../../listings/src/a.rs:f}}\n";
        assert_eq!(
            framed(&frames, body),
            "```rust\n\
             # // The book's `listings` crate: the modules this program uses, whole.\n\
             # #[allow(dead_code, unused_imports)]\n\
             # mod listings {\n\
             # pub mod a {\n\
             # //! A.\n\
             # \n\
             # use std::sync::Mutex;\n\
             # \n\
             pub fn f() -> Mutex<u8> {\n\
             \x20   Mutex::new(super::b::two())\n\
             }\n\
             # }\n\
             # pub mod b {\n\
             # pub fn two() -> u8 {\n\
             #     2\n\
             # }\n\
             # }\n\
             # }\n\
             ```\n"
        );
        // Unpruned, as before: whole files through mdBook, and `c`, which
        // only a test and loom code name.
        let frames = Frames::load_with(&root, Copies::Unpruned).unwrap();
        assert_eq!(
            framed(&frames, body),
            "```rust\n\
             # mod listings {\n\
             # pub mod a {\n\
             {{#rustdoc_include ../../listings/src/a.rs:f}}\n\
             # }\n\
             # pub mod b {\n\
             {{#rustdoc_include ../../listings/src/b.rs::0}}\n\
             # }\n\
             # pub mod c {\n\
             {{#rustdoc_include ../../listings/src/c.rs::0}}\n\
             # }\n\
             # }\n\
             ```\n"
        );
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn only_includes_of_modules_in_rust_blocks_are_expanded() {
        let root = fixture("others");
        let frames = Frames::load(&root).unwrap();
        let text = "```text\n{{#include ../../listings/src/c.rs}}\n```\n\n\
                    ```rust\n{{#include ../../listings/examples/x.rs}}\n{{#include ../../listings/src/c.rs}}\n```\n";
        assert_eq!(
            frames.expand_includes(text, "src/ja").unwrap(),
            "```text\n{{#include ../../listings/src/c.rs}}\n```\n\n\
             ```rust\n{{#include ../../listings/examples/x.rs}}\npub fn three() -> u8 {\n    3\n}\n```\n"
        );
        std::fs::remove_dir_all(root).unwrap();
    }

    /// The frame's first lines.
    const HEADER: &str = "# // The book's `listings` crate: the modules this program uses, whole.\n\
                          # #[allow(dead_code, unused_imports)]\n\
                          # mod listings {\n";

    #[test]
    fn blocks_with_their_own_frame_or_no_listing_code_are_left_alone() {
        let root = fixture("alone");
        let frames = Frames::load(&root).unwrap();
        let own = "# mod listings {\n{{#rustdoc_include ../../listings/src/c.rs}}\n# }\n";
        assert_eq!(frames.write(own, "src/ja").unwrap(), None);
        let plain = "fn main() { println!(\"listings::c\"); }\n";
        assert_eq!(frames.write(plain, "src/ja").unwrap(), None);
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_block_gets_the_modules_its_example_and_includes_need() {
        // The example needs `d::e`, the include `a`, and `a` needs `b`;
        // `d::e` sits in its folder's module.
        let root = fixture("needs");
        std::fs::create_dir_all(root.join("listings/examples")).unwrap();
        std::fs::write(
            root.join("listings/examples/x.rs"),
            "use listings::d::e::five;\nfn main() {\n    five();\n}\n",
        )
        .unwrap();
        let frames = Frames::load(&root).unwrap();
        let example = "{{#rustdoc_include ../../listings/examples/x.rs::0}}\n";
        let body = format!("{example}{{{{#rustdoc_include ../../listings/src/a.rs:f}}}}\n");
        assert_eq!(
            frames.write(&body, "src/ja").unwrap().unwrap(),
            format!(
                "{example}{HEADER}\
                 # pub mod d {{\n\
                 # pub mod e {{\n\
                 {{{{#rustdoc_include ../../listings/src/d/e.rs::0}}}}\n\
                 # }}\n\
                 # }}\n\
                 # pub mod a {{\n\
                 {{{{#rustdoc_include ../../listings/src/a.rs:f}}}}\n\
                 # }}\n\
                 # pub mod b {{\n\
                 {{{{#rustdoc_include ../../listings/src/b.rs::0}}}}\n\
                 # }}\n\
                 # }}\n"
            )
        );
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_hand_written_main_that_names_the_crate_gets_a_frame() {
        let root = fixture("main");
        let frames = Frames::load(&root).unwrap();
        let body = "fn main() {\n    let _ = listings::c::three();\n}\n";
        assert_eq!(
            frames.write(body, "src/zh").unwrap().unwrap(),
            format!(
                "{body}{HEADER}# pub mod c {{\n{{{{#rustdoc_include ../../listings/src/c.rs::0}}}}\n# }}\n# }}\n"
            )
        );
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn module_includes_must_stand_together_in_lib_rs_order() {
        let root = fixture("order");
        let frames = Frames::load(&root).unwrap();
        let error = "the includes of listings modules must stand together, in the order of \
                     listings/src/lib.rs (d::e, a, b, c, helpers): the hidden frame keeps them \
                     in that order";
        let reordered =
            "{{#include ../../listings/src/c.rs}}\n{{#include ../../listings/src/a.rs}}\n";
        assert_eq!(
            frames.write(reordered, "src/ja").unwrap_err().to_string(),
            error
        );
        let apart = "{{#include ../../listings/src/a.rs}}\n// between\n{{#include ../../listings/src/c.rs}}\n";
        assert_eq!(
            frames.write(apart, "src/ja").unwrap_err().to_string(),
            error
        );
        // A blank line between is fine; it follows the frame.
        let fine = "{{#include ../../listings/src/a.rs}}\n\n{{#include ../../listings/src/c.rs}}\n";
        assert_eq!(
            frames.write(fine, "src/ja").unwrap().unwrap(),
            format!(
                "{HEADER}# pub mod a {{\n{{{{#include ../../listings/src/a.rs}}}}\n# }}\n\
                 # pub mod b {{\n{{{{#rustdoc_include ../../listings/src/b.rs::0}}}}\n# }}\n\
                 # pub mod c {{\n{{{{#include ../../listings/src/c.rs}}}}\n# }}\n# }}\n\n"
            )
        );
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn mistakes_are_errors() {
        let root = fixture("mistakes");
        let frames = Frames::load(&root).unwrap();
        let error = |body: &str| frames.write(body, "src/ja").unwrap_err().to_string();
        assert_eq!(
            error("{{#include ../../listings/src/d/mod.rs}}\n"),
            "listings/src/d/mod.rs is not a module of listings/src/lib.rs (a `mod.rs` only \
             declares modules: show it as text)"
        );
        assert_eq!(
            error("fn main() { listings::no_such::f(); }\n"),
            "the block: `no_such::f` names no module of listings/src"
        );
        assert_eq!(
            error("x {{#include ../../listings/src/c.rs}}\n"),
            "listings/src/c.rs: an include of a listings module must be alone on its line"
        );
        std::fs::remove_dir_all(root).unwrap();
    }
}

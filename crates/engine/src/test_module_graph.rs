//! The crate's top-level modules depend on each other one way only.
//!
//! The graph is read from the sources: module A depends on module B when
//! A's code names `crate::B`. A directory module (`uring/`) is one node
//! made of all its files. Test code is left out: files named `tests.rs` or
//! `test_*.rs`, and everything in a file after a `#[cfg(test)]` line
//! followed by a `mod tests` line. Comments are left out too (a doc link
//! is not a dependency), and so is `lib.rs`, which re-exports everything.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Top-level module name → the other top-level modules its code names.
type Graph = BTreeMap<String, BTreeSet<String>>;

fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "tests.rs" || (name.starts_with("test_") && name.ends_with(".rs"))
}

/// Every non-test `.rs` file under `dir`, at any depth.
fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") && !is_test_file(&path) {
            out.push(path);
        }
    }
}

/// The modules named as `crate::name` in the code of `text` before its
/// test module, comments left out.
fn named_modules(text: &str, into: &mut BTreeSet<String>) {
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .get(i + 1)
                .is_some_and(|next| next.contains("mod tests"))
        {
            break;
        }
        let code = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                into.insert(name);
            }
        }
    }
}

fn module_graph(src: &Path) -> Graph {
    let mut graph = Graph::new();
    for entry in fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let mut files = Vec::new();
        if path.is_dir() {
            source_files(&path, &mut files);
        } else if path.extension().is_some_and(|e| e == "rs")
            && name != "lib"
            && !is_test_file(&path)
        {
            files.push(path.clone());
        }
        if files.is_empty() {
            continue;
        }
        let mut named = BTreeSet::new();
        for file in &files {
            named_modules(&fs::read_to_string(file).unwrap(), &mut named);
        }
        named.remove(&name);
        graph.entry(name).or_default().extend(named);
    }
    // Keep only edges to modules of this crate (`crate::Queue` is a
    // re-export through lib.rs, not a module).
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for deps in graph.values_mut() {
        deps.retain(|d| modules.contains(d));
    }
    graph
}

/// One cycle of `graph`, as the modules along it with the first repeated
/// at the end, or None when the graph has none.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &Graph,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = path.iter().position(|n| n == node).unwrap();
                let mut cycle = path[start..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_string(), Mark::Open);
        path.push(node.to_string());
        for dep in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(dep, graph, marks, path) {
                return Some(cycle);
            }
        }
        path.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, graph, &mut marks, &mut Vec::new()) {
            return Some(cycle);
        }
    }
    None
}

#[test]
fn top_level_modules_have_no_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    assert!(graph.contains_key("queue_config") && graph.contains_key("uring"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "import cycle among the engine's modules: {}\nfull graph: {graph:#?}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn a_cycle_is_found_and_named() {
    let mut graph = Graph::new();
    let edge = |g: &mut Graph, a: &str, b: &str| {
        g.entry(a.into()).or_default().insert(b.into());
        g.entry(b.into()).or_default();
    };
    edge(&mut graph, "a", "b");
    edge(&mut graph, "b", "c");
    assert_eq!(find_cycle(&graph), None);
    edge(&mut graph, "c", "a");
    assert_eq!(find_cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
}

#[test]
fn test_code_and_comments_name_nothing() {
    let text = "use crate::queue::Queue;\n\
                /// See [`crate::nvme::Controller`].\n\
                let x = 1; // crate::sync\n\
                #[cfg(test)]\n\
                mod tests {\n\
                    use crate::target::Target;\n\
                }\n";
    let mut named = BTreeSet::new();
    named_modules(text, &mut named);
    assert_eq!(named.into_iter().collect::<Vec<_>>(), ["queue"]);
}

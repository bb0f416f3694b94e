//! Prefab files read from disk, for tools (`forge validate`, `forge tree`): each file read,
//! validated and expanded once, chains of instances checked for cycles and depth.

use crate::format::MAX_PREFAB_DEPTH;
use crate::validate::{Diagnostic, Severity};

/// Why `next`, placed by the last file of `chain` (the files from the scene down, asset paths),
/// cannot be loaded: `forge::prefab::cycle` when it is already in the chain,
/// `forge::prefab::too_deep` when it would be more than [`MAX_PREFAB_DEPTH`] files below the
/// scene. The message lists the chain.
pub fn chain_problem(chain: &[String], next: &str) -> Option<Diagnostic> {
    let listed = || {
        chain
            .iter()
            .map(String::as_str)
            .chain([next])
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(" -> ")
    };
    if let Some(first) = chain.iter().position(|f| f == next) {
        let cycle: Vec<String> = chain[first..]
            .iter()
            .map(String::as_str)
            .chain([next])
            .map(|f| format!("`{f}`"))
            .collect();
        return Some(
            Diagnostic::new(
                Severity::Error,
                "forge::prefab::cycle",
                format!("prefab cycle: {}", cycle.join(" -> ")),
            )
            .with_help(format!(
                "a prefab may not place itself, directly or through others; the chain is {}",
                listed()
            )),
        );
    }
    if chain.len() > MAX_PREFAB_DEPTH {
        return Some(
            Diagnostic::new(
                Severity::Error,
                "forge::prefab::too_deep",
                format!(
                    "prefabs nest deeper than {MAX_PREFAB_DEPTH} files: {}",
                    listed()
                ),
            )
            .with_help("flatten the chain: place the inner prefabs from a file higher up"),
        );
    }
    None
}

//! Rust names from scene names: function names in snake case, `#Name` idents for `bsn!`.

use bevy_platform::collections::HashSet;

/// Words Rust reserves: never an identifier as written.
const KEYWORDS: &[&str] = &[
    "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
    "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if",
    "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Whether `s` is an ASCII Rust identifier that is not a keyword (nor `_` alone).
pub(crate) fn is_ascii_ident(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first == '_' || first.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && s != "_"
        && !KEYWORDS.contains(&s)
}

/// A scene name in snake case, for function names: ASCII letters and digits lower-cased, every
/// other run of characters one `_`, a leading digit prefixed with `scene_`, and `scene` for a
/// name with no ASCII letter or digit (`"Castle Gate"` is `castle_gate`, `"Level 01"` is
/// `level_01`, `"élan"` is `lan`).
pub fn snake_case(name: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            // `camelCase` and `PascalCase` words split at their capitals.
            if (gap || (prev_lower && c.is_ascii_uppercase())) && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            prev_lower = c.is_ascii_lowercase();
            out.push(c.to_ascii_lowercase());
        } else {
            gap = true;
            prev_lower = false;
        }
    }
    if out.is_empty() {
        return "scene".to_owned();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) || KEYWORDS.contains(&out.as_str()) {
        out.insert_str(0, "scene_");
    }
    out
}

/// The `#Name` ident `bsn!` gets for an entity named `name`: the name itself when it is an ASCII
/// identifier, else its ASCII letters and digits with each word capitalised (`"Camera 3D"` is
/// `Camera3D`, `"enemy 1"` is `Enemy1`), `_` before a leading digit (`"1st"` is `_1st`), a `_`
/// after a keyword, and `Entity` when nothing is left (`"élan"` is `Lan`, `"!!"` is `Entity`).
/// In a scene, a repeated ident gets a suffix (`Goblin`, `Goblin_2`).
pub fn bsn_ident(name: &str) -> String {
    if is_ascii_ident(name) {
        return name.to_owned();
    }
    let mut out = String::new();
    let mut upper = true;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(if upper { c.to_ascii_uppercase() } else { c });
            upper = false;
        } else {
            upper = true;
        }
    }
    if out.is_empty() || out == "_" {
        return "Entity".to_owned();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// [`bsn_ident`] made unique among `taken` (`Goblin`, `Goblin_2`, `Goblin_3`), and taken.
pub(crate) fn unique_ident(name: &str, taken: &mut HashSet<String>) -> String {
    let base = bsn_ident(name);
    let mut ident = base.clone();
    let mut n = 2;
    while taken.contains(&ident) {
        ident = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(ident.clone());
    ident
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scene_names_become_snake_case() {
        assert_eq!(snake_case("Castle Gate"), "castle_gate");
        assert_eq!(snake_case("Level 01"), "level_01");
        assert_eq!(snake_case("goblinCamp"), "goblin_camp");
        assert_eq!(snake_case("3D Test"), "scene_3d_test");
        assert_eq!(snake_case(""), "scene");
        assert_eq!(snake_case("type"), "scene_type");
    }

    #[test]
    fn odd_names_become_idents() {
        assert_eq!(bsn_ident("Player"), "Player");
        assert_eq!(bsn_ident("hat_slot"), "hat_slot");
        assert_eq!(bsn_ident("Enemy 1"), "Enemy1");
        assert_eq!(bsn_ident("1st"), "_1st");
        assert_eq!(bsn_ident("élan"), "Lan");
        assert_eq!(bsn_ident(""), "Entity");
        assert_eq!(bsn_ident("self"), "Self_");
        let mut taken = HashSet::default();
        assert_eq!(unique_ident("Goblin", &mut taken), "Goblin");
        assert_eq!(unique_ident("Goblin", &mut taken), "Goblin_2");
    }
}

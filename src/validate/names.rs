//! Names a scene writes for Rust: identifiers, tuple indices and custom component type paths
//! (see [the module docs](super#custom-component-type-paths)).

/// Whether `s` is a Rust keyword (strict, reserved or weak-but-refused), which cannot name a
/// field or a path segment without `r#`. A `match` compiles to a length switch, not a scan.
pub(super) fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "as" | "async"
            | "await"
            | "break"
            | "const"
            | "continue"
            | "crate"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "gen"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "Self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "try"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
    )
}

/// Whether `s` is a plain identifier (no keyword check): `XID_Start` or `_`, then `XID_Continue`,
/// and not `_` alone.
pub(super) fn is_identifier_shape(s: &str) -> bool {
    // Most names are ASCII: check bytes without decoding characters.
    if let [first, rest @ ..] = s.as_bytes()
        && s.is_ascii()
    {
        return (first.is_ascii_alphabetic() || *first == b'_')
            && rest.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
            && s != "_";
    }
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (unicode_ident::is_xid_start(first) || first == '_')
        && chars.all(unicode_ident::is_xid_continue)
        && s != "_"
}

/// Whether `s` is a Rust identifier usable as a field name: a non-keyword identifier (`radius`,
/// `max_hp`, `_unused`, `größe`) or a raw identifier (`r#type`).
pub(crate) fn is_rust_identifier(s: &str) -> bool {
    match s.strip_prefix("r#") {
        Some(raw) => {
            is_identifier_shape(raw) && !matches!(raw, "crate" | "self" | "super" | "Self")
        }
        None => is_identifier_shape(s) && !is_keyword(s),
    }
}

/// How to write `name` when it is a keyword that `r#` makes an identifier (`type`: "write
/// `r#type`"); `None` for other names (`crate`, `self`, `super` and `Self` cannot be raw).
pub(super) fn raw_hint(name: &str) -> Option<String> {
    (is_keyword(name) && is_rust_identifier(&format!("r#{name}")))
        .then(|| format!("`{name}` is a Rust keyword: write `r#{name}`"))
}

/// Whether `s` is a decimal tuple field index: `0`, `1`, `12`, without sign or leading zeros.
pub(crate) fn is_tuple_index(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_digit())
        && (s == "0" || !s.starts_with('0'))
        && s.parse::<u32>().is_ok()
}

/// Whether `s` may name a custom field: a Rust identifier (see [`is_rust_identifier`]) or a tuple
/// struct index (see [`is_tuple_index`]).
pub(crate) fn is_field_name(s: &str) -> bool {
    is_rust_identifier(s) || is_tuple_index(s)
}

/// Why a custom component type path is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TypePathProblem {
    Empty,
    Generic,
    BadSegment(String),
}

impl TypePathProblem {
    pub(super) fn describe(&self, path: &str) -> (String, String) {
        let example =
            "a type path is identifiers separated by `::`, like `Health` or `my_game::Health`";
        match self {
            TypePathProblem::Empty => (
                "custom component type path is empty".to_owned(),
                example.to_owned(),
            ),
            TypePathProblem::Generic => (
                format!("custom component type path `{path}` has generic arguments, which are not supported"),
                "declare a type alias in your game (`type FastTimer = Timer<Fast>;`) and use its path".to_owned(),
            ),
            TypePathProblem::BadSegment(segment) if segment.is_empty() => (
                format!("custom component type path `{path}` has an empty segment"),
                example.to_owned(),
            ),
            TypePathProblem::BadSegment(segment) if path == "crate" => (
                format!("custom component type path `{segment}` names no type on its own"),
                example.to_owned(),
            ),
            TypePathProblem::BadSegment(segment) => (
                format!(
                    "custom component type path `{path}` is not a Rust path: `{segment}` is not an identifier"
                ),
                raw_hint(segment).unwrap_or_else(|| example.to_owned()),
            ),
        }
    }
}

pub(super) fn check_type_path(path: &str) -> Result<(), TypePathProblem> {
    // Nearly every path is fine: check it in one pass over its `:`-separated pieces, and only
    // for one that is not, find the problem the message names.
    if is_plain_type_path(path) {
        return Ok(());
    }
    type_path_problem(path)
}

/// Whether `path` is identifier segments joined by `::` (`crate` allowed first), read as
/// pieces between single colons: a segment, then an empty piece (the middle of a `::`), and so
/// on. Agrees with [`type_path_problem`] finding none (a test checks both ways).
fn is_plain_type_path(path: &str) -> bool {
    let mut pieces = path.split(':');
    let mut first = true;
    while let Some(segment) = pieces.next() {
        let leading_crate = first && segment == "crate";
        if !(is_rust_identifier(segment) || leading_crate) {
            return false;
        }
        match pieces.next() {
            // `crate` alone names no type.
            None => return !leading_crate,
            Some("") => first = false,
            Some(_) => return false,
        }
    }
    false
}

/// The problem of a type path, `Ok` when it has none.
fn type_path_problem(path: &str) -> Result<(), TypePathProblem> {
    if path.is_empty() {
        return Err(TypePathProblem::Empty);
    }
    if path.contains('<') {
        return Err(TypePathProblem::Generic);
    }
    let last = path.split("::").count() - 1;
    for (i, segment) in path.split("::").enumerate() {
        let ok = is_rust_identifier(segment) || (i == 0 && i < last && segment == "crate");
        if !ok {
            return Err(TypePathProblem::BadSegment(segment.to_owned()));
        }
    }
    Ok(())
}

/// Whether `path` is a valid custom component type path (see the module docs): identifier
/// segments separated by `::`, `crate` allowed first, no generic arguments.
pub(crate) fn is_type_path(path: &str) -> bool {
    check_type_path(path).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_paths_are_identifier_segments() {
        for ok in [
            "Health",
            "my_game::Health",
            "a::b::Health",
            "crate::Health",
            "r#match::Health",
            "größe::Maß",
        ] {
            assert!(is_type_path(ok), "{ok}");
        }
        for bad in [
            "",
            "::Health",
            "Health::",
            "a::::b",
            "my game::Health",
            "Timer<Fast>",
            "a::fn",
            "1Health",
            "a:b",
            "_",
            "a::crate",
            " Health",
            "a:::b",
            "a::b:",
            ":a",
            "r#crate::a",
            "crate",
        ] {
            assert!(!is_type_path(bad), "{bad:?}");
        }
    }

    proptest::proptest! {
        /// The one-pass check and the one that names the problem agree on every path made of
        /// identifiers, keywords, colons and odd characters.
        #[test]
        fn the_fast_check_agrees_with_the_full_one(
            path in "(crate|r#|fn|a|_|Health|größe|1|:|::|<| ){0,8}"
        ) {
            proptest::prop_assert_eq!(is_plain_type_path(&path), type_path_problem(&path).is_ok());
        }
    }

    #[test]
    fn field_names_are_identifiers() {
        for ok in ["radius", "_unused", "max_hp", "r#type", "x1"] {
            assert!(is_rust_identifier(ok), "{ok}");
        }
        for bad in ["", "_", "max hp", "1x", "type", "r#self", "r#", "a-b"] {
            assert!(!is_rust_identifier(bad), "{bad:?}");
        }
    }

    #[test]
    fn field_names_may_be_tuple_indices() {
        for ok in ["0", "1", "10", "radius"] {
            assert!(is_field_name(ok), "{ok}");
        }
        for bad in ["01", "-1", "+1", "1.0", "0x1", "99999999999", "1 "] {
            assert!(!is_field_name(bad), "{bad:?}");
        }
    }
}

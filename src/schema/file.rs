//! The `.forge-schema.ron` file: the schemas of a game's custom components, written by the game
//! ([`ForgeSchemas::export`](crate::ForgeSchemas::export)) and read by tools
//! ([`SchemaFile::read`], `forge validate --schema`) to check scenes without the game's code.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ComponentSchema, FieldKind, MemberSchema, VariantSchema};
use crate::project::{ProjectError, write_atomic};

/// The schema file format this version writes and reads.
pub const SCHEMA_FORMAT: u32 = 1;

/// The conventional file name ending of schema files.
pub const SCHEMA_EXTENSION: &str = "forge-schema.ron";

/// Deepest bracket nesting a schema file may have (`(`, `[`, `{` inside one another, outside
/// strings and comments). [`ForgeSchemas::export`](crate::ForgeSchemas::export) writes at most 90:
/// 5 for the file, its components and their fields, and 5 for each of the 17 levels of a
/// [`FieldKind`] it describes (see [`FieldKind`] for the limit), an enum's struct variant being the
/// deepest (`Enum(variants: [Struct(name: "A", fields: [(name: "x", kind: ..`). Deeper files are
/// refused before RON reads them, so a hostile file cannot overflow the stack: at this depth
/// reading uses at most about 1 MiB of stack in a debug build.
///
/// [`FieldKind`]: crate::schema::FieldKind
pub const MAX_FILE_DEPTH: usize = 128;

/// RON's own recursion limit, a backstop above [`MAX_FILE_DEPTH`] (RON counts about two levels
/// per bracket: a variant and its fields).
const RON_RECURSION_LIMIT: usize = 4 * MAX_FILE_DEPTH;

/// RON options for schema files: the default extensions, [`RON_RECURSION_LIMIT`].
fn ron_options() -> ron::Options {
    ron::Options::default().with_recursion_limit(RON_RECURSION_LIMIT)
}

/// The contents of a `.forge-schema.ron` file.
///
/// # Shape
///
/// A RON struct with the file format version and every [`ComponentSchema`], sorted by type path:
///
/// ```
/// use bevy_forge_scene::schema::SchemaFile;
///
/// let file = SchemaFile::from_ron_str(r#"(
///     format: 1,
///     components: [
///         (
///             type_path: "forge_demo::Orbit",
///             type_name: "Orbit",
///             docs: "Moves the entity on a circle around its parent.",
///             fields: [
///                 (
///                     name: "radius",
///                     type_name: "f32",
///                     kind: Float(bits: 32),
///                     required: false,
///                     default: Some("0.0"),
///                     range: Some((min: 0.0, max: 100.0, inclusive: true)),
///                     docs: "Metres.",
///                 ),
///                 (name: "speed", type_name: "f32", kind: Float(bits: 32), required: true),
///                 (name: "axis", type_name: "Vec3", kind: Vector(len: 3)),
///             ],
///             skipped: ["phase"],
///         ),
///     ],
/// )"#)?;
/// assert!(file.get("forge_demo::Orbit").is_some_and(|s| s.fields.len() == 3));
/// # Ok::<(), bevy_forge_scene::schema::SchemaFileError>(())
/// ```
///
/// - `format`: [`SCHEMA_FORMAT`] (1). A reader refuses other versions instead of guessing.
/// - `components[]`: [`ComponentSchema`]: `type_path`, `type_name`, `docs` (optional), `fields`
///   (optional: none), `skipped` (optional), `renamed_from` (optional: the type paths scenes
///   wrote before, `#[forge(renamed_from = "..")]`; written only when not empty, so files without
///   it read as before). An enum component has no `fields` and, written only for enums,
///   `variants` (as an `Enum` kind's: `[Unit(name: "Dynamic"), Tuple(name: "Pushed", fields:
///   [..])]`), `default` (`Some("RigidBody::Dynamic")`, its `Default` as an expression) and
///   `renamed_variants` (optional: `[(from: "Moving", to: "Kinematic")]`, the variant names
///   scenes wrote before).
/// - `fields[]`: [`FieldSchema`](crate::schema::FieldSchema): `name` (`0`, `1` for tuple
///   structs), `type_name` (short type path), `kind`, and the optional `required` (`false`),
///   `default` (a field expression), `range` (`(min, max, inclusive)`, numbers), `docs` and
///   `renamed_from` (the field's names before).
/// - `kind`: a [`FieldKind`]: `Bool`, `Char`, `String`,
///   `Integer(signed: false, bits: 32)`, `Float(bits: 32)`, `Vector(len: 3)` (glam vectors;
///   `Quat` is `len: 4`), `Colour`, `Option((type_name: "f32", kind: Float(bits: 32)))`,
///   `List((type_name: .., kind: ..))`, `Array(item: (type_name: .., kind: ..), len: 3)`,
///   `Tuple(fields: [(type_name: .., kind: ..)])`, `TupleStruct(fields: [..])`,
///   `Struct(fields: [(name: "x", type_name: "f32", kind: ..)])`, `Enum(variants: [Unit(name:
///   "Idle"), Tuple(name: "Chase", fields: [..]), Struct(name: "Patrol", fields: [..])])`, and
///   `Other` for what scenes cannot write. A `type_name` names the type in messages, as the
///   loader does ("a `Mode` variant"), so keep it when editing a file by hand.
///
/// Unknown fields are errors, so a typo in a hand-edited file does not go unnoticed. Whatever
/// [`ForgeSchemas::export`](crate::ForgeSchemas::export) writes reads back equal; a file nested
/// deeper than [`MAX_FILE_DEPTH`] brackets (more than the exporter writes) is refused before it is
/// parsed, so reading needs a bounded stack (at most about 1 MiB in a debug build) whatever the
/// file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchemaFile {
    /// The file format version, [`SCHEMA_FORMAT`].
    pub format: u32,
    /// The schemas, sorted by type path.
    pub components: Vec<ComponentSchema>,
}

/// Why a schema file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaFileError {
    /// The file system refused: the file is missing, unreadable, or cannot be written.
    #[error("`{}`: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The text is not a schema file: RON syntax, a missing, unknown or mistyped field, or
    /// nesting deeper than [`MAX_FILE_DEPTH`].
    #[error("{}{line}:{column}: {message}", prefix(.file.as_deref()))]
    Parse {
        /// The file, when read from one.
        file: Option<PathBuf>,
        /// 1-based line.
        line: usize,
        /// 1-based column (characters).
        column: usize,
        /// What is wrong (RON's message).
        message: String,
    },
    /// The file says a `format` this version does not read: a newer one (upgrade the tool, or
    /// export with this version) or an older one (export again).
    #[error("{}{}", file_prefix(.file.as_deref()), format_message(*.found))]
    Format {
        /// The file, when read from one.
        file: Option<PathBuf>,
        /// The version found.
        found: u32,
    },
    /// The file reads but does not make sense: a type path described twice or not a Rust type
    /// path, a `renamed_from` entry that is not a type path (field name), names a current type
    /// (field) or is listed twice, a field listed twice, with an empty name or both in `fields`
    /// and `skipped`, a
    /// `range` with `min > max`, a NaN bound or on a field that is not a number, or a `kind`
    /// that cannot be (`Vector(len: 5)`, `Integer(bits: 7)`, `Float(bits: 16)`,
    /// `Enum(variants: [])`).
    #[error("{}the schema of `{type_path}`: {message}", file_prefix(.file.as_deref()))]
    Invalid {
        /// The file, when read from one.
        file: Option<PathBuf>,
        /// The component's type path, as written.
        type_path: String,
        /// What is wrong, naming the field.
        message: String,
    },
    /// RON could not write the schemas (not expected for schemas the derive builds).
    #[error("cannot write the schemas as RON: {0}")]
    Serialize(String),
}

/// `path:` before a position, or nothing.
fn prefix(file: Option<&Path>) -> String {
    file.map(|f| format!("{}:", f.display()))
        .unwrap_or_default()
}

/// Why a file of format `found` is refused, and what to do.
fn format_message(found: u32) -> String {
    if found > SCHEMA_FORMAT {
        format!(
            "schema file format {found} is not supported: it was written by a newer bevy_forge_scene (this version reads format {SCHEMA_FORMAT}); upgrade forge, or export again with this version"
        )
    } else {
        format!(
            "schema file format {found} is not supported (this version reads format {SCHEMA_FORMAT}); export the schema again with the game's version of bevy_forge_scene"
        )
    }
}

impl SchemaFileError {
    /// What is wrong, without the file and position (which [`file`](Self::file) and
    /// [`position`](Self::position) give), for tools that show them apart, such as
    /// `forge validate --format json`.
    pub fn message(&self) -> String {
        match self {
            SchemaFileError::Io { source, .. } => source.to_string(),
            SchemaFileError::Parse { message, .. } => message.clone(),
            SchemaFileError::Format { found, .. } => format_message(*found),
            SchemaFileError::Invalid {
                type_path, message, ..
            } => format!("the schema of `{type_path}`: {message}"),
            SchemaFileError::Serialize(message) => {
                format!("cannot write the schemas as RON: {message}")
            }
        }
    }

    /// The file, when the error is about one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            SchemaFileError::Io { path, .. } => Some(path),
            SchemaFileError::Parse { file, .. }
            | SchemaFileError::Format { file, .. }
            | SchemaFileError::Invalid { file, .. } => file.as_deref(),
            SchemaFileError::Serialize(_) => None,
        }
    }

    /// The 1-based line and column (characters) of a [`Parse`](Self::Parse) error.
    pub fn position(&self) -> Option<(usize, usize)> {
        match self {
            SchemaFileError::Parse { line, column, .. } => Some((*line, *column)),
            _ => None,
        }
    }
}

/// `path: ` before a message, or nothing.
fn file_prefix(file: Option<&Path>) -> String {
    file.map(|f| format!("{}: ", f.display()))
        .unwrap_or_default()
}

/// Only the version, read first so a newer file is refused as such, not for its new fields.
#[derive(Deserialize)]
struct Header {
    format: u32,
}

impl SchemaFile {
    /// A file of `components`, sorted by type path, at the current [`SCHEMA_FORMAT`].
    pub fn new(mut components: Vec<ComponentSchema>) -> Self {
        components.sort_by(|a, b| a.type_path.cmp(&b.type_path));
        SchemaFile {
            format: SCHEMA_FORMAT,
            components,
        }
    }

    /// The schema of `type_path`.
    pub fn get(&self, type_path: &str) -> Option<&ComponentSchema> {
        self.components.iter().find(|c| c.type_path == type_path)
    }

    /// Every type path, in file order.
    pub fn type_paths(&self) -> impl Iterator<Item = &str> {
        self.components.iter().map(|c| c.type_path.as_str())
    }

    /// The file's text: pretty RON with four-space indents and `\n` line ends; one line per
    /// field of a schema, each `kind` and `range` on its line.
    ///
    /// # Errors
    /// [`SchemaFileError::Serialize`] if RON refuses a value (not expected for derived schemas).
    pub fn to_ron_string(&self) -> Result<String, SchemaFileError> {
        // Depth 5 is a field's own values: deeper parts (kinds, ranges) stay on one line.
        let config = ron::ser::PrettyConfig::new()
            .new_line("\n")
            .indentor("    ")
            .depth_limit(5);
        let mut text = ron_options()
            .to_string_pretty(self, config)
            .map_err(|e| SchemaFileError::Serialize(e.to_string()))?;
        text.push('\n');
        Ok(text)
    }

    /// Reads a schema file's text.
    ///
    /// # Errors
    /// [`SchemaFileError::Format`] for a `format` other than [`SCHEMA_FORMAT`];
    /// [`SchemaFileError::Parse`] (line and column, no file) for anything else that is wrong,
    /// nesting deeper than [`MAX_FILE_DEPTH`] included.
    pub fn from_ron_str(text: &str) -> Result<Self, SchemaFileError> {
        Self::parse(text, None)
    }

    /// Reads the schema file at `path`.
    ///
    /// # Errors
    /// [`SchemaFileError::Io`] when the file cannot be read; [`SchemaFileError::Format`] and
    /// [`SchemaFileError::Parse`] (with the file, line and column) as for
    /// [`from_ron_str`](Self::from_ron_str).
    pub fn read(path: impl AsRef<Path>) -> Result<Self, SchemaFileError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| SchemaFileError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, Some(path))
    }

    fn parse(text: &str, file: Option<&Path>) -> Result<Self, SchemaFileError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let too_deep =
            || format!("the schema file is nested too deeply (more than {MAX_FILE_DEPTH} levels)");
        if let Some(at) = too_deep_at(text) {
            let (line, column) = line_column(text, at);
            return Err(SchemaFileError::Parse {
                file: file.map(Path::to_owned),
                line,
                column,
                message: too_deep(),
            });
        }
        let options = ron_options();
        if let Ok(header) = options.from_str::<Header>(text)
            && header.format != SCHEMA_FORMAT
        {
            return Err(SchemaFileError::Format {
                file: file.map(Path::to_owned),
                found: header.format,
            });
        }
        let read = options.from_str::<SchemaFile>(text).map_err(|e| {
            let message = match e.code {
                ron::Error::ExceededRecursionLimit => too_deep(),
                code => code.to_string(),
            };
            let mut chars = message.chars();
            let message = match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => message,
            };
            SchemaFileError::Parse {
                file: file.map(Path::to_owned),
                line: e.span.start.line,
                column: e.span.start.col,
                message,
            }
        })?;
        read.check(file)?;
        Ok(read)
    }

    /// Checks what RON cannot: see [`SchemaFileError::Invalid`].
    fn check(&self, file: Option<&Path>) -> Result<(), SchemaFileError> {
        let mut type_paths = HashSet::new();
        let current: HashSet<&str> = self.type_paths().collect();
        let mut old_paths: std::collections::HashMap<&str, &str> = Default::default();
        for component in &self.components {
            let invalid = |message: String| SchemaFileError::Invalid {
                file: file.map(Path::to_owned),
                type_path: component.type_path.clone(),
                message,
            };
            if !type_paths.insert(component.type_path.as_str()) {
                return Err(invalid("it is described twice".into()));
            }
            if !is_type_path_shape(&component.type_path) {
                return Err(invalid(
                    "the type path is not a Rust type path like `my_game::Orbit`".into(),
                ));
            }
            for old in &component.renamed_from {
                if !is_type_path_shape(old) {
                    return Err(invalid(format!(
                        "`renamed_from` entry `{old}` is not a Rust type path like `my_game::Orbit`"
                    )));
                }
                if current.contains(old.as_str()) {
                    return Err(invalid(format!(
                        "`renamed_from` entry `{old}` is the type path of a current component"
                    )));
                }
                if let Some(other) = old_paths.insert(old, &component.type_path) {
                    return Err(invalid(format!(
                        "`renamed_from` entry `{old}` is listed twice (also by `{other}`)"
                    )));
                }
            }
            check_enum(component).map_err(invalid)?;
            let mut names = HashSet::new();
            let mut old_names = HashSet::new();
            for field in &component.fields {
                for old in &field.renamed_from {
                    let settable = component.fields.iter().any(|f| &f.name == old)
                        || component.skipped.contains(old);
                    if !is_field_name_shape(old) {
                        return Err(invalid(format!(
                            "field `{}`: `renamed_from` entry `{old}` is not a field name",
                            field.name
                        )));
                    }
                    if settable {
                        return Err(invalid(format!(
                            "field `{}`: `renamed_from` entry `{old}` is a current field",
                            field.name
                        )));
                    }
                    if !old_names.insert(old.as_str()) {
                        return Err(invalid(format!(
                            "`renamed_from` entry `{old}` is listed twice"
                        )));
                    }
                }
            }
            for field in &component.fields {
                let name = &field.name;
                if name.is_empty() {
                    return Err(invalid("a field has an empty name".into()));
                }
                if !names.insert(name.as_str()) {
                    return Err(invalid(format!("field `{name}` is listed twice")));
                }
                if component.skipped.contains(name) {
                    return Err(invalid(format!(
                        "field `{name}` is both in `fields` and in `skipped`"
                    )));
                }
                if let Some(range) = field.range {
                    if range.min.is_nan() || range.max.is_nan() {
                        return Err(invalid(format!("field `{name}`: a range bound is NaN")));
                    }
                    if range.min > range.max {
                        return Err(invalid(format!(
                            "field `{name}`: the range `{range}` is empty (min > max)"
                        )));
                    }
                    if !matches!(
                        field.kind,
                        FieldKind::Integer { .. } | FieldKind::Float { .. }
                    ) {
                        return Err(invalid(format!(
                            "field `{name}` has a range but is not a number (`{}`)",
                            field.type_name
                        )));
                    }
                }
                check_kind(&field.kind)
                    .map_err(|message| invalid(format!("field `{name}`: {message}")))?;
            }
        }
        Ok(())
    }

    /// Writes the file to `path` atomically (a temporary file in the same directory, then a
    /// rename: readers see the old file or the new one), creating missing parent directories.
    /// A replaced file keeps its permissions; a new one gets mode `0o644` on Unix (the platform
    /// default elsewhere).
    ///
    /// # Errors
    /// [`SchemaFileError::Io`] when a directory or the file cannot be written (the previous file
    /// is then untouched); [`SchemaFileError::Serialize`] as for
    /// [`to_ron_string`](Self::to_ron_string).
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), SchemaFileError> {
        let path = path.as_ref();
        let text = self.to_ron_string()?;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| SchemaFileError::Io {
                path: parent.to_owned(),
                source,
            })?;
        }
        write_atomic(path, text.as_bytes(), |_| Ok(())).map_err(|e| match e {
            ProjectError::Io { path, source } => SchemaFileError::Io { path, source },
            other => SchemaFileError::Io {
                path: path.to_owned(),
                source: std::io::Error::other(other.to_string()),
            },
        })
    }
}

/// Whether `path` is shaped like a type path: identifier segments separated by `::` (keywords
/// and raw identifiers allowed, as `#[forge(type_path)]` takes them), then optional generic
/// arguments (`game::Timer<game::Fast>`, a generic type registered by hand).
fn is_type_path_shape(path: &str) -> bool {
    let (base, generics) = match path.find('<') {
        Some(i) => (&path[..i], Some(&path[i..])),
        None => (path, None),
    };
    let identifier = |segment: &str| {
        let segment = segment.strip_prefix("r#").unwrap_or(segment);
        let mut chars = segment.chars();
        chars
            .next()
            .is_some_and(|c| c == '_' || unicode_ident::is_xid_start(c))
            && chars.all(unicode_ident::is_xid_continue)
    };
    base.split("::").all(identifier) && generics.is_none_or(|g| g.ends_with('>'))
}

/// Whether `name` is shaped like a field name: an identifier (a raw one too) or a tuple index.
fn is_field_name_shape(name: &str) -> bool {
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    let name = name.strip_prefix("r#").unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || unicode_ident::is_xid_start(c))
        && chars.all(unicode_ident::is_xid_continue)
}

/// Checks a kind and its parts (see [`SchemaFileError::Invalid`]); the message names the problem.
/// The enum parts of `component`: an enum's variants (as any enum kind's), no fields, and its
/// old variant names; none of them on a struct.
fn check_enum(component: &ComponentSchema) -> Result<(), String> {
    if !component.is_enum() {
        if component.default.is_some() || !component.renamed_variants.is_empty() {
            return Err(
                "`default` and `renamed_variants` are for enum components, and it has no `variants`"
                    .into(),
            );
        }
        return Ok(());
    }
    if !component.fields.is_empty() || !component.skipped.is_empty() {
        return Err(
            "an enum component has `variants`, not `fields` (a scene writes it whole, as `value`)"
                .into(),
        );
    }
    check_kind(&FieldKind::Enum {
        variants: component.variants.clone(),
    })?;
    let mut old_names = HashSet::new();
    for r in &component.renamed_variants {
        if !is_field_name_shape(&r.from) || r.from.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(format!(
                "`renamed_variants` entry `{}` is not a variant name",
                r.from
            ));
        }
        if component.variant(&r.from).is_some() {
            return Err(format!(
                "`renamed_variants` entry `{}` is a current variant",
                r.from
            ));
        }
        if component.variant(&r.to).is_none() {
            return Err(format!(
                "`renamed_variants` entry `{}` names `{}`, which is not a variant",
                r.from, r.to
            ));
        }
        if !old_names.insert(r.from.as_str()) {
            return Err(format!(
                "`renamed_variants` entry `{}` is listed twice",
                r.from
            ));
        }
    }
    Ok(())
}

fn check_kind(kind: &FieldKind) -> Result<(), String> {
    match kind {
        FieldKind::Integer { bits, .. } if !matches!(bits, 8 | 16 | 32 | 64 | 128) => Err(format!(
            "`Integer(bits: {bits})` is not an integer width (8, 16, 32, 64 or 128)"
        )),
        FieldKind::Float { bits } if !matches!(bits, 32 | 64) => Err(format!(
            "`Float(bits: {bits})` is not a float width (32 or 64)"
        )),
        FieldKind::Vector { len } if !(2..=4).contains(len) => Err(format!(
            "`Vector(len: {len})` is not a vector length (2, 3 or 4)"
        )),
        FieldKind::Enum { variants } if variants.is_empty() => {
            Err("`Enum(variants: [])` has no variants".into())
        }
        FieldKind::Enum { variants } => {
            let mut seen = HashSet::new();
            for variant in variants {
                if !seen.insert(variant.name()) {
                    return Err(format!("variant `{}` is listed twice", variant.name()));
                }
                match variant {
                    VariantSchema::Tuple { fields, .. } => {
                        fields.iter().try_for_each(|t| check_kind(&t.kind))?;
                    }
                    VariantSchema::Struct { fields, .. } => check_members(fields)?,
                    _ => {}
                }
            }
            Ok(())
        }
        FieldKind::Struct { fields } => check_members(fields),
        FieldKind::TupleStruct { fields } | FieldKind::Tuple { fields } => {
            fields.iter().try_for_each(|t| check_kind(&t.kind))
        }
        FieldKind::List(item) | FieldKind::Option(item) | FieldKind::Array { item, .. } => {
            check_kind(&item.kind)
        }
        _ => Ok(()),
    }
}

/// Checks the named fields of a nested struct or struct variant.
fn check_members(fields: &[MemberSchema]) -> Result<(), String> {
    let mut seen = HashSet::new();
    for member in fields {
        if member.name.is_empty() {
            return Err("a nested field has an empty name".into());
        }
        if !seen.insert(member.name.as_str()) {
            return Err(format!("nested field `{}` is listed twice", member.name));
        }
        check_kind(&member.kind)?;
    }
    Ok(())
}

/// The 1-based line and column (in characters) of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = text.get(..at).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// The offset of the first bracket nested deeper than [`MAX_FILE_DEPTH`], outside strings,
/// characters and comments, if any. Stops at an unterminated string or comment, which RON then
/// reports (nothing after it is read).
fn too_deep_at(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let ident = |i: usize| b[i].is_ascii_alphanumeric() || b[i] == b'_';
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_FILE_DEPTH {
                    return Some(i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'"' => {
                i = crate::format::lexical::string_end(b, i + 1)?;
                continue;
            }
            b'\'' => {
                // `'x'`, `'\''`, `'\u{..}'`: the closing quote after the first character or
                // escape.
                let from = if b.get(i + 1) == Some(&b'\\') {
                    i + 3
                } else {
                    i + 2
                };
                i = from + memchr::memchr(b'\'', b.get(from..)?)? + 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = crate::format::lexical::block_comment_end(b, i)?;
                continue;
            }
            // Raw strings: `r"..."`, `r#"..."#`, `br"..."`, not inside a name.
            b'r' if {
                let start = if i > 0 && b[i - 1] == b'b' { i - 1 } else { i };
                start == 0 || !ident(start - 1)
            } =>
            {
                if let Some(end) = crate::format::lexical::raw_string_at(b, i) {
                    i = end?;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

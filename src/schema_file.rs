//! The `.forge-schema.ron` file: the schemas of a game's custom components, written by the game
//! ([`ForgeSchemas::export`]) and read by tools ([`SchemaFile::read`], `forge validate --schema`)
//! to check scenes without the game's code.
//!
//! # Shape
//!
//! A RON struct with the file format version and every [`ComponentSchema`], sorted by type path:
//!
//! ```
//! use bevy_forge_scene::schema_file::SchemaFile;
//!
//! let file = SchemaFile::from_ron_str(r#"(
//!     format: 1,
//!     components: [
//!         (
//!             type_path: "forge_demo::Orbit",
//!             type_name: "Orbit",
//!             docs: "Moves the entity on a circle around its parent.",
//!             fields: [
//!                 (
//!                     name: "radius",
//!                     type_name: "f32",
//!                     kind: Float(bits: 32),
//!                     required: false,
//!                     default: Some("0.0"),
//!                     range: Some((min: 0.0, max: 100.0, inclusive: true)),
//!                     docs: "Metres.",
//!                 ),
//!                 (name: "speed", type_name: "f32", kind: Float(bits: 32), required: true),
//!                 (name: "axis", type_name: "Vec3", kind: Vector(len: 3)),
//!             ],
//!             skipped: ["phase"],
//!         ),
//!     ],
//! )"#)?;
//! assert!(file.get("forge_demo::Orbit").is_some_and(|s| s.fields.len() == 3));
//! # Ok::<(), bevy_forge_scene::schema_file::SchemaFileError>(())
//! ```
//!
//! - `format`: [`SCHEMA_FORMAT`] (1). A reader refuses other versions instead of guessing.
//! - `components[]`: [`ComponentSchema`]: `type_path`, `type_name`, `docs` (optional), `fields`,
//!   `skipped` (optional).
//! - `fields[]`: [`FieldSchema`](crate::schema::FieldSchema): `name` (`0`, `1` for tuple
//!   structs), `type_name` (short type path), `kind`, and the optional `required` (`false`),
//!   `default` (a field expression), `range` (`(min, max, inclusive)`, numbers) and `docs`.
//! - `kind`: a [`FieldKind`](crate::schema::FieldKind): `Bool`, `Char`, `String`,
//!   `Integer(signed: false, bits: 32)`, `Float(bits: 32)`, `Vector(len: 3)` (glam vectors;
//!   `Quat` is `len: 4`), `Colour`, `Option((type_name: "f32", kind: Float(bits: 32)))`,
//!   `List((type_name: .., kind: ..))`, `Array(item: (type_name: .., kind: ..), len: 3)`,
//!   `Tuple(fields: [(type_name: .., kind: ..)])`, `TupleStruct(fields: [..])`,
//!   `Struct(fields: [(name: "x", type_name: "f32", kind: ..)])`, `Enum(variants: [Unit(name:
//!   "Idle"), Tuple(name: "Chase", fields: [..]), Struct(name: "Patrol", fields: [..])])`, and
//!   `Other` for what scenes cannot write. A `type_name` names the type in messages, as the
//!   loader does ("a `Mode` variant"), so keep it when editing a file by hand.
//!
//! Unknown fields are errors, so a typo in a hand-edited file does not go unnoticed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::project::{ProjectError, write_atomic};
use crate::schema::{ComponentSchema, ForgeSchemas};

/// The schema file format this version writes and reads.
pub const SCHEMA_FORMAT: u32 = 1;

/// The conventional file name ending of schema files.
pub const SCHEMA_EXTENSION: &str = "forge-schema.ron";

/// The contents of a `.forge-schema.ron` file (see [the module docs](self) for its shape).
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
    /// The text is not a schema file: RON syntax, a missing, unknown or mistyped field.
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
    /// The file says a `format` this version does not read.
    #[error(
        "{}schema file format {found} is not supported; this version reads format {SCHEMA_FORMAT} (export the schema again with the game's version of bevy_forge_scene)",
        prefix(.file.as_deref())
    )]
    Format {
        /// The file, when read from one.
        file: Option<PathBuf>,
        /// The version found.
        found: u32,
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
        let mut text = ron::ser::to_string_pretty(self, config)
            .map_err(|e| SchemaFileError::Serialize(e.to_string()))?;
        text.push('\n');
        Ok(text)
    }

    /// Reads a schema file's text.
    ///
    /// # Errors
    /// [`SchemaFileError::Format`] for a `format` other than [`SCHEMA_FORMAT`];
    /// [`SchemaFileError::Parse`] (line and column, no file) for anything else that is wrong.
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
        if let Ok(header) = ron::from_str::<Header>(text)
            && header.format != SCHEMA_FORMAT
        {
            return Err(SchemaFileError::Format {
                file: file.map(Path::to_owned),
                found: header.format,
            });
        }
        ron::from_str::<SchemaFile>(text).map_err(|e| {
            let message = e.code.to_string();
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
        })
    }

    /// Writes the file to `path` atomically (a temporary file in the same directory, then a
    /// rename: readers see the old file or the new one), creating missing parent directories.
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

impl ForgeSchemas {
    /// Every registered schema as a [`SchemaFile`], sorted by type path.
    pub fn to_schema_file(&self) -> SchemaFile {
        SchemaFile::new(self.schemas())
    }

    /// Writes every registered schema to `path` (conventionally `<name>.forge-schema.ron`) for
    /// offline checks: `forge validate --schema <path> scenes/`. See [the `schema_file`
    /// module](crate::schema_file) for the file's shape. Call it once every type is registered,
    /// for example from a `Startup` system in debug builds.
    ///
    /// # Errors
    /// As [`SchemaFile::write`]: [`SchemaFileError::Io`] when the file cannot be written (the
    /// previous file is untouched).
    pub fn export(&self, path: impl AsRef<Path>) -> Result<(), SchemaFileError> {
        self.to_schema_file().write(path)
    }
}

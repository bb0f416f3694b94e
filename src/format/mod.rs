#![doc = include_str!("../../docs/FORMAT.md")]

pub(crate) mod builtin;
mod change;
mod component;
mod edit;
mod error;
mod instance;
mod integrity;
mod layer;
pub(crate) use layer::{TileChange, is_palette_key};
pub(crate) mod lexical;
pub(crate) mod marker;
mod read;
pub(crate) mod source_map;
mod value;
pub(crate) mod write;

use std::path::Path;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

pub use builtin::{
    BUILTINS, BuiltinField, BuiltinTag, COMPONENT_TAGS, ComponentData, DirectionalLightData,
    FieldKind, FieldRange, MESH_SOURCES, MaterialData, Mesh3dData, MeshSource, PRIMITIVE_SHAPES,
    Payload, PointLightData, PrimitiveShape, SpotLightData, SpriteData, Text2dData,
    VISIBILITY_MODES, VisibilityMode, builtin_tag,
};
pub use change::TextChange;
pub use component::{CustomComponent, CustomField, EcoString};
pub use edit::EditError;
pub(crate) use error::levenshtein;
pub use error::{ReadError, ReadErrorKind};
pub use instance::{
    ComponentPatch, Instance, MAX_EXPANDED_ENTITIES, MAX_PREFAB_DEPTH, Override, Streaming,
};
pub use integrity::IntegrityProblem;
pub use layer::{
    CellRect, CellSource, EMPTY_CELL, MAX_CELL_INDEX, MAX_LAYER_CELLS, TILE_PLANES, TileCell,
    TileLayer, TilePlane,
};
pub use lexical::{Token, TokenKind, Tokens, tokens};
pub use read::{ParsedScene, ReadWarning, ReadWarningKind, Recovered};
pub(crate) use read::{Step as StreamStep, StreamRead};
pub use source_map::{CustomPart, LayerPart, OverridePart, Position, SourceMap, Span};
pub use value::{ColorData, TransformData, Vec2Data, Vec3Data};

/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// The file extension of scene files, without the leading dot.
pub const EXTENSION: &str = "forge.ron";

/// The hasher of the id maps of documents and source maps: deterministic and fast for `u64`
/// ids (Bevy's `FixedHasher`).
pub type IdHasher = bevy_platform::hash::FixedHasher;

/// [`SceneDoc::entities`]: entities by id, in file order.
///
/// Each entity is shared (`Arc`): a copy of a document shares the entities it does not change,
/// so keeping the last version of a scene beside the next one (hot reload, the language server)
/// costs a pointer per entity, not a copy of each. Change one through [`SceneDoc::entity_mut`]
/// (or `Arc::make_mut`), which copies that entity alone when another document shares it.
pub type EntityMap = IndexMap<u64, std::sync::Arc<EntityNode>, IdHasher>;

/// A scene document: the whole content of one `.forge.ron` file (the format page, "Top-level
/// fields").
///
/// `entities` keeps the file's order (insertion order), which reading and writing preserve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SceneDoc {
    /// Schema version; always [`FORMAT_VERSION`] in memory (a file's `0` is normalized to `1`).
    pub format_version: u32,
    /// Display name, independent of the file name. May be empty (validation warns).
    pub name: String,
    /// All entities by id, in file order.
    pub entities: EntityMap,
    /// Root entity ids in display order.
    pub roots: Vec<u64>,
    /// The next id to allocate; greater than every id in `entities`. Ids are never reused.
    pub next_id: u64,
    /// Tile layers, in file order (the format page, "Tile layers"). Missing in files without
    /// layers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<TileLayer>,
}

/// One entity of a scene (the format page, "Entity fields").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityNode {
    /// Stable id; equal to the entity's key in [`SceneDoc::entities`].
    pub id: u64,
    /// Display name, any UTF-8; becomes Bevy's `Name`.
    pub name: EcoString,
    /// The containing entity, `None` for roots.
    pub parent: Option<u64>,
    /// Ordered child ids.
    pub children: Vec<u64>,
    /// Local transform (rotation in Euler degrees).
    pub transform: TransformData,
    /// Ordered components, at most one per [`ComponentData::key`].
    pub components: Vec<ComponentData>,
    /// Editor-only: blocks viewport transforms. Missing in old files means `false`.
    #[serde(default)]
    pub locked: bool,
    /// The prefab this entity places, with its overrides (the `format` module docs, "Prefab
    /// instances"); `None` for a plain entity. Missing in files without prefabs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<Box<Instance>>,
}

impl EntityNode {
    /// A root entity with no components, identity transform, unlocked.
    pub fn new(id: u64, name: impl Into<EcoString>) -> Self {
        Self {
            id,
            name: name.into(),
            parent: None,
            children: Vec::new(),
            transform: TransformData::IDENTITY,
            components: Vec::new(),
            locked: false,
            instance: None,
        }
    }

    /// Every entity placed directly under this one: its `children`, then the entities its
    /// instance's overrides place under prefab entities, in override order.
    pub fn placed_children(&self) -> impl Iterator<Item = u64> + '_ {
        let placed = self
            .instance
            .iter()
            .flat_map(|i| i.overrides.iter().flat_map(|o| o.children.iter()));
        self.children.iter().chain(placed).copied()
    }

    /// The component with the given [`key`](ComponentData::key), if present.
    pub fn component(&self, key: &str) -> Option<&ComponentData> {
        self.components.iter().find(|c| c.has_key(key))
    }
}

impl Default for SceneDoc {
    fn default() -> Self {
        Self::new("")
    }
}

impl SceneDoc {
    /// An empty scene named `name`, ids starting at 1.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            format_version: FORMAT_VERSION,
            name: name.into(),
            entities: EntityMap::default(),
            roots: Vec::new(),
            next_id: 1,
            layers: Vec::new(),
        }
    }

    /// Reads a document from `.forge.ron` text.
    ///
    /// Accepts what people write by hand: comments, any whitespace, CRLF line ends, a UTF-8
    /// byte-order mark, one-line entries, trailing commas or none, integers where floats are
    /// expected, string escapes and raw strings, fields in any order, a missing `locked`, and
    /// `format_version: 0` (read as 1, with a [`ReadWarning`]).
    ///
    /// # Errors
    /// A [`ReadError`] with the line, column, entity and field of the first problem: a syntax
    /// error or truncated input, an unknown field (with a "did you mean"), a repeated field or
    /// entity key, a tag written as a string, an unknown component tag, primitive shape, mesh
    /// source or visibility mode, a `format_version` above [`FORMAT_VERSION`], a missing field, or
    /// a number out of range.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<ParsedScene, ReadError> {
        read::read_str(text)
    }

    /// Reads as much of `text` as reads, going on past its errors, as an editor reads a file
    /// being typed (the language server, `forge lsp`, does): an entity entry or top-level field
    /// that does not read is read again skipping what does not (an unknown field with its
    /// value, a value of the wrong shape, a list item; a structure not closed ends where the
    /// next entity entry or top-level field starts), and an entry whose key does not read is
    /// skipped whole. The parts that read keep their spans in the source map.
    ///
    /// [`Recovered::errors`] has the error [`SceneDoc::from_str`] gives first, then at most one
    /// more per entity entry and top-level field, none that only follows from an earlier one.
    /// Without errors, [`Recovered::parsed`] is exactly what `from_str` gives. A scene with
    /// errors is still not a scene: the loader and `forge validate` read with `from_str`.
    ///
    /// ```
    /// use bevy_forge_scene::format::SceneDoc;
    /// let text = r#"(format_version: 1, name: "", entities: {
    ///     1: (id: 1, name: "Lamp", parent: None, children: [], colour: 3, transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: []),
    ///     2: (id: 2, name: "Crate", parent: None, children: [], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: []),
    /// }, roots: [1, 2], next_id: 3)"#;
    /// let read = SceneDoc::from_str_recovering(text);
    /// assert_eq!(read.errors.len(), 1);
    /// assert_eq!(Some(&read.errors[0]), SceneDoc::from_str(text).err().as_ref());
    /// assert_eq!(read.parsed.doc.entities[&1].name, "Lamp");
    /// assert_eq!(read.parsed.doc.entities.len(), 2);
    /// ```
    pub fn from_str_recovering(text: &str) -> Recovered {
        read::read_recovering(text)
    }

    /// Reads a document from bytes; like [`SceneDoc::from_str`], and refuses invalid UTF-8 with
    /// the position of the first bad byte.
    ///
    /// # Errors
    /// As [`SceneDoc::from_str`], plus [`ReadErrorKind::InvalidUtf8`].
    pub fn from_slice(bytes: &[u8]) -> Result<ParsedScene, ReadError> {
        read::read_bytes(bytes)
    }

    /// Reads the file at `path`. Errors name the file.
    ///
    /// # Errors
    /// As [`SceneDoc::from_slice`], plus [`ReadErrorKind::Io`] when the file cannot be read.
    pub fn read(path: impl AsRef<Path>) -> Result<ParsedScene, ReadError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            let start = Position {
                line: 1,
                column: 1,
                offset: 0,
            };
            ReadError::new(start, None, None, ReadErrorKind::Io(e.to_string()))
        });
        bytes
            .and_then(|b| read::read_bytes(&b))
            .map_err(|e| e.with_path(path))
    }

    /// The canonical text of this document, as the editor saves it: two-space indentation, one
    /// field per line, `\n` line ends, a final newline, and floats that read back bit-identical.
    ///
    /// `SceneDoc::from_str(&doc.to_canonical_string())` gives back `doc`, and canonical text
    /// written again is byte-identical.
    pub fn to_canonical_string(&self) -> String {
        write::write_canonical(self)
    }

    /// The tile layer with id `id`.
    pub fn layer(&self, id: u64) -> Option<&TileLayer> {
        self.layers.iter().find(|l| l.id == id)
    }

    /// The tile layer with id `id`, mutably.
    pub fn layer_mut(&mut self, id: u64) -> Option<&mut TileLayer> {
        self.layers.iter_mut().find(|l| l.id == id)
    }

    /// The entity with id `id`.
    pub fn entity(&self, id: u64) -> Option<&EntityNode> {
        self.entities.get(&id).map(|n| &**n)
    }

    /// The entity with id `id`, mutably. Changing `id`, `parent` or `children` directly can break
    /// the forest; prefer the editing methods (`reparent`, `delete_subtree`, ...).
    pub fn entity_mut(&mut self, id: u64) -> Option<&mut EntityNode> {
        self.entities.get_mut(&id).map(std::sync::Arc::make_mut)
    }

    /// Ids of the entities named `name`, in file order.
    pub fn find_by_name<'a>(&'a self, name: &'a str) -> impl Iterator<Item = u64> + 'a {
        self.entities
            .values()
            .filter(move |e| e.name == name)
            .map(|e| e.id)
    }

    /// Every entity id in depth-first order (roots in order, each followed by its subtree in
    /// children order). Ids that cannot be reached from `roots` are not listed; each id appears at
    /// most once, even in a malformed forest.
    pub fn depth_first(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.entities.len());
        let mut seen = bevy_platform::collections::HashSet::with_capacity(self.entities.len());
        let mut stack: Vec<u64> = self.roots.iter().rev().copied().collect();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            let Some(node) = self.entities.get(&id) else {
                continue;
            };
            out.push(id);
            stack.extend(node.children.iter().rev().copied());
        }
        out
    }
}

//! The cooked binary twin of a scene: `<name>.forge.bin` beside (or instead of) `<name>.forge.ron`.
//!
//! Text is what a repository keeps; a shipped game can load bytes instead. `forge cook` writes
//! the twin of a scene that validates, and [`ForgeSceneLoader`](crate::ForgeSceneLoader) loads
//! either form: it looks at the first byte, never at the extension.
//!
//! # What a cooked file holds
//!
//! The scene's document exactly as the text reads (ids, names, transforms, components, custom
//! field expressions, instances and their overrides), the text file it was cooked from (for
//! messages), and **every prefab the scene places**, directly or through other prefabs, by
//! asset path, each once. Prefabs are bundled, not expanded: a cooked scene loads without its
//! prefab files, and loading expands the instances as it does from text, so entities keep
//! their id paths. What the loader derives (custom component values, built-in components, asset
//! handles) is not stored: custom values need the game's types and built-ins the asset server,
//! and both are rebuilt in one pass over the document.
//!
//! No source map is stored, to keep the twin small: a cooked file that decodes but breaks a
//! rule fails with the same diagnostic code, entity and field path as its text would, without a
//! line and column (the message names the cooked file; its text twin has the lines).
//!
//! # Layout
//!
//! | bytes | content |
//! |---|---|
//! | 0..8 | [`COOKED_MAGIC`]: `8F 46 4F 52 47 45 0D 0A` (`\x8F` `FORGE` `\r\n`). `0x8F` is a UTF-8 continuation byte, which no text starts with, so a reader tells the two forms apart by the first byte; the line ending catches a transfer that rewrote line ends. |
//! | 8..10 | the layout version, little-endian `u16`: [`COOKED_VERSION`] (4) for a stamped file, [`COOKED_VERSION_UNSTAMPED`] (3) for one without a stamp (both read). |
//! | 10..12 | reserved, zero. |
//! | 12..20 | the body's length in bytes, little-endian `u64`. |
//! | 20..24 | CRC-32 (IEEE) of the body, little-endian `u32`. |
//! | 24.. | the body (below). |
//!
//! ## Body
//!
//! Numbers are LEB128 varints (seven bits a byte, low bits first, at most ten bytes, no more
//! bytes than the number needs) unless said otherwise; a *string* is a varint byte length then
//! that many bytes of UTF-8; a *list* is a varint count then its items.
//!
//! | part | content |
//! |---|---|
//! | stamp | layout version 4 only: what cooking proved ([`CookStamp`]): the format version and the layout version (varints), `0`, or `1` and the 32-byte BLAKE3 hash of the schemas it checked against ([`schema_hash`]), then the crate version (string). A version 3 body starts at the source. |
//! | source | string: the text file the scene was cooked from. |
//! | pool | list of strings: every custom component type path and field name, each once, in order of first use. Entities name them by index. |
//! | scene | a *document* (below). |
//! | prefabs | list of (string path, *document*), sorted by path, each path once. |
//! | layers | only when a document has tile layers: a list of (document index, list of *layers*), indices ascending, `0` the scene and `k` the `k`th prefab. A body without layers ends after the prefabs, as before layers existed, so the layout version stays 3; a reader from before layers refuses a body that has them (bytes left after the scene). |
//!
//! A *document*: `format_version`, `name` (string), `next_id`, `roots` (list of ids), the number
//! of entities, then the entities in file order, in chunks of 1 to 1,024: a list of (entity
//! count, byte length) pairs, one per chunk, then the chunks' bytes back to back. Chunks let a
//! reader split the entities between threads (large scenes decode on two); their sizes must
//! add up to the entity count and the bytes that follow.
//!
//! An *entity*: its key; a flags byte (`1` the id differs from the key and follows, `2` a
//! parent follows, `4` children follow, `8` components follow, `16` `locked`, `32` a prefab
//! instance follows, `64` the instance is streamed, `128` the instance places a glTF model (both
//! only with `32`));
//! the id if flagged; the parent id if flagged; the name (string); the children (list of ids)
//! if flagged; the transform as nine little-endian `f32` (translation, rotation in degrees,
//! scale; x, y, z each); the components (list) if flagged; the instance if flagged, then, if
//! streamed, its `load_radius` and `unload_radius` (two `f32`). A scene without streamed
//! instances cooks to the same bytes as before the flag existed (layout version 3 still), and
//! so does one without models: a model instance writes its `model` path where a prefab's scene
//! path is, and each override's node path (a count, then the names as strings) where its
//! target ids are.
//!
//! A *component*: a tag byte, then for tag `0` a custom component (type path as a pool index,
//! then a list of fields, each a pool index for its name and a string for its expression), for
//! tag `2` a custom component with a whole `value` (an enum's: as tag `0`, then the value's
//! string; a scene without one cooks to the same bytes as before tag `2` existed, layout
//! version 3 still), for tag `1` a built-in: its kind (its index in [`BUILTINS`](crate::format::builtin::BUILTINS))
//! and its payload, each field in the order of its tag's description by its kind (an `f32` as
//! four little-endian bytes, a bool as `0` or `1`, a string, a colour as four `f32`, an option
//! as `0`, or `1` and the value, a mesh as `0`, a shape index and its sizes, or `1` and a path,
//! a mode as its index). Other tags are refused.
//!
//! An *instance*: the scene path (string), then a list of overrides, each its target (list of
//! ids), its name (option of a string), its transform (option of nine `f32`), its `set` list
//! (each a component, then a list of the indices of the fields it sets), its `add` list of
//! components, its `remove` list of keys (strings) and its children (list of ids).
//!
//! A *layer* (a tile layer): its id, name (string), parent (`0`, or `1` and the id), plane
//! (`0` xy, `1` xz), cell size (two `f32`), origin (three `f32`), start (`i`, `j`), palette (list
//! of key and prefab strings), rows (list of strings: each row's bytes as written), cells (list
//! of `i`, `j`, key string) and overrides (a list, as an instance's).
//!
//! Entities and custom components, what large scenes are made of, have this purpose-built
//! encoding because measurements asked for it: with the whole body in `postcard` (layout
//! version 1), the 100,000-entity benchmark scene took 12.6 MB and 47 ms to decode; with its
//! own encoding (layout version 2) 8.5 MB and 21-25 ms on two threads (`BENCHMARKS.md`). Since
//! layout version 3 built-ins and instances are written by the same reader and writer, walking
//! each tag's description, instead of mirror types in `postcard`.
//!
//! The checksum detects accidental damage (a truncated download, a flipped bit); it does not
//! authenticate: anyone can write a file with a valid checksum.
//!
//! # The stamp
//!
//! `forge cook --schema FILE` validated the scene against the game's schemas before cooking it,
//! and says so in the stamp. A loader whose game matches the stamp (the same crate version,
//! format and layout version, and the same [`schema_hash`] of its registered schemas) decodes
//! and spawns the file without running the validation rules again: custom components are still
//! built through the game's types (which is also how their values are read), prefabs still
//! expanded, asset files still looked up. Any difference, a stamp without a schema hash
//! (cooked without `--schema`) or no stamp at all (layout version 3) and the loader validates the
//! document as it validates text. Trusting a stamp trusts whoever wrote the file: the checksum
//! guards against damage, not against a hand-made file.
//!
//! Errors ([`CookError`]) say which part is wrong: a file that ends inside the header or body,
//! bytes after the body, a version this build does not read, a checksum that does not match, a
//! body that breaks the layout, a document the text reader would refuse, an id or prefab given
//! twice. A body that breaks the layout is refused with the offset where it does, counted from
//! the start of the file (as a hex editor shows it; the body starts at byte 24), the entity and
//! document, and what was wrong in words; in a built-in component, its kind, at the last byte
//! read before decoding stopped. For example: "at byte 146 of the file, in entity 1 of prefab
//! `crate.forge.ron`: the `image` of a `sprite` component does not decode: an option tag is
//! neither 0 nor 1".
//! The body is checked as it is read, so the error is the first problem in file order, the
//! same on one thread or two.

mod wire;

use crate::codes;
use crate::format::{ParsedScene, SceneDoc, SourceMap};

/// The first eight bytes of every cooked file (see [the module docs](self), "Layout").
pub const COOKED_MAGIC: [u8; 8] = [0x8F, b'F', b'O', b'R', b'G', b'E', b'\r', b'\n'];

/// The version of the cooked layout this build writes with a [`CookStamp`]
/// ([`CookedScene::encode_stamped`]). This build reads it and [`COOKED_VERSION_UNSTAMPED`]; a
/// cooked file of another version is refused ([`CookError::Version`]): cook it again.
pub const COOKED_VERSION: u16 = 4;

/// The layout version of a cooked file without a stamp ([`CookedScene::encode`]): version 3's
/// bytes, still written and read unchanged.
pub const COOKED_VERSION_UNSTAMPED: u16 = 3;

/// What cooking proved, carried by a cooked file of layout version 4 (see [the module
/// docs](self), "The stamp").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookStamp {
    /// The scene format version the check read ([`FORMAT_VERSION`](crate::format::FORMAT_VERSION)).
    pub format_version: u32,
    /// The cooked layout version written ([`COOKED_VERSION`]).
    pub layout_version: u16,
    /// The [`schema_hash`] of the schemas custom components were checked against; `None` when
    /// they were checked only for their shape and references (no schema file).
    pub schema_hash: Option<[u8; 32]>,
    /// The version of `bevy_forge_scene` the check ran under.
    pub crate_version: String,
}

impl CookStamp {
    /// The stamp of a check that this build ran against `schemas` (none: shape and references
    /// only).
    pub fn new(schemas: Option<&crate::schema::SchemaFile>) -> Self {
        CookStamp {
            format_version: crate::format::FORMAT_VERSION,
            layout_version: COOKED_VERSION,
            schema_hash: schemas.and_then(schema_hash),
            crate_version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }

    /// Whether a game of this build whose registered schemas hash to `game` may skip the
    /// validation rules of the file: same crate version, format and layout version, and a schema
    /// hash that is present on both sides and equal.
    pub fn matches(&self, game: Option<&[u8; 32]>) -> bool {
        self.format_version == crate::format::FORMAT_VERSION
            && self.layout_version == COOKED_VERSION
            && self.crate_version == env!("CARGO_PKG_VERSION")
            && self.schema_hash.is_some()
            && self.schema_hash.as_ref() == game
    }
}

/// The BLAKE3 hash of `schemas`' canonical text ([`SchemaFile::to_ron_string`]): the same for a
/// game's registered schemas ([`ForgeSchemas::to_schema_file`]) and for the file they were
/// exported to, read back. `None` if the schemas cannot be written (not expected).
///
/// [`SchemaFile::to_ron_string`]: crate::schema::SchemaFile::to_ron_string
/// [`ForgeSchemas::to_schema_file`]: crate::ForgeSchemas::to_schema_file
pub fn schema_hash(schemas: &crate::schema::SchemaFile) -> Option<[u8; 32]> {
    let text = schemas.to_ron_string().ok()?;
    Some(*blake3::hash(text.as_bytes()).as_bytes())
}

/// The header's length in bytes: magic, version, reserved, body length, checksum.
pub const COOKED_HEADER_LEN: usize = 24;

/// The extension of cooked files, `forge.bin` (`levels/one.forge.bin` is the twin of
/// `levels/one.forge.ron`).
pub const COOKED_EXTENSION: &str = "forge.bin";

/// A scene in its cooked form (see [the module docs](self)).
#[derive(Debug, Clone, PartialEq)]
pub struct CookedScene {
    /// The text file it was cooked from, as the cook named it (an asset path such as
    /// `levels/one.forge.ron`, or a file name): messages name it.
    pub source: String,
    /// The scene, exactly as its text reads.
    pub doc: SceneDoc,
    /// Every prefab the scene places, directly or through other prefabs: asset path and
    /// document, each once, sorted by path.
    pub prefabs: Vec<(String, SceneDoc)>,
}

/// A decoded cooked file: the scene, and the stamp of a layout version 4 file
/// ([`CookedScene::decode_stamped`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StampedScene {
    /// The scene.
    pub scene: CookedScene,
    /// What cooking proved; `None` for a layout version 3 file.
    pub stamp: Option<CookStamp>,
}

/// Why bytes are not a cooked scene.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CookError {
    /// The bytes do not start with [`COOKED_MAGIC`].
    #[error("not a cooked scene: the file does not start with the cooked magic bytes")]
    NotCooked,
    /// The first byte is not the magic's, but the next seven are: a cooked scene whose first
    /// byte was damaged (no text starts with them).
    #[error(
        "the first byte is {found:#04x} where a cooked scene has {:#04x}, but the next bytes are the cooked magic's: this looks like a damaged cooked scene",
        COOKED_MAGIC[0]
    )]
    DamagedMagic {
        /// The first byte.
        found: u8,
    },
    /// The file ends inside the header.
    #[error(
        "the file is {len} bytes long, shorter than the {COOKED_HEADER_LEN}-byte header: it is truncated"
    )]
    TruncatedHeader {
        /// The file's length.
        len: usize,
    },
    /// A layout version this build does not read.
    #[error(
        "cooked layout version {found}, but this build reads versions {COOKED_VERSION_UNSTAMPED} and {COOKED_VERSION}: cook the scene again"
    )]
    Version {
        /// The version in the file.
        found: u16,
    },
    /// The reserved header bytes are not zero.
    #[error("the reserved header bytes are {found:#06x}, not zero: the file is damaged")]
    Reserved {
        /// What they are.
        found: u16,
    },
    /// Fewer bytes follow the header than the header says.
    #[error(
        "the header announces a body of {declared} bytes but {actual} follow it: the file is truncated"
    )]
    Truncated {
        /// The body length in the header.
        declared: u64,
        /// The bytes after the header.
        actual: u64,
    },
    /// More bytes follow the body than the header says.
    #[error("{extra} bytes follow the {declared}-byte body: the file was appended to or damaged")]
    Trailing {
        /// The body length in the header.
        declared: u64,
        /// The bytes after the body.
        extra: u64,
    },
    /// The body's checksum does not match the header's.
    #[error(
        "the body's checksum is {computed:#010x} but the header says {stored:#010x}: the file is damaged"
    )]
    Checksum {
        /// The checksum in the header.
        stored: u32,
        /// The checksum of the body as read.
        computed: u32,
    },
    /// The body does not decode as a cooked scene (a checksum that matches damaged bytes, or a
    /// file written by hand).
    #[error("the body breaks the cooked layout {reason}")]
    Body {
        /// What the decoder said.
        reason: String,
        /// The key of the entity whose bytes break it, when they are an entity's.
        entity: Option<u64>,
    },
    /// A document the text reader would refuse: a `format_version` other than this build's,
    /// an override that sets a camera (which has nothing to set), or sets fields its component
    /// does not have.
    #[error("{document} is not a document the text format can hold: {reason}")]
    Document {
        /// `the scene` or `prefab `path``.
        document: String,
        /// What is wrong.
        reason: String,
    },
    /// Two entities of one document have the same id.
    #[error("entity {id} appears twice in {document}")]
    DuplicateId {
        /// `the scene` or `prefab `path``.
        document: String,
        /// The id.
        id: u64,
    },
    /// A prefab is bundled twice.
    #[error("prefab `{}` is bundled twice", .path.escape_debug())]
    DuplicatePrefab {
        /// Its asset path.
        path: String,
    },
}

impl CookError {
    /// The entity the error is about, when it is one entity's: whose bytes break the layout,
    /// or the id given twice.
    pub fn entity(&self) -> Option<u64> {
        match self {
            CookError::Body { entity, .. } => *entity,
            CookError::DuplicateId { id, .. } => Some(*id),
            _ => None,
        }
    }

    /// Its diagnostic code: `forge::cook::<kind>` (`not_cooked`, `magic`, `truncated`, `version`,
    /// `reserved`, `trailing`, `checksum`, `body`, `document`, `duplicate_id`,
    /// `duplicate_prefab`).
    pub fn code(&self) -> &'static str {
        match self {
            CookError::NotCooked => codes::cook::NOT_COOKED,
            CookError::DamagedMagic { .. } => codes::cook::MAGIC,
            CookError::TruncatedHeader { .. } | CookError::Truncated { .. } => {
                codes::cook::TRUNCATED
            }
            CookError::Version { .. } => codes::cook::VERSION,
            CookError::Reserved { .. } => codes::cook::RESERVED,
            CookError::Trailing { .. } => codes::cook::TRAILING,
            CookError::Checksum { .. } => codes::cook::CHECKSUM,
            CookError::Body { .. } => codes::cook::BODY,
            CookError::Document { .. } => codes::cook::DOCUMENT,
            CookError::DuplicateId { .. } => codes::cook::DUPLICATE_ID,
            CookError::DuplicatePrefab { .. } => codes::cook::DUPLICATE_PREFAB,
        }
    }
}

/// Whether `bytes` are a cooked file rather than text: the first byte is the magic's, which no
/// UTF-8 text starts with. Decoding checks the rest.
pub fn is_cooked(bytes: &[u8]) -> bool {
    bytes.first() == Some(&COOKED_MAGIC[0])
}

/// Whether `bytes` look like a cooked file whose first byte was damaged: not cooked
/// ([`is_cooked`]), but the rest of the magic follows.
pub fn looks_damaged(bytes: &[u8]) -> bool {
    !is_cooked(bytes) && bytes.len() >= COOKED_MAGIC.len() && bytes[1..8] == COOKED_MAGIC[1..]
}

/// The cooked twin's path of a text scene path: `levels/one.forge.ron` to
/// `levels/one.forge.bin`; `None` when `path` does not end in `.forge.ron`.
pub fn twin_path(path: &str) -> Option<String> {
    let stem = path.strip_suffix(".forge.ron")?;
    Some(format!("{stem}.{COOKED_EXTENSION}"))
}

/// The text scene path of a cooked twin's path, the inverse of [`twin_path`]:
/// `levels/one.forge.bin` to `levels/one.forge.ron`; `None` when `path` does not end in
/// `.forge.bin`.
pub fn text_path(path: &str) -> Option<String> {
    let stem = path.strip_suffix(COOKED_EXTENSION)?.strip_suffix('.')?;
    Some(format!("{stem}.forge.ron"))
}

impl CookedScene {
    /// The cooked bytes without a stamp, layout version [`COOKED_VERSION_UNSTAMPED`] (see [the
    /// module docs](self), "Layout"). The same scene always gives the same bytes.
    pub fn encode(&self) -> Vec<u8> {
        self.encode_with(None)
    }

    /// The cooked bytes with `stamp`, layout version [`COOKED_VERSION`]: what `forge cook`
    /// writes after the scene validated. The same scene and stamp always give the same bytes.
    pub fn encode_stamped(&self, stamp: &CookStamp) -> Vec<u8> {
        self.encode_with(Some(stamp))
    }

    fn encode_with(&self, stamp: Option<&CookStamp>) -> Vec<u8> {
        // Sorted by path, as decoding gives them: the same scene, the same bytes.
        let mut prefabs: Vec<(&String, &SceneDoc)> =
            self.prefabs.iter().map(|(p, d)| (p, d)).collect();
        prefabs.sort_by(|a, b| a.0.cmp(b.0));
        let version = match stamp {
            Some(_) => COOKED_VERSION,
            None => COOKED_VERSION_UNSTAMPED,
        };
        let body = wire::encode(stamp, &self.source, &self.doc, &prefabs);
        let mut out = Vec::with_capacity(COOKED_HEADER_LEN + body.len());
        out.resize(COOKED_HEADER_LEN, 0);
        out.extend_from_slice(&body);
        let body_len = (out.len() - COOKED_HEADER_LEN) as u64;
        let crc = crc32fast::hash(&out[COOKED_HEADER_LEN..]);
        out[..8].copy_from_slice(&COOKED_MAGIC);
        out[8..10].copy_from_slice(&version.to_le_bytes());
        out[10..12].copy_from_slice(&0u16.to_le_bytes());
        out[12..20].copy_from_slice(&body_len.to_le_bytes());
        out[20..24].copy_from_slice(&crc.to_le_bytes());
        out
    }

    /// Reads cooked bytes.
    ///
    /// # Errors
    /// [`CookError`]: not cooked, truncated, trailing bytes, another version, a checksum that
    /// does not match, a body that does not decode, a document the text reader refuses, an id or
    /// prefab given twice. The document is not validated here: the loader validates it as it
    /// validates text. A stamp, if any, is dropped ([`decode_stamped`](Self::decode_stamped)
    /// keeps it).
    pub fn decode(bytes: &[u8]) -> Result<Self, CookError> {
        Self::decode_stamped(bytes).map(|s| s.scene)
    }

    /// Reads cooked bytes of either layout version, with the stamp of a version 4 file.
    ///
    /// # Errors
    /// As [`decode`](Self::decode); a stamp that does not decode is a [`CookError::Body`].
    pub fn decode_stamped(bytes: &[u8]) -> Result<StampedScene, CookError> {
        if !bytes.starts_with(&COOKED_MAGIC[..bytes.len().min(8)]) || bytes.is_empty() {
            return Err(CookError::NotCooked);
        }
        if bytes.len() < COOKED_HEADER_LEN {
            return Err(CookError::TruncatedHeader { len: bytes.len() });
        }
        let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let version = u16_at(8);
        if version != COOKED_VERSION && version != COOKED_VERSION_UNSTAMPED {
            return Err(CookError::Version { found: version });
        }
        let reserved = u16_at(10);
        if reserved != 0 {
            return Err(CookError::Reserved { found: reserved });
        }
        let mut len = [0u8; 8];
        len.copy_from_slice(&bytes[12..20]);
        let declared = u64::from_le_bytes(len);
        let mut crc = [0u8; 4];
        crc.copy_from_slice(&bytes[20..24]);
        let stored = u32::from_le_bytes(crc);
        let rest = &bytes[COOKED_HEADER_LEN..];
        let actual = rest.len() as u64;
        if actual < declared {
            return Err(CookError::Truncated { declared, actual });
        }
        if actual > declared {
            return Err(CookError::Trailing {
                declared,
                extra: actual - declared,
            });
        }
        let computed = crc32fast::hash(rest);
        if computed != stored {
            return Err(CookError::Checksum { stored, computed });
        }
        let wire::Body {
            stamp,
            source,
            doc,
            prefabs,
        } = wire::decode(rest, version == COOKED_VERSION)?;
        Ok(StampedScene {
            scene: CookedScene {
                source,
                doc,
                prefabs,
            },
            stamp,
        })
    }

    /// The scene as the text reader gives it, without positions (no source map is cooked),
    /// and the bundled prefabs.
    pub fn into_parts(self) -> (ParsedScene, Vec<(String, SceneDoc)>) {
        let parsed = ParsedScene {
            doc: self.doc,
            source_map: SourceMap::default(),
            warnings: Vec::new(),
        };
        (parsed, self.prefabs)
    }
}

/// The rule of the text reader that an instance's types do not enforce themselves: `set`
/// patches set settable fields only, each once, in the component's order, and never of a
/// camera (which has nothing to set). The reason, naming entity `id`'s override and patch.
fn check_instance(id: u64, instance: &crate::format::Instance) -> Result<(), String> {
    for (i, o) in instance.overrides.iter().enumerate() {
        for (j, patch) in o.set.iter().enumerate() {
            let tag = patch.component.tag();
            let at = || format!("entity {id}, instance.overrides[{i}].set[{j}]");
            if patch
                .component
                .builtin()
                .is_some_and(|b| b.payload == crate::format::builtin::Payload::Unit)
            {
                return Err(format!("{}: a `{tag}` has nothing to set", at()));
            }
            let settable = crate::format::ComponentPatch::fields_of(tag);
            let mut next = 0;
            for f in &patch.fields {
                match settable[next..].iter().position(|s| *s == f.as_str()) {
                    Some(k) => next += k + 1,
                    None => {
                        return Err(format!(
                            "{}: `{f}` is not a settable field of `{tag}` here (expected some of {settable:?}, in order)",
                            at()
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

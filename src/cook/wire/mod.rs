//! The body of a cooked file (layout version 3): a reader and writer of our own. Built-in
//! components are written field by field as their tag's
//! [`BuiltinTag`](crate::format::builtin::BuiltinTag) lists them, so a new tag needs nothing
//! here.
//!
//! The module docs of [`super`] give the layout byte by byte. Everything here reads untrusted
//! bytes: every length is checked against the bytes left before anything is reserved, and a
//! problem is an error with its byte offset, never a panic. Changing anything here changes the
//! encoding: bump [`super::COOKED_VERSION`].
//!
//! [`write`] lays a document out, [`read`] reads it back (on the app's task pool for a large
//! document).

mod read;
mod write;

#[cfg(test)]
use crate::format::COMPONENT_TAGS;
use crate::format::builtin::{BUILTINS, BuiltinTag, FieldKind, Payload, Value, ValueRef};
use crate::format::{
    ColorData, ComponentData, ComponentPatch, CustomComponent, CustomField, EcoString, EntityMap,
    EntityNode, Instance, MeshSource, Override, PRIMITIVE_SHAPES, PrimitiveShape, SceneDoc,
    TileCell, TileLayer, TilePlane, TransformData, Vec2Data, Vec3Data,
};
use crate::validate::diagnostic::count_of;

#[cfg(test)]
use read::read_component;
use read::{RESERVE_AT_MOST, Reader, read_doc, read_layers};
#[cfg(test)]
use write::put_component;
use write::{Pool, put_layers, put_str, put_varint, write_doc};

/// Entities per chunk of a document's entity list: chunks are what decoding splits between
/// threads.
const CHUNK_ENTITIES: usize = 1024;

/// The smallest encoding of an entity: key, flags, name length, a transform of nine `f32`s.
const MIN_ENTITY_BYTES: usize = 1 + 1 + 1 + 36;

/// Documents with at least this many entities decode on two threads, where the platform has
/// threads and more than one core (below it, starting a thread costs more than it saves).
const PARALLEL_FROM: usize = 8192;

/// Entity flag: the entity's `id` differs from its key (validation reports it), and follows.
const ID_DIFFERS: u8 = 1;
/// Entity flag: a parent id follows.
const HAS_PARENT: u8 = 2;
/// Entity flag: a list of children follows.
const HAS_CHILDREN: u8 = 4;
/// Entity flag: a list of components follows.
const HAS_COMPONENTS: u8 = 8;
/// Entity flag: `locked: true`.
const LOCKED: u8 = 16;
/// Entity flag: a prefab instance follows.
const HAS_INSTANCE: u8 = 32;
/// Entity flag: the prefab instance is streamed; its two radii follow the instance.
const STREAMED: u8 = 64;
/// Entity flag: the instance places a glTF model: its `model` path stands where a prefab's
/// `scene` does, and each override's node path (a count, then strings) where its id path does.
const MODEL: u8 = 128;

/// Component tag: a custom component in our encoding.
const TAG_CUSTOM: u8 = 0;
/// Component tag: a built-in, its kind (its index in [`BUILTINS`]) and its fields.
const TAG_BUILTIN: u8 = 1;
/// Component tag: a custom component as [`TAG_CUSTOM`], then its whole `value` (an enum's).
const TAG_CUSTOM_VALUE: u8 = 2;

/// Why a body does not decode: what was wrong, and where (bytes from the start of the body).
#[derive(Debug)]
pub(super) struct BodyError {
    pub(super) at: usize,
    pub(super) what: String,
    /// The key of the entity the bytes belong to.
    pub(super) entity: Option<u64>,
    /// The document they belong to (`the scene`, ``prefab `path` ``).
    pub(super) document: Option<String>,
}

impl BodyError {
    fn new(at: usize, what: impl Into<String>) -> Self {
        BodyError {
            at,
            what: what.into(),
            entity: None,
            document: None,
        }
    }
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Counted from the start of the file, as a hex editor shows it.
        write!(
            f,
            "at byte {} of the file",
            self.at + super::COOKED_HEADER_LEN
        )?;
        match (self.entity, &self.document) {
            (Some(key), Some(document)) => write!(f, ", in entity {key} of {document}")?,
            (Some(key), None) => write!(f, ", in entity {key}")?,
            (None, Some(document)) => write!(f, ", in {document}")?,
            (None, None) => {}
        }
        write!(f, ": {}", self.what)
    }
}

/// A decoded body.
pub(super) struct Body {
    pub(super) stamp: Option<super::CookStamp>,
    pub(super) source: String,
    pub(super) doc: SceneDoc,
    pub(super) prefabs: Vec<(String, SceneDoc)>,
}

/// Why a document of the body is refused, in file order: the first problem wins.
#[derive(Debug)]
pub(super) enum Failure {
    /// Bytes that break the layout.
    Layout(BodyError),
    /// A document the text reader would refuse: why.
    Rule(String),
    /// The first key given twice.
    DuplicateId(u64),
}

impl From<BodyError> for Failure {
    fn from(e: BodyError) -> Self {
        Failure::Layout(e)
    }
}

impl From<BodyError> for super::CookError {
    fn from(e: BodyError) -> Self {
        super::CookError::Body {
            reason: e.to_string(),
            entity: e.entity,
        }
    }
}

impl Failure {
    /// The cook error, naming `document` (`the scene`, ``prefab `path` ``).
    fn into_cook(self, document: &str) -> super::CookError {
        match self {
            Failure::Layout(e) => BodyError {
                document: Some(document.to_owned()),
                ..e
            }
            .into(),
            Failure::Rule(reason) => super::CookError::Document {
                document: document.to_owned(),
                reason,
            },
            Failure::DuplicateId(id) => super::CookError::DuplicateId {
                document: document.to_owned(),
                id,
            },
        }
    }
}

// ---- writing ----

/// Encodes a body: the source name, the string pool, the scene, the prefabs (in the order
/// given).
pub(super) fn encode(
    stamp: Option<&super::CookStamp>,
    source: &str,
    doc: &SceneDoc,
    prefabs: &[(&String, &SceneDoc)],
) -> Vec<u8> {
    let mut pool = Pool::default();
    let scene = write_doc(doc, &mut pool);
    let bundled: Vec<(&String, Vec<u8>)> = prefabs
        .iter()
        .map(|(path, doc)| (*path, write_doc(doc, &mut pool)))
        .collect();
    let mut out = Vec::with_capacity(scene.len() + 128);
    if let Some(stamp) = stamp {
        put_stamp(&mut out, stamp);
    }
    put_str(&mut out, source);
    put_varint(&mut out, pool.strings.len() as u64);
    for s in &pool.strings {
        put_str(&mut out, s);
    }
    out.extend_from_slice(&scene);
    put_varint(&mut out, bundled.len() as u64);
    for (path, doc) in bundled {
        put_str(&mut out, path);
        out.extend_from_slice(&doc);
    }
    let docs: Vec<&SceneDoc> = std::iter::once(doc)
        .chain(prefabs.iter().map(|(_, d)| *d))
        .collect();
    put_layers(&mut out, &docs, &mut pool);
    out
}

/// Decodes a body (everything after the header), checking as it goes what the text reader
/// checks that the document types do not (`format_version`, the fields of override patches),
/// so the error is the first problem in file order.
///
/// # Errors
/// The [`CookError`](super::CookError) of the first problem: bytes that break the layout (with
/// their offset), a document the text reader refuses, a key or prefab given twice.
pub(super) fn decode(body: &[u8], stamped: bool) -> Result<Body, super::CookError> {
    let mut r = Reader::new(body, 0);
    let stamp = if stamped {
        Some(read_stamp(&mut r)?)
    } else {
        None
    };
    let source = r.str("the source name")?.to_owned();
    let pool_len = r.count(1, "the string pool's length")?;
    let mut pool = Vec::with_capacity(pool_len.min(RESERVE_AT_MOST));
    for _ in 0..pool_len {
        pool.push(EcoString::from(r.str("a pooled string")?));
    }
    let doc = read_doc(&mut r, &pool).map_err(|e| e.into_cook("the scene"))?;
    let count = r.count(2, "the number of prefabs")?;
    let mut prefabs: Vec<(String, SceneDoc)> = Vec::with_capacity(count.min(RESERVE_AT_MOST));
    for _ in 0..count {
        let at = r.at;
        let path = r.str("a prefab's path")?.to_owned();
        // Sorted by path, each once: one byte form per scene.
        if let Some((last, _)) = prefabs.last() {
            if *last == path {
                return Err(super::CookError::DuplicatePrefab { path });
            }
            if *last > path {
                return Err(BodyError::new(
                    at,
                    format!(
                        "prefab `{}` follows `{}`: bundled prefabs are sorted by path",
                        path.escape_debug(),
                        last.escape_debug()
                    ),
                )
                .into());
            }
        }
        let doc = read_doc(&mut r, &pool)
            .map_err(|e| e.into_cook(&format!("prefab `{}`", path.escape_debug())))?;
        prefabs.push((path, doc));
    }
    let mut doc = doc;
    if r.left() > 0 {
        let mut docs: Vec<&mut SceneDoc> = std::iter::once(&mut doc)
            .chain(prefabs.iter_mut().map(|(_, d)| d))
            .collect();
        let left = r.left();
        read_layers(&mut r, &pool, &mut docs).map_err(|mut e| {
            e.what = format!(
                "{left} bytes are left after the scene and its prefabs, and they are not a tile layers part: {}",
                e.what
            );
            e
        })?;
    }
    if r.left() > 0 {
        return Err(r
            .error(format!("{} bytes are left after the scene", r.left()))
            .into());
    }
    Ok(Body {
        stamp,
        source,
        doc,
        prefabs,
    })
}

/// Writes a stamp (layout version 4): the format version and layout version (varints), `0`, or
/// `1` and the schema's 32-byte hash, then the crate version (string).
fn put_stamp(out: &mut Vec<u8>, stamp: &super::CookStamp) {
    put_varint(out, u64::from(stamp.format_version));
    put_varint(out, u64::from(stamp.layout_version));
    match &stamp.schema_hash {
        Some(hash) => {
            out.push(1);
            out.extend_from_slice(hash);
        }
        None => out.push(0),
    }
    put_str(out, &stamp.crate_version);
}

/// Reads what [`put_stamp`] writes.
fn read_stamp(r: &mut Reader<'_>) -> Result<super::CookStamp, BodyError> {
    let format_version = r.varint("the stamp's format version")?;
    let format_version = u32::try_from(format_version).map_err(|_| {
        r.error(format!(
            "the stamp's format version {format_version} is not a u32"
        ))
    })?;
    let layout_version = r.varint("the stamp's layout version")?;
    let layout_version = u16::try_from(layout_version).map_err(|_| {
        r.error(format!(
            "the stamp's layout version {layout_version} is not a u16"
        ))
    })?;
    let schema_hash = match r.below(2, "the stamp's schema tag", "it is neither 0 nor 1")? {
        0 => None,
        _ => {
            let mut hash = [0u8; 32];
            hash.copy_from_slice(r.take(32, "the stamp's schema hash")?);
            Some(hash)
        }
    };
    let crate_version = r.str("the stamp's crate version")?.to_owned();
    Ok(super::CookStamp {
        format_version,
        layout_version,
        schema_hash,
        crate_version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in, each field away from its default, writes and reads back the same, with
    /// its index in [`BUILTINS`] as its kind.
    #[test]
    #[allow(clippy::unwrap_used)]
    fn every_builtin_round_trips() {
        let mut components = Vec::new();
        for text in [
            include_str!("../../../tests/fixtures/valid/garden.forge.ron"),
            include_str!("../../../tests/fixtures/valid/platformer.forge.ron"),
        ] {
            let doc = SceneDoc::from_str(text).unwrap().doc;
            components.extend(doc.entities.values().flat_map(|e| e.components.clone()));
        }
        for b in BUILTINS {
            components.push((b.default)());
        }
        let mut seen: Vec<&str> = Vec::new();
        for c in &components {
            let mut pool = Pool::default();
            let mut bytes = Vec::new();
            put_component(&mut bytes, c, &mut pool);
            if let Some(b) = c.builtin() {
                assert_eq!(bytes[0], TAG_BUILTIN);
                assert!(std::ptr::eq(BUILTINS[usize::from(bytes[1])], b));
            }
            let mut r = Reader::new(&bytes, 0);
            assert_eq!(&read_component(&mut r, &pool.strings).unwrap(), c);
            assert_eq!(r.left(), 0);
            seen.push(c.tag());
        }
        for tag in COMPONENT_TAGS {
            assert!(seen.contains(tag), "no `{tag}` among the samples");
        }
    }
}

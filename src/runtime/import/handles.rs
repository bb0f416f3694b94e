//! Asset handles as each era wrote them (feature `import`): read into what they say about
//! their asset ([`HandleRef`]), made into handles that load nothing, and named in the notes of
//! the components that hold them.
//!
//! | spelling | Bevy | says |
//! |---|---|---|
//! | `(id: AssetPathId(((..), (..))))` | 0.9-0.11 | a hash of the path: no path |
//! | `(id: Id("<type uuid>", n))` | 0.9-0.11 | an asset made in code: no path |
//! | `Weak(Index(index: (generation: g, index: i)))` | 0.12-0.16 | a runtime index: no path |
//! | `Weak(Uuid(uuid: ".."))` | 0.12-0.16 | a constant asset's UUID: no path |
//! | `Uuid("..")` | 0.17 on | as `Weak(Uuid(..))` |
//! | `Path("dir/file.png#Label")` | 0.19 on | the asset path, kept |
//!
//! A UUID is kept as the handle's UUID (so the default handle reads as the default); a spelling
//! without one becomes a handle of [`PATHLESS`], never taken for a default.

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;

use bevy_asset::uuid::Uuid;
use bevy_asset::{AssetPath, LoadFromPath, ReflectHandle, UntypedHandle};
use bevy_reflect::{PartialReflect, ReflectRef, TypeRegistry};
use serde::Deserializer;
use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::NoteKind;

/// A handle as some era wrote it, reduced to what it says about its asset.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum HandleRef {
    /// An asset path (`Path("..")`, 0.19 on).
    Path(String),
    /// A constant asset's UUID (`Uuid("..")`, 0.17 on; `Weak(Uuid(uuid: ".."))`, 0.12-0.16).
    Uuid(Uuid),
    /// A spelling without a path or UUID: `(id: AssetPathId(..))` (the path hashed,
    /// 0.9-0.11), `(id: Id(..))`, `Weak(Index(..))` (0.12-0.16); how the file spells it.
    NoPath(&'static str),
}

pub(crate) struct HandleSeed;

impl<'de> DeserializeSeed<'de> for HandleSeed {
    type Value = HandleRef;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<HandleRef, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for HandleSeed {
    type Value = HandleRef;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an asset handle: `Path(\"..\")`, `Uuid(\"..\")`, `Weak(..)` or `(id: ..)`")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<HandleRef, E> {
        Ok(match Uuid::parse_str(v) {
            Ok(uuid) => HandleRef::Uuid(uuid),
            Err(_) => HandleRef::Path(v.to_owned()),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HandleRef, A::Error> {
        // `(id: ..)` of the old asset system; `(uuid: ..)` / `(index: ..)` inside `Weak`.
        let mut out = HandleRef::NoPath("an old handle");
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "uuid" => {
                    let text = map.next_value::<String>()?;
                    let uuid = Uuid::parse_str(&text).map_err(|e| {
                        A::Error::custom(format_args!("`{text}` is not a UUID: {e}"))
                    })?;
                    out = HandleRef::Uuid(uuid);
                    continue;
                }
                "id" => {
                    out = HandleRef::NoPath("`(id: ..)` (Bevy 0.9-0.11: the path only as a hash)")
                }
                "index" => out = HandleRef::NoPath("`Weak(Index(..))` (a runtime index)"),
                _ => {}
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(out)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HandleRef, A::Error> {
        let inner = seq
            .next_element_seed(HandleSeed)?
            .ok_or_else(|| A::Error::invalid_length(0, &self))?;
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(inner)
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<HandleRef, E> {
        Ok(HandleRef::NoPath("a number"))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<HandleRef, E> {
        Ok(HandleRef::NoPath("`()`"))
    }
}

/// The UUID of a handle read from a file that names no asset (a runtime index, a hash of a
/// path): not Bevy's default handle, so that such a handle is never taken for a field left at
/// its default (and silently dropped), but listed.
pub(crate) const PATHLESS: Uuid = Uuid::from_u128(0x6b1f_04d2_6c0e_4f59_9a57_4e61_7468_6c65);

/// The handle a [`HandleRef`] read from a file makes: a path is given to `load` (which keeps
/// it, loading nothing), a UUID kept, a spelling without a path made a handle of [`PATHLESS`].
pub(crate) fn untyped_handle(
    handle: &HandleRef,
    type_id: TypeId,
    load: &mut dyn LoadFromPath,
) -> Result<UntypedHandle, String> {
    Ok(match handle {
        HandleRef::Path(path) => {
            let path = AssetPath::try_parse(path)
                .map_err(|e| format!("`{path}` is not an asset path: {e}"))?;
            load.load_from_path_erased(type_id, path.into_owned())
        }
        HandleRef::Uuid(uuid) => UntypedHandle::Uuid {
            type_id,
            uuid: *uuid,
        },
        HandleRef::NoPath(_) => UntypedHandle::Uuid {
            type_id,
            uuid: PATHLESS,
        },
    })
}

/// Gives each handle read from the text a UUID handle and remembers its path, so the import
/// can write the path back without loading anything.
#[derive(Default)]
pub(crate) struct HandlePaths {
    paths: HashMap<Uuid, AssetPath<'static>>,
}

impl LoadFromPath for HandlePaths {
    fn load_from_path_erased(
        &mut self,
        type_id: TypeId,
        path: AssetPath<'static>,
    ) -> UntypedHandle {
        // Deterministic, and never the default handle's UUID (which is all zeros but the top).
        let uuid = Uuid::from_u128(0x1_0000 + self.paths.len() as u128);
        self.paths.insert(uuid, path);
        UntypedHandle::Uuid { type_id, uuid }
    }
}

impl HandlePaths {
    /// The path of a reflected `Handle<A>`: its own for a strong handle, the one it was read
    /// with for a UUID handle made while reading.
    pub(crate) fn path_of(&self, handle: &UntypedHandle) -> Option<String> {
        match handle {
            UntypedHandle::Strong(_) => handle.path().map(ToString::to_string),
            UntypedHandle::Uuid { uuid, .. } => self.paths.get(uuid).map(ToString::to_string),
        }
    }
}

/// [`NoteKind::Handle`] for a field that did not render because it is an asset handle, or
/// holds one (`Option<Handle<Image>>`, `Vec<Handle<Mesh>>`), with its path when the text or the
/// handle gives one; else `kind`.
pub(crate) fn handle_note(
    value: &dyn PartialReflect,
    kind: NoteKind,
    paths: &HandlePaths,
    registry: &TypeRegistry,
) -> NoteKind {
    let NoteKind::Unwritable { field: Some(field) } = &kind else {
        return kind;
    };
    let field_value = match value.reflect_ref() {
        ReflectRef::Struct(s) => s.field(field),
        ReflectRef::TupleStruct(s) => field.parse().ok().and_then(|i| s.field(i)),
        _ => None,
    };
    match field_value.and_then(|v| find_handle(v, registry, 0)) {
        Some(handle) => NoteKind::Handle {
            field: field.clone(),
            path: handle.and_then(|h| paths.path_of(&h)),
        },
        None => kind,
    }
}

/// The first asset handle in `value` (`Some(None)` for one whose type is not reflected as a
/// handle's), searched through options, enums, lists and structs.
fn find_handle(
    value: &dyn PartialReflect,
    registry: &TypeRegistry,
    depth: usize,
) -> Option<Option<UntypedHandle>> {
    if depth > 8 {
        return None;
    }
    if let Some(reflect) = value.try_as_reflect()
        && let Some(handle) =
            registry.get_type_data::<ReflectHandle>(reflect.reflect_type_info().type_id())
    {
        return Some(handle.downcast_handle_untyped(reflect.as_any()));
    }
    let mut inner: Box<dyn Iterator<Item = &dyn PartialReflect>> = match value.reflect_ref() {
        ReflectRef::Struct(s) => Box::new(s.iter_fields().map(|(_, v)| v)),
        ReflectRef::TupleStruct(s) => Box::new(s.iter_fields()),
        ReflectRef::Tuple(s) => Box::new(s.iter_fields()),
        ReflectRef::List(s) => Box::new(s.iter()),
        ReflectRef::Array(s) => Box::new(s.iter()),
        ReflectRef::Enum(e) => Box::new(e.iter_fields().map(|f| f.value())),
        _ => return None,
    };
    inner.find_map(|v| find_handle(v, registry, depth + 1))
}

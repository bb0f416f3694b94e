//! Every era of Bevy's `.scn.ron`, read into the shape Bevy 0.20 reads (feature `import`).
//!
//! Bevy wrote its scenes differently from 0.9 to 0.20 (the table is in
//! `docs/guide/import-migrate.md`, with the sources in `tests/fixtures/bevy_eras/README.md`):
//! entity keys as indices, as `generation << 32 | index`, as `generation << 32 | !index`;
//! references inside components as `(generation: g, index: i)` structs or as those keys;
//! `Vec3` and `Quat` as structs or tuples; `Name` as `(hash, name)` or a string;
//! `bevy_hierarchy`'s `Parent` or `bevy_ecs`'s `ChildOf`; handles as `(id: AssetPathId(..))`,
//! `Weak(Index(..))`, `Weak(Uuid(..))`, `Uuid("..")`, `Path("..")` ([`super::handles`]);
//! colours as `bevy_render`'s struct variants or `bevy_color`'s newtype variants
//! ([`super::colour`]). Bevy 0.20's own deserializer reads only the last shape of each.
//!
//! **Why a reader by type, not a rewrite of the text.** Entity references are the one part that
//! cannot be found in the text: from 0.11 on they are bare numbers, told from any other number
//! only by the field's type. So the reading is done once, by type, as Bevy's reflection
//! deserializer does it, with a `ReflectDeserializerProcessor` ([`super::processor`]) that
//! takes over the few types whose spelling changed (`Entity`, `Name`, `ChildOf`, `Children`,
//! glam vectors and quaternions, colours, handles) and reads every spelling of each; old type paths
//! (`bevy_core::name::Name`, `bevy_hierarchy::..::Parent`) are read as the types that replaced
//! them ([`alias`]). A text rewrite would have had to guess which numbers are entities.
//!
//! What differs by era and is not visible in a single value (how a key number maps to an entity)
//! is told from the whole text first ([`probe`]): the top level (a list is Bevy 0.8, refused
//! naming it), whether `resources` is written, the key numbers themselves, and the spellings
//! above; the result is a [`BevyEra`] range, reported with the import.

use std::fmt;

use bevy_ecs::entity::{Entity, EntityGeneration, EntityIndex};
use serde::Deserializer;
use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The Bevy versions that may have written a `.scn.ron` file, as far as its text tells
/// (`0.13`–`0.14` write the same text, for instance). Minor versions of Bevy `0.x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BevyEra {
    /// The oldest version that writes this text (`9` for Bevy 0.9).
    pub oldest: u32,
    /// The newest, or `None` for a shape no released version writes (string entity keys such
    /// as `"4v0"`, proposed after 0.20).
    pub newest: Option<u32>,
}

impl fmt::Display for BevyEra {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.newest {
            Some(n) if n == self.oldest => write!(f, "Bevy 0.{n}"),
            Some(n) => write!(f, "Bevy 0.{}-0.{n}", self.oldest),
            None if self.oldest > LATEST => {
                write!(f, "after Bevy 0.{LATEST} (string entity keys)")
            }
            None => write!(f, "Bevy 0.{} or later", self.oldest),
        }
    }
}

/// The newest Bevy release this crate knows the scene text of.
const LATEST: u32 = 20;

/// How the entity keys of a file (and the references that name them) map to entities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keys {
    /// Bevy 0.9–0.10: a key is the entity's 32-bit index; a reference is `(generation: g,
    /// index: i)` and names the entity whose key is `i` (Bevy's own loader matched by index).
    Index,
    /// Bevy 0.11–0.16: `generation << 32 | index` (the generation's top bit a flag from 0.13).
    IndexLow,
    /// Bevy 0.17 on: `generation << 32 | !index`, Bevy 0.20's `Entity::to_bits`.
    Bits,
    /// Strings `"{index}v{generation}"` (`Entity`'s `Display`), proposed after 0.20.
    Display,
}

/// What the text says before it is read by type: the era and how keys map to entities.
#[derive(Debug, Clone)]
pub(crate) struct Probe {
    pub(crate) era: BevyEra,
    pub(crate) keys: Keys,
    /// The entity keys the file writes as numbers.
    pub(crate) key_numbers: Vec<u64>,
}

/// Why a text cannot be read at all, found before reading it by type: the 0.8 list form (or
/// another list), or text that is not a world; `(line, column, message, era)`.
pub(crate) struct ProbeError {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
    /// Set when the text is a known era this crate does not read.
    pub(crate) era: Option<BevyEra>,
}

/// The first byte that is not whitespace or a comment, if any.
pub(crate) fn first_token(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |n| i + 2 + n + 2);
            }
            _ => return Some(i),
        }
    }
    None
}

/// Whether `text` has `name(` followed by `next` (spaces and newlines between allowed), with
/// `name` not the end of a longer identifier.
fn has_call(text: &str, name: &str, next: &[u8]) -> bool {
    let b = text.as_bytes();
    let pattern = format!("{name}(");
    memchr::memmem::find_iter(b, pattern.as_bytes()).any(|at| {
        let before = at.checked_sub(1).map(|i| b[i]);
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
            return false;
        }
        let mut i = at + pattern.len();
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        b.get(i..).is_some_and(|rest| rest.starts_with(next))
    })
}

/// Whether `text` has a quoted type path starting with `prefix`.
fn has_path(text: &str, prefix: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), format!("\"{prefix}").as_bytes()).is_some()
}

/// Whether any `field: (` of `text` opens a struct (`(x:`).
fn struct_valued(text: &str, field: &str) -> bool {
    let b = text.as_bytes();
    let pattern = format!("{field}:");
    memchr::memmem::find_iter(b, pattern.as_bytes()).any(|at| {
        let mut i = at + pattern.len();
        let skip = |i: &mut usize| {
            while *i < b.len() && b[*i].is_ascii_whitespace() {
                *i += 1;
            }
        };
        skip(&mut i);
        if b.get(i) != Some(&b'(') {
            return false;
        }
        i += 1;
        skip(&mut i);
        b.get(i..)
            .is_some_and(|r| r.starts_with(b"x:") || r.starts_with(b"x :"))
    })
}

/// An entity key as the file writes it.
enum Key {
    Number(u64),
    Text,
}

/// The skeleton of a world: whether it writes `resources`, its entity keys, and whether any
/// entity lists its components out of type-path order.
#[derive(Default)]
struct Skeleton {
    resources: bool,
    keys: Vec<Key>,
    unsorted: bool,
}

struct SkeletonSeed;

impl<'de> DeserializeSeed<'de> for SkeletonSeed {
    type Value = Skeleton;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Skeleton, D::Error> {
        d.deserialize_struct("World", &["resources", "entities"], self)
    }
}

impl<'de> Visitor<'de> for SkeletonSeed {
    type Value = Skeleton;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Bevy world: `(resources: {..}, entities: {..})`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skeleton, A::Error> {
        let mut out = Skeleton::default();
        let mut entities = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "resources" if !out.resources => {
                    out.resources = true;
                    map.next_value::<IgnoredAny>()?;
                }
                "entities" if !entities => {
                    entities = true;
                    map.next_value_seed(KeysSeed(&mut out))?;
                }
                "resources" | "entities" => {
                    return Err(A::Error::custom(format_args!("duplicate field `{key}`")));
                }
                other => {
                    return Err(A::Error::custom(format_args!(
                        "unknown field `{other}`: a Bevy world has `resources` and `entities`"
                    )));
                }
            }
        }
        if !entities {
            return Err(A::Error::missing_field("entities"));
        }
        Ok(out)
    }
}

struct KeysSeed<'a>(&'a mut Skeleton);

impl<'de> DeserializeSeed<'de> for KeysSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for KeysSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of entities: `{4294967295: (components: {..}), ..}`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key_seed(KeySeed)? {
            self.0.keys.push(key);
            if !map.next_value_seed(OrderSeed)? {
                self.0.unsorted = true;
            }
        }
        Ok(())
    }
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an entity key: a number, or a string like \"4v0\"")
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Key, E> {
        Ok(Key::Number(v))
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Key, E> {
        Ok(Key::Text)
    }
}

/// An entity's value: `(components: {..})`; whether its component keys are in type-path order.
struct OrderSeed;

impl<'de> DeserializeSeed<'de> for OrderSeed {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_struct("Entity", &["components"], self)
    }
}

impl<'de> Visitor<'de> for OrderSeed {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an entity: `(components: {..})`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut sorted = true;
        let mut seen = false;
        while let Some(key) = map.next_key::<String>()? {
            if key != "components" || seen {
                return Err(A::Error::custom(format_args!(
                    "unexpected field `{key}`: an entity has `components` once"
                )));
            }
            seen = true;
            sorted = map.next_value_seed(SortedSeed)?;
        }
        if !seen {
            return Err(A::Error::missing_field("components"));
        }
        Ok(sorted)
    }
}

/// A map of type paths: whether they are in order.
struct SortedSeed;

impl<'de> DeserializeSeed<'de> for SortedSeed {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for SortedSeed {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of type paths to values")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut sorted = true;
        let mut last: Option<String> = None;
        while let Some(key) = map.next_key::<String>()? {
            map.next_value::<IgnoredAny>()?;
            if last.as_ref().is_some_and(|l| *l > key) {
                sorted = false;
            }
            last = Some(key);
        }
        Ok(sorted)
    }
}

/// The 1-based line and column of byte `at` of `text`.
pub(crate) fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = text.get(..at).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// Reads what `text` says about its era (see the module docs). Errors are the text's syntax
/// errors (RON's, at their line and column), a top level that is not a world, and the 0.8 list
/// form, refused naming its era.
pub(crate) fn probe(text: &str) -> Result<Probe, ProbeError> {
    let b = text.as_bytes();
    if let Some(at) = first_token(b)
        && b[at] == b'['
    {
        let (line, column) = line_column(text, at);
        let rest = &b[at + 1..];
        let looks_08 = first_token(rest).is_some_and(|i| {
            rest[i] == b'('
                && first_token(&rest[i + 1..])
                    .is_some_and(|j| rest[i + 1 + j..].starts_with(b"entity"))
        }) || first_token(rest).is_some_and(|i| rest[i] == b']');
        return Err(if looks_08 {
            ProbeError {
                line,
                column,
                message: "this is the scene format of Bevy 0.8 and older (a list of `(entity: .., components: [..])`); the importer reads the formats Bevy 0.9 to 0.20 wrote".to_owned(),
                era: Some(BevyEra {
                    oldest: 0,
                    newest: Some(8),
                }),
            }
        } else {
            ProbeError {
                line,
                column,
                message: "expected a Bevy world `(resources: {..}, entities: {..})`, found a list"
                    .to_owned(),
                era: None,
            }
        });
    }
    let skeleton = ron::Options::default()
        .from_str_seed(text, SkeletonSeed)
        .map_err(|e| ProbeError {
            line: e.span.start.line,
            column: e.span.start.col,
            message: e.code.to_string(),
            era: None,
        })?;
    Ok(era_of(text, &skeleton))
}

/// The era and key mapping of a world with `skeleton`, from its text.
fn era_of(text: &str, skeleton: &Skeleton) -> Probe {
    let numbers: Vec<u64> = skeleton
        .keys
        .iter()
        .filter_map(|k| match k {
            Key::Number(n) => Some(*n),
            Key::Text => None,
        })
        .collect();
    let strings = skeleton.keys.iter().any(|k| matches!(k, Key::Text));
    let low = |k: &u64| *k & 0xFFFF_FFFF;
    let keys = if strings {
        Keys::Display
    } else if !skeleton.resources && numbers.iter().all(|k| *k <= u64::from(u32::MAX)) {
        Keys::Index
    } else if numbers.iter().all(|k| low(k) >= 1 << 31) {
        // No keys at all (an empty world) read as the newest numbers.
        Keys::Bits
    } else {
        Keys::IndexLow
    };
    // Each signal a range of minor versions; the era is where they all meet.
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    const NEWEST: u32 = u32::MAX;
    match keys {
        Keys::Display => ranges.push((LATEST + 1, NEWEST)),
        Keys::Index => ranges.push((9, 10)),
        Keys::Bits if !numbers.is_empty() => ranges.push((17, LATEST)),
        Keys::IndexLow => {
            ranges.push((11, 16));
            if numbers.iter().any(|k| k >> 32 == 0) {
                ranges.push((11, 12));
            } else {
                ranges.push((13, 16));
            }
        }
        Keys::Bits => {}
    }
    if skeleton.resources {
        ranges.push((11, NEWEST));
    }
    if keys != Keys::Display {
        ranges.push((9, LATEST));
    }
    if has_call(text, "Path", b"\"") {
        ranges.push((19, NEWEST));
    }
    if has_call(text, "Uuid", b"\"") {
        ranges.push((17, NEWEST));
    }
    if has_call(text, "Weak", b"Index") || has_call(text, "Weak", b"Uuid") {
        ranges.push((12, 16));
    }
    if has_call(text, "AssetPathId", b"(") || has_call(text, "Id", b"\"") {
        ranges.push((9, 11));
    }
    if has_path(text, "bevy_ecs::hierarchy::")
        || has_path(text, "bevy_ecs::name::Name\"")
        || has_path(
            text,
            "bevy_transform::components::transform::TransformTreeChanged\"",
        )
    {
        ranges.push((16, NEWEST));
    }
    if has_path(text, "bevy_hierarchy::") || has_path(text, "bevy_core::name::Name\"") {
        ranges.push((9, 15));
    }
    let rotation_struct = struct_valued(text, "rotation");
    let translation_struct = struct_valued(text, "translation");
    if rotation_struct {
        ranges.push((12, 14));
    } else if translation_struct {
        ranges.push((9, 11));
    } else if memchr::memmem::find(text.as_bytes(), b"translation:").is_some() {
        ranges.push((15, NEWEST));
    }
    if skeleton.unsorted {
        ranges.push((9, 14));
    }
    // The key mapping is sure; a signal that contradicts the others is dropped (a tool may
    // write a mix), latest first.
    let mut era = (9, NEWEST);
    for (lo, hi) in ranges {
        let meet = (era.0.max(lo), era.1.min(hi));
        if meet.0 <= meet.1 {
            era = meet;
        }
    }
    Probe {
        era: BevyEra {
            oldest: era.0,
            newest: (era.1 != NEWEST).then_some(era.1),
        },
        keys,
        key_numbers: numbers,
    }
}

/// The type paths of Bevy types that moved, as Bevy 0.20 names them (Bevy 0.15-0.16's paths
/// of the built-ins' components; `bevy_core`'s `Name` and `bevy_hierarchy`'s types).
pub(crate) fn alias(type_path: &str) -> Option<&'static str> {
    Some(match type_path {
        "bevy_core::name::Name" => "bevy_ecs::name::Name",
        "bevy_hierarchy::components::parent::Parent" => "bevy_ecs::hierarchy::ChildOf",
        "bevy_hierarchy::components::children::Children" => "bevy_ecs::hierarchy::Children",
        // The built-ins' components, which moved to `bevy_camera`, `bevy_light`, `bevy_mesh`
        // and `bevy_sprite` in Bevy 0.17.
        "bevy_text::text2d::Text2d" => "bevy_sprite::text2d::Text2d",
        "bevy_core_pipeline::core_2d::camera_2d::Camera2d" => "bevy_camera::components::Camera2d",
        "bevy_core_pipeline::core_3d::camera_3d::Camera3d" => "bevy_camera::components::Camera3d",
        "bevy_render::camera::camera::Camera" => "bevy_camera::camera::Camera",
        "bevy_render::camera::projection::Projection" => "bevy_camera::projection::Projection",
        "bevy_pbr::light::point_light::PointLight" => "bevy_light::point_light::PointLight",
        "bevy_pbr::light::directional_light::DirectionalLight" => {
            "bevy_light::directional_light::DirectionalLight"
        }
        "bevy_pbr::light::spot_light::SpotLight" => "bevy_light::spot_light::SpotLight",
        "bevy_render::mesh::components::Mesh3d" => "bevy_mesh::components::Mesh3d",
        "bevy_render::view::visibility::Visibility" => "bevy_camera::visibility::Visibility",
        _ => return None,
    })
}

/// Bevy types of older eras whose values Bevy computes from others (the visibility Bevy 0.9-0.11
/// propagated): dropped, as the current ones are.
pub(crate) fn derived_in_older_eras(type_path: &str) -> bool {
    type_path.starts_with("bevy_") && type_path.ends_with("::ComputedVisibility")
}

/// The entity a key (or a reference) names, with `keys`' mapping.
fn decode(keys: Keys, v: u64) -> Result<Entity, String> {
    let index_low = |v: u64| {
        let index = EntityIndex::from_raw_u32(v as u32)
            .ok_or_else(|| format!("`{v}` has the index `u32::MAX`, which no entity has"))?;
        let generation = EntityGeneration::from_bits((v >> 32) as u32 & 0x7FFF_FFFF);
        Ok(Entity::from_index_and_generation(index, generation))
    };
    match keys {
        Keys::Index => {
            let index = u32::try_from(v).map_err(|_| {
                format!("`{v}` is not an entity of Bevy 0.9-0.10, whose keys are 32-bit indices")
            })?;
            Entity::from_raw_u32(index)
                .ok_or_else(|| format!("`{v}` is `u32::MAX`, which no entity has"))
        }
        Keys::IndexLow => index_low(v),
        Keys::Bits | Keys::Display => Entity::try_from_bits(v).ok_or_else(|| {
            format!(
                "`{v}` is not an entity: its low 32 bits are 0, which no Bevy 0.17+ entity writes"
            )
        }),
    }
}

/// `"{index}v{generation}"`.
fn decode_display(s: &str) -> Result<Entity, String> {
    let bad = || format!("`{s}` is not an entity: expected a number or `\"<index>v<generation>\"`");
    let (index, generation) = s.split_once('v').ok_or_else(bad)?;
    let index: u32 = index.parse().map_err(|_| bad())?;
    let generation: u32 = generation.parse().map_err(|_| bad())?;
    let index = EntityIndex::from_raw_u32(index).ok_or_else(bad)?;
    Ok(Entity::from_index_and_generation(
        index,
        EntityGeneration::from_bits(generation),
    ))
}

/// An entity key, or an `Entity` inside a component, in any era's spelling.
#[derive(Clone, Copy)]
pub(crate) struct EntitySeed(pub(crate) Keys);

impl<'de> DeserializeSeed<'de> for EntitySeed {
    type Value = Entity;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Entity, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EntitySeed {
    type Value = Entity;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an entity: a number, `(generation: g, index: i)` or a string like \"4v0\"")
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Entity, E> {
        decode(self.0, v).map_err(E::custom)
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Entity, E> {
        let v = u64::try_from(v).map_err(|_| E::custom(format_args!("`{v}` is not an entity")))?;
        self.visit_u64(v)
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Entity, E> {
        decode_display(v).map_err(E::custom)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entity, A::Error> {
        let (mut index, mut generation) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "index" => index = Some(map.next_value::<u32>()?),
                "generation" => generation = Some(map.next_value::<u32>()?),
                other => {
                    return Err(A::Error::custom(format_args!(
                        "unexpected field `{other}` in an entity `(generation: g, index: i)`"
                    )));
                }
            }
        }
        let index = index.ok_or_else(|| A::Error::missing_field("index"))?;
        let generation = generation.unwrap_or(0);
        let entity_index = EntityIndex::from_raw_u32(index)
            .ok_or_else(|| A::Error::custom("an entity index of `u32::MAX`"))?;
        // Bevy 0.9-0.10 matched a reference to a key by index: the key has no generation.
        let generation = match self.0 {
            Keys::Index => 0,
            _ => generation,
        };
        Ok(Entity::from_index_and_generation(
            entity_index,
            EntityGeneration::from_bits(generation),
        ))
    }
}

/// `Name` as a string (0.16 on, or with Bevy's `serialize` feature) or as `(hash, name)`.
pub(crate) struct NameSeed;

impl<'de> Visitor<'de> for NameSeed {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a name: a string, or `(hash: .., name: \"..\")`")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<String, A::Error> {
        let mut name = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "name" {
                name = Some(map.next_value::<String>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        name.ok_or_else(|| A::Error::missing_field("name"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<String, A::Error> {
        let name = seq
            .next_element::<String>()?
            .ok_or_else(|| A::Error::invalid_length(0, &self))?;
        Ok(name)
    }
}

/// `ChildOf(k)` / `Parent(k)`, or `Children([k, ..])`: the entities, in order.
pub(crate) struct EntitiesSeed(pub(crate) Keys);

impl<'de> DeserializeSeed<'de> for EntitiesSeed {
    type Value = Vec<Entity>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Entity>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EntitiesSeed {
    type Value = Vec<Entity>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("entities: `(k)` or `([k, ..])`")
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Vec<Entity>, E> {
        EntitySeed(self.0).visit_u64(v).map(|e| vec![e])
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Vec<Entity>, E> {
        EntitySeed(self.0).visit_str(v).map(|e| vec![e])
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Vec<Entity>, A::Error> {
        EntitySeed(self.0).visit_map(map).map(|e| vec![e])
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Entity>, A::Error> {
        let mut out = Vec::new();
        while let Some(mut more) = seq.next_element_seed(EntitiesSeed(self.0))? {
            out.append(&mut more);
        }
        Ok(out)
    }
}

/// A glam vector or quaternion as a tuple `(x, y, z)` or a struct `(x: .., y: .., z: ..)`.
pub(crate) struct FloatsSeed(pub(crate) usize);

impl<'de> Visitor<'de> for FloatsSeed {
    type Value = [f32; 4];

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} floats: `(x, ..)` or `(x: .., ..)`", self.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[f32; 4], A::Error> {
        let mut out = [0.0; 4];
        for (i, slot) in out.iter_mut().enumerate().take(self.0) {
            *slot = seq
                .next_element::<f32>()?
                .ok_or_else(|| A::Error::invalid_length(i, &self))?;
        }
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(A::Error::invalid_length(self.0 + 1, &self));
        }
        Ok(out)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<[f32; 4], A::Error> {
        let mut out = [0.0; 4];
        let mut set = [false; 4];
        while let Some(key) = map.next_key::<String>()? {
            let i = match key.as_str() {
                "x" => 0,
                "y" => 1,
                "z" => 2,
                "w" => 3,
                _ => usize::MAX,
            };
            if i >= self.0 {
                return Err(A::Error::unknown_field(
                    &key,
                    &["x", "y", "z", "w"][..self.0],
                ));
            }
            out[i] = map.next_value::<f32>()?;
            set[i] = true;
        }
        if let Some(i) = set.iter().take(self.0).position(|s| !s) {
            return Err(A::Error::missing_field(["x", "y", "z", "w"][i]));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_each_era_decode_to_their_index_and_generation() {
        let e =
            |keys, v| decode(keys, v).map(|e: Entity| (e.index_u32(), e.generation().to_bits()));
        assert_eq!(e(Keys::Index, 3), Ok((3, 0)));
        assert!(e(Keys::Index, 1 << 32).is_err());
        assert_eq!(e(Keys::IndexLow, 4294967297), Ok((1, 1)));
        assert_eq!(e(Keys::IndexLow, 8589934593), Ok((1, 2)));
        assert_eq!(e(Keys::Bits, 4294967295), Ok((0, 0)));
        assert_eq!(e(Keys::Bits, 8589934590), Ok((1, 1)));
        assert!(e(Keys::Bits, 1 << 32).is_err());
        assert_eq!(
            decode_display("4v2").map(|e| (e.index_u32(), e.generation().to_bits())),
            Ok((4, 2))
        );
        assert!(decode_display("4x2").is_err());
    }

    #[test]
    fn calls_are_found_with_spaces_and_not_inside_longer_names() {
        assert!(has_call("a: Path( \"x\")", "Path", b"\""));
        assert!(!has_call("a: AssetPath(\"x\")", "Path", b"\""));
        assert!(has_call("Weak(Uuid(\n uuid: \"..\"))", "Weak", b"Uuid"));
        assert!(!has_call("Weak(Uuid(\n uuid: \"..\"))", "Uuid", b"\""));
    }
}

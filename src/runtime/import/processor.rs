//! The processor of the reading by type (feature `import`): the types whose spelling changed
//! between eras, read in every spelling as Bevy's reflection deserializer reaches them
//! (`Entity`, `Name`, `ChildOf`, `Children`, glam vectors and quaternions, colours, asset
//! handles), and Bevy's own types that became enums.
//!
//! **A Bevy type that became an enum** reads a value of its older type as its first variant
//! when that variant holds one value: `TextFont`'s `font` was a `Handle<Font>` before Bevy
//! 0.19 (`font: Weak(Uuid(uuid: ".."))` in a 0.15 file) and is `FontSource::Handle(..)` now;
//! its `font_size` was an `f32` (`20.0`) and is `FontSize::Px(..)`. A value written as one of
//! the enum's variants reads as itself. Only Bevy's types (`bevy_*` paths), whose history is
//! known; a game's enum is read as it is.

use std::any::TypeId;

use bevy_asset::{HandleDeserializeProcessor, LoadFromPath, ReflectHandle, UntypedHandle};
use bevy_color::Color;
use bevy_ecs::entity::Entity;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_reflect::enums::{DynamicEnum, DynamicVariant, VariantInfo};
use bevy_reflect::list::DynamicList;
use bevy_reflect::serde::{ReflectDeserializerProcessor, TypedReflectDeserializer};
use bevy_reflect::tuple::DynamicTuple;
use bevy_reflect::tuple_struct::DynamicTupleStruct;
use bevy_reflect::{PartialReflect, TypeInfo, TypeRegistration, TypeRegistry};
use glam::{Quat, Vec2, Vec3, Vec3A, Vec4};
use ron::value::RawValue;
use serde::Deserializer;
use serde::de::{DeserializeSeed, Error as _};

use super::colour;
use super::eras::{EntitiesSeed, EntitySeed, FloatsSeed, Keys, NameSeed, first_token};
use super::handles::{HandleSeed, untyped_handle};

/// The processor of the reading (see the module docs).
pub(crate) struct EraProcessor<'a> {
    keys: Keys,
    load: &'a mut dyn LoadFromPath,
    /// A type to leave to Bevy's own reading once: an enum whose text was found to be one of
    /// its variants.
    bypass: Option<TypeId>,
}

impl<'a> EraProcessor<'a> {
    /// A processor reading entities with `keys`, giving handles' paths to `load`.
    pub(crate) fn new(keys: Keys, load: &'a mut dyn LoadFromPath) -> Self {
        EraProcessor {
            keys,
            load,
            bypass: None,
        }
    }
}

impl ReflectDeserializerProcessor for EraProcessor<'_> {
    fn try_deserialize<'de, D: Deserializer<'de>>(
        &mut self,
        registration: &TypeRegistration,
        registry: &TypeRegistry,
        deserializer: D,
    ) -> Result<Result<Box<dyn PartialReflect>, D>, D::Error> {
        let id = registration.type_id();
        if self.bypass == Some(id) {
            self.bypass = None;
            return Ok(Err(deserializer));
        }
        let floats = |n: usize, d: D| d.deserialize_any(FloatsSeed(n));
        let value: Box<dyn PartialReflect> = if id == TypeId::of::<Entity>() {
            Box::new(EntitySeed(self.keys).deserialize(deserializer)?)
        } else if id == TypeId::of::<Name>() {
            Box::new(Name::new(deserializer.deserialize_any(NameSeed)?))
        } else if id == TypeId::of::<ChildOf>() {
            let entities = EntitiesSeed(self.keys).deserialize(deserializer)?;
            match entities.as_slice() {
                [parent] => Box::new(ChildOf(*parent)),
                _ => {
                    return Err(D::Error::custom(format_args!(
                        "a parent is one entity, found {}",
                        entities.len()
                    )));
                }
            }
        } else if id == TypeId::of::<Children>() {
            let entities = EntitiesSeed(self.keys).deserialize(deserializer)?;
            let mut list = DynamicList::default();
            for e in entities {
                list.push(e);
            }
            let mut children = DynamicTupleStruct::default();
            children.insert(list);
            children.set_represented_type(Some(registration.type_info()));
            Box::new(children)
        } else if id == TypeId::of::<Vec3>() {
            let [x, y, z, _] = floats(3, deserializer)?;
            Box::new(Vec3::new(x, y, z))
        } else if id == TypeId::of::<Quat>() {
            let [x, y, z, w] = floats(4, deserializer)?;
            Box::new(Quat::from_xyzw(x, y, z, w))
        } else if id == TypeId::of::<Vec2>() {
            let [x, y, _, _] = floats(2, deserializer)?;
            Box::new(Vec2::new(x, y))
        } else if id == TypeId::of::<Vec3A>() {
            let [x, y, z, _] = floats(3, deserializer)?;
            Box::new(Vec3A::new(x, y, z))
        } else if id == TypeId::of::<Vec4>() {
            let [x, y, z, w] = floats(4, deserializer)?;
            Box::new(Vec4::new(x, y, z, w))
        } else if id == TypeId::of::<Color>() {
            // `Srgba((red: ..))` from Bevy 0.14, `Rgba(red: ..)` before.
            Box::new(colour::deserialize_colour(deserializer, None)?.color())
        } else if id == TypeId::of::<UntypedHandle>() {
            // Written with its asset type (Bevy 0.19 on): Bevy's own reading.
            return HandleDeserializeProcessor {
                load_from_path: &mut *self.load,
            }
            .try_deserialize(registration, registry, deserializer);
        } else if let Some(reflect) = registration.data::<ReflectHandle>() {
            let handle = HandleSeed.deserialize(deserializer)?;
            let untyped = untyped_handle(&handle, reflect.asset_type_id(), &mut *self.load)
                .map_err(D::Error::custom)?;
            reflect.typed(untyped).into_partial_reflect()
        } else if let Some(first) = became_enum(registration) {
            self.enum_or_first(registration, registry, first, deserializer)?
        } else {
            return Ok(Err(deserializer));
        };
        Ok(Ok(value))
    }
}

/// The first variant of a Bevy enum whose first variant holds one value: what its older type
/// reads as (see the module docs).
fn became_enum(registration: &TypeRegistration) -> Option<&'static VariantInfo> {
    let TypeInfo::Enum(info) = registration.type_info() else {
        return None;
    };
    if !info.type_path().starts_with("bevy_") {
        return None;
    }
    let first = info.variant_at(0)?;
    match first {
        VariantInfo::Tuple(t) if t.field_len() == 1 => Some(first),
        _ => None,
    }
}

/// The identifier a RON value opens with (`Weak` of `Weak(..)`), if any.
fn leading_ident(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    let start = first_token(b)?;
    let len = b[start..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    let ident = &text[start..start + len];
    ident
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        .then_some(ident)
}

impl EraProcessor<'_> {
    /// A value of a Bevy enum that was another type before: as itself when the text writes
    /// one of its variants, else as `first` holding the text read as its value's type.
    fn enum_or_first<'de, D: Deserializer<'de>>(
        &mut self,
        registration: &TypeRegistration,
        registry: &TypeRegistry,
        first: &'static VariantInfo,
        deserializer: D,
    ) -> Result<Box<dyn PartialReflect>, D::Error> {
        use serde::Deserialize;
        let raw = <&RawValue>::deserialize(deserializer)?;
        let text = raw.get_ron();
        let sub = |e: ron::error::SpannedError| D::Error::custom(e.code);
        let is_variant = match registration.type_info() {
            TypeInfo::Enum(info) => leading_ident(text).is_some_and(|n| info.contains_variant(n)),
            _ => false,
        };
        if is_variant {
            self.bypass = Some(registration.type_id());
            let read = ron::Options::default().from_str_seed(
                text,
                TypedReflectDeserializer::with_processor(registration, registry, self),
            );
            self.bypass = None;
            return read.map_err(sub);
        }
        let field = match first {
            VariantInfo::Tuple(t) => t.field_at(0),
            _ => None,
        };
        let payload = field
            .and_then(|f| registry.get(f.type_id()))
            .ok_or_else(|| {
                D::Error::custom(format_args!(
                    "`{}` is not a variant of `{}`",
                    leading_ident(text).unwrap_or(text),
                    registration.type_info().type_path()
                ))
            })?;
        let value = ron::Options::default()
            .from_str_seed(
                text,
                TypedReflectDeserializer::with_processor(payload, registry, self),
            )
            .map_err(|e| match (leading_ident(text), registration.type_info()) {
                // A name that is neither a variant nor the older type's: say so.
                (Some(name), TypeInfo::Enum(info)) => D::Error::custom(format_args!(
                    "unknown variant `{name}` of `{}`, expected one of {}",
                    info.type_path_table().short_path(),
                    info.variant_names()
                        .iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                _ => sub(e),
            })?;
        let mut tuple = DynamicTuple::default();
        tuple.insert_boxed(value);
        let mut out = DynamicEnum::new(first.name(), DynamicVariant::Tuple(tuple));
        out.set_represented_type(Some(registration.type_info()));
        Ok(Box::new(out))
    }
}

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
//!
//! **A Bevy struct whose field changed** reads it as what it became ([`became`]): a renamed
//! field under its new name (the lights' `shadows_enabled` of Bevy 0.15 is
//! `shadow_maps_enabled`), a field that became a component of its own as that component
//! ([`EraProcessor::moved`]: a 0.15 `Sprite`'s `anchor` is the `Anchor` component in 0.20, so
//! the entity gets its `Anchor` as a 0.20 file writes it), a `bool` that became a marker as
//! the marker when `true` (`Camera.hdr`, `Hdr`), a `bool` that became an enum as its variants
//! (`Camera.msaa_writeback`). Any other field the struct no longer has is read past and named in
//! [`EraProcessor::removed`] (a [`NoteKind::RemovedFields`](super::NoteKind::RemovedFields) of
//! the component); fields a file does not write (added since) take the type's default, as
//! Bevy's `FromReflect` does for a type with `#[reflect(Default)]`.

use std::any::TypeId;
use std::fmt;

use bevy_asset::{HandleDeserializeProcessor, LoadFromPath, ReflectHandle, UntypedHandle};
use bevy_color::Color;
use bevy_ecs::entity::Entity;
use bevy_ecs::hierarchy::{ChildOf, Children};
use bevy_ecs::name::Name;
use bevy_reflect::enums::{DynamicEnum, DynamicVariant, VariantInfo};
use bevy_reflect::list::DynamicList;
use bevy_reflect::serde::{
    ReflectDeserializeWithRegistry, ReflectDeserializerProcessor, SerializationData,
    TypedReflectDeserializer,
};
use bevy_reflect::std_traits::ReflectDefault;
use bevy_reflect::structs::{DynamicStruct, StructInfo};
use bevy_reflect::tuple::DynamicTuple;
use bevy_reflect::tuple_struct::DynamicTupleStruct;
use bevy_reflect::{PartialReflect, ReflectDeserialize, TypeInfo, TypeRegistration, TypeRegistry};
use glam::{Quat, Vec2, Vec3, Vec3A, Vec4};
use ron::value::RawValue;
use serde::Deserializer;
use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, Visitor};

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
    /// The fields read past because their Bevy struct no longer has them, as
    /// `Type.field`, in file order.
    pub(crate) removed: Vec<String>,
    /// The values of fields that became components of their own ([`moved_out`]), read as
    /// those components, in file order.
    pub(crate) moved: Vec<Box<dyn PartialReflect>>,
}

impl<'a> EraProcessor<'a> {
    /// A processor reading entities with `keys`, giving handles' paths to `load`.
    pub(crate) fn new(keys: Keys, load: &'a mut dyn LoadFromPath) -> Self {
        EraProcessor {
            keys,
            load,
            bypass: None,
            removed: Vec::new(),
            moved: Vec::new(),
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
        } else if cfg!(feature = "builtins") && registration.type_info().type_path() == ANCHOR {
            // An enum of named places before Bevy 0.17 (`Center`, `Custom((x, y))`).
            self.anchor(registration, registry, deserializer)?
        } else if let Some(first) = became_enum(registration) {
            self.enum_or_first(registration, registry, first, deserializer)?
        } else if let Some(info) = bevy_struct(registration) {
            Box::new(deserializer.deserialize_struct(
                "",
                info.field_names(),
                StructWithout {
                    processor: self,
                    registration,
                    registry,
                    info,
                },
            )?)
        } else {
            return Ok(Err(deserializer));
        };
        Ok(Ok(value))
    }
}

/// Two floats inside a newtype's parentheses: `((x, y))` or `((x: .., y: ..))`.
struct FloatsInNewtype;

impl<'de> DeserializeSeed<'de> for FloatsInNewtype {
    type Value = [f32; 4];
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<[f32; 4], D::Error> {
        d.deserialize_newtype_struct("", self)
    }
}

impl<'de> Visitor<'de> for FloatsInNewtype {
    type Value = [f32; 4];

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a point `((x, y))`")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<[f32; 4], D::Error> {
        d.deserialize_any(FloatsSeed(2))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<[f32; 4], A::Error> {
        let out = seq
            .next_element_seed(FloatsSeedOnce)?
            .ok_or_else(|| A::Error::invalid_length(0, &self))?;
        Ok(out)
    }
}

/// [`FloatsSeed`] of two, as a seed.
struct FloatsSeedOnce;

impl<'de> DeserializeSeed<'de> for FloatsSeedOnce {
    type Value = [f32; 4];
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<[f32; 4], D::Error> {
        d.deserialize_any(FloatsSeed(2))
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

/// A Bevy struct read field by field (not by its own serde implementation): one whose
/// fields may have changed between eras (see the module docs).
fn bevy_struct(registration: &TypeRegistration) -> Option<&'static StructInfo> {
    let TypeInfo::Struct(info) = registration.type_info() else {
        return None;
    };
    let own_serde = registration.data::<ReflectDeserialize>().is_some()
        || registration
            .data::<ReflectDeserializeWithRegistry>()
            .is_some();
    (info.type_path().starts_with("bevy_") && !own_serde).then_some(info)
}

/// What became of a field an older Bevy wrote in one of its structs, by Bevy 0.20 (the
/// field's struct and Bevy 0.20's types as 0.20.1's sources declare them).
#[derive(Clone, Copy)]
enum Became {
    /// Renamed: the lights' `shadows_enabled` (Bevy 0.15) is `shadow_maps_enabled`.
    Renamed(&'static str),
    /// A component of its own, read as it (Bevy 0.20's type path): a `Sprite`'s `anchor` is
    /// the `Anchor` component, a `Camera`'s `target` the `RenderTarget` component.
    Component(&'static str),
    /// A `bool` that became a marker component, there when `true`: a `Camera`'s `hdr` is the
    /// `Hdr` component. `false` is nothing lost; `true` without the marker in the registry is
    /// a field read past.
    Marker(&'static str),
    /// A `bool` that became an enum, `true` and `false` these unit variants: a `Camera`'s
    /// `msaa_writeback` is `MsaaWriteback::Auto` (write back when an earlier camera drew to
    /// the target, what `true` did) or `Off`.
    Variants {
        /// The variant of `true`.
        yes: &'static str,
        /// The variant of `false`.
        no: &'static str,
    },
}

/// What became of the field `field` of the Bevy struct `struct_path` (Bevy 0.20's path), if
/// it changed.
fn became(struct_path: &str, field: &str) -> Option<Became> {
    Some(match (struct_path, field) {
        (
            "bevy_light::point_light::PointLight"
            | "bevy_light::spot_light::SpotLight"
            | "bevy_light::directional_light::DirectionalLight",
            "shadows_enabled",
        ) => Became::Renamed("shadow_maps_enabled"),
        ("bevy_sprite::sprite::Sprite", "anchor") => Became::Component(ANCHOR),
        ("bevy_camera::camera::Camera", "target") => {
            Became::Component("bevy_camera::camera::RenderTarget")
        }
        ("bevy_camera::camera::Camera", "hdr") => Became::Marker("bevy_camera::components::Hdr"),
        ("bevy_camera::camera::Camera", "msaa_writeback") => Became::Variants {
            yes: "Auto",
            no: "Off",
        },
        _ => return None,
    })
}

/// A Bevy struct's fields, those it no longer has read past (see the module docs), as Bevy's
/// own struct reading does otherwise (skipped fields at their defaults).
struct StructWithout<'p, 'a, 'r> {
    processor: &'p mut EraProcessor<'a>,
    registration: &'r TypeRegistration,
    registry: &'r TypeRegistry,
    info: &'static StructInfo,
}

impl<'de> Visitor<'de> for StructWithout<'_, '_, '_> {
    type Value = DynamicStruct;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a `{}` struct", self.info.type_path_table().short_path())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<DynamicStruct, A::Error> {
        let mut out = DynamicStruct::default();
        while let Some(written) = map.next_key::<String>()? {
            let change = became(self.info.type_path(), &written);
            let key = match change {
                Some(Became::Renamed(new)) => new.to_owned(),
                _ => written,
            };
            let component = match change {
                Some(Became::Component(path) | Became::Marker(path)) => {
                    self.registry.get_with_type_path(path)
                }
                _ => None,
            };
            let field = self.info.field(&key);
            match (change, component, field) {
                (Some(Became::Component(_)), Some(registration), None) => {
                    let value = map.next_value_seed(TypedReflectDeserializer::with_processor(
                        registration,
                        self.registry,
                        &mut *self.processor,
                    ))?;
                    self.processor.moved.push(value);
                    continue;
                }
                (Some(Became::Marker(_)), _, None) => {
                    // `false` is no marker: nothing to keep. `true` is the marker where the
                    // registry has it, else a field read past.
                    if map.next_value::<bool>()? {
                        match component.and_then(|r| r.data::<ReflectDefault>()) {
                            Some(marker) => self
                                .processor
                                .moved
                                .push(marker.default().into_partial_reflect()),
                            None => self.processor.removed.push(format!(
                                "{}.{key}",
                                self.info.type_path_table().short_path()
                            )),
                        }
                    }
                    continue;
                }
                (Some(Became::Variants { yes, no }), _, Some(field)) => {
                    let raw: &RawValue = map.next_value()?;
                    let value = self.older_bool(field, raw.get_ron(), [yes, no])?;
                    out.insert_boxed(key, value);
                    continue;
                }
                _ => {}
            }
            let Some(field) = field else {
                map.next_value::<IgnoredAny>()?;
                self.processor.removed.push(format!(
                    "{}.{key}",
                    self.info.type_path_table().short_path()
                ));
                continue;
            };
            let registration = self.registry.get(field.type_id()).ok_or_else(|| {
                A::Error::custom(format_args!(
                    "`{}` is not in the type registry",
                    field.type_path()
                ))
            })?;
            let value = map.next_value_seed(TypedReflectDeserializer::with_processor(
                registration,
                self.registry,
                &mut *self.processor,
            ))?;
            out.insert_boxed(key, value);
        }
        if let Some(data) = self.registration.data::<SerializationData>() {
            for (index, skipped) in data.iter_skipped() {
                if let Some(field) = self.info.field_at(*index) {
                    out.insert_boxed(
                        field.name(),
                        skipped.generate_default().into_partial_reflect(),
                    );
                }
            }
        }
        out.set_represented_type(Some(self.registration.type_info()));
        Ok(out)
    }
}

impl StructWithout<'_, '_, '_> {
    /// A field that was a `bool` and is an enum: `true` and `false` as the variants `[yes,
    /// no]`, anything else as the enum.
    fn older_bool<E: serde::de::Error>(
        &mut self,
        field: &bevy_reflect::NamedField,
        text: &str,
        [yes, no]: [&'static str; 2],
    ) -> Result<Box<dyn PartialReflect>, E> {
        let registration = self.registry.get(field.type_id()).ok_or_else(|| {
            E::custom(format_args!(
                "`{}` is not in the type registry",
                field.type_path()
            ))
        })?;
        let variant = match text.trim() {
            "true" => yes,
            "false" => no,
            other => {
                return ron::Options::default()
                    .from_str_seed(
                        text,
                        TypedReflectDeserializer::with_processor(
                            registration,
                            self.registry,
                            &mut *self.processor,
                        ),
                    )
                    .map_err(|_| {
                        let variants = match registration.type_info() {
                            TypeInfo::Enum(info) => info
                                .variant_names()
                                .iter()
                                .map(|v| format!("`{v}`"))
                                .collect::<Vec<_>>()
                                .join(", "),
                            _ => String::new(),
                        };
                        E::custom(format_args!(
                            "`{other}` is neither a `bool` (older Bevy) nor a `{}` ({variants})",
                            field.type_path_table().short_path()
                        ))
                    });
            }
        };
        let mut out = DynamicEnum::new(variant, DynamicVariant::Unit);
        out.set_represented_type(Some(registration.type_info()));
        Ok(Box::new(out))
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

/// `bevy_sprite`'s `Anchor`: an enum up to Bevy 0.16, a `Vec2` newtype since.
const ANCHOR: &str = "bevy_sprite::sprite::Anchor";

/// The point of an anchor named as Bevy 0.15-0.16 named it.
fn anchor_point(name: &str) -> Option<Vec2> {
    Some(match name {
        "Center" => Vec2::ZERO,
        "BottomLeft" => Vec2::new(-0.5, -0.5),
        "BottomCenter" => Vec2::new(0.0, -0.5),
        "BottomRight" => Vec2::new(0.5, -0.5),
        "CenterLeft" => Vec2::new(-0.5, 0.0),
        "CenterRight" => Vec2::new(0.5, 0.0),
        "TopLeft" => Vec2::new(-0.5, 0.5),
        "TopCenter" => Vec2::new(0.0, 0.5),
        "TopRight" => Vec2::new(0.5, 0.5),
        _ => return None,
    })
}

impl EraProcessor<'_> {
    /// An `Anchor` in either era's spelling: a named place or `Custom((x, y))` of Bevy
    /// 0.15-0.16, or its point (`((x, y))`, Bevy's own reading).
    fn anchor<'de, D: Deserializer<'de>>(
        &mut self,
        registration: &TypeRegistration,
        registry: &TypeRegistry,
        deserializer: D,
    ) -> Result<Box<dyn PartialReflect>, D::Error> {
        use serde::Deserialize;
        let raw = <&RawValue>::deserialize(deserializer)?;
        let text = raw.get_ron();
        let name = leading_ident(text);
        let point = match name {
            Some("Custom") => {
                let rest = text.trim_start().trim_start_matches("Custom");
                let [x, y, _, _] = ron::Options::default()
                    .from_str_seed(rest, FloatsInNewtype)
                    .map_err(|e| D::Error::custom(e.code))?;
                Vec2::new(x, y)
            }
            Some(n) => anchor_point(n).ok_or_else(|| {
                D::Error::custom(format_args!(
                    "`{n}` is not an anchor (`Center`, `TopLeft`, ..., `Custom((x, y))`)"
                ))
            })?,
            None => {
                self.bypass = Some(registration.type_id());
                let read = ron::Options::default().from_str_seed(
                    text,
                    TypedReflectDeserializer::with_processor(registration, registry, self),
                );
                self.bypass = None;
                return read.map_err(|e| D::Error::custom(e.code));
            }
        };
        let mut out = DynamicTupleStruct::default();
        out.insert(point);
        out.set_represented_type(Some(registration.type_info()));
        Ok(Box::new(out))
    }

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

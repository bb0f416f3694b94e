//! Components read without their type (feature `import`): what the text alone says
//! ([`Loose`]), written only where that is enough.

use std::collections::HashMap;
use std::fmt;

use bevy_ecs::entity::Entity;
use serde::Deserializer;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::schema::expr::float_text;

/// A value read without its type: what the text alone says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Loose {
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Option(Option<Box<Loose>>),
    /// A list, tuple, tuple struct or tuple variant: the text read this way does not say which.
    Seq(Vec<Loose>),
    /// A struct (or struct variant): its fields by name.
    Map(Vec<(String, Loose)>),
    /// `()`, a unit variant or a unit struct.
    Unit,
}

pub(crate) struct LooseSeed;

impl<'de> DeserializeSeed<'de> for LooseSeed {
    type Value = Loose;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LooseSeed {
    type Value = Loose;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Loose, E> {
        Ok(Loose::Bool(v))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Loose, E> {
        Ok(Loose::Int(v.into()))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Loose, E> {
        Ok(Loose::Int(v.into()))
    }
    fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<Loose, E> {
        Ok(Loose::Int(v))
    }
    fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<Loose, E> {
        i128::try_from(v)
            .map(Loose::Int)
            .map_err(|_| E::custom("a number too large"))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Loose, E> {
        Ok(Loose::Float(v))
    }
    fn visit_char<E: serde::de::Error>(self, v: char) -> Result<Loose, E> {
        Ok(Loose::Str(v.to_string()))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Loose, E> {
        Ok(Loose::Str(v.to_owned()))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Loose, E> {
        Ok(Loose::Str(v))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Unit)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Option(None))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
        Ok(Loose::Option(Some(Box::new(d.deserialize_any(LooseSeed)?))))
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
        Ok(Loose::Seq(vec![d.deserialize_any(LooseSeed)?]))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Loose, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(LooseSeed)? {
            out.push(v);
        }
        Ok(Loose::Seq(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Loose, A::Error> {
        let mut out = Vec::new();
        while let Some(k) = map.next_key_seed(LooseSeed)? {
            let v = map.next_value_seed(LooseSeed)?;
            let Loose::Str(k) = k else {
                // A map keyed by other values: nothing a field expression holds.
                out.push((String::new(), v));
                continue;
            };
            out.push((k, v));
        }
        Ok(Loose::Map(out))
    }
}

impl Loose {
    /// The value as a field expression, when the text says enough: `None` for a value the type
    /// would be needed for. `key` says whether a number is an entity key of the file (it may
    /// then be an entity reference).
    pub(crate) fn expr(&self, key: &dyn Fn(i128) -> bool) -> Option<String> {
        Some(match self {
            Loose::Bool(b) => b.to_string(),
            Loose::Int(i) if key(*i) => return None,
            Loose::Int(i) => i.to_string(),
            Loose::Float(f) => float_text(*f, false),
            Loose::Str(s) => format!("{s:?}"),
            Loose::Option(None) => "None".to_owned(),
            Loose::Option(Some(v)) => format!("Some({})", v.expr(key)?),
            Loose::Seq(_) | Loose::Map(_) | Loose::Unit => return None,
        })
    }
}

pub(crate) fn index_reference(
    fields: &[(String, Loose)],
    ids: &HashMap<Entity, u64>,
) -> Option<String> {
    let [(a, _), (b, _)] = fields else {
        return None;
    };
    if !matches!(
        (a.as_str(), b.as_str()),
        ("generation", "index") | ("index", "generation")
    ) {
        return None;
    }
    let index = fields.iter().find_map(|(k, v)| match (k.as_str(), v) {
        ("index", Loose::Int(i)) => u32::try_from(*i).ok(),
        _ => None,
    })?;
    let entity = Entity::from_raw_u32(index)?;
    ids.get(&entity).map(|id| format!("#{id}"))
}

//! Colours as each era wrote them (feature `import`): `bevy_color`'s `Color` (Bevy 0.14 on), a
//! newtype variant around one colour space's struct (`Srgba((red: .., green: .., blue: ..,
//! alpha: ..))`, `Hsla((hue: .., ..))`, ... every space of `bevy_color` 0.20), and the
//! `bevy_render` `Color` before it (Bevy 0.9-0.13), struct variants `Rgba(red: .., ..)`,
//! `RgbaLinear(..)`, `Hsla(hue: .., ..)`, `Lcha(lightness: .., ..)`, read as the spaces that
//! replaced them. A colour space's own struct (`Srgba`, `LinearRgba`) is its channels,
//! `(red: .., green: .., blue: .., alpha: ..)`.
//!
//! Read from the value's text ([`RawValue`]): the two shapes of `Hsla(..)` (a struct variant
//! before 0.14, a newtype variant around a struct from 0.14) differ only after the variant
//! name, which a serde enum visitor must choose how to read before it sees it.

use std::fmt;

use bevy_color::Color;
use ron::value::RawValue;
use serde::Deserializer;
use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};

use super::eras::first_token;
use crate::schema::expr::{COLOUR_SPACES, ColourSpace, float_text};

/// A colour read from a file: its space and its channels in the space's order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Colour {
    pub(crate) space: &'static ColourSpace,
    pub(crate) channels: [f32; 4],
}

impl Colour {
    /// The colour as a `bevy_color::Color` of its space.
    pub(crate) fn color(&self) -> Color {
        let [a, b, c, d] = self.channels;
        (self.space.make)(a, b, c, d)
    }

    /// The colour as a field expression of a `Color` field: `Color::hsla(h, s, l, a)`.
    pub(crate) fn expr(&self) -> String {
        format!(
            "Color::{}({})",
            self.space.func,
            channels_text(self.channels)
        )
    }
}

/// `a, b, c, d` as `f32` expressions.
pub(crate) fn channels_text(c: [f32; 4]) -> String {
    c.map(|f| float_text(f64::from(f), true)).join(", ")
}

/// The space of a variant of `Color` as some era names it (`Rgba` of Bevy 0.9-0.13 is `Srgba`).
fn space_named(variant: &str) -> Option<&'static ColourSpace> {
    let variant = match variant {
        "Rgba" => "Srgba",
        "RgbaLinear" => "LinearRgba",
        v => v,
    };
    COLOUR_SPACES.iter().find(|s| s.variant == variant)
}

/// The space whose own struct is named `type_name` (`Srgba`, `LinearRgba`, `Hsla`, ...).
pub(crate) fn space_of_struct(type_name: &str) -> Option<&'static ColourSpace> {
    COLOUR_SPACES.iter().find(|s| s.variant == type_name)
}

/// Reads a `Color` value in any era's spelling (see the module docs).
///
/// # Errors
/// What is wrong with it, in words: not a variant, a channel of another space, a channel
/// missing or not a number.
pub(crate) fn read_color(text: &str) -> Result<Colour, String> {
    let b = text.as_bytes();
    let start = first_token(b).unwrap_or(b.len());
    let len = b[start..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    let name = &text[start..start + len];
    let all = || {
        COLOUR_SPACES
            .iter()
            .map(|s| s.variant)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if name.is_empty() {
        return Err(format!(
            "expected a colour, one of `Color`'s variants ({}) around its channels",
            all()
        ));
    }
    let space = space_named(name)
        .ok_or_else(|| format!("`{name}` is not a colour space of `Color` ({})", all()))?;
    let channels = read_channels(&text[start + len..], space)?;
    Ok(Colour { space, channels })
}

/// Reads the channels of `space`, as its struct (`(red: .., ..)`) or wrapped once more
/// (`((red: .., ..))`, the newtype variant's payload).
///
/// # Errors
/// As [`read_color`].
pub(crate) fn read_channels(text: &str, space: &'static ColourSpace) -> Result<[f32; 4], String> {
    ron::Options::default()
        .from_str_seed(text, ChannelsSeed { space, depth: 0 })
        .map_err(|e| e.code.to_string())
}

/// The channels of one space, by name.
#[derive(Clone, Copy)]
struct ChannelsSeed {
    space: &'static ColourSpace,
    /// How many wrappers were opened (one is the newtype variant's).
    depth: u8,
}

impl<'de> DeserializeSeed<'de> for ChannelsSeed {
    type Value = [f32; 4];
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<[f32; 4], D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ChannelsSeed {
    type Value = [f32; 4];

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "the channels of a `{}` colour `({}: .., ..)`",
            self.space.variant,
            self.space.channels.join(": .., ")
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<[f32; 4], A::Error> {
        let names = self.space.channels;
        let mut out = [f32::NAN; 4];
        let mut set = [false; 4];
        while let Some(key) = map.next_key::<String>()? {
            let Some(i) = names.iter().position(|n| *n == key) else {
                return Err(A::Error::custom(format_args!(
                    "`{key}` is not a channel of `{}` ({})",
                    self.space.variant,
                    names.join(", ")
                )));
            };
            if set[i] {
                return Err(A::Error::custom(format_args!("channel `{key}` twice")));
            }
            out[i] = map.next_value::<f32>()?;
            set[i] = true;
        }
        if let Some(i) = set.iter().position(|s| !s) {
            return Err(A::Error::custom(format_args!(
                "`{}` colour without its `{}` channel",
                self.space.variant, names[i]
            )));
        }
        Ok(out)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<[f32; 4], D::Error> {
        self.wrapped(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[f32; 4], A::Error> {
        if self.depth > 0 {
            return Err(A::Error::invalid_type(serde::de::Unexpected::Seq, &self));
        }
        let inner = ChannelsSeed {
            depth: self.depth + 1,
            ..self
        };
        let out = seq
            .next_element_seed(inner)?
            .ok_or_else(|| A::Error::invalid_length(0, &self))?;
        if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
            return Err(A::Error::invalid_length(2, &self));
        }
        Ok(out)
    }
}

impl ChannelsSeed {
    fn wrapped<'de, D: Deserializer<'de>>(self, d: D) -> Result<[f32; 4], D::Error> {
        if self.depth > 0 {
            return Err(D::Error::custom(format_args!(
                "expected the channels of a `{}` colour",
                self.space.variant
            )));
        }
        ChannelsSeed {
            depth: self.depth + 1,
            ..self
        }
        .deserialize(d)
    }
}

/// A colour value of the file's text, read by [`read_color`] (or, for a colour space's own
/// struct `space`, by [`read_channels`]).
pub(crate) fn deserialize_colour<'de, D: Deserializer<'de>>(
    d: D,
    space: Option<&'static ColourSpace>,
) -> Result<Colour, D::Error> {
    use serde::Deserialize;
    let raw = <&RawValue>::deserialize(d)?;
    match space {
        Some(space) => {
            read_channels(raw.get_ron(), space).map(|channels| Colour { space, channels })
        }
        None => read_color(raw.get_ron()),
    }
    .map_err(D::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_space_reads_in_both_shapes_and_old_names_read_as_their_spaces() {
        for space in &COLOUR_SPACES {
            let fields = |wrap: bool| {
                let inner = space
                    .channels
                    .iter()
                    .enumerate()
                    .map(|(i, c)| format!("{c}: 0.{}", i + 1))
                    .collect::<Vec<_>>()
                    .join(", ");
                if wrap {
                    format!("{}(({inner}))", space.variant)
                } else {
                    format!("{}({inner})", space.variant)
                }
            };
            for wrap in [true, false] {
                let c = read_color(&fields(wrap)).unwrap();
                assert_eq!(c.space.variant, space.variant);
                assert_eq!(c.channels, [0.1, 0.2, 0.3, 0.4]);
            }
        }
        let old = read_color("Rgba(red: 1.0, green: 0.5, blue: 0.0, alpha: 1.0)").unwrap();
        assert_eq!(old.expr(), "Color::srgba(1.0, 0.5, 0.0, 1.0)");
        let linear = read_color(" RgbaLinear(\n red: 1.0, green: 0.5, blue: 0.0, alpha: 1.0)");
        assert_eq!(linear.unwrap().space.variant, "LinearRgba");
    }

    #[test]
    fn a_wrong_channel_or_space_is_said_in_words() {
        let e = read_color("Hsla((red: 1.0, green: 0.5, blue: 0.0, alpha: 1.0))").unwrap_err();
        assert!(e.contains("`red` is not a channel of `Hsla`"), "{e}");
        let e = read_color("Cmyk((c: 1.0))").unwrap_err();
        assert!(e.contains("`Cmyk` is not a colour space"), "{e}");
        let e = read_color("Srgba((red: 1.0, green: 0.5, blue: 0.0))").unwrap_err();
        assert!(e.contains("without its `alpha`"), "{e}");
        let e = read_color("\"red\"").unwrap_err();
        assert!(e.contains("expected a colour"), "{e}");
        assert!(read_color("Srgba((((red: 1.0))))").is_err());
    }
}

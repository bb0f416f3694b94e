//! Which field of a component's text a reading error is in (feature `import`): the fields of a
//! struct `(a: .., b: ..)` or a tuple struct `(.., ..)` with the byte range of each value, so
//! that a component that does not read names the field that does not.

use std::fmt;
use std::ops::Range;

use ron::value::RawValue;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};

/// The field of the struct or tuple struct written as `raw` that holds the 1-based `line` and
/// `column` of `raw` (a tuple struct's fields are `0`, `1`, ...), or `None` when `raw` is
/// neither or the place is outside its fields. A place after a field's name and before its
/// value belongs to that field; so does the comma after its value and the space after the
/// comma (where a reader that took the whole value stands when it finds the value wrong).
pub(crate) fn field_at(raw: &str, line: usize, column: usize) -> Option<String> {
    let at = offset_of(raw, line, column)?;
    let fields = ron::Options::default()
        .from_str_seed(raw, FieldsSeed { raw })
        .ok()?;
    // Each field reaches from the end of the one before to the next field's name.
    let b = raw.as_bytes();
    let space = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    fields
        .into_iter()
        .find(|(_, range)| {
            let end = space(range.end);
            if b.get(end) == Some(&b',') {
                at < space(end + 1)
            } else {
                at <= end
            }
        })
        .map(|(name, _)| name)
}

/// The byte offset of a 1-based line and column (in characters) of `text`.
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let mut start = 0;
    for _ in 1..line {
        start += text.get(start..)?.find('\n')? + 1;
    }
    let rest = text.get(start..)?;
    let within = rest
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(rest.len(), |(i, _)| i);
    Some(start + within)
}

/// The fields of a struct or tuple struct and the byte range of each value in `raw`.
struct FieldsSeed<'a> {
    raw: &'a str,
}

impl FieldsSeed<'_> {
    fn range(&self, value: &RawValue) -> Option<Range<usize>> {
        let text = value.get_ron();
        let start = (text.as_ptr() as usize).checked_sub(self.raw.as_ptr() as usize)?;
        (start + text.len() <= self.raw.len()).then_some(start..start + text.len())
    }
}

type Fields = Vec<(String, Range<usize>)>;

impl<'de> DeserializeSeed<'de> for FieldsSeed<'_> {
    type Value = Fields;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Fields, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FieldsSeed<'_> {
    type Value = Fields;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a struct or tuple struct")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
        let mut out = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            let value: &'de RawValue = map.next_value()?;
            if let Some(range) = self.range(value) {
                out.push((name, range));
            }
        }
        Ok(out)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Fields, A::Error> {
        let mut out = Vec::new();
        while let Some(value) = seq.next_element::<&'de RawValue>()? {
            if let Some(range) = self.range(value) {
                out.push((out.len().to_string(), range));
            }
        }
        Ok(out)
    }

    fn visit_newtype_struct<D: serde::Deserializer<'de>>(self, d: D) -> Result<Fields, D::Error> {
        use serde::Deserialize;
        let value = <&'de RawValue>::deserialize(d)?;
        Ok(self
            .range(value)
            .map(|r| ("0".to_owned(), r))
            .into_iter()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_names_the_field_it_is_in_or_the_one_after_it() {
        let raw = "(\n  hp: 75,\n  colour: Srgba((red: oops)),\n  max: 100,\n)";
        assert_eq!(field_at(raw, 2, 7).as_deref(), Some("hp"));
        // After `75,`, at the end of its line: still `hp`; at the next name, `colour`.
        assert_eq!(field_at(raw, 2, 10).as_deref(), Some("hp"));
        assert_eq!(field_at(raw, 3, 3).as_deref(), Some("colour"));
        assert_eq!(field_at(raw, 3, 22).as_deref(), Some("colour"));
        // After `max:`, before its value: `max`.
        assert_eq!(field_at(raw, 4, 6).as_deref(), Some("max"));
        assert_eq!(field_at("(1.0, \"x\")", 1, 8).as_deref(), Some("1"));
        assert_eq!(field_at("\"not a struct\"", 1, 2), None);
    }
}

//! The shape of a custom component against its schema: an enum component is written whole
//! (`value: "RigidBody::Dynamic"`), a struct component by its `fields`. The loader and
//! `forge validate --schema` share it (through [`super::custom::check_fields`]).

use super::diagnostic::Diagnostic;
use super::site::Site;
use crate::codes;
use crate::format::CustomComponent;
use crate::schema::ComponentSchema;

/// The variants of an enum schema in backticks, comma separated.
fn variant_list(schema: &ComponentSchema) -> String {
    let names: Vec<String> = schema
        .variants
        .iter()
        .map(|v| format!("`{}`", v.name()))
        .collect();
    names.join(", ")
}

/// `forge::custom::value`: `fields` on an enum component, or a `value` on a struct one.
pub(super) fn check_shape(
    custom: &CustomComponent,
    site: &Site,
    schema: &ComponentSchema,
) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let name = &schema.type_name;
    if schema.is_enum() && !custom.fields.is_empty() {
        let example = schema
            .variants
            .first()
            .map_or_else(String::new, |v| format!("{name}::{}", v.name()));
        errors.push(
            site.error(
                codes::custom::VALUE,
                format!(
                    "{}: `{name}` is an enum, so it is written whole as one expression, not by `fields`",
                    site.who()
                ),
                ".fields".into(),
                site.fields_position(),
            )
            .with_help(format!(
                "write `value: \"{example}\"` in place of `fields` (its variants: {})",
                variant_list(schema)
            )),
        );
    }
    if !schema.is_enum() && custom.value.is_some() {
        errors.push(
            site.error(
                codes::custom::VALUE,
                format!(
                    "{}: `{name}` is a struct, so it is written by its fields; `value` is for enum components",
                    site.who()
                ),
                ".value".into(),
                site.value_position(),
            )
            .with_help("set its fields with `fields: [(name: \"..\", expr: \"..\")]`"),
        );
    }
    errors
}

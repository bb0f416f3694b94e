//! The first step of checking a document with schemas: custom component types and fields the game renamed
//! (`#[forge(renamed_from = "..")]`) written as their current names, each old name one warning
//! where it is written. The loader and the tools apply the same table (from the game's schemas,
//! or a schema file), so they warn alike, and everything after this step sees the new names.

use super::{Diagnostic, Severity};
use crate::codes;
use crate::format::{OverridePart, ParsedScene, SourceMap};
use crate::schema::renames::{Place, Renamed, RenamedPart, Renames};

/// Writes the old names in `parsed`'s document as the current ones; one warning per old name,
/// at its position in `parsed`'s text.
pub(crate) fn apply(renames: &Renames, parsed: &mut ParsedScene) -> Vec<Diagnostic> {
    if renames.is_empty() {
        return Vec::new();
    }
    let renamed = renames.apply(&mut parsed.doc);
    renamed
        .iter()
        .map(|r| {
            let name = parsed
                .doc
                .entities
                .get(&r.place.entity())
                .map(|n| n.name.as_str())
                .unwrap_or_default();
            warning(r, name, &parsed.source_map)
        })
        .collect()
}

/// The field path of the component at `place`.
fn component_path(place: Place) -> String {
    match place {
        Place::Component { index, .. } => format!("components[{index}].data"),
        Place::OverrideSet { at, index, .. } => {
            format!("instance.overrides[{at}].set[{index}].data")
        }
        Place::OverrideAdd { at, index, .. } => {
            format!("instance.overrides[{at}].add[{index}].data")
        }
        Place::OverrideRemove { at, index, .. } => {
            format!("instance.overrides[{at}].remove[{index}]")
        }
    }
}

/// The warning of one old name.
fn warning(r: &Renamed, entity_name: &str, map: &SourceMap) -> Diagnostic {
    let entity = r.place.entity();
    let who = format!("entity {entity} (`{}`)", entity_name.escape_debug());
    let help = "it loads as the new name; `forge migrate --schema <the game's schema file>` rewrites the file with it";
    let (code, message, path, position) = match &r.what {
        RenamedPart::Type { from, to } => {
            let (path, position) = match r.place {
                Place::Component { index, .. } => (
                    format!("{}.type_path", component_path(r.place)),
                    map.component_field(entity, index, "type_path")
                        .or_else(|| map.component(entity, index)),
                ),
                Place::OverrideSet { at, index, .. } => (
                    format!("{}.type_path", component_path(r.place)),
                    map.override_part(entity, at, OverridePart::SetField(index, "type_path"))
                        .or_else(|| map.override_part(entity, at, OverridePart::Set(index))),
                ),
                Place::OverrideAdd { at, index, .. } => (
                    format!("{}.type_path", component_path(r.place)),
                    map.override_part(entity, at, OverridePart::Add(index)),
                ),
                Place::OverrideRemove { at, index, .. } => (
                    component_path(r.place),
                    map.override_part(entity, at, OverridePart::Remove(index)),
                ),
            };
            (
                codes::custom::RENAMED,
                format!("{who}: custom component type `{from}` was renamed to `{to}`"),
                path,
                position,
            )
        }
        RenamedPart::Variant {
            type_path,
            value,
            at,
            from,
            to,
        } => {
            let (path, span) = match r.place {
                Place::Component { index, .. } => (
                    format!("{}.value", component_path(r.place)),
                    map.component_field_span(entity, index, "value"),
                ),
                Place::OverrideSet { at, index, .. } => (
                    format!("{}.value", component_path(r.place)),
                    map.override_part_span(entity, at, OverridePart::SetField(index, "value")),
                ),
                _ => (component_path(r.place), None),
            };
            let position = match span {
                Some(span) => Some(map.position_of_offset(map.expr_offset(span, value, *at))),
                None => match r.place {
                    Place::OverrideAdd { at, index, .. } => {
                        map.override_part(entity, at, OverridePart::Add(index))
                    }
                    _ => None,
                },
            };
            let short = type_path.rsplit("::").next().unwrap_or(type_path);
            (
                codes::custom::RENAMED_VARIANT,
                format!("{who}: variant `{from}` of `{short}` was renamed to `{to}`"),
                path,
                position,
            )
        }
        RenamedPart::Field {
            type_path,
            field,
            from,
            to,
        } => {
            let position = match r.place {
                Place::Component { index, .. } => map.custom_field_name(entity, index, *field),
                Place::OverrideSet { at, index, .. } => {
                    map.override_part(entity, at, OverridePart::SetCustomName(index, *field))
                }
                Place::OverrideAdd { at, index, .. } => {
                    map.override_part(entity, at, OverridePart::Add(index))
                }
                Place::OverrideRemove { .. } => None,
            };
            let short = type_path.rsplit("::").next().unwrap_or(type_path);
            (
                codes::custom::RENAMED_FIELD,
                format!("{who}: field `{from}` of `{short}` was renamed to `{to}`"),
                format!("{}.fields[{field}].name", component_path(r.place)),
                position,
            )
        }
    };
    let mut d = Diagnostic::new(Severity::Warning, code, message)
        .with_entity(entity)
        .with_path(path)
        .with_help(help);
    d.position = position;
    d
}

//! Versioned migrations of scene files, through the edit layer so comments stay.
//!
//! [`MIGRATIONS`] is a chain: each step takes a file written at format version `from` to `to`
//! (today one step, 0 to 1; the next format version adds its step here). [`migrate`] runs the
//! steps from the version a file *writes* (`format_version` as written; the document in memory
//! is always the current version) to [`FORMAT_VERSION`], as one
//! [`PatchGroup`], and refuses a result that does not validate.

use super::{PatchGroup, SceneEdit, SceneEditError};
use crate::format::FORMAT_VERSION;

/// One step of the migration chain.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// The version this step reads.
    pub from: u32,
    /// The version it writes.
    pub to: u32,
    /// What it changes, for `forge migrate`'s report.
    pub what: &'static str,
    /// The edits besides `format_version`, which the chain sets after the last step.
    pub apply: fn(&mut SceneEdit) -> Result<(), SceneEditError>,
}

/// Every migration step, in order (the format page, "Versioning").
pub const MIGRATIONS: &[Migration] = &[Migration {
    from: 0,
    to: 1,
    what: "format 0 has the fields of format 1: only `format_version` changes",
    apply: |_| Ok(()),
}];

/// What [`migrate`] did to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migrated {
    /// The version the file wrote.
    pub from: u32,
    /// The version it writes now.
    pub to: u32,
    /// The changes, as one group (undo gives the old text back).
    pub group: PatchGroup,
}

impl SceneEdit {
    /// The `format_version` the text writes (`None` when it writes none).
    pub fn written_version(&self) -> Option<u32> {
        let at = self.parsed.source_map.top_field_span("format_version")?;
        // As the reader reads it: `+0`, `0_0`.
        let rest = self.text.get(at.range()?)?;
        let rest = rest.strip_prefix('+').unwrap_or(rest);
        let len = rest
            .bytes()
            .take_while(|c| c.is_ascii_digit() || *c == b'_')
            .count();
        rest[..len].replace('_', "").parse().ok()
    }
}

/// Brings `edit`'s text to the current format version through [`MIGRATIONS`], keeping
/// comments; `Ok(None)` when it is current already. Nothing is written unless every step
/// succeeds and the result validates (`validate_scene`, without asset checks).
///
/// # Errors
/// A step's error; [`SceneEditError::InPlace`] naming the first validation error when the
/// migrated scene does not validate.
pub fn migrate(edit: &mut SceneEdit) -> Result<Option<Migrated>, SceneEditError> {
    let Some(from) = edit.written_version() else {
        return Ok(None);
    };
    if from >= FORMAT_VERSION {
        return Ok(None);
    }
    let group = edit.dry_run(format!("migrate {from} -> {FORMAT_VERSION}"), |copy| {
        let mut version = from;
        while version < FORMAT_VERSION {
            let step = MIGRATIONS
                .iter()
                .find(|m| m.from == version)
                .ok_or_else(|| SceneEditError::InPlace(format!("no migration from {version}")))?;
            (step.apply)(copy)?;
            version = step.to;
        }
        copy.set_written_version(version)?;
        let report = crate::validate::validate_scene(copy.doc(), None);
        if let Some(e) = report
            .diagnostics
            .iter()
            .find(|d| d.severity == crate::validate::Severity::Error)
        {
            return Err(SceneEditError::Invalid(format!(
                "the migrated scene does not validate: error[{}]: {}",
                e.code, e.message
            )));
        }
        Ok(())
    })?;
    let Some(group) = group else {
        return Ok(None);
    };
    edit.apply(&group)?;
    Ok(Some(Migrated {
        from,
        to: FORMAT_VERSION,
        group,
    }))
}

/// Rewrites the custom component types, fields and enum variants `schemas` says were renamed
/// (`#[forge(renamed_from = "..")]`) with their current names, keeping every other byte: the
/// `type_path` strings, field `name` strings and enum `value` strings that change are replaced,
/// and nothing else
/// (a component added by a prefab override that is renamed is written again whole, its own
/// comments gone). The names the loader accepts with a warning (`forge::custom::renamed`,
/// `forge::custom::renamed_field`, `forge::custom::renamed_variant`). `Ok(None)` when the scene
/// writes no old name.
///
/// # Errors
/// [`SceneEditError::InPlace`] when a renamed name is not where the file's source map says,
/// [`SceneEditError::Invalid`] when the result would have a validation error the scene does not
/// have (a renamed field next to one already set under the new name stays, so this does not
/// happen through renames alone); file errors as for any edit.
pub fn migrate_names(
    edit: &mut SceneEdit,
    schemas: &crate::schema::SchemaFile,
) -> Result<Option<PatchGroup>, SceneEditError> {
    use crate::format::write::fragment;
    use crate::format::{ComponentData, CustomPart, OverridePart};
    use crate::schema::renames::{Place, RenamedPart, Renames};

    let renames = Renames::new(&schemas.components);
    let mut doc = edit.doc().clone();
    let found = renames.apply(&mut doc);
    if found.is_empty() {
        return Ok(None);
    }
    let map = edit.source_map().clone();
    let text = super::splice::Text::new(&edit.text);
    let unlocated = |what: &str| SceneEditError::InPlace(format!("cannot locate {what}"));
    let mut splices: Vec<super::splice::Splice> = Vec::new();
    let mut whole: Vec<(u64, usize, usize)> = Vec::new();
    for r in &found {
        let entity = r.place.entity();
        let replace = |span: Option<crate::format::Span>, value: String, what: &str| {
            let span = span.ok_or_else(|| unlocated(what))?;
            Ok::<_, SceneEditError>(super::splice::Splice {
                start: span.start as usize,
                end: span.end as usize,
                text: value,
            })
        };
        match (&r.what, r.place) {
            (RenamedPart::Type { to, .. }, Place::Component { index, .. }) => {
                splices.push(replace(
                    map.component_field_span(entity, index, "type_path"),
                    fragment::string(to),
                    "a component's type path",
                )?)
            }
            (RenamedPart::Field { field, to, .. }, Place::Component { index, .. }) => {
                splices.push(replace(
                    map.custom_field_span(entity, index, *field, CustomPart::Name),
                    fragment::string(to),
                    "a custom field name",
                )?)
            }
            (RenamedPart::Type { to, .. }, Place::OverrideSet { at, index, .. }) => {
                splices.push(replace(
                    map.override_part_span(entity, at, OverridePart::SetField(index, "type_path")),
                    fragment::string(to),
                    "an override's type path",
                )?)
            }
            (RenamedPart::Field { field, to, .. }, Place::OverrideSet { at, index, .. }) => splices
                .push(replace(
                    map.override_part_span(entity, at, OverridePart::SetCustomName(index, *field)),
                    fragment::string(to),
                    "an override's field name",
                )?),
            (RenamedPart::Type { to, .. }, Place::OverrideRemove { at, index, .. }) => splices
                .push(replace(
                    map.override_part_span(entity, at, OverridePart::Remove(index)),
                    fragment::string(&format!("custom:{to}")),
                    "an override's removed key",
                )?),
            (_, Place::OverrideAdd { at, index, .. }) => {
                if !whole.contains(&(entity, at, index)) {
                    whole.push((entity, at, index));
                }
            }
            (
                RenamedPart::Variant {
                    value,
                    at,
                    from,
                    to,
                    ..
                },
                Place::Component { index, .. } | Place::OverrideSet { index, .. },
            ) => {
                let mut new = value.clone();
                new.replace_range(*at..*at + from.len(), to);
                let span = match r.place {
                    Place::OverrideSet { at, .. } => {
                        map.override_part_span(entity, at, OverridePart::SetField(index, "value"))
                    }
                    _ => map.component_field_span(entity, index, "value"),
                };
                splices.push(replace(span, fragment::string(&new), "an enum's value")?)
            }
            (
                RenamedPart::Field { .. } | RenamedPart::Variant { .. },
                Place::OverrideRemove { .. },
            ) => {}
        }
    }
    for (entity, at, index) in whole {
        let component = doc
            .entities
            .get(&entity)
            .and_then(|n| n.instance.as_ref())
            .and_then(|i| i.overrides.get(at))
            .and_then(|o| o.add.get(index))
            .map(|c: &ComponentData| fragment::component(c))
            .ok_or_else(|| unlocated("an override's added component"))?;
        let span = map.override_part_span(entity, at, OverridePart::Add(index));
        splices.push(
            text.replace_value(span, &component, "an override's added component")
                .map_err(|e| SceneEditError::InPlace(e.0))?,
        );
    }
    splices.sort_by_key(|s| (s.start, s.end));
    if splices.windows(2).any(|w| w[0].end > w[1].start) {
        return Err(SceneEditError::InPlace("overlapping renames".to_owned()));
    }
    super::refuse_new_errors(edit.doc(), &doc)?;
    let label = format!("rename {} old names", found.len());
    edit.splice_in(label, &splices, Some(super::Expect::Doc(&doc)))
}

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

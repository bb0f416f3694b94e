//! `forge import`: a Bevy `.scn.ron` world of any era from Bevy 0.9 as a `.forge.ron` scene
//! (`bevy_forge_scene::import`, with the built-in types and, with `--schema`, the game's
//! components typed by its exported schemas).

use std::path::Path;

use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::import::{self, ImportOptions};
use bevy_forge_scene::project::write_file_atomic;
use bevy_forge_scene::schema::SchemaFile;
use bevy_forge_scene::validate::{
    Severity, report, validate_parsed, validate_parsed_with_schemas, validate_references,
};

use super::{ImportArgs, Status, fail, print};

/// Imports `args.file`: the scene on stdout, or written atomically to `--out`; what could not
/// be mapped as warnings on stderr. A result that does not validate is not written.
pub fn import(args: &ImportArgs) -> Status {
    let schema_file = match &args.schema {
        Some(path) => match SchemaFile::read(path) {
            Ok(file) => Some(file),
            Err(e) => return fail(&format!("cannot use the schema file: {e}")),
        },
        None => None,
    };
    let options = ImportOptions {
        name: scene_name(&args.file),
        schema_file: schema_file.clone(),
        ..ImportOptions::default()
    };
    let imported = match import::from_scn_ron_file(&args.file, &import::builtin_types(), &options) {
        Ok(imported) => imported,
        Err(e @ import::ImportError::Io { .. }) => return fail(&e.to_string()),
        Err(e) => {
            eprintln!("error: {e}");
            return Status::Failed;
        }
    };
    if let Some(era) = imported.era {
        eprintln!("note: read as written by {era}");
    }
    for note in &imported.report.notes {
        eprintln!("warning: {note}");
    }
    let text = imported.doc.to_canonical_string();
    // The validator's verdict on the text as written: what `forge validate` (with the schema
    // file, what the scene loader) would say.
    let errors = match SceneDoc::from_str(&text) {
        Ok(parsed) => {
            let mut found = match &schema_file {
                Some(schemas) => validate_parsed_with_schemas(&parsed, None, schemas).diagnostics,
                None => {
                    let mut found = validate_parsed(&parsed, None).diagnostics;
                    found.extend(validate_references(&parsed));
                    found
                }
            };
            found.retain(|d| d.severity == Severity::Error);
            found
        }
        Err(e) => vec![bevy_forge_scene::validate::Diagnostic::from_read_error(&e)],
    };
    if !errors.is_empty() {
        let name = args.file.display().to_string();
        let source = report::FileText::new(format!("{name} (imported)"), text.as_bytes());
        let shown = report::human(&source, &errors, super::render::use_colour());
        let _ = std::io::Write::write_all(&mut std::io::stderr(), shown.as_bytes());
        eprintln!("error: the imported scene does not validate; nothing written");
        return Status::Failed;
    }
    let count = imported.doc.entities.len();
    match &args.out {
        None => print(&text),
        Some(out) if out.exists() && !args.force => {
            eprintln!(
                "error: `{}` exists; not replacing it (pass --force to replace it)",
                out.display()
            );
            return Status::Failed;
        }
        Some(out) => match write_file_atomic(out, text.as_bytes()) {
            Ok(()) => eprintln!(
                "imported {} -> {} ({count} entities, {} not mapped)",
                args.file.display(),
                out.display(),
                imported.report.len()
            ),
            Err(e) => return fail(&e.to_string()),
        },
    }
    Status::Ok
}

/// The scene's display name: the file name without `.scn.ron` (or its last extension).
fn scene_name(file: &Path) -> String {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name
        .strip_suffix(".scn.ron")
        .or_else(|| name.strip_suffix(".ron"))
        .unwrap_or(&name);
    if stem.is_empty() {
        "Imported".to_owned()
    } else {
        stem.to_owned()
    }
}

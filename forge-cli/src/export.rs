//! `forge export`: a scene as Rust source, BSN or plain `World` calls.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use bevy_forge_scene::export::{self, ExportOptions};
use bevy_forge_scene::pipeline;
use bevy_forge_scene::prefab::ExpandedScene;
use bevy_forge_scene::project::write_file_atomic;
use bevy_forge_scene::validate::report;
use bevy_forge_scene::validate::{Diagnostic, Severity};
use clap::{Args, ValueEnum};

use crate::{
    Loaded, Status, asset_path_of, fail, load, localize, prefab_files, prefab_root, print, render,
    report_prefab_errors,
};

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The scene file.
    file: PathBuf,
    /// What to write.
    #[arg(long, value_enum)]
    to: Target,
    /// Write the code to this file (atomically) instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Name of the generated function (default: `spawn_<scene>` for Rust, `<scene>_scene` for
    /// BSN, from the scene's name in snake case).
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
    /// Read prefab files from this assets directory (default: the assets directory of the
    /// scene's project, else the scene's folder).
    #[arg(long, value_name = "DIR")]
    assets: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Target {
    /// A `bsn_list!` of `bevy_scene` 0.20.1: `pub fn <scene>_scene() -> impl SceneList`.
    Bsn,
    /// Plain `World` calls: `pub fn spawn_<scene>(world: &mut World) -> Vec<Entity>`.
    Rust,
}

/// Exports one scene: its prefab instances expanded, refused (exit 1) when it or a prefab it
/// places has errors, or when the code cannot hold it.
pub fn export(args: &ExportArgs) -> Status {
    let (source, parsed) = match load(&args.file) {
        Err(e) => return fail(&e),
        Ok(Loaded::ReadError(source, d)) => {
            print_report(&source, &[d]);
            return Status::Failed;
        }
        Ok(Loaded::Parsed(source, parsed)) => (source, parsed),
    };
    let root = prefab_root(&args.file, args.assets.as_deref());
    let mut prefabs = prefab_files(root.clone(), None, None);
    let asset_path = asset_path_of(&args.file, &root);
    let scene = pipeline::Source::from_parsed(asset_path.clone(), *parsed);
    let checked = pipeline::check(scene, &mut prefabs);
    let mut problems: Vec<_> = checked
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error && d.file.is_none())
        .cloned()
        .collect();
    let mut failed = !problems.is_empty();
    if failed {
        localize(&mut problems, &root);
        print_report(&source, &problems);
    }
    failed |= report_prefab_errors(&prefabs, &root);
    if failed {
        eprintln!("error: `{}` has errors; not exported", args.file.display());
        return Status::Failed;
    }
    let expanded = checked
        .expanded
        .unwrap_or_else(|| ExpandedScene::plain(checked.source.parsed.doc.clone().into()));
    let options = ExportOptions {
        source: Some(asset_path),
        function: args.function.clone(),
    };
    let code = match args.to {
        Target::Rust => export::expanded_to_rust(&expanded, &options),
        Target::Bsn => export::expanded_to_bsn(&expanded, &options),
    };
    let code = match code {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: cannot export `{}`: {e}", args.file.display());
            return Status::Failed;
        }
    };
    match &args.out {
        None => {
            print(&code);
            Status::Ok
        }
        Some(out) => match write_out(out, &code) {
            Ok(()) => Status::Ok,
            Err(e) => {
                eprintln!("error: cannot write `{}`: {e}", out.display());
                Status::Failed
            }
        },
    }
}

fn write_out(out: &Path, code: &str) -> Result<(), String> {
    if let Some(dir) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    write_file_atomic(out, code.as_bytes()).map_err(|e| e.to_string())
}

fn print_report(source: &report::FileText, diagnostics: &[Diagnostic]) {
    let text = report::human(source, diagnostics, render::use_colour());
    let _ = std::io::stderr().write_all(text.as_bytes());
}

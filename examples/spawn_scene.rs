//! The README's main job: read the example scenes, check them, save them canonically into a
//! project, read them back, and print each scene's tree.
//!
//! Run with `cargo run --example spawn_scene`. Until the Bevy runtime lands, this stops at the
//! document level (no `App`); it exits with an error if any scene fails to read or round-trip.

use std::process::ExitCode;

use bevy_forge_scene::format::{ComponentData, SceneDoc};
use bevy_forge_scene::project::{Project, slugify};

fn print_tree(doc: &SceneDoc, id: u64, depth: usize) {
    let Some(node) = doc.entity(id) else { return };
    let components: Vec<String> = node.components.iter().map(ComponentData::key).collect();
    let t = &node.transform;
    println!(
        "{:indent$}- [{}] {:?} at ({}, {}, {}) rot ({}, {}, {})° {}",
        "",
        node.id,
        node.name,
        t.translation.x,
        t.translation.y,
        t.translation.z,
        t.rotation.x,
        t.rotation.y,
        t.rotation.z,
        if components.is_empty() {
            String::new()
        } else {
            format!("[{}]", components.join(", "))
        },
        indent = depth * 2
    );
    for child in &node.children {
        print_tree(doc, *child, depth + 1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scenes");
    let out = tempfile::tempdir()?;
    let project = Project::open(out.path())?;
    let mut paths: Vec<_> = std::fs::read_dir(&assets)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| bevy_forge_scene::project::is_scene_file(p))
        .collect();
    paths.sort();
    for path in paths {
        let parsed = SceneDoc::read(&path)?;
        for warning in &parsed.warnings {
            println!("warning: {}:{warning}", path.display());
        }
        let problems = parsed.doc.check_integrity();
        if !problems.is_empty() {
            for p in &problems {
                eprintln!("error: {}: {p}", path.display());
            }
            return Err(format!("{} breaks the forest rules", path.display()).into());
        }
        let saved = project.save_scene(
            format!("scenes/{}.forge.ron", slugify(&parsed.doc.name)),
            &parsed.doc,
        )?;
        let back = SceneDoc::read(&saved)?;
        if back.doc != parsed.doc {
            return Err(format!("{} did not round-trip", path.display()).into());
        }
        println!(
            "scene {:?} ({} entities, {} bytes canonical) from {}",
            parsed.doc.name,
            parsed.doc.entities.len(),
            std::fs::metadata(&saved)?.len(),
            path.file_name().unwrap_or_default().to_string_lossy(),
        );
        for root in &parsed.doc.roots {
            print_tree(&parsed.doc, *root, 1);
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

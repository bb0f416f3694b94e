//! Edit mode without a window, scripted: the 3D room of the tests opens in a temporary folder,
//! F2 turns edit mode on, a click selects the box, a drag of its X handle moves it and keeps
//! it in the file (the one changed line is printed), Ctrl+Z puts the file back byte for byte.
//! CI runs it; with a path argument it also writes the overlay's picture there as PNG.
//!
//! `cargo run -p bevy_forge_scene_editor --example editor_scripted --ignore-rust-version [-- out.png]`

use std::path::Path;
use std::process::ExitCode;

use bevy_forge_scene_editor::headless::Headless;
use bevy_forge_scene_editor::{EditorStatus, ForgeEditorPlugin, Selection};
use bevy_internal::input::keyboard::KeyCode;
use bevy_internal::math::Vec2;
use bevy_internal::transform::components::Transform;

const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/assets");
const SCENE: &str = "scenes/room3d.forge.ron";

fn main() -> ExitCode {
    match run() {
        Ok(()) => {
            println!("editor_scripted: ok");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("editor_scripted: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    for folder in ["scenes", "prefabs"] {
        std::fs::create_dir_all(dir.path().join(folder)).map_err(|e| e.to_string())?;
        for entry in std::fs::read_dir(Path::new(ASSETS).join(folder)).map_err(|e| e.to_string())? {
            let entry = entry.map_err(|e| e.to_string())?;
            std::fs::copy(
                entry.path(),
                dir.path().join(folder).join(entry.file_name()),
            )
            .map_err(|e| e.to_string())?;
        }
    }
    let file = dir.path().join(SCENE);
    let original = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
    let mut h = Headless::new(dir.path(), 640, 400, ForgeEditorPlugin::default());
    let root = h.load(SCENE);
    h.tap(KeyCode::F2);
    let box_ = h.entity(root, &[3]);
    let at = h.screen_of(box_).ok_or("the box is not in the picture")?;
    h.click(at);
    if h.app.world().resource::<Selection>().primary() != Some(box_) {
        return Err("the click did not select the box".into());
    }
    let before = *h.app.world().get::<Transform>(box_).ok_or("no transform")?;
    let from = at + Vec2::new(50.0, 0.0);
    h.drag(from, from + Vec2::new(40.0, 0.0), 4);
    if !h.wait_for_writes(600, 8) {
        return Err("the kept file was not written within 600 frames".into());
    }
    let after = *h.app.world().get::<Transform>(box_).ok_or("no transform")?;
    let kept = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
    let status = h.app.world().resource::<EditorStatus>().clone();
    println!("status: {}", status.text);
    println!(
        "moved the box from x = {} to x = {}",
        before.translation.x, after.translation.x
    );
    for (old, new) in original.lines().zip(kept.lines()) {
        if old != new {
            println!("- {old}\n+ {new}");
        }
    }
    if kept == original || status.error {
        return Err("the drag was not kept".into());
    }
    if let Some(out) = std::env::args().nth(1) {
        let image = h.capture();
        let rgba = image
            .try_into_dynamic()
            .map_err(|e| e.to_string())?
            .to_rgba8();
        bevy_forge_scene_render::compare::save_png(&rgba, Path::new(&out))
            .map_err(|e| e.to_string())?;
        println!("wrote {out}");
    }
    h.hold(KeyCode::ControlLeft);
    h.tap(KeyCode::KeyZ);
    h.let_go(KeyCode::ControlLeft);
    if !h.wait_for_writes(600, 8) {
        return Err("the undone file was not written within 600 frames".into());
    }
    let undone = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
    if undone != original {
        return Err("undo did not restore the file byte for byte".into());
    }
    println!("undone: the file is byte for byte as it was");
    Ok(())
}

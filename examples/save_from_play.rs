//! Saving what changed while playing: spawn `assets/scenes/garden.forge.ron` headless, move the
//! sun and dim it as a game would, then save the live instance over a copy of the file with
//! `save_instance`. Only the changed values are rewritten (the edit layer), so the copy differs
//! from the original in exactly those lines, which this prints.
//!
//! ```sh
//! cargo run --example save_from_play
//! ```
//!
//! The original scene is never written: the copy goes to a temporary directory.

use std::process::ExitCode;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, AssetServer, LoadState};
use bevy_forge_scene::capture::{CaptureOptions, save_instance};
use bevy_forge_scene::prelude::*;
use bevy_light::DirectionalLight;
use bevy_math::Quat;
use bevy_transform::components::Transform;

const SCENE: &str = "scenes/garden.forge.ron";

fn main() -> ExitCode {
    let assets = concat!(env!("CARGO_MANIFEST_DIR"), "/assets");
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: assets.to_owned(),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    app.finish();
    app.cleanup();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<ForgeScene>(SCENE);
    let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
    let mut instance = None;
    for _ in 0..2_000 {
        app.update();
        if let LoadState::Failed(error) = app.world().resource::<AssetServer>().load_state(&handle)
        {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
        instance = app.world().get::<ForgeSceneInstance>(root).cloned();
        if instance.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let Some(instance) = instance else {
        eprintln!("the scene did not load");
        return ExitCode::FAILURE;
    };

    // Play: the sun (file id 1) sets a little and dims.
    let Some(sun) = instance.entity(1) else {
        eprintln!("the garden has no entity 1");
        return ExitCode::FAILURE;
    };
    let world = app.world_mut();
    if let Some(mut t) = world.get_mut::<Transform>(sun) {
        t.translation.y -= 3.0;
        t.rotation = Quat::from_rotation_x(15f32.to_radians()) * t.rotation;
    }
    if let Some(mut light) = world.get_mut::<DirectionalLight>(sun) {
        light.illuminance = 2500.0;
    }

    // Save over a copy of the file: comments and layout stay, changed values are rewritten.
    let original = match std::fs::read_to_string(format!("{assets}/{SCENE}")) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("cannot read {SCENE}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("cannot make a temporary directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    let copy = dir.path().join("garden.forge.ron");
    let saved = std::fs::write(&copy, &original)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            save_instance(app.world(), root, &copy, &CaptureOptions::default())
                .map_err(|e| e.to_string())
        })
        .and_then(|captured| {
            std::fs::read_to_string(&copy)
                .map(|text| (captured, text))
                .map_err(|e| e.to_string())
        });
    let (captured, text) = match saved {
        Ok(saved) => saved,
        Err(e) => {
            eprintln!("cannot save: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "saved {} entities of {:?}; the lines that changed:",
        captured.doc.entities.len(),
        captured.doc.name
    );
    for (before, after) in original.lines().zip(text.lines()) {
        if before != after {
            println!("- {before}\n+ {after}");
        }
    }
    let same_length = original.lines().count() == text.lines().count();
    println!(
        "{} lines, {} the same",
        text.lines().count(),
        if same_length {
            "every other line"
        } else {
            "not"
        }
    );
    ExitCode::SUCCESS
}

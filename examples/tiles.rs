//! Tile layers: a 2D dungeon drawn as rows of characters and a 3D meadow whose ground is a layer
//! in the XZ plane, with trees as sparse cells. Loads both scenes headless, prints what each
//! layer spawned, then paints one cell of the dungeon in memory and shows that hot reload
//! spawned only that cell's entities.
//!
//! ```sh
//! cargo run --example tiles
//! ```
//!
//! `assets/scenes/dungeon.forge.ron` places `prefabs/{wall,floor,coin}.forge.ron` from a
//! palette (`#`, `_`, `c`) and overrides the coin of cell (6, 1); `assets/scenes/meadow.forge.ron`
//! has a 6 × 5 grass layer and four trees, one of them (cell (4, 3)) grown larger by an
//! override of its crown. Cells are named by id path: `[layer, i, j, entity in the prefab..]`.

use std::process::ExitCode;

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, AssetServer, Assets, Handle, LoadState};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::{ForgeEntityPath, ForgeSceneLoadError};
use bevy_transform::components::Transform;

/// Counts hot reloads and what they spawned.
#[derive(Resource, Default)]
struct Reloads(Vec<ForgeSceneReloaded>);

/// Updates `app` until `root` has its instance; the error if the scene fails to load.
fn wait(app: &mut App, handle: &Handle<ForgeScene>, root: Entity) -> Result<(), String> {
    for _ in 0..5_000 {
        app.update();
        if let LoadState::Failed(error) = app.world().resource::<AssetServer>().load_state(handle) {
            return Err(match ForgeSceneLoadError::from_asset_error(&error) {
                Some(e) => e.to_string(),
                None => error.to_string(),
            });
        }
        if app.world().get::<ForgeSceneInstance>(root).is_some() {
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    Err("the scene did not load in time".to_owned())
}

/// One line for the entity at `path`: its name and place.
fn describe(world: &World, instance: &ForgeSceneInstance, path: &[u64]) -> String {
    let Some(e) = instance.entity_path(path) else {
        return format!("{path:?}: none");
    };
    let name = world.get::<Name>(e).map_or("", |n| n.as_str());
    let at = world
        .get::<Transform>(e)
        .map(|t| t.translation)
        .unwrap_or_default();
    let placed = world
        .get::<ForgeEntityPath>(e)
        .map_or("own entity".to_owned(), |p| format!("{:?}", p.0));
    format!(
        "{path:?} {name:?} at ({}, {}, {}), {placed}",
        at.x, at.y, at.z
    )
}

fn main() -> ExitCode {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/assets").to_owned(),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    app.init_resource::<Reloads>();
    app.add_observer(|e: On<ForgeSceneReloaded>, mut log: ResMut<Reloads>| {
        log.0.push(e.event().clone());
    });
    app.finish();
    app.cleanup();
    let mut out = String::new();
    for (file, paths) in [
        (
            "scenes/dungeon.forge.ron",
            &[&[2u64][..], &[2, 0, 0, 1], &[2, 3, 4, 2], &[2, 6, 1, 2]][..],
        ),
        (
            "scenes/meadow.forge.ron",
            &[&[4u64][..], &[4, 5, 4, 1], &[5, 4, 3, 2], &[5, 2, 1, 1]][..],
        ),
    ] {
        let handle = app
            .world()
            .resource::<AssetServer>()
            .load::<ForgeScene>(file);
        let root = app.world_mut().spawn(ForgeSceneRoot(handle.clone())).id();
        if let Err(e) = wait(&mut app, &handle, root) {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
        let Some(instance) = app.world().get::<ForgeSceneInstance>(root).cloned() else {
            return ExitCode::FAILURE;
        };
        out.push_str(&format!("{file}: {} entities\n", instance.len()));
        for path in paths {
            out.push_str(&format!("  {}\n", describe(app.world(), &instance, path)));
        }
        if file != "scenes/dungeon.forge.ron" {
            continue;
        }
        // Paint a coin into cell (3, 2), the doorway, in memory: the edit is prepared as a load
        // prepares a file, and hot reload spawns that cell's two entities, nothing else.
        let edited = app
            .world_mut()
            .resource_scope(|world, scenes: Mut<Assets<ForgeScene>>| {
                let scene = scenes.get(&handle)?;
                scene
                    .edited(world, |doc| {
                        if let Some(layer) = doc.layer_mut(2) {
                            layer.rows[3].replace_range(3..4, "c");
                        }
                    })
                    .ok()
            });
        let Some(edited) = edited else {
            eprintln!("error: the painted dungeon does not check");
            return ExitCode::FAILURE;
        };
        let _ = app
            .world_mut()
            .resource_mut::<Assets<ForgeScene>>()
            .insert(handle.id(), edited);
        for _ in 0..100 {
            app.update();
            if !app.world().resource::<Reloads>().0.is_empty() {
                break;
            }
        }
        let reloads = &app.world().resource::<Reloads>().0;
        if let Some(r) = reloads.last() {
            let added: Vec<&Vec<u64>> = r.added.iter().map(|p| &p.0).collect();
            out.push_str(&format!(
                "  painted cell (3, 2): added {added:?}, removed {}, changed {}\n",
                r.removed.len(),
                r.changed.len()
            ));
        }
    }
    // A reader that stops early (`| head`) ends the output quietly.
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes());
    ExitCode::SUCCESS
}

//! Edit mode in a game's window: the tests' 2D yard (copied to a temporary folder, so drags
//! are kept there, not in the repository). F2 turns edit mode on; click to select, drag a
//! handle, Ctrl+Z to undo; the panel lists the keys.
//!
//! `cargo run -p bevy_forge_scene_editor --example editor --ignore-rust-version`

use std::path::Path;

use bevy_forge_scene::prelude::*;
use bevy_forge_scene_editor::ForgeEditorPlugin;
use bevy_internal::DefaultPlugins;
use bevy_internal::app::{App, PluginGroup, Startup};
use bevy_internal::asset::{AssetPlugin, AssetServer, Handle};
use bevy_internal::ecs::prelude::*;
use bevy_internal::reflect::Reflect;

const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/assets");

/// The yard's gauge: a game component with a range.
#[derive(Component, Reflect, Default, ForgeComponent)]
#[forge(type_path = "game::Gauge")]
// Scenes set its field through reflection; this code never reads it.
#[allow(dead_code)]
struct Gauge {
    #[forge(range = 0.0..=10.0)]
    level: f32,
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let dir = std::env::temp_dir().join("forge-editor-example");
    copy_dir(Path::new(ASSETS), &dir)?;
    println!("scene files: {} (drags are kept there)", dir.display());
    App::new()
        .add_plugins(DefaultPlugins.set(AssetPlugin {
            file_path: dir.to_string_lossy().into_owned(),
            ..Default::default()
        }))
        .add_plugins(ForgeScenePlugin)
        .add_plugins(ForgeEditorPlugin::default().with_asset_root(&dir))
        .add_systems(
            Startup,
            |server: Res<AssetServer>, mut commands: Commands| {
                let scene: Handle<ForgeScene> = server.load("scenes/yard2d.forge.ron");
                commands.spawn(ForgeSceneRoot(scene));
            },
        )
        .run();
    Ok(())
}

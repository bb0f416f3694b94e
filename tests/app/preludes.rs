//! `use bevy::prelude::*;` beside `use bevy_forge_scene::prelude::*;`, as the README writes a
//! game, together with the prelude of every Bevy crate the library depends on: no name is
//! shared, so every name below resolves, without a warning.
//!
//! Two glob imports that bring different items under one name compile until the name is used,
//! so this file uses every name of our prelude (`prelude_names_are_all_used_here` keeps that
//! list complete) and the Bevy names a game uses most.

#![deny(warnings)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bevy::prelude::*;
use bevy_forge_scene::prelude::*;

// The preludes of the Bevy crates the library depends on, as a game that names them directly
// has them. Their items are in `bevy::prelude` too: rustc counts each use for one glob only, so
// these are "unused" to the lint. A name they shared with ours would still be an error.
#[allow(unused_imports)]
use bevy_app::prelude::*;
#[allow(unused_imports)]
use bevy_asset::prelude::*;
#[cfg(feature = "builtins")]
#[allow(unused_imports)]
use bevy_camera::prelude::*;
#[allow(unused_imports)]
use bevy_color::prelude::*;
#[allow(unused_imports)]
use bevy_ecs::prelude::*;
#[cfg(feature = "builtins")]
#[allow(unused_imports)]
use bevy_image::prelude::*;
#[cfg(feature = "builtins")]
#[allow(unused_imports)]
use bevy_light::prelude::*;
#[allow(unused_imports)]
use bevy_math::prelude::*;
#[cfg(feature = "builtins")]
#[allow(unused_imports)]
use bevy_mesh::prelude::*;
#[cfg(feature = "builtins")]
#[allow(unused_imports)]
use bevy_sprite::prelude::*;
#[cfg(feature = "builtins")]
#[allow(unused_imports)]
use bevy_text::prelude::*;
#[allow(unused_imports)]
use bevy_transform::prelude::*;

/// A game component, derived the README's way.
#[derive(Component, Reflect, Default, Clone, ForgeComponent)]
#[forge(type_path = "preludes::Drift")]
struct Drift {
    /// World units per second.
    velocity: Vec2,
    /// Where it drifts to.
    target: Vec3,
    /// Its tint.
    tint: Color,
}

fn drift(mut drifting: Query<(&Drift, &mut Transform, &Name)>) {
    for (drift, mut transform, _name) in &mut drifting {
        transform.translation += drift.velocity.extend(0.0);
    }
}

/// The entities that bring streamed cells in.
type StreamingSources = With<ForgeStreamingSource>;

/// Every item of our prelude, named where a game names it.
#[allow(dead_code)]
fn every_name_of_ours(
    _ids: Query<(&ForgeEntityId, Option<&ForgeEntityPath>, &ForgeSceneRoot)>,
    _instances: Query<&ForgeSceneInstance>,
    _scenes: Res<Assets<ForgeScene>>,
    _schemas: Res<ForgeSchemas>,
    _default_budget: Res<ForgeDefaultSpawnBudget>,
    _spawning: Query<(&ForgeSpawnProgress, Option<&ForgeSpawnBudget>), Without<ForgeSceneInactive>>,
    _loading_and_streaming: Query<(&ForgeLoadProgress, &ForgeStreamedCells), StreamingSources>,
) {
    let _ready = |_: On<ForgeSceneReady>| {};
    let _reloaded = |_: On<ForgeSceneReloaded>| {};
    let _failed = |_: On<ForgeSceneReloadFailed>| {};
    let _settings: Option<ForgeSceneLoaderSettings> = None;
    fn _bound<T: ForgeComponent>() {}
    fn _register(app: &mut App) -> &mut App {
        RegisterForgeComponent::register_forge_component::<Drift>(app)
    }
    let _ = (
        ForgeScenePlugin,
        ForgeSceneSystems::Reload,
        ForgeSceneSystems::Spawn,
    );
}

#[test]
fn bevy_and_forge_preludes_compose() {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin::default(),
        ForgeScenePlugin,
    ))
    .register_forge_component::<Drift>()
    .add_systems(PreUpdate, drift.after(ForgeSceneSystems::Spawn));
    let drifting = app
        .world_mut()
        .spawn((
            Name::new("Leaf"),
            Transform::from_xyz(1.0, 2.0, 0.0),
            Drift {
                velocity: Vec2::new(0.5, 0.0),
                target: Vec3::ZERO,
                tint: Color::srgb(0.2, 0.8, 0.2),
            },
        ))
        .id();
    app.update();
    let transform = app.world().get::<Transform>(drifting).copied();
    assert_eq!(
        transform.map(|t| t.translation),
        Some(Vec3::new(1.5, 2.0, 0.0))
    );
    let schemas = app.world().resource::<ForgeSchemas>();
    assert!(schemas.get("preludes::Drift").is_some());
    assert_eq!(ForgeEntityPath(vec![5, 1]), [5, 1]);
    assert_eq!(ForgeEntityId(7).0, 7);
}

/// The names `prelude` re-exports, read from its `pub use` items in `src/lib.rs`.
fn prelude_names() -> Vec<String> {
    let lib = include_str!("../../src/lib.rs");
    let start = lib.find("pub mod prelude {").expect("lib.rs has a prelude");
    let body = &lib[start..];
    let body = &body[..body.find("\n}").expect("the prelude ends")];
    let mut names = Vec::new();
    for item in body.split("pub use ").skip(1) {
        let item = &item[..item.find(';').expect("a `pub use` ends")];
        let list = match (item.find('{'), item.rfind('}')) {
            (Some(open), Some(close)) => &item[open + 1..close],
            _ => item,
        };
        for path in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let name = match path.split_once(" as ") {
                Some((_, alias)) => alias,
                None => path.rsplit("::").next().unwrap_or(path),
            };
            names.push(name.trim().to_owned());
        }
    }
    names.sort();
    names.dedup();
    names
}

#[test]
fn prelude_names_are_all_used_here() {
    let this = include_str!("preludes.rs");
    let uses = &this[..this.find("#[test]").unwrap_or(this.len())];
    let names = prelude_names();
    assert!(names.len() >= 14, "{names:?}");
    let missing: Vec<&String> = names
        .iter()
        .filter(|name| !uses.contains(name.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "name these prelude items in `every_name_of_ours`: {missing:?}"
    );
}

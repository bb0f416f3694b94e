//! Scene text builders and load helpers shared by the runtime tests: entities, instances and
//! custom components as RON, loading to an instance or to diagnostics, hot-reload edits.

use bevy_app::App;
use bevy_asset::{AssetServer, LoadState};
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_forge_scene::ForgeSceneLoadError;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene::schema::SchemaFile;
use bevy_forge_scene::validate::{Diagnostic, Severity};

use super::harness::Harness;

/// Every reload applied and every reload that failed, in order.
#[derive(Resource, Default)]
pub struct Log {
    pub reloaded: Vec<ForgeSceneReloaded>,
    pub failed: Vec<ForgeSceneReloadFailed>,
}

/// Adds [`Log`] to `app`, filled by observers.
pub fn log_reloads(app: &mut App) {
    app.init_resource::<Log>();
    app.add_observer(|e: On<ForgeSceneReloaded>, mut log: ResMut<Log>| {
        log.reloaded.push(e.event().clone())
    });
    app.add_observer(|e: On<ForgeSceneReloadFailed>, mut log: ResMut<Log>| {
        log.failed.push(e.event().clone())
    });
}

/// Entity `id` named `name`, under `parent`, with `children` and `components` (RON list
/// items), at the origin.
pub fn entity(
    id: u64,
    name: &str,
    parent: Option<u64>,
    children: &[u64],
    components: &str,
) -> String {
    let parent = parent.map_or("None".to_owned(), |p| format!("Some({p})"));
    let children: Vec<String> = children.iter().map(u64::to_string).collect();
    format!(
        "  {id}: (id: {id}, name: \"{name}\", parent: {parent}, children: [{}], transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [{components}]),\n",
        children.join(", ")
    )
}

/// A root instance entity placing `scene`, with `overrides` (RON list items).
pub fn placing(id: u64, name: &str, scene: &str, overrides: &str) -> String {
    entity(id, name, None, &[], "").replace(
        "components: [])",
        &format!("components: [], instance: Some((scene: \"{scene}\", overrides: [{overrides}])))"),
    )
}

/// A scene of `entities` (from [`entity`], [`placing`]) with `roots`.
pub fn scene(entities: &[String], roots: &[u64]) -> String {
    let roots: Vec<String> = roots.iter().map(u64::to_string).collect();
    let next = 1 + roots.len() as u64 + entities.len() as u64 * 100;
    format!(
        "(format_version: 1, name: \"Refs\", entities: {{\n{}}}, roots: [{}], next_id: {next})",
        entities.concat(),
        roots.join(", ")
    )
}

/// RON string contents for `text` (backslashes and quotes escaped, newlines as `\n`).
pub fn ron_str(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A custom component of type `type_path` with `fields` (name, expression).
pub fn custom(type_path: &str, fields: &[(&str, &str)]) -> String {
    let fields: Vec<String> = fields
        .iter()
        .map(|(n, e)| format!("(name: \"{n}\", expr: \"{}\")", ron_str(e)))
        .collect();
    format!(
        "(type: custom, data: (type_path: \"{type_path}\", fields: [{}]))",
        fields.join(", ")
    )
}

/// Loads `text` as `path`: the spawned instance (root and map), or the load's diagnostics.
pub fn outcome(
    h: &mut Harness,
    path: &str,
    text: &str,
) -> Result<(Entity, ForgeSceneInstance), Vec<Diagnostic>> {
    h.add(path, text);
    let handle = h.load(path);
    let server = h.world().resource::<AssetServer>().clone();
    h.run_until(|_| {
        matches!(
            server.load_state(&handle),
            LoadState::Loaded | LoadState::Failed(_)
        )
    });
    if let LoadState::Failed(error) = server.load_state(&handle) {
        return Err(ForgeSceneLoadError::from_asset_error(&error)
            .map(ForgeSceneLoadError::diagnostics)
            .unwrap_or_default());
    }
    let root = h.spawn_root(&handle);
    h.run_until(|w| w.get::<ForgeSceneInstance>(root).is_some());
    let instance = h.world().get::<ForgeSceneInstance>(root).unwrap().clone();
    Ok((root, instance))
}

/// Edits the loaded scene `id` in memory as an editor does: `ForgeScene::edited`, then the
/// asset replaced (hot reload patches the live instances). The diagnostics when refused.
pub fn edit_in_memory(
    h: &mut Harness,
    id: impl Into<bevy_asset::AssetId<ForgeScene>>,
    edit: impl FnOnce(&mut bevy_forge_scene::format::SceneDoc),
) -> Result<(), Vec<Diagnostic>> {
    let id = id.into();
    h.app
        .world_mut()
        .resource_scope(|world, mut scenes: Mut<bevy_asset::Assets<ForgeScene>>| {
            let edited = scenes
                .get(id)
                .expect("the scene is loaded")
                .edited(world, edit)?;
            scenes.insert(id, edited).expect("a scene id");
            Ok(())
        })
}

/// The diagnostics of the failed load of `path` (already in the asset source).
pub fn load_errors(h: &mut Harness, path: &str) -> Vec<Diagnostic> {
    let handle = h.load(path);
    let server = h.world().resource::<AssetServer>().clone();
    h.run_until(|_| matches!(server.load_state(&handle), LoadState::Failed(_)));
    let LoadState::Failed(error) = server.load_state(&handle) else {
        unreachable!()
    };
    ForgeSceneLoadError::from_asset_error(&error)
        .map(ForgeSceneLoadError::diagnostics)
        .unwrap_or_default()
}

/// Line and column (1-based, characters) of the `n`th (from 0) occurrence of `needle`.
pub fn position_of(text: &str, needle: &str, n: usize) -> (u32, u32) {
    let at = text
        .match_indices(needle)
        .nth(n)
        .expect("the text has it")
        .0;
    let before = &text[..at];
    let line = before.matches('\n').count() as u32 + 1;
    let column = before.rsplit('\n').next().unwrap().chars().count() as u32 + 1;
    (line, column)
}

/// Rewrites `path` as a file watcher would report it and waits for the reload to be applied or
/// to fail ([`Log`] must be set up).
pub fn edit(h: &mut Harness, path: &str, text: &str) {
    let before = {
        let log = h.world().resource::<Log>();
        (log.reloaded.len(), log.failed.len())
    };
    h.modify(path, text);
    h.run_until(|w| {
        let log = w.resource::<Log>();
        (log.reloaded.len(), log.failed.len()) != before
    });
    h.app.update();
}

/// The instance on `root`, as it is now.
pub fn instance_of(h: &Harness, root: Entity) -> ForgeSceneInstance {
    h.world().get::<ForgeSceneInstance>(root).unwrap().clone()
}

/// The `Name` of `e`, or what it is without one.
pub fn name_of(h: &Harness, e: Entity) -> String {
    h.world()
        .get::<Name>(e)
        .map_or(format!("{e:?} (no Name)"), |n| n.as_str().to_owned())
}

/// The harness's schemas as a tool would read them from an exported file.
pub fn exported(h: &Harness) -> SchemaFile {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.forge-schema.ron");
    h.world().resource::<ForgeSchemas>().export(&path).unwrap();
    SchemaFile::read(&path).unwrap()
}

/// `(line, column, code, message)` of each error, sorted.
pub fn lines(diagnostics: &[Diagnostic]) -> Vec<(u32, u32, &'static str, String)> {
    let mut out: Vec<_> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let p = d.position.expect("every error has a position");
            (p.line, p.column, d.code, d.message.clone())
        })
        .collect();
    out.sort();
    out
}

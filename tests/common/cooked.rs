//! Apps for cooked scenes: reading through the twin reader, processing in Bevy's processed
//! mode, and loading by path.

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::io::memory::{Dir, MemoryAssetReader};
use bevy_asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy_asset::processor::{AssetProcessor, FileTransactionLogFactory};
use bevy_asset::{AssetApp, AssetPlugin, AssetServer, Handle, LoadState};
use bevy_forge_scene::ForgeTwinReader;
use bevy_forge_scene::cook::{
    COOKED_HEADER_LEN, COOKED_MAGIC, COOKED_VERSION_UNSTAMPED, CookedScene,
};
use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::prelude::*;
use std::path::Path;

/// An app whose default source reads from `dir` through a [`ForgeTwinReader`].
pub fn twin_app(dir: &Dir) -> App {
    let reader_dir = dir.clone();
    let mut app = App::new();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || {
            Box::new(ForgeTwinReader::new(Box::new(MemoryAssetReader {
                root: reader_dir.clone(),
            })))
        }),
    )
    .add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            watch_for_changes_override: Some(false),
            use_asset_processor_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    app.finish();
    app.cleanup();
    app
}

/// Loads `path`; how it ended, and the handle (kept, so the asset stays).
pub fn load_state(app: &mut App, path: &str) -> (LoadState, Handle<ForgeScene>) {
    let handle: Handle<ForgeScene> = app.world().resource::<AssetServer>().load(path.to_owned());
    for _ in 0..2_000 {
        app.update();
        let state = app.world().resource::<AssetServer>().load_state(&handle);
        if matches!(state, LoadState::Loaded | LoadState::Failed(_)) {
            return (state, handle);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("`{path}` neither loaded nor failed");
}

/// A processed-mode app over `source`, writing to `processed`.
pub fn processed_app(source: &Path, processed: &Path) -> App {
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        AssetPlugin {
            file_path: source.to_string_lossy().into_owned(),
            processed_file_path: processed.to_string_lossy().into_owned(),
            mode: bevy_asset::AssetMode::Processed,
            use_asset_processor_override: Some(true),
            watch_for_changes_override: Some(false),
            ..Default::default()
        },
        ForgeScenePlugin,
    ));
    // The processor's transaction log goes beside its output, not into the repository.
    if let Some(processor) = app.world().get_resource::<AssetProcessor>() {
        let log = FileTransactionLogFactory {
            file_path: processed.join("log"),
        };
        processor.data().set_log_factory(Box::new(log)).unwrap();
    }
    app.finish();
    app.cleanup();
    app
}

pub fn status_kb(field: &str) -> usize {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Header + body with a correct checksum and length.
pub fn wrap(body: &[u8]) -> Vec<u8> {
    let mut out = COOKED_MAGIC.to_vec();
    out.extend_from_slice(&COOKED_VERSION_UNSTAMPED.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    out.extend_from_slice(body);
    out
}

pub const T: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";

pub const LIGHT: &str = "(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: 800.0, range: 20.0, shadows: false))";

/// A document: entity 1 (a camera for a scene, a light for a prefab), and one root instance
/// entity per path in `places`.
pub fn doc_text(name: &str, first: &str, places: &[&str]) -> String {
    let mut ents = format!(
        "1: (id: 1, name: \"First\", parent: None, children: [], {T}, components: [{first}]),\n"
    );
    let mut roots = vec![1u64];
    for (i, p) in places.iter().enumerate() {
        let id = i as u64 + 2;
        ents += &format!(
            "{id}: (id: {id}, name: \"I{id}\", parent: None, children: [], {T}, components: [], instance: Some((scene: \"{p}\"))),\n"
        );
        roots.push(id);
    }
    format!(
        "(format_version: 1, name: \"{name}\", entities: {{ {ents} }}, roots: {roots:?}, next_id: {})",
        places.len() + 2
    )
}

pub fn scene_doc(places: &[&str]) -> SceneDoc {
    SceneDoc::from_str(&doc_text("Scene", "(type: camera3d)", places))
        .unwrap()
        .doc
}

pub fn cooked(doc: SceneDoc, prefabs: Vec<(&str, SceneDoc)>) -> CookedScene {
    let mut prefabs: Vec<(String, SceneDoc)> = prefabs
        .into_iter()
        .map(|(p, d)| (p.to_owned(), d))
        .collect();
    prefabs.sort_by(|a, b| a.0.cmp(&b.0));
    CookedScene {
        source: "level.forge.ron".into(),
        doc,
        prefabs,
    }
}

pub const SPRITE: &str = "(type: sprite, data: (image: Some(\"IMG\"), color: (r: 1, g: 1, b: 1, a: 1), custom_size: None, flip_x: false, flip_y: false))";

/// The body of a scene whose entity 1 has a sprite with image `IMG`, in the scene itself or in
/// the one prefab bundled with it, and the offset in the body of the sprite's kind (its index
/// among the built-ins, after the component tag).
pub fn sprite_body(in_prefab: bool) -> (Vec<u8>, usize) {
    let sprite = SceneDoc::from_str(&doc_text("S", SPRITE, &[])).unwrap().doc;
    let scene = if in_prefab {
        cooked(scene_doc(&["p.forge.ron"]), vec![("p.forge.ron", sprite)])
    } else {
        cooked(sprite, vec![])
    };
    let body = scene.encode()[COOKED_HEADER_LEN..].to_vec();
    // Tag 1 (built-in), kind 0 (sprite), option tag 1 (Some), string of 3 bytes.
    let at = body
        .windows(7)
        .position(|w| w == b"\x01\x00\x01\x03IMG")
        .unwrap()
        + 1;
    assert!(CookedScene::decode(&wrap(&body)).is_ok());
    (body, at)
}

//! What the live link's HTTP tests share: a headless game with `ForgeRemotePlugin` on an
//! ephemeral loopback port, scene files in a temporary folder, and a JSON-RPC client (`ureq`,
//! JSON in and out, none of the crate's types).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetPlugin, AssetServer};
use bevy_ecs::change_detection::ComponentTicks;
use bevy_ecs::component::Component;
use bevy_ecs::prelude::*;
use bevy_forge_scene::live_link;
use bevy_forge_scene::prelude::*;
use bevy_forge_scene_remote::ForgeRemotePlugin;
use bevy_reflect::Reflect;
use bevy_transform::components::Transform;
use serde_json::{Value, json};

/// The game's component, named in the scene as `forge_demo::Orbit`.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[forge(type_path = "forge_demo::Orbit")]
pub struct Orbit {
    #[forge(range = 0.0..=100.0)]
    pub radius: f32,
    pub speed: f32,
}

pub const SCENE: &str = "levels/level.forge.ron";
pub const PREFAB: &str = "prefabs/crate.forge.ron";

pub fn original(path: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/scenes")
            .join(path),
    )
    .unwrap()
}

#[derive(Resource, Default, Clone)]
pub struct Reloads(Arc<Mutex<usize>>);

pub struct Game {
    pub app: App,
    pub dir: tempfile::TempDir,
    pub port: u16,
    pub root: Entity,
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

impl Game {
    /// The test level (`levels/level.forge.ron`, which places `prefabs/crate.forge.ron`),
    /// spawned.
    pub fn new() -> Self {
        Self::with(&[SCENE, PREFAB], SCENE, &[3, 1])
    }

    /// A game with the files `paths` (under `tests/scenes`) in its asset folder, the scene
    /// `scene` spawned until the entity at `ready` is live, and its server taking connections.
    ///
    /// The server binds its port on the IO task pool (which every test in the binary shares), so
    /// it may start listening some frames after the scene is ready, and the port, free when it
    /// was picked, may have been taken since by another test's client. The game waits for the
    /// port to answer, and starts over on a fresh port if it never does.
    pub fn with(paths: &[&str], scene: &str, ready: &[u64]) -> Self {
        for _ in 0..3 {
            let mut game = Self::started(paths, scene, ready);
            if game.listening(Duration::from_secs(20)) {
                return game;
            }
        }
        panic!("the live link never listened on three ports");
    }

    /// Updates until a connection to the game's port is taken, for at most `within`.
    fn listening(&mut self, within: Duration) -> bool {
        let started = Instant::now();
        while started.elapsed() < within {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return true;
            }
            self.app.update();
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    fn started(paths: &[&str], scene: &str, ready: &[u64]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for path in paths {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, original(path)).unwrap();
        }
        let port = free_port();
        let mut app = App::new();
        app.add_plugins((
            TaskPoolPlugin::default(),
            AssetPlugin {
                file_path: dir.path().to_string_lossy().into_owned(),
                watch_for_changes_override: Some(false),
                use_asset_processor_override: Some(false),
                ..Default::default()
            },
            ForgeScenePlugin,
            ForgeRemotePlugin::default()
                .with_port(port)
                .with_asset_root(dir.path()),
        ));
        app.register_type::<Transform>();
        let reloads = Reloads::default();
        app.insert_resource(reloads);
        app.add_observer(|_: On<ForgeSceneReloaded>, r: Res<Reloads>| {
            *r.0.lock().unwrap() += 1;
        });
        app.finish();
        app.cleanup();
        let handle = app.world().resource::<AssetServer>().load(scene.to_owned());
        let root = app.world_mut().spawn(ForgeSceneRoot(handle)).id();
        let mut game = Game {
            app,
            dir,
            port,
            root,
        };
        let ready = ready.to_vec();
        game.run_until(move |w| {
            w.get::<ForgeSceneInstance>(root)
                .is_some_and(|i| i.entity_path(&ready).is_some())
        });
        game
    }

    /// Updates until every file the live link wrote is in place on disk.
    pub fn until_written(&mut self) {
        self.run_until(|world| live_link::pending_writes(world) == 0);
    }

    pub fn run_until(&mut self, mut done: impl FnMut(&mut World) -> bool) {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(60) {
            self.app.update();
            if done(self.app.world_mut()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        panic!("not reached in 60 s");
    }

    /// Runs `client` on its own thread with the game's port while the game updates.
    pub fn client<R: Send + 'static>(
        &mut self,
        client: impl FnOnce(u16) -> R + Send + 'static,
    ) -> R {
        let port = self.port;
        let handle = std::thread::spawn(move || client(port));
        let started = Instant::now();
        while !handle.is_finished() {
            assert!(started.elapsed() < Duration::from_secs(120), "client hangs");
            self.app.update();
            std::thread::sleep(Duration::from_millis(1));
        }
        handle.join().unwrap()
    }

    /// One request, answered while the game runs.
    pub fn call(&mut self, method: &'static str, params: Value) -> Value {
        self.client(move |port| rpc(port, method, params))
    }

    pub fn reloads(&self) -> usize {
        *self.app.world().resource::<Reloads>().0.lock().unwrap()
    }

    pub fn until_reloaded(&mut self, before: usize) {
        let reloads = self.app.world().resource::<Reloads>().clone();
        self.run_until(move |_| *reloads.0.lock().unwrap() > before);
        for _ in 0..5 {
            self.app.update();
        }
    }

    pub fn text(&self, path: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(path)).unwrap()
    }

    pub fn entity(&self, path: &[u64]) -> Entity {
        self.app
            .world()
            .get::<ForgeSceneInstance>(self.root)
            .unwrap()
            .entity_path(path)
            .unwrap()
    }

    pub fn ticks<T: Component>(&self, e: Entity) -> ComponentTicks {
        self.app.world().entity(e).get_change_ticks::<T>().unwrap()
    }
}

/// A JSON-RPC request over HTTP; the whole response object.
pub fn rpc(port: u16, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    post(port, &body.to_string())
}

pub fn post(port: u16, body: &str) -> Value {
    let url = format!("http://127.0.0.1:{port}/");
    let response = ureq::post(&url)
        .timeout(Duration::from_secs(60))
        .set("content-type", "application/json")
        .send_string(body);
    match response {
        Ok(r) => r.into_json().unwrap(),
        Err(ureq::Error::Status(_, r)) => r.into_json().unwrap(),
        Err(e) => panic!("{method}: {e}", method = "request"),
    }
}

pub fn result(response: Value) -> Value {
    assert!(response.get("error").is_none(), "{response}");
    response["result"].clone()
}

pub fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

pub fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

pub fn changed_lines(before: &str, after: &str) -> Vec<(usize, String)> {
    assert_eq!(before.lines().count(), after.lines().count(), "{after}");
    before
        .lines()
        .zip(after.lines())
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (_, b))| (i + 1, b.trim().to_owned()))
        .collect()
}

/// The game's component of the camp, named in it as `game::Health`.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[forge(type_path = "game::Health")]
pub struct Health {
    #[forge(range = 0..=1000)]
    pub hp: i32,
}

//! Edit mode without a window, driven as a person would drive it: pointer moves, presses and
//! releases go in as `bevy_picking`'s `PointerInput` messages and keys as `KeyboardInput`
//! messages, exactly what Bevy's window backend sends; the cameras draw into an image, which
//! [`Headless::capture`] reads back. The tests, the scripted example and the bench use it; a
//! game's own tests can too.
//!
//! The app is Bevy's default plugins without `WinitPlugin`, with a primary window entity that
//! has no OS window behind it (Bevy's picking looks for one), fixed 1/60 s frames, the scene
//! plugin and [`ForgeEditorPlugin`] reading and writing files under one asset folder. Every
//! camera a scene spawns draws into the image.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bevy_forge_scene::prelude::*;
use bevy_internal::DefaultPlugins;
use bevy_internal::app::{App, PluginGroup};
use bevy_internal::asset::{AssetMetaCheck, AssetPlugin, AssetServer, Handle};
use bevy_internal::camera::{Camera, NormalizedRenderTarget, Projection, RenderTarget};
use bevy_internal::ecs::prelude::*;
use bevy_internal::image::Image;
use bevy_internal::input::ButtonState;
use bevy_internal::input::keyboard::{Key, KeyCode, KeyboardInput, NativeKey};
use bevy_internal::log::LogPlugin;
use bevy_internal::math::{Vec2, Vec3};
use bevy_internal::picking::pointer::{
    Location, PointerAction, PointerButton, PointerId, PointerInput,
};
use bevy_internal::render::RenderPlugin;
use bevy_internal::render::pipelined_rendering::PipelinedRenderingPlugin;
use bevy_internal::render::render_resource::PollType;
use bevy_internal::render::renderer::RenderDevice;
use bevy_internal::render::settings::{RenderCreation, WgpuSettings};
use bevy_internal::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy_internal::time::TimeUpdateStrategy;
use bevy_internal::transform::components::GlobalTransform;
use bevy_internal::window::{
    ExitCondition, PrimaryWindow, Window, WindowPlugin, WindowRef, WindowResolution,
};
use bevy_internal::winit::WinitPlugin;

use crate::ForgeEditorPlugin;

/// A windowless app with edit mode, and the synthetic input that drives it.
pub struct Headless {
    /// The app.
    pub app: App,
    /// The image every camera draws into.
    pub target: Handle<Image>,
    location_target: NormalizedRenderTarget,
    window: Entity,
    pointer: Vec2,
}

/// The image cameras draw into, for the observer that points new cameras at it.
#[derive(Resource, Clone)]
struct Target(Handle<Image>);

impl Headless {
    /// An app reading scenes and writing them under `assets`, drawing `width` by `height`
    /// pixels, with `editor` (usually `ForgeEditorPlugin::default()`; its asset root is set to
    /// `assets`).
    pub fn new(assets: &Path, width: u32, height: u32, editor: ForgeEditorPlugin) -> Self {
        Self::build(assets, width, height, editor, true, false)
    }

    /// The app `forge edit` makes of a scene without its game: as [`new`](Self::new), with
    /// scene text served without custom components
    /// ([`serve_without_custom`](crate::standalone::serve_without_custom)) and no schema table
    /// (a keep is checked as `forge validate` checks a scene without schemas).
    pub fn standalone(assets: &Path, width: u32, height: u32, editor: ForgeEditorPlugin) -> Self {
        Self::build(assets, width, height, editor, true, true)
    }

    /// The same app without a renderer (no GPU needed; nothing is drawn and [`capture`]
    /// cannot be used): the cameras aim at the window entity, whose size the picture has.
    /// Picking, the overlay's lines and the panel's layout still run. The bench uses it.
    ///
    /// [`capture`]: Self::capture
    pub fn without_rendering(
        assets: &Path,
        width: u32,
        height: u32,
        editor: ForgeEditorPlugin,
    ) -> Self {
        Self::build(assets, width, height, editor, false, false)
    }

    fn build(
        assets: &Path,
        width: u32,
        height: u32,
        editor: ForgeEditorPlugin,
        rendering: bool,
        standalone: bool,
    ) -> Self {
        let mut app = App::new();
        if standalone {
            crate::standalone::serve_without_custom(&mut app, assets);
        }
        let render = if rendering {
            RenderPlugin {
                synchronous_pipeline_compilation: true,
                ..Default::default()
            }
        } else {
            RenderPlugin {
                render_creation: RenderCreation::Automatic(Box::new(WgpuSettings {
                    backends: None,
                    ..Default::default()
                })),
                ..Default::default()
            }
        };
        app.add_plugins(
            DefaultPlugins
                .build()
                .disable::<PipelinedRenderingPlugin>()
                .disable::<WinitPlugin>()
                .set(WindowPlugin {
                    // A window entity without an OS window: Bevy's picking rays need a primary
                    // window to exist; the cameras draw into an image.
                    primary_window: Some(Window {
                        resolution: WindowResolution::new(width, height),
                        ..Default::default()
                    }),
                    exit_condition: ExitCondition::DontExit,
                    ..Default::default()
                })
                .set(render)
                .set(AssetPlugin {
                    file_path: assets.to_string_lossy().into_owned(),
                    meta_check: AssetMetaCheck::Never,
                    watch_for_changes_override: Some(false),
                    ..Default::default()
                })
                .set(LogPlugin {
                    filter: "warn,wgpu=error,naga=error,bevy_render=warn".into(),
                    ..Default::default()
                }),
        )
        .add_plugins(ForgeScenePlugin)
        .add_plugins(editor.with_asset_root(assets))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )));
        let target = bevy_forge_scene_render::headless::render_target(&mut app, width, height);
        if rendering {
            app.insert_resource(Target(target.clone()))
                .add_observer(draw_into_target);
        }
        app.finish();
        app.cleanup();
        if standalone {
            app.world_mut()
                .remove_resource::<bevy_forge_scene::ForgeSchemas>();
        }
        let window = app
            .world_mut()
            .query_filtered::<Entity, With<PrimaryWindow>>()
            .iter(app.world())
            .next()
            .unwrap_or(Entity::PLACEHOLDER);
        let aimed_at = if rendering {
            RenderTarget::Image(target.clone().into())
        } else {
            RenderTarget::Window(WindowRef::Primary)
        };
        let location_target = aimed_at
            .normalize(Some(window))
            .unwrap_or(NormalizedRenderTarget::None { width, height });
        let mut me = Self {
            app,
            target,
            location_target,
            window,
            pointer: Vec2::ZERO,
        };
        me.frame();
        me
    }

    /// One frame, waiting for the device to finish drawing it.
    pub fn frame(&mut self) {
        self.app.update();
        if let Some(device) = self.app.world().get_resource::<RenderDevice>() {
            let _ = device.wgpu_device().poll(PollType::Wait {
                submission_index: None,
                timeout: None,
            });
        }
    }

    /// `n` frames.
    pub fn frames(&mut self, n: usize) {
        for _ in 0..n {
            self.frame();
        }
    }

    /// Frames until `done` holds, at most `most`; whether it did.
    pub fn run_until(&mut self, most: usize, mut done: impl FnMut(&mut World) -> bool) -> bool {
        for _ in 0..most {
            if done(self.app.world_mut()) {
                return true;
            }
            self.frame();
        }
        done(self.app.world_mut())
    }

    /// Frames until the live link's writes are on disk (a keep, an undo or a redo writes on
    /// Bevy's IO task pool, a few frames after the call), at most `most`, then `after` frames
    /// more for the reload that follows; whether they were all written.
    pub fn wait_for_writes(&mut self, most: usize, after: usize) -> bool {
        let written = self.run_until(most, |w| {
            bevy_forge_scene::live_link::pending_writes(w) == 0
        });
        self.frames(after);
        written
    }

    /// Loads scene `path` (an asset path under the folder), spawns it, and waits until it has
    /// spawned and drawn (a few frames more, so bounds and visibility are known). Its root.
    ///
    /// # Panics
    /// When the scene does not spawn within 3,000 frames.
    pub fn load(&mut self, path: &str) -> Entity {
        let handle: Handle<ForgeScene> = self
            .app
            .world()
            .resource::<AssetServer>()
            .load(path.to_owned());
        let root = self.app.world_mut().spawn(ForgeSceneRoot(handle)).id();
        let spawned = self.run_until(3_000, |w| w.get::<ForgeSceneInstance>(root).is_some());
        assert!(spawned, "{path} did not spawn");
        self.frames(3);
        root
    }

    /// The entity at `id_path` of the scene on `root`.
    ///
    /// # Panics
    /// When the scene has none.
    pub fn entity(&self, root: Entity, id_path: &[u64]) -> Entity {
        match bevy_forge_scene::live_link::find(self.app.world(), Some(root), None, id_path) {
            Ok(e) => e,
            Err(e) => panic!("{e}"),
        }
    }

    /// Where `entity`'s origin is in the picture (logical pixels), through the
    /// highest-ordered active camera.
    pub fn screen_of(&mut self, entity: Entity) -> Option<Vec2> {
        let p = self
            .app
            .world()
            .get::<GlobalTransform>(entity)?
            .translation();
        self.screen_of_point(p)
    }

    /// Where world point `p` is in the picture (logical pixels).
    pub fn screen_of_point(&mut self, p: Vec3) -> Option<Vec2> {
        let camera = crate::interact::pointer_camera(self.app.world_mut(), None)?;
        let view = crate::interact::view_of(self.app.world(), camera)?;
        view.project(p)
    }

    fn pointer(&mut self, action: PointerAction) {
        let location = Location {
            target: self.location_target.clone(),
            position: self.pointer,
        };
        self.app
            .world_mut()
            .write_message(PointerInput::new(PointerId::Mouse, location, action));
    }

    /// Moves the pointer to `at` (logical pixels) and draws a frame.
    pub fn move_to(&mut self, at: Vec2) {
        let delta = at - self.pointer;
        self.pointer = at;
        self.pointer(PointerAction::Move { delta });
        self.frame();
    }

    /// Presses the primary button where the pointer is, and draws a frame.
    pub fn press(&mut self) {
        self.pointer(PointerAction::Press(PointerButton::Primary));
        self.frame();
    }

    /// Releases the primary button, and draws a frame.
    pub fn release(&mut self) {
        self.pointer(PointerAction::Release(PointerButton::Primary));
        self.frame();
    }

    /// Moves to `at` and clicks there.
    pub fn click(&mut self, at: Vec2) {
        self.move_to(at);
        self.press();
        self.release();
    }

    /// Presses at `from`, moves to `to` in `steps` moves, releases there.
    pub fn drag(&mut self, from: Vec2, to: Vec2, steps: usize) {
        self.move_to(from);
        self.press();
        let steps = steps.max(1);
        for i in 1..=steps {
            self.move_to(from + (to - from) * (i as f32 / steps as f32));
        }
        self.release();
    }

    fn key_event(&mut self, key: KeyCode, state: ButtonState) {
        let window = self.window;
        self.app.world_mut().write_message(KeyboardInput {
            key_code: key,
            logical_key: Key::Unidentified(NativeKey::Unidentified),
            state,
            text: None,
            repeat: false,
            window,
        });
    }

    /// Holds `key` down from the next frame on (a modifier: Ctrl, Shift, Alt).
    pub fn hold(&mut self, key: KeyCode) {
        self.key_event(key, ButtonState::Pressed);
        self.frame();
    }

    /// Lets `key` go.
    pub fn let_go(&mut self, key: KeyCode) {
        self.key_event(key, ButtonState::Released);
        self.frame();
    }

    /// Presses and releases `key`, a frame each.
    pub fn tap(&mut self, key: KeyCode) {
        self.hold(key);
        self.let_go(key);
    }

    /// Draws frames and reads the picture back (RGBA, 8 bits a channel, sRGB).
    ///
    /// # Panics
    /// When the picture does not come back within 60 frames.
    pub fn capture(&mut self) -> Image {
        self.frames(3);
        let slot: Arc<Mutex<Option<Image>>> = Arc::default();
        let into = slot.clone();
        self.app
            .world_mut()
            .spawn(Screenshot::image(self.target.clone()))
            .observe(move |captured: On<ScreenshotCaptured>| {
                if let Ok(mut slot) = into.lock() {
                    *slot = Some(captured.image.clone());
                }
            });
        for _ in 0..60 {
            self.frame();
            if let Some(image) = slot.lock().ok().and_then(|mut s| s.take()) {
                return image;
            }
        }
        panic!("the capture did not come back within 60 frames");
    }
}

/// Every camera draws into the image (a scene's cameras spawn aimed at the primary window).
fn draw_into_target(added: On<Add<Camera>>, target: Res<Target>, mut commands: Commands) {
    let e = added.event_target();
    commands
        .entity(e)
        .insert(RenderTarget::Image(target.0.clone().into()));
    commands.queue(move |world: &mut World| {
        // Bevy computes a camera's target size when its projection changes, not when its
        // target is replaced.
        if let Some(mut projection) = world.get_mut::<Projection>(e) {
            projection.set_changed();
        }
    });
}

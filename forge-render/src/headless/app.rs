//! The headless app and its frames: Bevy's default plugins without a window, the render
//! target, one frame at a time waiting for the device, waiting for loads, and the capture.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy_forge_scene::prelude::*;
use bevy_internal::DefaultPlugins;
use bevy_internal::app::{App, PluginGroup};
use bevy_internal::asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy_internal::asset::{
    AssetApp, AssetMetaCheck, AssetPlugin, AssetServer, Assets, Handle,
    RecursiveDependencyLoadState, RenderAssetUsages,
};
use bevy_internal::camera::Camera;
use bevy_internal::camera::visibility::Visibility;
use bevy_internal::ecs::prelude::*;
use bevy_internal::image::Image;
use bevy_internal::log::LogPlugin;
use bevy_internal::render::RenderPlugin;
use bevy_internal::render::pipelined_rendering::PipelinedRenderingPlugin;
use bevy_internal::render::render_resource::{
    Extent3d, PollType, TextureDimension, TextureFormat, TextureUsages,
};
use bevy_internal::render::renderer::{RenderAdapterInfo, RenderDevice};
use bevy_internal::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy_internal::time::TimeUpdateStrategy;
use bevy_internal::window::{ExitCondition, WindowPlugin};
use bevy_internal::winit::WinitPlugin;
use image::RgbaImage;

use super::reader::{SideReader, strip_custom};
use super::{LOAD_FRAMES, RenderError};
use crate::compare::{BlankCapture, check_not_blank};

/// The app: Bevy's default plugins without a window (no `WinitPlugin`, no primary window,
/// never exiting by itself), pipelines compiled before the frame that needs them, fixed time,
/// the scene plugin, and the default asset source reading scene `side`'s folder.
///
/// Without `PipelinedRenderingPlugin`: each [`frame`] waits for the device anyway, so drawing
/// frame n while the app runs frame n + 1 overlaps nothing, and it would put the picture one
/// frame behind the world (a capture then needs one more warm-up frame of a full draw; see
/// BENCHMARKS.md).
pub(super) fn new_app(roots: &[PathBuf], side: Arc<AtomicUsize>) -> App {
    let mut app = App::new();
    let reader = SideReader {
        roots: roots.to_vec(),
        side,
    };
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || Box::new(reader.clone())),
    );
    app.add_plugins(
        DefaultPlugins
            .build()
            .disable::<PipelinedRenderingPlugin>()
            .set(WindowPlugin {
                primary_window: None,
                exit_condition: ExitCondition::DontExit,
                ..Default::default()
            })
            .set(RenderPlugin {
                synchronous_pipeline_compilation: true,
                ..Default::default()
            })
            .set(AssetPlugin {
                meta_check: AssetMetaCheck::Never,
                watch_for_changes_override: Some(false),
                ..Default::default()
            })
            .set(LogPlugin {
                filter: "warn,wgpu=error,naga=error,bevy_render=warn".into(),
                ..Default::default()
            })
            .disable::<WinitPlugin>(),
    )
    .add_plugins(ForgeScenePlugin)
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 60.0,
    )))
    .add_observer(fill_in_visibility);
    app.finish();
    app.cleanup();
    app
}

/// Every scene entity gets `Visibility` if it has none, so hiding a scene's root hides all of
/// it (an entity without one would cut its subtree off from its parent's visibility).
fn fill_in_visibility(added: On<Add<ForgeEntityId>>, mut commands: Commands) {
    commands
        .entity(added.event_target())
        .insert_if_new(Visibility::Inherited);
}

/// The image the cameras draw into: 8-bit sRGB, `width` by `height` pixels, usable as a
/// render attachment and copied back for captures. `forge-editor`'s headless app draws into
/// one too.
pub fn render_target(app: &mut App, width: u32, height: u32) -> Handle<Image> {
    let mut image = Image::new_uninit(
        Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::RENDER_WORLD,
    );
    image.texture_descriptor.usage |= TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC;
    app.world_mut().resource_mut::<Assets<Image>>().add(image)
}

/// One frame, waiting for the device to finish it.
pub(super) fn frame(app: &mut App) {
    app.update();
    if let Some(device) = app.world().get_resource::<RenderDevice>() {
        let _ = device.wgpu_device().poll(PollType::Wait {
            submission_index: None,
            timeout: None,
        });
    }
}

pub(super) fn adapter_name(app: &App) -> String {
    match app.world().get_resource::<RenderAdapterInfo>() {
        Some(info) => format!(
            "{} ({}, {:?}, {:?})",
            info.name, info.driver_info, info.backend, info.device_type
        ),
        None => "unknown adapter".to_owned(),
    }
}

/// Frames until `done` holds, at most `frames`.
pub(super) fn run_until(
    app: &mut App,
    what: &str,
    frames: u32,
    mut done: impl FnMut(&mut World) -> bool,
) -> Result<(), RenderError> {
    let started = Instant::now();
    for _ in 0..frames {
        if done(app.world_mut()) {
            return Ok(());
        }
        frame(app);
        std::thread::sleep(Duration::from_millis(1));
    }
    Err(RenderError::Timeout {
        what: what.to_owned(),
        frames,
        seconds: started.elapsed().as_secs_f64(),
    })
}

pub(super) fn wait_loaded(
    app: &mut App,
    handle: &Handle<ForgeScene>,
    file: &Path,
) -> Result<(), RenderError> {
    let mut failed = None;
    run_until(
        app,
        &format!("loading {}", file.display()),
        LOAD_FRAMES,
        |world| {
            let server = world.resource::<AssetServer>();
            match server.recursive_dependency_load_state(handle) {
                RecursiveDependencyLoadState::Loaded => true,
                RecursiveDependencyLoadState::Failed(e) => {
                    failed = Some(e.to_string());
                    true
                }
                _ => false,
            }
        },
    )?;
    match failed {
        Some(message) => Err(RenderError::Load {
            file: file.to_owned(),
            message,
        }),
        None => Ok(()),
    }
}

/// Draws `warmup` frames, then the frame that captures the target; until its read-back
/// arrives, frames are drawn with every camera off (they draw nothing, so cost next to
/// nothing on a software rasteriser), then the cameras are turned on again. A blank capture is
/// tried again a few frames later before it is refused.
pub(super) fn capture(
    app: &mut App,
    target: &Handle<Image>,
    warmup: u32,
    file: &Path,
) -> Result<RgbaImage, RenderError> {
    let mut blank = None;
    for attempt in 0..3 {
        for _ in 0..warmup + attempt * 4 {
            frame(app);
        }
        let slot: Arc<Mutex<Option<Image>>> = Arc::default();
        let into = slot.clone();
        app.world_mut()
            .spawn(Screenshot::image(target.clone()))
            .observe(move |captured: On<ScreenshotCaptured>| {
                if let Ok(mut slot) = into.lock() {
                    *slot = Some(captured.image.clone());
                }
            });
        frame(app);
        let mut image = slot.lock().ok().and_then(|mut s| s.take());
        let active = cameras_off(app.world_mut());
        for _ in 0..30 {
            if image.is_some() {
                break;
            }
            frame(app);
            image = slot.lock().ok().and_then(|mut s| s.take());
        }
        for e in active {
            if let Some(mut camera) = app.world_mut().get_mut::<Camera>(e) {
                camera.is_active = true;
            }
        }
        let Some(image) = image else {
            return Err(RenderError::Timeout {
                what: "reading the capture back".into(),
                frames: 30,
                seconds: 0.0,
            });
        };
        let rgba = image
            .try_into_dynamic()
            .map_err(|e| RenderError::Job(format!("the capture could not be read: {e}")))?
            .to_rgba8();
        match check_not_blank(&rgba) {
            Ok(()) => return Ok(rgba),
            Err(e) => blank = Some(e),
        }
    }
    let custom = std::fs::read(file).map_or(0, |bytes| {
        bevy_forge_scene::format::SceneDoc::from_slice(&bytes)
            .map_or(0, |mut parsed| strip_custom(&mut parsed.doc))
    });
    Err(RenderError::Blank {
        file: file.to_owned(),
        blank: blank.unwrap_or(BlankCapture {
            r: 0,
            g: 0,
            b: 0,
            a: 0,
        }),
        note: match custom {
            0 => String::new(),
            1 => "; its one custom component is a game type, left out here (it draws nothing)"
                .to_owned(),
            n => format!(
                "; its {n} custom components are game types, left out here (they draw nothing)"
            ),
        },
    })
}

/// Turns every active camera off; returns them.
fn cameras_off(world: &mut World) -> Vec<Entity> {
    let mut query = world.query::<(Entity, &mut Camera)>();
    let mut turned = Vec::new();
    for (e, mut camera) in query.iter_mut(world) {
        if camera.is_active {
            camera.is_active = false;
            turned.push(e);
        }
    }
    turned
}

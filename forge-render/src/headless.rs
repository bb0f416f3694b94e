//! The scenes of a [`RenderJob`] drawn by Bevy's renderer without a window, in this process:
//! rendered to an `Image` target and read back with `Screenshot`, time advancing a fixed 1/60 s
//! per frame, a few warm-up frames first, and nothing temporal (no TAA, no bloom history), so
//! the same scene gives the same picture. Cameras draw without deband dithering: its noise
//! makes a capture's PNG many times larger (the showcase scene at 1280x720: 46 KB without,
//! 310 KB with). [`render_in_process`] is what the child process runs.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bevy_forge_scene::prelude::*;
use bevy_internal::DefaultPlugins;
use bevy_internal::app::{App, PluginGroup};
use bevy_internal::asset::io::{
    AssetReader, AssetReaderError, AssetSourceBuilder, AssetSourceId, PathStream, Reader, VecReader,
};
use bevy_internal::asset::{
    AssetApp, AssetMetaCheck, AssetPlugin, AssetServer, Assets, Handle, RecursiveDependencyLoadState,
    RenderAssetUsages,
};
use bevy_internal::camera::primitives::Aabb;
use bevy_internal::camera::visibility::Visibility;
use bevy_internal::camera::{
    Camera, Camera2d, Camera3d, ClearColorConfig, OrthographicProjection, PerspectiveProjection,
    Projection, RenderTarget,
};
use bevy_internal::ecs::prelude::*;
use bevy_internal::image::Image;
use bevy_internal::light::{DirectionalLight, PointLight, SpotLight};
use bevy_internal::log::LogPlugin;
use bevy_internal::math::{Vec2, Vec3};
use bevy_internal::render::RenderPlugin;
use bevy_internal::render::render_resource::{
    Extent3d, PollType, TextureDimension, TextureFormat, TextureUsages,
};
use bevy_internal::render::renderer::{RenderAdapterInfo, RenderDevice};
use bevy_internal::render::view::DebandDither;
use bevy_internal::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy_internal::sprite::{Sprite, Text2d};
use bevy_internal::time::TimeUpdateStrategy;
use bevy_internal::transform::components::{GlobalTransform, Transform};
use bevy_internal::window::{ExitCondition, WindowPlugin};
use bevy_internal::winit::WinitPlugin;
use image::RgbaImage;

use crate::compare::{BlankCapture, check_not_blank};
use crate::job::{
    CameraChoice, Capture, EntityBox, EntityChangeWords, PixelRect, RenderJob, Rendered, Timings,
};

/// Why a render failed.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A scene file did not load (with the loader's diagnostics).
    #[error("{file}: the scene did not load: {message}")]
    Load {
        /// The scene file.
        file: PathBuf,
        /// What the loader said.
        message: String,
    },
    /// A capture showed nothing.
    #[error("{file}: {blank}{note}")]
    Blank {
        /// The scene file.
        file: PathBuf,
        /// The colour of every pixel.
        blank: BlankCapture,
        /// Empty, or why the scene may show nothing here (`; its 3 custom components ...`).
        note: String,
    },
    /// `--camera` named no camera of the scene.
    #[error("{file}: {message}")]
    Camera {
        /// The scene file.
        file: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// A step did not finish within its number of frames.
    #[error("{what} did not finish within {frames} frames ({seconds:.1} s)")]
    Timeout {
        /// The step.
        what: String,
        /// Frames drawn meanwhile.
        frames: u32,
        /// Seconds spent.
        seconds: f64,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The job itself is wrong (no scene, zero size).
    #[error("{0}")]
    Job(String),
}

/// Frames a scene may take to load and spawn before the render gives up (a load normally
/// takes a few; a 10,000-entity scene a few dozen on a slow machine).
const LOAD_FRAMES: u32 = 3_000;

/// Renders every scene of `job` in this process, in one app, and writes capture `i` to
/// `job.capture_path(i)`.
///
/// # Errors
/// [`RenderError`]: a scene that does not load, a blank capture, a camera `job.camera` names
/// that the scene lacks, a step that does not finish, a file that cannot be written.
pub fn render_in_process(job: &RenderJob) -> Result<Rendered, RenderError> {
    if job.scenes.is_empty() {
        return Err(RenderError::Job("no scene to render".into()));
    }
    if job.width == 0 || job.height == 0 || job.width > 8192 || job.height > 8192 {
        return Err(RenderError::Job(format!(
            "size {}x{} is not between 1x1 and 8192x8192",
            job.width, job.height
        )));
    }
    std::fs::create_dir_all(&job.out_dir).map_err(|source| RenderError::Io {
        path: job.out_dir.clone(),
        source,
    })?;
    let started = Instant::now();
    let mut timings = Timings::default();
    let roots: Vec<PathBuf> = job
        .scenes
        .iter()
        .map(|s| s.assets.canonicalize().unwrap_or_else(|_| s.assets.clone()))
        .collect();
    let side = Arc::new(AtomicUsize::new(0));
    let mut app = new_app(&roots, side.clone());
    let target = render_target(&mut app, job.width, job.height);
    frame(&mut app);
    let adapter = adapter_name(&app);
    timings.startup = started.elapsed().as_secs_f64();

    // Load each scene with its own asset folder as the default source (prefab files are read
    // while it loads), then spawn them all hidden.
    let loaded = Instant::now();
    let mut handles = Vec::new();
    for (i, scene) in job.scenes.iter().enumerate() {
        side.store(i, Ordering::SeqCst);
        let path = scene_asset_path(i, &scene.file, &roots[i]);
        let handle: Handle<ForgeScene> = app.world().resource::<AssetServer>().load(path);
        wait_loaded(&mut app, &handle, &scene.file)?;
        handles.push(handle);
    }
    let mut roots_spawned = Vec::new();
    for handle in &handles {
        let root = app
            .world_mut()
            .spawn((ForgeSceneRoot(handle.clone()), Visibility::Hidden))
            .id();
        roots_spawned.push(root);
    }
    run_until(&mut app, "spawning the scenes", LOAD_FRAMES, |world| {
        roots_spawned
            .iter()
            .all(|r| world.get::<ForgeSceneInstance>(*r).is_some())
    })?;
    // Bounds (meshes, sprite images, text layout) are computed in the frames after spawning.
    // Bevy lays text out only for the scale factor of an active camera that sees a sprite or
    // text, and the scene's cameras have no target yet: our 2D camera looks at every scene,
    // zoomed far out, for these frames.
    let all = AutoCameras::spawn(app.world_mut(), &target);
    all.survey(app.world_mut(), &roots_spawned);
    for _ in 0..2 {
        frame(&mut app);
    }
    timings.load_spawn = loaded.elapsed().as_secs_f64();

    let frames_started = Instant::now();
    let bounds: Vec<Vec<Bounds>> = roots_spawned
        .iter()
        .map(|r| scene_bounds(app.world_mut(), *r))
        .collect();
    let together: Vec<Bounds> = bounds.iter().flatten().copied().collect();
    let mut captures = Vec::new();
    for (i, scene) in job.scenes.iter().enumerate() {
        let mut auto = AutoCameras {
            three_d: None,
            two_d: None,
        };
        let framed = if job.frame_together {
            &together[..]
        } else {
            &bounds[i][..]
        };
        auto.frame(app.world_mut(), framed, job.width, job.height, &all);
        for (j, root) in roots_spawned.iter().enumerate() {
            let visibility = if i == j {
                Visibility::Inherited
            } else {
                Visibility::Hidden
            };
            app.world_mut().entity_mut(*root).insert(visibility);
        }
        let camera = choose_cameras(
            &mut app,
            &roots_spawned,
            i,
            &job.camera,
            &auto,
            &all,
            &target,
        )
        .map_err(|message| RenderError::Camera {
            file: scene.file.clone(),
            message,
        })?;
        let image = capture(&mut app, &target, job.warmup_frames.max(1), &scene.file)?;
        let path = job.capture_path(i);
        crate::compare::save_png(&image, &path).map_err(|source| RenderError::Io {
            path: path.clone(),
            source,
        })?;
        let entities = entity_boxes(app.world_mut(), roots_spawned[i], job);
        captures.push(Capture {
            image: path,
            camera,
            entities,
        });
    }
    timings.frames = frames_started.elapsed().as_secs_f64();

    let changes = if handles.len() == 2 {
        let scenes = app.world().resource::<Assets<ForgeScene>>();
        match (scenes.get(&handles[0]), scenes.get(&handles[1])) {
            (Some(base), Some(head)) => crate::words::changes(base, head),
            _ => Vec::<EntityChangeWords>::new(),
        }
    } else {
        Vec::new()
    };
    Ok(Rendered {
        adapter,
        captures,
        changes,
        timings,
    })
}

/// The asset path scene `i` loads under: `@i/` then its path inside its asset folder (or its
/// absolute path when outside), so two versions of one file are two assets.
fn scene_asset_path(i: usize, file: &Path, root: &Path) -> String {
    let file = file.canonicalize().unwrap_or_else(|_| file.to_owned());
    let inside = file.strip_prefix(root).ok().map(Path::to_owned);
    let rel = inside.unwrap_or_else(|| PathBuf::from(format!("@abs{}", file.display())));
    format!("@{i}/{}", rel.to_string_lossy().replace('\\', "/"))
}

/// The app: Bevy's default plugins without a window (no `WinitPlugin`, no primary window,
/// never exiting by itself), pipelines compiled before the frame that needs them, fixed time,
/// the scene plugin, and the default asset source reading scene `side`'s folder.
fn new_app(roots: &[PathBuf], side: Arc<AtomicUsize>) -> App {
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

/// The image the cameras draw into: 8-bit sRGB, `width` by `height`.
fn render_target(app: &mut App, width: u32, height: u32) -> Handle<Image> {
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
fn frame(app: &mut App) {
    app.update();
    if let Some(device) = app.world().get_resource::<RenderDevice>() {
        let _ = device.wgpu_device().poll(PollType::Wait {
            submission_index: None,
            timeout: None,
        });
    }
}

fn adapter_name(app: &App) -> String {
    match app.world().get_resource::<RenderAdapterInfo>() {
        Some(info) => format!(
            "{} ({}, {:?}, {:?})",
            info.name, info.driver_info, info.backend, info.device_type
        ),
        None => "unknown adapter".to_owned(),
    }
}

/// Frames until `done` holds, at most `frames`.
fn run_until(
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

fn wait_loaded(app: &mut App, handle: &Handle<ForgeScene>, file: &Path) -> Result<(), RenderError> {
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

/// Draws `warmup` frames, then captures the target; a blank capture is tried again a few
/// frames later before it is refused.
fn capture(
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
        let mut image = None;
        for _ in 0..30 {
            frame(app);
            image = slot.lock().ok().and_then(|mut s| s.take());
            if image.is_some() {
                break;
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

/// What one entity covers in the world, for framing.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    min: Vec3,
    max: Vec3,
    two_d: bool,
}

/// The world bounds of every drawn entity of the instance on `root` (sprites, text, meshes);
/// when nothing is drawn, the places of its entities.
fn scene_bounds(world: &mut World, root: Entity) -> Vec<Bounds> {
    let entities: Vec<Entity> = match world.get::<ForgeSceneInstance>(root) {
        Some(instance) => instance.iter().map(|(_, e)| e).collect(),
        None => return Vec::new(),
    };
    let mut drawn = Vec::new();
    let mut places = Vec::new();
    for e in entities {
        let Ok(entity) = world.get_entity(e) else {
            continue;
        };
        let Some(global) = entity.get::<GlobalTransform>() else {
            continue;
        };
        let two_d = entity.contains::<Sprite>() || entity.contains::<Text2d>();
        match entity.get::<Aabb>() {
            Some(aabb) => {
                let (min, max) = world_box(global, aabb);
                drawn.push(Bounds { min, max, two_d });
            }
            None if !entity.contains::<Camera>() && !entity.contains::<DirectionalLight>() => {
                let p = global.translation();
                places.push(Bounds {
                    min: p,
                    max: p,
                    two_d,
                });
            }
            None => {}
        }
    }
    if drawn.is_empty() { places } else { drawn }
}

/// The corners of `aabb` through `global`, as a world-space box.
fn world_box(global: &GlobalTransform, aabb: &Aabb) -> (Vec3, Vec3) {
    let c = Vec3::from(aabb.center);
    let h = Vec3::from(aabb.half_extents);
    let mut min = Vec3::splat(f32::INFINITY);
    let mut max = Vec3::splat(f32::NEG_INFINITY);
    for corner in corners(c - h, c + h) {
        let p = global.transform_point(corner);
        min = min.min(p);
        max = max.max(p);
    }
    (min, max)
}

fn corners(min: Vec3, max: Vec3) -> [Vec3; 8] {
    [
        Vec3::new(min.x, min.y, min.z),
        Vec3::new(max.x, min.y, min.z),
        Vec3::new(min.x, max.y, min.z),
        Vec3::new(max.x, max.y, min.z),
        Vec3::new(min.x, min.y, max.z),
        Vec3::new(max.x, min.y, max.z),
        Vec3::new(min.x, max.y, max.z),
        Vec3::new(max.x, max.y, max.z),
    ]
}

/// Our cameras for [`CameraChoice::Auto`] and for scenes without cameras, framing the bounds
/// of every scene of the job together: `None` where no scene has that kind of content.
struct AutoCameras {
    three_d: Option<Entity>,
    two_d: Option<Entity>,
}

/// Where the auto 3D camera stands and looks to show every corner of `boxes` (world-space
/// `(min, max)` boxes) along [`three_quarter`], with vertical field of view `fov` (radians)
/// and `aspect` (width / height): `(eye, target, near, far)`. The corners of each box are
/// projected (not of their union, whose empty corners would waste the frame); the target is
/// moved sideways and the distance scaled a few times until the projected corners sit centred
/// and fill the frame but for a margin of about 5% on each side of the tighter direction.
fn aim_three_quarter(boxes: &[(Vec3, Vec3)], fov: f32, aspect: f32) -> (Vec3, Vec3, f32, f32) {
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for (min, max) in boxes {
        lo = lo.min(*min);
        hi = hi.max(*max);
    }
    // Very many boxes: the corners of their union (the frame is then a little looser).
    let points: Vec<Vec3> = if boxes.len() <= 20_000 {
        boxes.iter().flat_map(|(a, b)| corners(*a, *b)).collect()
    } else {
        corners(lo, hi).to_vec()
    };
    let radius = ((hi - lo).length() / 2.0).max(0.5);
    let back = three_quarter();
    let right = Vec3::Y.cross(back).normalize();
    let up = back.cross(right);
    let tan_y = (fov / 2.0).tan();
    let tan_x = tan_y * aspect;
    let mut target = (lo + hi) / 2.0;
    // Far enough for every corner to be in front and inside the frame (a start that is too
    // far, never too near).
    let mut distance = 0.5f32;
    for p in &points {
        let r = *p - target;
        let towards = r.dot(back);
        distance = distance
            .max(towards + radius * 0.1)
            .max(towards + 1.1 * r.dot(right).abs() / tan_x)
            .max(towards + 1.1 * r.dot(up).abs() / tan_y);
    }
    let span = |target: Vec3, distance: f32| {
        let eye = target + back * distance;
        let (mut min, mut max) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        let mut nearest = f32::INFINITY;
        for p in &points {
            let r = *p - eye;
            let depth = -r.dot(back);
            nearest = nearest.min(depth);
            let s = Vec2::new(
                r.dot(right) / (depth * tan_x),
                r.dot(up) / (depth * tan_y),
            );
            min = min.min(s);
            max = max.max(s);
        }
        (min, max, nearest)
    };
    for _ in 0..8 {
        let (min, max, _) = span(target, distance);
        let mid = (min + max) / 2.0;
        let half = ((max - min) / 2.0).max_element();
        target += (right * mid.x * tan_x + up * mid.y * tan_y) * distance;
        // Nearer scales the picture about as 1 / distance; never so near that a corner
        // comes within a tenth of the scene's size of the camera.
        let nearest_allowed = points
            .iter()
            .map(|p| (*p - target).dot(back))
            .fold(0.0f32, f32::max)
            + radius * 0.1;
        distance = (distance * half * 1.1).max(nearest_allowed);
    }
    let (_, _, nearest) = span(target, distance);
    let eye = target + back * distance;
    let near = (nearest * 0.5).max(0.05);
    let far = distance + radius * 2.0 + 10.0;
    (eye, target, near, far)
}

/// The three-quarter view's direction from the target: 35 degrees around from +Z towards +X,
/// 30 degrees up.
fn three_quarter() -> Vec3 {
    let (yaw, pitch) = (35f32.to_radians(), 30f32.to_radians());
    Vec3::new(
        yaw.sin() * pitch.cos(),
        pitch.sin(),
        yaw.cos() * pitch.cos(),
    )
}

impl AutoCameras {
    /// Our two cameras, off until [`frame`](Self::frame) aims them.
    fn spawn(world: &mut World, target: &Handle<Image>) -> Self {
        let three_d = world
            .spawn((
                Camera3d::default(),
                Camera {
                    order: 0,
                    is_active: false,
                    ..Default::default()
                },
                Projection::Perspective(PerspectiveProjection::default()),
                RenderTarget::Image(target.clone().into()),
                DebandDither::Disabled,
                Transform::default(),
            ))
            .id();
        let two_d = world
            .spawn((
                Camera2d,
                Camera {
                    order: 1,
                    is_active: false,
                    ..Default::default()
                },
                Projection::Orthographic(OrthographicProjection::default_2d()),
                RenderTarget::Image(target.clone().into()),
                DebandDither::Disabled,
                Transform::default(),
            ))
            .id();
        Self {
            three_d: Some(three_d),
            two_d: Some(two_d),
        }
    }

    /// Shows every scene of `roots` to our 2D camera zoomed far out (one pixel for a thousand
    /// units), so Bevy lays out their text and computes its bounds; the 3D camera stays off.
    fn survey(&self, world: &mut World, roots: &[Entity]) {
        for root in roots {
            world.entity_mut(*root).insert(Visibility::Inherited);
        }
        if let Some(e) = self.two_d {
            world.entity_mut(e).insert(Projection::Orthographic(OrthographicProjection {
                scale: 1_000.0,
                ..OrthographicProjection::default_2d()
            }));
            if let Some(mut camera) = world.get_mut::<Camera>(e) {
                camera.is_active = true;
            }
        }
    }

    /// Aims the cameras at `bounds` (width by height pixels): a camera whose kind of content
    /// `bounds` lacks is left out (`None`) until the next call.
    fn frame(
        &mut self,
        world: &mut World,
        bounds: &[Bounds],
        width: u32,
        height: u32,
        all: &AutoCameras,
    ) {
        let union = |two_d: bool| {
            let mut it = bounds.iter().filter(|b| b.two_d == two_d);
            let first = *it.next()?;
            Some(it.fold((first.min, first.max), |(a, b), x| {
                (a.min(x.min), b.max(x.max))
            }))
        };
        let aspect = width as f32 / height as f32;
        self.three_d = None;
        self.two_d = None;
        let boxes: Vec<(Vec3, Vec3)> = bounds
            .iter()
            .filter(|b| !b.two_d)
            .map(|b| (b.min, b.max))
            .collect();
        if let Some(e) = all.three_d
            && !boxes.is_empty()
        {
            let fov = std::f32::consts::FRAC_PI_4;
            let (eye, target, near, far) = aim_three_quarter(&boxes, fov, aspect);
            world.entity_mut(e).insert((
                Projection::Perspective(PerspectiveProjection {
                    fov,
                    near,
                    far,
                    ..Default::default()
                }),
                Transform::from_translation(eye).looking_at(target, Vec3::Y),
            ));
            self.three_d = Some(e);
        }
        if let (Some(e), Some((min, max))) = (all.two_d, union(true)) {
            let centre = (min + max) / 2.0;
            let size = (max - min).truncate();
            let fit = (size.x / width as f32).max(size.y / height as f32) * 1.1;
            let scale = if fit > 0.0 { fit } else { 1.0 };
            world.entity_mut(e).insert((
                Projection::Orthographic(OrthographicProjection {
                    scale,
                    ..OrthographicProjection::default_2d()
                }),
                Transform::from_xyz(centre.x, centre.y, 0.0),
            ));
            self.two_d = Some(e);
        }
    }
}

/// Turns on the cameras that draw scene `side` and off every other: returns them in words.
fn choose_cameras(
    app: &mut App,
    roots: &[Entity],
    side: usize,
    choice: &CameraChoice,
    auto: &AutoCameras,
    all: &AutoCameras,
    target: &Handle<Image>,
) -> Result<String, String> {
    let world = app.world_mut();
    // Every scene's cameras, off.
    let mut own: Vec<(Vec<u64>, Entity)> = Vec::new();
    for (i, root) in roots.iter().enumerate() {
        let Some(instance) = world.get::<ForgeSceneInstance>(*root) else {
            continue;
        };
        let cameras: Vec<(Vec<u64>, Entity)> = instance
            .iter()
            .filter(|(_, e)| world.get::<Camera>(*e).is_some())
            .map(|(p, e)| (p.to_vec(), e))
            .collect();
        for (path, e) in cameras {
            if let Some(mut camera) = world.get_mut::<Camera>(e) {
                camera.is_active = false;
            }
            if i == side {
                own.push((path, e));
            }
        }
    }
    for e in [all.three_d, all.two_d].into_iter().flatten() {
        if let Some(mut camera) = world.get_mut::<Camera>(e) {
            camera.is_active = false;
        }
    }
    own.sort_by(|a, b| a.0.cmp(&b.0));
    let picked: Vec<(Vec<u64>, Entity)> = match choice {
        CameraChoice::Auto => Vec::new(),
        CameraChoice::Scene => own,
        CameraChoice::Entity(path) => {
            let found: Vec<_> = own.iter().filter(|(p, _)| p == path).cloned().collect();
            if found.is_empty() {
                let known: Vec<String> = own.iter().map(|(p, _)| path_text(p)).collect();
                return Err(format!(
                    "--camera {}: the scene has no camera at that id path (its cameras: {})",
                    path_text(path),
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ));
            }
            found
        }
    };
    if picked.is_empty() {
        let mut words = Vec::new();
        for (e, what) in [
            (auto.three_d, "auto 3D camera"),
            (auto.two_d, "auto 2D camera"),
        ] {
            if let Some(e) = e
                && let Some(mut camera) = world.get_mut::<Camera>(e)
            {
                camera.is_active = true;
                camera.clear_color = if words.is_empty() {
                    ClearColorConfig::Default
                } else {
                    ClearColorConfig::None
                };
                words.push(what);
            }
        }
        if words.is_empty() {
            words.push("no camera (nothing to frame)");
        }
        return Ok(words.join(" and "));
    }
    // The scene's cameras: 3D before 2D, then by their own order; each later one draws over.
    let mut cameras: Vec<(bool, isize, Vec<u64>, Entity)> = picked
        .into_iter()
        .map(|(p, e)| {
            let two_d = world.get::<Camera2d>(e).is_some();
            let order = world.get::<Camera>(e).map_or(0, |c| c.order);
            (two_d, order, p, e)
        })
        .collect();
    cameras.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut words = Vec::new();
    for (n, (_, _, path, e)) in cameras.iter().enumerate() {
        let name = world
            .get::<bevy_internal::ecs::name::Name>(*e)
            .map(|n| n.as_str().to_owned())
            .unwrap_or_default();
        words.push(format!("the scene's camera {} {name:?}", path_text(path)));
        world
            .entity_mut(*e)
            .insert((RenderTarget::Image(target.clone().into()), DebandDither::Disabled));
        // Bevy's `camera_system` computes a camera's target size only when the camera is
        // added, its projection changes or its target's image or window changes, not when
        // its `RenderTarget` is replaced: touch the projection so the image's size is taken.
        if let Some(mut projection) = world.get_mut::<Projection>(*e) {
            projection.set_changed();
        }
        if let Some(mut camera) = world.get_mut::<Camera>(*e) {
            camera.is_active = true;
            camera.order = n as isize;
            camera.clear_color = if n == 0 {
                ClearColorConfig::Default
            } else {
                ClearColorConfig::None
            };
        }
    }
    Ok(words.join(" and "))
}

/// `[5, 2]`.
pub(crate) fn path_text(path: &[u64]) -> String {
    let ids: Vec<String> = path.iter().map(u64::to_string).collect();
    format!("[{}]", ids.join(", "))
}

/// Where every entity of the instance on `root` shows, through the cameras now active.
fn entity_boxes(world: &mut World, root: Entity, job: &RenderJob) -> Vec<EntityBox> {
    let (w, h) = (job.width, job.height);
    let mut cameras: Vec<(Camera, GlobalTransform, bool)> = Vec::new();
    let mut query = world.query::<(&Camera, &GlobalTransform, Has<Camera2d>)>();
    for (camera, global, two_d) in query.iter(world) {
        if camera.is_active {
            cameras.push((camera.clone(), *global, two_d));
        }
    }
    cameras.sort_by_key(|c| c.0.order);
    let camera_for = |two_d: bool| {
        cameras
            .iter()
            .find(|c| c.2 == two_d)
            .or_else(|| cameras.first())
            .map(|c| (&c.0, &c.1))
    };
    let project = |two_d: bool, points: &[Vec3]| -> Option<PixelRect> {
        let (camera, global) = camera_for(two_d)?;
        let mut min = Vec2::splat(f32::INFINITY);
        let mut max = Vec2::splat(f32::NEG_INFINITY);
        let mut any = false;
        for p in points {
            if let Ok(v) = camera.world_to_viewport(global, *p) {
                min = min.min(v);
                max = max.max(v);
                any = true;
            }
        }
        if !any {
            return None;
        }
        let x0 = min.x.floor().max(0.0);
        let y0 = min.y.floor().max(0.0);
        let x1 = max.x.ceil().min(w as f32);
        let y1 = max.y.ceil().min(h as f32);
        (x1 > x0 && y1 > y0).then(|| PixelRect {
            x0: x0 as u32,
            y0: y0 as u32,
            x1: x1 as u32,
            y1: y1 as u32,
        })
    };
    let Some(instance) = world.get::<ForgeSceneInstance>(root).cloned() else {
        return Vec::new();
    };
    let mut boxes: Vec<EntityBox> = Vec::new();
    let mut index = bevy_internal::platform::collections::HashMap::new();
    let mut parents = Vec::new();
    let mut entries: Vec<(Vec<u64>, Entity)> =
        instance.iter().map(|(p, e)| (p.to_vec(), e)).collect();
    entries.sort();
    for (path, e) in entries {
        let Ok(entity) = world.get_entity(e) else {
            continue;
        };
        let name = entity
            .get::<bevy_internal::ecs::name::Name>()
            .map(|n| n.as_str().to_owned())
            .unwrap_or_default();
        let global = entity.get::<GlobalTransform>().copied().unwrap_or_default();
        let two_d = entity.contains::<Sprite>() || entity.contains::<Text2d>();
        let at = global.translation();
        let own = if entity.contains::<Camera>() {
            None
        } else if entity.contains::<DirectionalLight>() {
            Some(PixelRect {
                x0: 0,
                y0: 0,
                x1: w,
                y1: h,
            })
        } else if let Some(aabb) = entity.get::<Aabb>() {
            let (min, max) = world_box(&global, aabb);
            project(two_d, &corners(min, max))
        } else if let Some(range) = entity
            .get::<PointLight>()
            .map(|l| l.range)
            .or_else(|| entity.get::<SpotLight>().map(|l| l.range))
        {
            project(
                false,
                &corners(at - Vec3::splat(range), at + Vec3::splat(range)),
            )
        } else {
            project(two_d, &[at]).map(|r| {
                let (cx, cy) = (r.x0, r.y0);
                PixelRect {
                    x0: cx,
                    y0: cy,
                    x1: cx + 1,
                    y1: cy + 1,
                }
                .grown(8, w, h)
            })
        };
        let parent = entity
            .get::<bevy_internal::ecs::hierarchy::ChildOf>()
            .map(|c| c.parent());
        index.insert(e, boxes.len());
        parents.push(parent);
        boxes.push(EntityBox {
            path,
            name,
            own,
            subtree: own,
        });
    }
    // Each entity's box into every ancestor's subtree box.
    for i in 0..boxes.len() {
        let Some(own) = boxes[i].own else { continue };
        let mut up = parents[i];
        let mut guard = 0;
        while let Some(p) = up
            && let Some(&j) = index.get(&p)
            && guard < 1_000
        {
            boxes[j].subtree = Some(match boxes[j].subtree {
                Some(s) => s.union(own),
                None => own,
            });
            up = parents[j];
            guard += 1;
        }
    }
    boxes
}

/// The default asset source of a render: scene `i`'s asset folder for `@i/...` paths, and for
/// every other path the folder of the scene being loaded now (`side`): a prefab file a scene
/// places is read from that scene's own folder, so the two revisions of a review each read
/// their own prefabs.
#[derive(Clone)]
struct SideReader {
    roots: Vec<PathBuf>,
    side: Arc<AtomicUsize>,
}

impl SideReader {
    /// The file on disk of asset path `path`.
    fn resolve(&self, path: &Path) -> PathBuf {
        let text = path.to_string_lossy();
        if let Some(rest) = text.strip_prefix('@')
            && let Some((n, rest)) = rest.split_once('/')
            && let Ok(i) = n.parse::<usize>()
            && let Some(root) = self.roots.get(i)
        {
            return match rest.strip_prefix("@abs") {
                Some(abs) => PathBuf::from(abs),
                None => root.join(rest),
            };
        }
        let i = self.side.load(Ordering::SeqCst);
        match self.roots.get(i).or(self.roots.last()) {
            Some(root) => root.join(path),
            None => path.to_owned(),
        }
    }

    fn bytes(&self, path: &Path) -> Result<VecReader, AssetReaderError> {
        let file = self.resolve(path);
        match std::fs::read(&file) {
            Ok(bytes) if file.to_string_lossy().ends_with(".forge.ron") => {
                Ok(VecReader::new(without_custom(bytes)))
            }
            Ok(bytes) => Ok(VecReader::new(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(AssetReaderError::NotFound(path.to_owned()))
            }
            Err(e) => Err(AssetReaderError::Io(Arc::new(e))),
        }
    }
}

impl AssetReader for SideReader {
    async fn read<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        self.bytes(path)
    }

    async fn read_meta<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
        // `AssetMetaCheck::Never`: no `.meta` file is asked for; say so if one is.
        let mut meta = path.as_os_str().to_owned();
        meta.push(".meta");
        self.bytes(Path::new(&meta))
    }

    async fn read_directory<'a>(
        &'a self,
        path: &'a Path,
    ) -> Result<Box<PathStream>, AssetReaderError> {
        Err(AssetReaderError::NotFound(path.to_owned()))
    }

    async fn is_directory<'a>(&'a self, path: &'a Path) -> Result<bool, AssetReaderError> {
        Ok(self.resolve(path).is_dir())
    }
}

/// The scene text `bytes` without its custom components (in entities, and set, added or
/// removed by overrides): they are the game's types, which this program does not have, and
/// they draw nothing. A file with none, or that does not read, is given as it is (so its
/// errors keep their lines and columns).
pub fn without_custom(bytes: Vec<u8>) -> Vec<u8> {
    let Ok(parsed) = bevy_forge_scene::format::SceneDoc::from_slice(&bytes) else {
        return bytes;
    };
    let mut doc = parsed.doc;
    if strip_custom(&mut doc) == 0 {
        bytes
    } else {
        doc.to_canonical_string().into_bytes()
    }
}

/// Takes the custom components out of `doc` (in entities, and set, added or removed by
/// overrides of instances and tile layers); returns how many there were.
fn strip_custom(doc: &mut bevy_forge_scene::format::SceneDoc) -> usize {
    use bevy_forge_scene::format::{ComponentData, Override};
    let mut removed = 0;
    let is_custom = |c: &ComponentData| matches!(c, ComponentData::Custom(_));
    let strip = |overrides: &mut Vec<Override>, removed: &mut usize| {
        for o in overrides {
            let before = o.set.len() + o.add.len() + o.remove.len();
            o.set.retain(|p| !is_custom(&p.component));
            o.add.retain(|c| !is_custom(c));
            o.remove.retain(|k| !k.starts_with("custom:"));
            *removed += before - (o.set.len() + o.add.len() + o.remove.len());
        }
    };
    for node in doc.entities.values_mut() {
        let before = node.components.len();
        node.components.retain(|c| !is_custom(c));
        removed += before - node.components.len();
        if let Some(instance) = &mut node.instance {
            strip(&mut instance.overrides, &mut removed);
        }
    }
    for layer in &mut doc.layers {
        strip(&mut layer.overrides, &mut removed);
    }
    removed
}

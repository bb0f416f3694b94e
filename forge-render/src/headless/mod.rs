//! The scenes of a [`RenderJob`] drawn by Bevy's renderer without a window, in this process:
//! rendered to an `Image` target and read back with `Screenshot`, time advancing a fixed 1/60 s
//! per frame, a few warm-up frames first, and nothing temporal (no TAA, no bloom history), so
//! the same scene gives the same picture. Cameras draw without deband dithering: its noise
//! makes a capture's PNG many times larger (the showcase scene at 1280x720: 46 KB without,
//! 310 KB with). [`render_in_process`] is what the child process runs.

//!
//! Its parts: [`app`] (the app, frames, the capture), [`cameras`] (which cameras draw, the
//! auto cameras' framing), [`bounds`] (where entities are in the world and in the picture) and
//! [`reader`] (the asset source, scene text without custom components).

mod app;
mod bounds;
mod cameras;
mod reader;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use bevy_forge_scene::prelude::*;
use bevy_internal::asset::{AssetServer, Handle};
use bevy_internal::camera::visibility::Visibility;
use bevy_internal::ecs::prelude::*;

pub use app::render_target;
pub use bounds::world_box;
pub(crate) use cameras::path_text;
pub use reader::without_custom;

use app::{adapter_name, capture, frame, new_app, run_until, wait_loaded};
use bounds::{Bounds, entity_boxes, scene_bounds};
use cameras::{AutoCameras, choose_cameras};

use crate::compare::BlankCapture;
use crate::job::{Capture, RenderJob, Rendered, Timings};

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
        let save = if job.quick_captures {
            crate::compare::save_png_quick
        } else {
            crate::compare::save_png
        };
        save(&image, &path).map_err(|source| RenderError::Io {
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

    // The changes from the files as written, with the game's own components the render left
    // out (a change of those alone is listed, as drawing nothing).
    let changes = match &job.scenes[..] {
        [base, head] => {
            let read = |s: &crate::job::SceneFile| {
                crate::words::Version::read(&s.file, &s.assets).map_err(|message| {
                    RenderError::Load {
                        file: s.file.clone(),
                        message,
                    }
                })
            };
            crate::words::changes(&read(base)?, &read(head)?)
        }
        _ => Vec::new(),
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

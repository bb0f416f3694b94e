//! What a render is asked ([`RenderJob`]) and what it gives back ([`Rendered`]): plain data,
//! written as JSON between the `forge-render` process and the child process that renders.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One render: the scenes drawn one after the other in one app, through one camera choice,
/// at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RenderJob {
    /// The scenes, in order (a review: base, then head).
    pub scenes: Vec<SceneFile>,
    /// Width of the captures in pixels.
    pub width: u32,
    /// Height of the captures in pixels.
    pub height: u32,
    /// Which camera draws.
    pub camera: CameraChoice,
    /// Where capture `i` is written, as `capture-{i}.png`.
    pub out_dir: PathBuf,
    /// Frames drawn before the frame that captures (at least 1). Two: in the first frame a
    /// camera draws, point and spot lights light nothing yet (Bevy assigns lights to the
    /// camera's clusters a frame late), so with one the street scene's lamps leave the road
    /// dark; with two the golden images (made with three) match within their tolerance, and
    /// each frame more is one more full draw.
    pub warmup_frames: u32,
    /// [`CameraChoice::Auto`] (and scenes without cameras) frame every scene of the job
    /// together, so their pictures line up (a review), instead of each scene alone.
    pub frame_together: bool,
    /// Captures written at the PNG encoder's fastest setting (larger files, a fraction of the
    /// time): a review reads its two captures once and writes pictures of its own.
    #[serde(default)]
    pub quick_captures: bool,
}

impl RenderJob {
    /// A job for `scenes` at 1280x720 through their own cameras, 2 warm-up frames, each scene
    /// framed alone.
    pub fn new(scenes: Vec<SceneFile>, out_dir: impl Into<PathBuf>) -> Self {
        Self {
            scenes,
            width: 1280,
            height: 720,
            camera: CameraChoice::Scene,
            out_dir: out_dir.into(),
            warmup_frames: 2,
            frame_together: false,
            quick_captures: false,
        }
    }

    /// The path of capture `i`.
    pub fn capture_path(&self, i: usize) -> PathBuf {
        self.out_dir.join(format!("capture-{i}.png"))
    }
}

/// A scene file and the asset folder its paths are relative to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SceneFile {
    /// The asset folder: prefab files (`prefabs/wall.forge.ron`) and images are read from it.
    pub assets: PathBuf,
    /// The scene file, as a path on disk (inside `assets` or anywhere).
    pub file: PathBuf,
}

/// Which camera draws a capture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum CameraChoice {
    /// The scene's own cameras when it has any (all of them, 3D before 2D, each later one
    /// drawing over the earlier ones), else [`Auto`](Self::Auto).
    #[default]
    Scene,
    /// A camera of ours framing every drawn entity: top-down orthographic for sprites and
    /// text, a three-quarter perspective view for meshes (both when a scene has both, 2D over
    /// 3D). The scene's cameras are turned off. A review frames both scenes together, so the
    /// two pictures line up.
    Auto,
    /// The scene's camera at this id path (`[1]`, or `[5, 2]` for one a prefab placed); the
    /// scene's other cameras are turned off.
    Entity(Vec<u64>),
}

/// What a render gives back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rendered {
    /// The graphics adapter that drew: `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)` on
    /// Mesa's lavapipe.
    pub adapter: String,
    /// One capture per scene of the job, in order.
    pub captures: Vec<Capture>,
    /// For a job of two scenes (base, head): the changes from the first to the second by id
    /// path, from their files as written (custom components kept). Empty otherwise.
    pub changes: Vec<EntityChangeWords>,
    /// Where the time went.
    pub timings: Timings,
}

/// One scene's capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capture {
    /// The PNG written.
    pub image: PathBuf,
    /// Which camera drew, in words (`the scene's camera [1] "Camera"`, `auto 3D camera`).
    pub camera: String,
    /// Every entity of the scene (prefab and tile entities included) with where it shows.
    pub entities: Vec<EntityBox>,
}

/// Where one entity shows in a capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityBox {
    /// Its id path (`[4]`, `[5, 2]`, `[40, 2, 0, 1]`).
    pub path: Vec<u64>,
    /// Its name.
    pub name: String,
    /// What the entity itself covers: its drawn bounds (sprites, text, meshes), the reach of a
    /// point or spot light (`range`), the whole picture for a directional light, a small
    /// square at its place otherwise. `None` when off screen, or for a camera.
    pub own: Option<PixelRect>,
    /// `own` together with every entity below it.
    pub subtree: Option<PixelRect>,
}

/// A rectangle of pixels, `x0..x1` by `y0..y1` (ends excluded), y down from the top row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PixelRect {
    /// Left column.
    pub x0: u32,
    /// Top row.
    pub y0: u32,
    /// One past the right column.
    pub x1: u32,
    /// One past the bottom row.
    pub y1: u32,
}

impl PixelRect {
    /// The smallest rectangle holding both.
    pub fn union(self, other: PixelRect) -> PixelRect {
        PixelRect {
            x0: self.x0.min(other.x0),
            y0: self.y0.min(other.y0),
            x1: self.x1.max(other.x1),
            y1: self.y1.max(other.y1),
        }
    }

    /// Whether pixel `(x, y)` is inside.
    pub fn contains(&self, x: u32, y: u32) -> bool {
        x >= self.x0 && x < self.x1 && y >= self.y0 && y < self.y1
    }

    /// Its width in pixels (0 when empty).
    pub fn width(&self) -> u32 {
        self.x1.saturating_sub(self.x0)
    }

    /// Its height in pixels (0 when empty).
    pub fn height(&self) -> u32 {
        self.y1.saturating_sub(self.y0)
    }

    /// Its area in pixels.
    pub fn area(&self) -> u64 {
        u64::from(self.width()) * u64::from(self.height())
    }

    /// The pixels both rectangles hold, when they share any.
    pub fn intersection(self, other: PixelRect) -> Option<PixelRect> {
        let r = PixelRect {
            x0: self.x0.max(other.x0),
            y0: self.y0.max(other.y0),
            x1: self.x1.min(other.x1),
            y1: self.y1.min(other.y1),
        };
        (r.x1 > r.x0 && r.y1 > r.y0).then_some(r)
    }

    /// This rectangle grown by `margin` pixels on every side, kept inside `width` by `height`.
    pub fn grown(self, margin: u32, width: u32, height: u32) -> PixelRect {
        PixelRect {
            x0: self.x0.saturating_sub(margin),
            y0: self.y0.saturating_sub(margin),
            x1: (self.x1 + margin).min(width),
            y1: (self.y1 + margin).min(height),
        }
    }
}

/// What kind of change an entity had, which sets its outline's colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChangeKind {
    /// Only in the head scene (with everything below it).
    Added,
    /// Only in the base scene (with everything below it).
    Removed,
    /// Its transform or its parent changed (and maybe more).
    Moved,
    /// Its name, components or instance changed, not its place.
    Edited,
}

impl ChangeKind {
    /// `added`, `removed`, `moved`, `edited`.
    pub fn word(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Moved => "moved",
            ChangeKind::Edited => "edited",
        }
    }
}

/// One entity's change from base to head, in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityChangeWords {
    /// What kind of change.
    pub kind: ChangeKind,
    /// The entity's id path (in the head scene; in the base scene when removed). Empty for a
    /// change of the scene itself (its name).
    pub path: Vec<u64>,
    /// The entity's name (in the head scene; in the base when removed).
    pub name: String,
    /// One line per change: `translation (4, 0, 0) -> (6, 0, 0)`,
    /// `point_light intensity 1000 -> 4000`, `removed with 3 entities below it`.
    pub lines: Vec<String>,
    /// Whether the change can show in a picture: an entity added, removed or moved, or a
    /// built-in component added, removed or changed. False for a change of names, the `locked`
    /// flag or the game's own (custom) components alone, which draw nothing.
    #[serde(default = "drawn")]
    pub draws: bool,
}

fn drawn() -> bool {
    true
}

/// Where a render's time went, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Timings {
    /// The app built and the renderer started (adapter, device, pipelines of the first
    /// frame).
    pub startup: f64,
    /// The scene files read, checked and prepared (prefabs and images with them), and spawned.
    pub load_spawn: f64,
    /// Warm-up frames, captures and their read-back.
    pub frames: f64,
}

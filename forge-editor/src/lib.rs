//! Edit mode for `bevy_forge_scene`: in the running game, click an entity a scene made, drag
//! it with a transform gizmo, and keep the drag in its `.forge.ron` file (only that value's
//! bytes change; comments stay), with undo and redo; `forge edit SCENE` opens one scene in a
//! window of its own with the same edit mode.
//!
//! ```no_run
//! use bevy_forge_scene::prelude::*;
//! use bevy_forge_scene_editor::ForgeEditorPlugin;
//! # use bevy_internal::app::App;
//! # use bevy_internal::DefaultPlugins;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, ForgeScenePlugin))
//!     // F2 toggles edit mode; files under `assets/`.
//!     .add_plugins(ForgeEditorPlugin::default());
//! ```
//!
//! Its parts: [`gizmo`] and [`math`] (the handles' geometry, pure), [`write`] (every write:
//! keep, undo, redo, the history), `select` (picking to selection, what the panel shows),
//! `interact` (pointer and keys), `overlay` (outline, handles, label), `panel` (status line and
//! panel), [`camera`] (the free camera of `forge edit`), [`standalone`] (its scenes without
//! their game's code), [`headless`] (a windowless app driven by synthetic input, for tests,
//! the scripted example and the bench).
//!
//! Out of edit mode the plugin's systems do not run (one system looks at the keyboard in the
//! frames a key changes). Picking itself is Bevy's (`bevy_picking`'s sprite, mesh and UI
//! backends); in edit mode its backends and hover map run only in frames where a pointer moved,
//! pressed, released or scrolled (the hover map is otherwise what it was), so a still pointer
//! costs no hit tests against every sprite.

pub mod camera;
pub mod gizmo;
pub mod headless;
mod interact;
pub mod math;
mod overlay;
mod panel;
mod select;
pub mod standalone;
pub mod write;

use std::path::PathBuf;

use bevy_forge_scene::live_link::{KeepInto, LiveDifference, LiveLink};
use bevy_internal::app::{App, Plugin, PostUpdate, PreUpdate, Update};
use bevy_internal::ecs::prelude::*;
use bevy_internal::gizmos::AppGizmoBuilder;
use bevy_internal::gizmos::config::{GizmoConfigGroup, GizmoConfigStore};
use bevy_internal::input::ButtonInput;
use bevy_internal::input::keyboard::KeyCode;
use bevy_internal::picking::PickingSystems;
use bevy_internal::picking::mesh_picking::{MeshPickingPlugin, MeshPickingSettings};
use bevy_internal::picking::pointer::PointerInput;
use bevy_internal::reflect::Reflect;
use bevy_internal::time::{Time, Virtual};
use bevy_internal::transform::TransformSystems;

pub use gizmo::{GizmoMode, GizmoSpace, Snapping};
pub use write::EditHistory;

/// Edit mode: a key toggles it (F2 by default); in it, a click selects the scene entity under
/// the pointer, the gizmo's handles drag it, and a finished drag is kept in its file (or on
/// Ctrl+S, with [`keep_on_save`](Self::keep_on_save)). See the crate docs and
/// `docs/guide/edit-mode.md` for the keys.
#[derive(Debug, Clone, Default)]
pub struct ForgeEditorPlugin {
    settings: EditorSettings,
    start_on: bool,
    asset_root: Option<PathBuf>,
}

impl ForgeEditorPlugin {
    /// Toggles edit mode with `key` instead of F2.
    #[must_use]
    pub fn with_toggle_key(mut self, key: KeyCode) -> Self {
        self.settings.toggle = key;
        self
    }

    /// Whether edit mode pauses `Time<Virtual>` (the game's clock) while it is on: yes by
    /// default.
    #[must_use]
    pub fn pausing(mut self, pause: bool) -> Self {
        self.settings.pause = pause;
        self
    }

    /// Keeps drags only when Ctrl+S is pressed, not as each drag ends.
    #[must_use]
    pub fn keep_on_save(mut self) -> Self {
        self.settings.keep_on_release = false;
        self
    }

    /// The steps snapping uses while Ctrl is held.
    #[must_use]
    pub fn with_snapping(mut self, snapping: Snapping) -> Self {
        self.settings.snapping = snapping;
        self
    }

    /// Reads and writes scene files under `asset_root` (the folder `AssetPlugin`'s `file_path`
    /// names). By default `assets/` in Bevy's base path, as `AssetPlugin`'s default. Ignored
    /// when the app already has a [`LiveLink`].
    #[must_use]
    pub fn with_asset_root(mut self, asset_root: impl Into<PathBuf>) -> Self {
        self.asset_root = Some(asset_root.into());
        self
    }

    /// Starts in edit mode (`forge edit` does).
    #[must_use]
    pub fn starting_in_edit_mode(mut self) -> Self {
        self.start_on = true;
        self
    }
}

/// What the editor does, changeable while the game runs.
#[derive(Resource, Debug, Clone)]
pub struct EditorSettings {
    /// The key that toggles edit mode (F2).
    pub toggle: KeyCode,
    /// Whether edit mode pauses `Time<Virtual>`.
    pub pause: bool,
    /// Whether a drag is kept as it ends (`true`, the default) or on Ctrl+S.
    pub keep_on_release: bool,
    /// Snapping steps, used while Ctrl is held.
    pub snapping: Snapping,
    /// Where a value of an entity a prefab placed is kept: into the scene as an override of
    /// the instance (the default), or into the prefab file. Holding Alt as a drag ends keeps
    /// it into the prefab; the panel's control and P switch this.
    pub into: KeepInto,
}

impl Default for EditorSettings {
    fn default() -> Self {
        Self {
            toggle: KeyCode::F2,
            pause: true,
            keep_on_release: true,
            snapping: Snapping::default(),
            into: KeepInto::Instance,
        }
    }
}

/// Whether edit mode is on. Set it to turn edit mode on or off from code.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EditMode(pub bool);

/// The selected scene entities, the primary one (the gizmo's) last.
#[derive(Resource, Debug, Clone, Default)]
pub struct Selection {
    /// Selected entities; the last is the primary one.
    pub entities: Vec<Entity>,
}

impl Selection {
    /// The primary selected entity.
    pub fn primary(&self) -> Option<Entity> {
        self.entities.last().copied()
    }
}

/// What the panel shows of the primary selected entity: read when it is selected and again
/// after each keep, undo, redo or reload.
#[derive(Resource, Debug, Clone, Default)]
pub struct SelectedInfo {
    /// The entity, `None` when nothing is selected.
    pub entity: Option<Entity>,
    /// Its scene root.
    pub root: Option<Entity>,
    /// Its name.
    pub name: String,
    /// Its id path in the root's scene.
    pub id_path: Vec<u64>,
    /// The places that make it, as `asset:line (kind)`: the overrides in the scene first, then
    /// its entry.
    pub places: Vec<String>,
    /// `Some(asset:line)` when its entry says `locked: true`.
    pub locked: Option<String>,
    /// The fields whose live value differs from the files.
    pub differences: Vec<LiveDifference>,
}

/// The status line: what the editor did last, or why it did not.
#[derive(Resource, Debug, Clone, Default, PartialEq, Eq)]
pub struct EditorStatus {
    /// The text.
    pub text: String,
    /// Whether it reports a refusal or an error.
    pub error: bool,
}

impl EditorStatus {
    fn say(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.error = false;
    }

    fn refuse(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.error = true;
    }
}

/// The gizmo's mode and space, the handle under the pointer, and the drag under way.
#[derive(Resource, Debug, Clone, Default)]
pub struct GizmoState {
    /// What a drag does.
    pub mode: GizmoMode,
    /// World or local axes.
    pub space: GizmoSpace,
    /// The handle under the pointer.
    pub hovered: Option<gizmo::GizmoHandle>,
    /// The drag under way.
    pub(crate) drag: Option<interact::Drag>,
    /// The camera the pointer works through.
    pub(crate) camera: Option<Entity>,
}

impl GizmoState {
    /// Whether a drag is under way.
    pub fn dragging(&self) -> bool {
        self.drag.is_some()
    }
}

/// Values dragged but not kept yet (with [`ForgeEditorPlugin::keep_on_save`]): Ctrl+S keeps
/// them.
#[derive(Resource, Debug, Clone, Default)]
pub struct Unsaved {
    /// Root, id path and transform part of each.
    pub changes: Vec<(Entity, bevy_forge_scene::live_link::FieldRef)>,
}

/// The gizmo lines of edit mode: drawn over the scene (a negative depth bias), two pixels wide.
#[derive(Default, Reflect, GizmoConfigGroup)]
pub struct EditorGizmos;

/// The editor's systems, in `Update` (input, selection, drags, keeps) and `PostUpdate`
/// (overlay and panel, after transforms propagate). They run only in edit mode.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum EditorSystems {
    /// Pointer and keys: selection, drags, keeps, undo.
    Input,
    /// The outline, gizmo, label and panel.
    Overlay,
}

/// The editor added mesh picking (the game had none): it runs only in edit mode.
#[derive(Resource)]
struct OwnMeshPicking;

/// Whether Bevy's picking looks under the pointers this frame: always out of edit mode (the
/// game's picking as it was); in edit mode only when a pointer did something (below).
#[derive(Resource, Default)]
struct PickThisFrame(bool);

/// In edit mode, picking is asked for in the frames where a pointer moved, pressed, released or
/// scrolled, and in the frame edit mode starts. In the other frames the backends (which test
/// the pointer's ray against every sprite and mesh: at 10,000 sprites most of what edit mode
/// cost a frame) and the hover map are left as they were, so no hover event is sent either:
/// nothing under a still pointer changes while the game's clock is paused. A click always
/// has a fresh hover map, as its press and release are pointer input.
fn note_pointer_input(
    mut input: MessageReader<PointerInput>,
    mode: Res<EditMode>,
    mut pick: ResMut<PickThisFrame>,
) {
    let acted = !input.is_empty();
    input.clear();
    let wanted = !mode.0 || mode.is_changed() || acted;
    if pick.0 != wanted {
        pick.0 = wanted;
    }
}

/// Edit mode is on, or was just turned off (picking is then asked for again).
fn on_or_just_changed(mode: Res<EditMode>) -> bool {
    mode.0 || mode.is_changed()
}

fn pick_this_frame(pick: Res<PickThisFrame>) -> bool {
    pick.0
}

/// Whether edit mode is on: the run condition of the editor's systems.
pub fn in_edit_mode(mode: Option<Res<EditMode>>) -> bool {
    mode.is_some_and(|m| m.0)
}

impl Plugin for ForgeEditorPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<MeshPickingPlugin>() {
            // Ours: it casts rays only in edit mode (markers required, and none given, out of
            // it), so a game without mesh picking pays nothing for it then.
            app.add_plugins(MeshPickingPlugin)
                .insert_resource(MeshPickingSettings {
                    require_markers: true,
                    ..Default::default()
                })
                .insert_resource(OwnMeshPicking);
        }
        if !app.world().contains_resource::<LiveLink>() {
            let root = self.asset_root.clone().unwrap_or_else(|| {
                bevy_internal::asset::io::file::FileAssetReader::get_base_path().join("assets")
            });
            app.insert_resource(LiveLink::new(root));
        }
        app.insert_resource(self.settings.clone())
            .insert_resource(EditMode(false))
            .init_resource::<Selection>()
            .init_resource::<SelectedInfo>()
            .init_resource::<EditorStatus>()
            .init_resource::<GizmoState>()
            .init_resource::<EditHistory>()
            .init_resource::<Unsaved>()
            .init_resource::<select::Refresh>()
            .init_resource::<overlay::LabelPlace>()
            .insert_resource(PickThisFrame(true))
            .init_gizmo_group::<EditorGizmos>()
            .configure_sets(Update, EditorSystems::Input.run_if(in_edit_mode))
            .add_systems(
                PreUpdate,
                note_pointer_input
                    .run_if(on_or_just_changed)
                    .after(PickingSystems::ProcessInput)
                    .before(PickingSystems::Backend),
            )
            .configure_sets(
                PreUpdate,
                (PickingSystems::Backend, PickingSystems::Hover).run_if(pick_this_frame),
            )
            .configure_sets(
                PostUpdate,
                EditorSystems::Overlay
                    .run_if(in_edit_mode)
                    .after(TransformSystems::Propagate),
            )
            .add_systems(
                Update,
                (
                    toggle.run_if(resource_changed::<ButtonInput<KeyCode>>),
                    enter_or_leave.run_if(resource_changed::<EditMode>),
                )
                    .chain()
                    .before(EditorSystems::Input),
            )
            .add_systems(
                Update,
                (interact::interact, select::refresh)
                    .chain()
                    .in_set(EditorSystems::Input),
            )
            .add_systems(
                PostUpdate,
                (overlay::draw, panel::update)
                    .chain()
                    .in_set(EditorSystems::Overlay),
            )
            .add_observer(select::reloaded)
            .add_observer(select::written);
        if self.start_on {
            app.world_mut().resource_mut::<EditMode>().0 = true;
        }
        if let Some(mut store) = app.world_mut().get_resource_mut::<GizmoConfigStore>() {
            let (config, _) = store.config_mut::<EditorGizmos>();
            config.depth_bias = -1.0;
            config.line.width = 2.0;
        }
    }
}

/// Turns edit mode on or off when its key is pressed.
fn toggle(
    keys: Res<ButtonInput<KeyCode>>,
    settings: Res<EditorSettings>,
    mut mode: ResMut<EditMode>,
) {
    if keys.just_pressed(settings.toggle) {
        mode.0 = !mode.0;
    }
}

/// Entering edit mode: the game's clock paused (when asked), scene sprites made pickable, the
/// panel shown. Leaving: a drag under way put back, the clock running again, the panel and
/// the pickability added taken away.
fn enter_or_leave(world: &mut World, mut was_on: Local<bool>) {
    let on = world.resource::<EditMode>().0;
    if on == *was_on {
        return;
    }
    *was_on = on;
    let pause = world.resource::<EditorSettings>().pause;
    if pause && let Some(mut time) = world.get_resource_mut::<Time<Virtual>>() {
        if on {
            time.pause();
        } else {
            time.unpause();
        }
    }
    if world.contains_resource::<OwnMeshPicking>()
        && let Some(mut settings) = world.get_resource_mut::<MeshPickingSettings>()
    {
        settings.require_markers = !on;
    }
    if on {
        select::make_sprites_pickable(world);
        // Sprites spawned while edit mode is on (a reload, the game) are made pickable too;
        // out of edit mode no observer runs for them.
        let observer = world.add_observer(select::pickable_sprites).id();
        world.insert_resource(select::SpriteObserver(observer));
        panel::spawn(world);
        world
            .resource_mut::<EditorStatus>()
            .say("edit mode: click an entity a scene made to select it");
    } else {
        interact::cancel_drag(world);
        if let Some(select::SpriteObserver(observer)) =
            world.remove_resource::<select::SpriteObserver>()
            && let Ok(entity) = world.get_entity_mut(observer)
        {
            entity.despawn();
        }
        select::unmake_sprites_pickable(world);
        panel::despawn(world);
        world.resource_mut::<Selection>().entities.clear();
        *world.resource_mut::<SelectedInfo>() = SelectedInfo::default();
    }
}

//! Pointer and keys in edit mode: a press on a handle starts a drag, elsewhere it selects
//! (Bevy's picking says what is under the pointer); moves drive the drag; a release ends it
//! and keeps it (one drag, one keep, one undo step); Esc puts a drag back. Keys: W, E, R for
//! move, turn, scale; T for world or local axes; Ctrl snaps; Alt as a drag ends keeps it into
//! the prefab; Ctrl+Z, Ctrl+Shift+Z (or Ctrl+Y) undo and redo; Ctrl+S keeps unsaved drags; K
//! keeps the selected entity's differences, Shift+K all of its scene's; Backspace restores the
//! file's transform; P switches where prefab values are kept.

use bevy_forge_scene::format::{TransformData, Vec3Data};
use bevy_forge_scene::live_link::{self, FieldRef, KeepInto, LinkError};
use bevy_internal::camera::{Camera, Camera2d, RenderTarget};
use bevy_internal::ecs::message::{MessageCursor, Messages};
use bevy_internal::ecs::name::Name;
use bevy_internal::ecs::prelude::*;
use bevy_internal::input::ButtonInput;
use bevy_internal::input::keyboard::KeyCode;
use bevy_internal::math::{Affine3A, Vec2, Vec3};
use bevy_internal::picking::hover::HoverMap;
use bevy_internal::picking::pointer::{
    PointerAction, PointerButton, PointerId, PointerInput, PointerLocation,
};
use bevy_internal::transform::components::{GlobalTransform, Transform};
use bevy_internal::ui::Node;
use bevy_internal::window::PrimaryWindow;

use crate::gizmo::{DragStart, Frame, GizmoHandle, GizmoMode, GizmoSpace};
use crate::math::Ray;
use crate::select::{Refresh, candidates, locked_at, scene_entity_of};
use crate::{EditorSettings, EditorStatus, GizmoState, SelectedInfo, Selection, Unsaved, write};

/// The length of the gizmo's axes on screen, logical pixels.
pub const GIZMO_PIXELS: f32 = 90.0;
/// A click this close (logical pixels) to the last one, on the same things, walks up.
const SAME_SPOT: f32 = 4.0;

/// A drag under way.
#[derive(Debug, Clone)]
pub(crate) struct Drag {
    pub(crate) start: DragStart,
    camera: Entity,
    entities: Vec<Dragged>,
    part: &'static str,
}

#[derive(Debug, Clone)]
struct Dragged {
    entity: Entity,
    start: Transform,
    parent: Affine3A,
}

/// The camera the pointer works through.
#[derive(Debug, Clone)]
pub(crate) struct View {
    pub(crate) entity: Entity,
    pub(crate) camera: Camera,
    pub(crate) transform: GlobalTransform,
    pub(crate) two_d: bool,
}

impl View {
    pub(crate) fn project(&self, p: Vec3) -> Option<Vec2> {
        self.camera.world_to_viewport(&self.transform, p).ok()
    }

    pub(crate) fn ray(&self, at: Vec2) -> Option<Ray> {
        let r = self.camera.viewport_to_world(&self.transform, at).ok()?;
        Some(Ray::new(r.origin, *r.direction))
    }

    /// The gizmo on an entity whose global transform is `global`, if it is on screen.
    pub(crate) fn frame(
        &self,
        global: &GlobalTransform,
        mode: GizmoMode,
        space: GizmoSpace,
    ) -> Option<Frame> {
        let origin = global.translation();
        let (_, rotation, _) = global.to_scale_rotation_translation();
        let axes = if mode == GizmoMode::Scale || space == GizmoSpace::Local {
            [rotation * Vec3::X, rotation * Vec3::Y, rotation * Vec3::Z]
        } else {
            [Vec3::X, Vec3::Y, Vec3::Z]
        };
        let centre = self.project(origin)?;
        let right = self.project(origin + *self.transform.right())?;
        let per_unit = centre.distance(right);
        if per_unit.is_nan() || per_unit <= 1e-6 {
            return None;
        }
        Some(Frame {
            origin,
            axes,
            size: GIZMO_PIXELS / per_unit,
            view: *self.transform.forward(),
            two_d: self.two_d,
        })
    }
}

/// The view of camera `entity`.
pub(crate) fn view_of(world: &World, entity: Entity) -> Option<View> {
    Some(View {
        entity,
        camera: world.get::<Camera>(entity)?.clone(),
        transform: *world.get::<GlobalTransform>(entity)?,
        two_d: world.get::<Camera2d>(entity).is_some(),
    })
}

/// The active camera whose picture the pointer at `at` is on (the highest `order`), or
/// without a pointer the highest-ordered active camera.
pub(crate) fn pointer_camera(world: &mut World, at: Option<&PointerLocation>) -> Option<Entity> {
    let primary = world
        .query_filtered::<Entity, With<PrimaryWindow>>()
        .iter(world)
        .next();
    let mut query = world.query::<(Entity, &Camera, &RenderTarget)>();
    let mut best: Option<(isize, Entity)> = None;
    for (e, camera, target) in query.iter(world) {
        if !camera.is_active {
            continue;
        }
        if let Some(location) = at.and_then(PointerLocation::location) {
            if target.normalize(primary).as_ref() != Some(&location.target) {
                continue;
            }
            if camera
                .logical_viewport_rect()
                .is_some_and(|r| !r.contains(location.position))
            {
                continue;
            }
        }
        if best.is_none_or(|(o, _)| camera.order > o) {
            best = Some((camera.order, e));
        }
    }
    best.map(|(_, e)| e)
}

/// What the pointer did this frame.
enum Gesture {
    Press(Vec2),
    Move(Vec2),
    Release(Vec2),
}

#[derive(Default)]
pub(crate) struct Memory {
    cursor: MessageCursor<PointerInput>,
    last_click: Option<(Vec2, Vec<Entity>)>,
}

/// The editor's input, once a frame in edit mode.
pub(crate) fn interact(world: &mut World, mut memory: Local<Memory>) {
    let events: Vec<Gesture> = match world.get_resource::<Messages<PointerInput>>() {
        Some(messages) => memory
            .cursor
            .read(messages)
            .filter(|m| m.pointer_id == PointerId::Mouse)
            .filter_map(|m| match m.action {
                PointerAction::Press(PointerButton::Primary) => {
                    Some(Gesture::Press(m.location.position))
                }
                PointerAction::Release(PointerButton::Primary) => {
                    Some(Gesture::Release(m.location.position))
                }
                PointerAction::Move { .. } => Some(Gesture::Move(m.location.position)),
                _ => None,
            })
            .collect(),
        None => Vec::new(),
    };
    let location = world
        .query::<(&PointerId, &PointerLocation)>()
        .iter(world)
        .find(|(id, _)| **id == PointerId::Mouse)
        .map(|(_, l)| l.clone());
    let dragging_camera = world
        .resource::<GizmoState>()
        .drag
        .as_ref()
        .map(|d| d.camera);
    let camera = dragging_camera.or_else(|| pointer_camera(world, location.as_ref()));
    world.resource_mut::<GizmoState>().camera = camera;
    let view = camera.and_then(|c| view_of(world, c));

    // The handle under the pointer.
    if world.resource::<GizmoState>().drag.is_none() {
        let hovered = hovered_handle(world, view.as_ref(), location.as_ref());
        let mut state = world.resource_mut::<GizmoState>();
        if state.hovered != hovered {
            state.hovered = hovered;
        }
    }

    for event in events {
        match event {
            Gesture::Press(at) => press(world, &mut memory, view.as_ref(), at),
            Gesture::Move(at) => drag_to(world, view.as_ref(), at),
            Gesture::Release(at) => {
                drag_to(world, view.as_ref(), at);
                if finish_drag(world, at) {
                    // A press and release on a handle that moved nothing is a click: it picks
                    // (a second click on the centre of the gizmo walks up).
                    pick(world, &mut memory, at);
                }
            }
        }
    }
    keys(world);
}

fn hovered_handle(
    world: &World,
    view: Option<&View>,
    location: Option<&PointerLocation>,
) -> Option<GizmoHandle> {
    hovered_handle_at(world, view, location?.location()?.position)
}

fn press(world: &mut World, memory: &mut Memory, view: Option<&View>, at: Vec2) {
    let hovered = hovered_handle_at(world, view, at);
    if let (Some(handle), Some(view)) = (hovered, view) {
        begin_drag(world, view, handle, at);
        return;
    }
    pick(world, memory, at);
}

fn hovered_handle_at(world: &World, view: Option<&View>, at: Vec2) -> Option<GizmoHandle> {
    let view = view?;
    let state = world.resource::<GizmoState>();
    let primary = world.resource::<Selection>().primary()?;
    let frame = view.frame(
        world.get::<GlobalTransform>(primary)?,
        state.mode,
        state.space,
    )?;
    frame.hit(state.mode, at, |p| view.project(p))
}

fn shift(world: &World) -> bool {
    let keys = world.resource::<ButtonInput<KeyCode>>();
    keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight])
}

fn ctrl(world: &World) -> bool {
    let keys = world.resource::<ButtonInput<KeyCode>>();
    keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight])
}

fn alt(world: &World) -> bool {
    let keys = world.resource::<ButtonInput<KeyCode>>();
    keys.any_pressed([KeyCode::AltLeft, KeyCode::AltRight])
}

/// Selects what Bevy's picking found under the pointer: the nearest entity a scene made; a
/// second click on the same spot walks up to the instance that placed it; Shift adds (or takes
/// away). A click on the editor's own panel or another UI node selects nothing; one on nothing
/// clears the selection.
fn pick(world: &mut World, memory: &mut Memory, at: Vec2) {
    let mut hits: Vec<(Entity, f32)> = world
        .get_resource::<HoverMap>()
        .and_then(|m| m.get(&PointerId::Mouse))
        .map(|hits| hits.iter().map(|(e, h)| (*e, h.depth)).collect())
        .unwrap_or_default();
    hits.sort_by(|a, b| a.1.total_cmp(&b.1));
    if hits.iter().any(|(e, _)| world.get::<Node>(*e).is_some()) {
        return;
    }
    let adding = shift(world);
    let Some(entity) = hits.iter().find_map(|(e, _)| scene_entity_of(world, *e)) else {
        if !adding {
            world.resource_mut::<Selection>().entities.clear();
            world.resource_mut::<EditorStatus>().say("nothing selected");
        }
        memory.last_click = None;
        return;
    };
    let chain = candidates(world, entity);
    let same_spot = memory
        .last_click
        .as_ref()
        .is_some_and(|(p, c)| p.distance(at) <= SAME_SPOT && *c == chain);
    let chosen = {
        let mut selection = world.resource_mut::<Selection>();
        if adding {
            match selection.entities.iter().position(|e| *e == entity) {
                Some(i) => {
                    selection.entities.remove(i);
                }
                None => selection.entities.push(entity),
            }
            selection.primary()
        } else {
            let next = match selection.entities.as_slice() {
                [one] if same_spot => chain
                    .iter()
                    .position(|e| e == one)
                    .map_or(entity, |k| chain[(k + 1) % chain.len()]),
                _ => entity,
            };
            selection.entities = vec![next];
            Some(next)
        }
    };
    memory.last_click = Some((at, chain));
    let text = match chosen {
        Some(e) => format!("selected {}", describe(world, e)),
        None => "nothing selected".to_owned(),
    };
    world.resource_mut::<EditorStatus>().say(text);
    world.resource_mut::<Refresh>().now();
}

/// `Name [id path]` of a scene entity.
pub(crate) fn describe(world: &World, entity: Entity) -> String {
    let name = world
        .get::<Name>(entity)
        .map(|n| n.as_str().to_owned())
        .unwrap_or_else(|| format!("{entity}"));
    match live_link::locate(world, entity) {
        Ok(l) => format!("{name} {:?}", l.id_path),
        Err(_) => name,
    }
}

fn begin_drag(world: &mut World, view: &View, handle: GizmoHandle, at: Vec2) {
    let selected = world.resource::<Selection>().entities.clone();
    let Some(primary) = selected.last().copied() else {
        return;
    };
    for &e in &selected {
        if let Ok(located) = live_link::locate(world, e)
            && let Some(line) = locked_at(&located)
        {
            let text = format!(
                "{} is locked ({line}: `locked: true`): the viewport does not move it",
                describe(world, e)
            );
            world.resource_mut::<EditorStatus>().refuse(text);
            return;
        }
    }
    let state = world.resource::<GizmoState>();
    let Some(frame) = world
        .get::<GlobalTransform>(primary)
        .and_then(|g| view.frame(g, state.mode, state.space))
    else {
        return;
    };
    let (Some(ray), Some(centre)) = (view.ray(at), view.project(frame.origin)) else {
        return;
    };
    let entities = selected
        .iter()
        .filter_map(|&entity| {
            let start = *world.get::<Transform>(entity)?;
            let parent = world
                .get::<bevy_internal::ecs::hierarchy::ChildOf>(entity)
                .and_then(|c| world.get::<GlobalTransform>(c.parent()))
                .map_or(Affine3A::IDENTITY, GlobalTransform::affine);
            Some(Dragged {
                entity,
                start,
                parent,
            })
        })
        .collect();
    let part = match handle {
        GizmoHandle::Axis(_) | GizmoHandle::Plane(_) | GizmoHandle::ViewPlane => "translation",
        GizmoHandle::Rotate(_) => "rotation",
        GizmoHandle::ScaleAxis(_) | GizmoHandle::ScaleUniform => "scale",
    };
    world.resource_mut::<GizmoState>().drag = Some(Drag {
        start: DragStart {
            handle,
            frame,
            ray,
            pointer: at,
            centre,
        },
        camera: view.entity,
        entities,
        part,
    });
}

fn drag_to(world: &mut World, view: Option<&View>, at: Vec2) {
    let Some(drag) = world.resource::<GizmoState>().drag.clone() else {
        return;
    };
    let Some(view) = view.filter(|v| v.entity == drag.camera) else {
        return;
    };
    let Some(ray) = view.ray(at) else {
        return;
    };
    let snapping = ctrl(world).then(|| world.resource::<EditorSettings>().snapping);
    let Some(delta) = drag.start.delta(ray, at, snapping.as_ref()) else {
        return;
    };
    for d in &drag.entities {
        let t = crate::gizmo::apply(&d.start, &d.parent, &delta, snapping.as_ref());
        if let Some(mut live) = world.get_mut::<Transform>(d.entity)
            && *live != t
        {
            *live = t;
        }
    }
}

/// Puts a drag under way back (Esc, or leaving edit mode).
pub(crate) fn cancel_drag(world: &mut World) -> bool {
    let Some(drag) = world.resource_mut::<GizmoState>().drag.take() else {
        return false;
    };
    for d in &drag.entities {
        if let Some(mut t) = world.get_mut::<Transform>(d.entity) {
            *t = d.start;
        }
    }
    true
}

/// Ends the drag under way and keeps it. Whether it was a click instead (nothing moved and the
/// pointer stayed where it was pressed).
fn finish_drag(world: &mut World, at: Vec2) -> bool {
    let Some(drag) = world.resource_mut::<GizmoState>().drag.take() else {
        return false;
    };
    let moved: Vec<Entity> = drag
        .entities
        .iter()
        .filter(|d| {
            world
                .get::<Transform>(d.entity)
                .is_some_and(|t| *t != d.start)
        })
        .map(|d| d.entity)
        .collect();
    if moved.is_empty() {
        return at.distance(drag.start.pointer) <= SAME_SPOT;
    }
    let mut changes: Vec<(Entity, FieldRef)> = Vec::new();
    for e in moved {
        if let Ok(located) = live_link::locate(world, e) {
            changes.push((
                located.root,
                FieldRef {
                    id_path: located.id_path,
                    component: "transform".to_owned(),
                    field: Some(drag.part.to_owned()),
                },
            ));
        }
    }
    let into = if alt(world) {
        KeepInto::Prefab
    } else {
        world.resource::<EditorSettings>().into
    };
    if world.resource::<EditorSettings>().keep_on_release {
        keep_changes(world, changes, into);
    } else {
        let mut unsaved = world.resource_mut::<Unsaved>();
        for c in changes {
            if !unsaved.changes.contains(&c) {
                unsaved.changes.push(c);
            }
        }
        let n = unsaved.changes.len();
        world
            .resource_mut::<EditorStatus>()
            .say(format!("{n} unsaved change(s): Ctrl+S keeps them"));
    }
    world.resource_mut::<Refresh>().soon();
    false
}

/// Keeps `changes` (those that still differ from the files), root by root, as one step each;
/// the status line says what was written or why not.
fn keep_changes(world: &mut World, changes: Vec<(Entity, FieldRef)>, into: KeepInto) {
    let mut roots: Vec<(Entity, Vec<FieldRef>)> = Vec::new();
    for (root, change) in changes {
        match roots.iter_mut().find(|(r, _)| *r == root) {
            Some((_, list)) => list.push(change),
            None => roots.push((root, vec![change])),
        }
    }
    let mut said = Vec::new();
    let mut refused = None;
    for (root, list) in roots {
        // Only what still differs: a value dragged back to the file's is not a change.
        let paths: Vec<Vec<u64>> = list.iter().map(|c| c.id_path.clone()).collect();
        let differing = live_link::differences_at(world, root, &paths).unwrap_or_default();
        let list: Vec<FieldRef> = list
            .into_iter()
            .filter(|c| {
                differing.iter().any(|d| {
                    d.id_path == c.id_path && d.component == c.component && d.field == c.field
                })
            })
            .collect();
        if list.is_empty() {
            continue;
        }
        match write::keep(world, root, Some(&list), into) {
            Ok(kept) => {
                for f in &kept.files {
                    let line = f.patches.first().map_or(0, |p| p.line);
                    said.push(format!("{}:{line}", f.asset));
                }
            }
            Err(e) => refused = Some(refusal(&e)),
        }
    }
    let mut status = world.resource_mut::<EditorStatus>();
    match refused {
        Some(why) => status.refuse(why),
        None if said.is_empty() => status.say("nothing to keep: the files already say so"),
        None => status.say(format!("kept in {}", said.join(", "))),
    }
}

fn refusal(e: &LinkError) -> String {
    match e {
        LinkError::Invalid { diagnostic, .. } => format!("not kept: {diagnostic}"),
        other => format!("not kept: {other}"),
    }
}

fn keys(world: &mut World) {
    let keys = world.resource::<ButtonInput<KeyCode>>();
    let pressed = |k: KeyCode| keys.just_pressed(k);
    let (esc, w, e, r, t, z, y, s, k, back, p) = (
        pressed(KeyCode::Escape),
        pressed(KeyCode::KeyW),
        pressed(KeyCode::KeyE),
        pressed(KeyCode::KeyR),
        pressed(KeyCode::KeyT),
        pressed(KeyCode::KeyZ),
        pressed(KeyCode::KeyY),
        pressed(KeyCode::KeyS),
        pressed(KeyCode::KeyK),
        pressed(KeyCode::Backspace),
        pressed(KeyCode::KeyP),
    );
    if !(esc || w || e || r || t || z || y || s || k || back || p) {
        return;
    }
    let (ctrl, shift) = (ctrl(world), shift(world));
    if esc {
        if cancel_drag(world) {
            world
                .resource_mut::<EditorStatus>()
                .say("drag cancelled: everything is back");
        } else {
            world.resource_mut::<Selection>().entities.clear();
        }
        return;
    }
    let dragging = world.resource::<GizmoState>().drag.is_some();
    if ctrl && z && !dragging {
        let done = if shift {
            write::redo_last(world)
        } else {
            write::undo_last(world)
        };
        say_history(world, done, if shift { "redone" } else { "undone" });
        return;
    }
    if ctrl && y && !dragging {
        let done = write::redo_last(world);
        say_history(world, done, "redone");
        return;
    }
    if ctrl && s && !dragging {
        let changes = std::mem::take(&mut world.resource_mut::<Unsaved>().changes);
        let into = world.resource::<EditorSettings>().into;
        keep_changes(world, changes, into);
        world.resource_mut::<Refresh>().soon();
        return;
    }
    if ctrl || dragging {
        return;
    }
    let mut state = world.resource_mut::<GizmoState>();
    if w {
        state.mode = GizmoMode::Translate;
    }
    if e {
        state.mode = GizmoMode::Rotate;
    }
    if r {
        state.mode = GizmoMode::Scale;
    }
    if t {
        state.space = match state.space {
            GizmoSpace::World => GizmoSpace::Local,
            GizmoSpace::Local => GizmoSpace::World,
        };
    }
    if p {
        let mut settings = world.resource_mut::<EditorSettings>();
        settings.into = match settings.into {
            KeepInto::Instance => KeepInto::Prefab,
            _ => KeepInto::Instance,
        };
    }
    if k {
        keep_selected(world, shift);
    }
    if back {
        restore(world);
    }
}

fn say_history(world: &mut World, done: Result<bool, LinkError>, what: &str) {
    let mut status = world.resource_mut::<EditorStatus>();
    match done {
        Ok(true) => status.say(format!("{what}: the files are as they were")),
        Ok(false) => status.say(format!("nothing to be {what}")),
        Err(e) => status.refuse(format!("not {what}: {e}")),
    }
    world.resource_mut::<Refresh>().soon();
}

/// Keeps the selected entity's differences (K), or every difference of its scene (Shift+K).
pub(crate) fn keep_selected(world: &mut World, all: bool) {
    let info = world.resource::<SelectedInfo>().clone();
    let Some(root) = info.root else {
        world
            .resource_mut::<EditorStatus>()
            .say("select an entity of a scene first");
        return;
    };
    let into = world.resource::<EditorSettings>().into;
    if all {
        match write::keep(world, root, None, into) {
            Ok(kept) if kept.written => {
                let n = kept.kept.len();
                world
                    .resource_mut::<EditorStatus>()
                    .say(format!("kept {n} value(s) of the scene"));
            }
            Ok(_) => world
                .resource_mut::<EditorStatus>()
                .say("nothing to keep: the files already say so"),
            Err(e) => world.resource_mut::<EditorStatus>().refuse(refusal(&e)),
        }
    } else {
        let changes = info
            .differences
            .iter()
            .map(|d| {
                (
                    root,
                    FieldRef {
                        id_path: d.id_path.clone(),
                        component: d.component.clone(),
                        field: d.field.clone(),
                    },
                )
            })
            .collect();
        keep_changes(world, changes, into);
    }
    world.resource_mut::<Refresh>().soon();
}

/// Puts the files' transform values back on the selected entity (Restore): the live value
/// goes, the file stays as it is.
pub(crate) fn restore(world: &mut World) {
    let info = world.resource::<SelectedInfo>().clone();
    let Some(entity) = info.entity else {
        return;
    };
    let mut restored = 0;
    let mut other = 0;
    for d in &info.differences {
        let part = match (d.component.as_str(), d.field.as_deref(), &d.file) {
            ("transform", Some(part), Some(text)) => ron::from_str::<Vec3Data>(text)
                .ok()
                .map(|v| (part.to_owned(), v)),
            _ => None,
        };
        let Some((part, v)) = part else {
            other += 1;
            continue;
        };
        let Some(mut t) = world.get_mut::<Transform>(entity) else {
            continue;
        };
        match part.as_str() {
            "translation" => t.translation = v.into(),
            "rotation" => {
                t.rotation = TransformData {
                    rotation: v,
                    ..TransformData::IDENTITY
                }
                .rotation_quat();
            }
            "scale" => t.scale = v.into(),
            _ => continue,
        }
        restored += 1;
    }
    let text = match (restored, other) {
        (0, 0) => "nothing to restore: the entity is as the files say".to_owned(),
        (n, 0) => format!("restored {n} value(s) from the files"),
        (n, m) => format!(
            "restored {n} value(s) from the files; {m} other field(s) differ (restore them by reloading the scene)"
        ),
    };
    world.resource_mut::<EditorStatus>().say(text);
    world.resource_mut::<Refresh>().soon();
}

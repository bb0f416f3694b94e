//! From a pick to a selection, and what the panel shows of it: the nearest entity a scene made
//! above what the pointer hit, the walk up to its prefab instances on a second click, sprites
//! made pickable in edit mode, and the selected entity's places, lock and differences read
//! from the files.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::live_link::{self, ForgeSceneWritten, Located};
use bevy_forge_scene::{ForgeEntityId, ForgeEntityPath, ForgeSceneReloaded};
use bevy_internal::ecs::hierarchy::ChildOf;
use bevy_internal::ecs::name::Name;
use bevy_internal::ecs::prelude::*;
use bevy_internal::picking::Pickable;
use bevy_internal::sprite::Sprite;

use crate::{EditorStatus, SelectedInfo, Selection};

/// Marks a sprite edit mode made pickable (it had no `Pickable`): taken away on leaving.
#[derive(Component)]
pub(crate) struct MadePickable;

/// Asks [`refresh`] to read the selected entity's places and differences again, now or after
/// a few frames (a keep's reload lands a frame or two later).
#[derive(Resource, Default)]
pub(crate) struct Refresh {
    /// Frames to wait; `Some(0)`: read this frame.
    pub(crate) in_frames: Option<u8>,
}

impl Refresh {
    pub(crate) fn now(&mut self) {
        self.in_frames = Some(0);
    }

    pub(crate) fn soon(&mut self) {
        self.in_frames = Some(2);
    }
}

/// Entities a scene made: those with the id of their file entry.
pub type MadeByAScene = Or<(With<ForgeEntityId>, With<ForgeEntityPath>)>;

/// What a locked file says: by file, its stamp and each locked entity's `locked` line.
type LockTable = HashMap<PathBuf, (Stamp, HashMap<u64, u32>)>;

/// Whether `entity` is one a scene made (it has the id of its file entry).
pub(crate) fn made_by_a_scene(world: &World, entity: Entity) -> bool {
    world.get::<ForgeEntityId>(entity).is_some() || world.get::<ForgeEntityPath>(entity).is_some()
}

/// The nearest entity a scene made at or above `hit` (a mesh primitive a model node spawned,
/// a text section's child: their scene entity), if any.
pub(crate) fn scene_entity_of(world: &World, hit: Entity) -> Option<Entity> {
    let mut at = hit;
    for _ in 0..1_000 {
        if made_by_a_scene(world, at) {
            return Some(at);
        }
        at = world.get::<ChildOf>(at)?.parent();
    }
    None
}

/// What a click on `hit` may select, nearest first: the scene entity, then the instances that
/// placed it, outward (`[5, 7, 2]`, then `[5, 7]`, then `[5]`).
pub(crate) fn candidates(world: &World, entity: Entity) -> Vec<Entity> {
    let mut out = vec![entity];
    let Ok(located) = live_link::locate(world, entity) else {
        return out;
    };
    let path = &located.id_path;
    for n in (1..path.len()).rev() {
        if let Ok(e) = live_link::find(world, Some(located.root), None, &path[..n])
            && !out.contains(&e)
        {
            out.push(e);
        }
    }
    out
}

/// The observer of [`pickable_sprites`], there while edit mode is on.
#[derive(Resource)]
pub(crate) struct SpriteObserver(pub(crate) Entity);

/// Sprites a scene made get `Pickable` while edit mode is on (Bevy's sprite backend picks only
/// those that have it).
pub(crate) fn pickable_sprites(
    added: On<Add<Sprite>>,
    scene: Query<(), (MadeByAScene, Without<Pickable>)>,
    mut commands: Commands,
) {
    let e = added.event_target();
    if scene.contains(e) {
        commands
            .entity(e)
            .insert((Pickable::default(), MadePickable));
    }
}

pub(crate) fn make_sprites_pickable(world: &mut World) {
    let mut query =
        world.query_filtered::<Entity, (With<Sprite>, MadeByAScene, Without<Pickable>)>();
    let sprites: Vec<Entity> = query.iter(world).collect();
    for e in sprites {
        world
            .entity_mut(e)
            .insert((Pickable::default(), MadePickable));
    }
}

pub(crate) fn unmake_sprites_pickable(world: &mut World) {
    let mut query = world.query_filtered::<Entity, With<MadePickable>>();
    let made: Vec<Entity> = query.iter(world).collect();
    for e in made {
        world.entity_mut(e).remove::<(Pickable, MadePickable)>();
    }
}

/// A reload (after a keep, an undo, a redo or a hand edit) may change what the panel shows.
pub(crate) fn reloaded(_: On<ForgeSceneReloaded>, mut refresh: ResMut<Refresh>) {
    refresh.soon();
}

/// A write of the live link is in place (the reload follows), or could not be made: then the
/// status line says why (the scene is read again as it is on disk).
pub(crate) fn written(
    written: On<ForgeSceneWritten>,
    mut refresh: ResMut<Refresh>,
    mut status: ResMut<EditorStatus>,
) {
    refresh.soon();
    if let Some(error) = &written.error {
        status.refuse(format!("{} not written: {error}", written.scene));
    }
}

/// Reads the selected entity's places, lock and differences when asked (a new selection, a
/// keep, a reload): never in a frame where nothing asked.
pub(crate) fn refresh(world: &mut World) {
    let due = {
        let mut r = world.resource_mut::<Refresh>();
        match r.in_frames {
            Some(0) => {
                r.in_frames = None;
                true
            }
            Some(n) => {
                r.in_frames = Some(n - 1);
                false
            }
            None => false,
        }
    };
    let primary = world.resource::<Selection>().primary();
    let stale = world.resource::<SelectedInfo>().entity != primary;
    if due || stale {
        let info = read_info(world, primary);
        *world.resource_mut::<SelectedInfo>() = info;
    }
}

fn read_info(world: &World, entity: Option<Entity>) -> SelectedInfo {
    let Some(entity) = entity.filter(|e| world.get_entity(*e).is_ok()) else {
        return SelectedInfo::default();
    };
    let name = world
        .get::<Name>(entity)
        .map(|n| n.as_str().to_owned())
        .unwrap_or_default();
    let Ok(located) = live_link::locate(world, entity) else {
        return SelectedInfo {
            entity: Some(entity),
            name,
            ..Default::default()
        };
    };
    let places = located
        .places
        .iter()
        .map(|p| format!("{}:{} ({})", p.asset, p.entry.start.line, p.kind))
        .collect();
    let locked = locked_at(&located);
    let differences =
        live_link::differences_at(world, located.root, std::slice::from_ref(&located.id_path))
            .unwrap_or_default();
    SelectedInfo {
        entity: Some(entity),
        root: Some(located.root),
        name,
        id_path: located.id_path,
        places,
        locked,
        differences,
    }
}

/// `asset:line` of the `locked: true` of the entry that defines the located entity, if it says
/// so.
pub(crate) fn locked_at(located: &Located) -> Option<String> {
    let entry = located.places.iter().rev().find(|p| p.kind == "entity")?;
    let line = LOCKS.locked_line(&entry.file, entry.entity)?;
    Some(format!("{}:{line}", entry.asset))
}

/// The `locked: true` entries of each scene file read, by file, until the file changes (its
/// length or modification time): a selection in a large scene reads it once.
struct Locks {
    files: Mutex<LockTable>,
}

type Stamp = (u64, Option<std::time::SystemTime>);

static LOCKS: std::sync::LazyLock<Locks> = std::sync::LazyLock::new(|| Locks {
    files: Mutex::new(HashMap::new()),
});

impl Locks {
    fn locked_line(&self, file: &std::path::Path, id: u64) -> Option<u32> {
        let meta = std::fs::metadata(file).ok()?;
        let stamp = (meta.len(), meta.modified().ok());
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((s, locked)) = files.get(file)
            && *s == stamp
        {
            return locked.get(&id).copied();
        }
        let text = std::fs::read_to_string(file).ok()?;
        let parsed = SceneDoc::from_str(text.strip_prefix('\u{feff}').unwrap_or(&text)).ok()?;
        let locked: HashMap<u64, u32> = parsed
            .doc
            .entities
            .values()
            .filter(|n| n.locked)
            .map(|n| {
                let line = parsed
                    .source_map
                    .entity_field(n.id, "locked")
                    .or_else(|| parsed.source_map.entity(n.id))
                    .map_or(0, |p| p.line);
                (n.id, line)
            })
            .collect();
        let found = locked.get(&id).copied();
        files.insert(file.to_owned(), (stamp, locked));
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_forge_scene::live_link::{Place, TextPosition, TextRange};

    fn located(file: &std::path::Path, entity: u64) -> Located {
        let at = TextRange {
            start: TextPosition { line: 1, column: 1 },
            end: TextPosition { line: 1, column: 2 },
        };
        Located {
            root: Entity::PLACEHOLDER,
            scene: "level.forge.ron".to_owned(),
            id_path: vec![entity],
            places: vec![Place {
                asset: "level.forge.ron".to_owned(),
                file: file.to_owned(),
                kind: "entity",
                entity,
                target: Vec::new(),
                entry: at,
                parts: Vec::new(),
            }],
        }
    }

    #[test]
    fn the_lock_is_read_from_the_entry_with_the_line_of_its_locked() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("level.forge.ron");
        let transform = "(translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";
        let text = format!(
            "(\n  format_version: 1,\n  name: \"Level\",\n  entities: {{\n    1: (\n      id: 1,\n      name: \"Wall\",\n      locked: true,\n      parent: None,\n      children: [],\n      transform: {transform},\n      components: [],\n    ),\n    2: (id: 2, name: \"Door\", parent: None, children: [], transform: {transform}, components: [], locked: false),\n  }},\n  roots: [1, 2],\n  next_id: 3,\n)\n"
        );
        std::fs::write(&file, &text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            locked_at(&located(&file, 1)).as_deref(),
            Some("level.forge.ron:8")
        );
        assert_eq!(locked_at(&located(&file, 2)), None);
        // The file changes: read again (a different length).
        std::fs::write(&file, text.replace("locked: true", "locked: false"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(locked_at(&located(&file, 1)), None);
    }
}

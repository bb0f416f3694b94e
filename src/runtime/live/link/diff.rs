//! Where the live world and the files disagree ([`differences`]).

use bevy_ecs::entity::Entity;
use bevy_ecs::world::World;

use super::LinkError;
use super::locate::component_name;
use crate::format::write::fragment;
use crate::format::{ComponentData, CustomComponent, EntityNode};
use crate::runtime::instance::ForgeSceneInstance;
use crate::runtime::live::capture::{CaptureError, LiveNode, live_nodes};

/// One field whose live value is not what the files say.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LiveDifference {
    /// The entity's id path in the root's scene (`[4]`, `[5, 2]`).
    pub id_path: Vec<u64>,
    /// `name`, `transform`, a built-in's tag (`point_light`) or a custom component's type path
    /// as the file writes it.
    pub component: String,
    /// `translation`, `rotation` (Euler degrees) or `scale` of `transform`; a built-in's
    /// dotted payload path (`intensity`); a custom field's name. `None` for `name`, for an enum
    /// component's whole `value`, and for a built-in written as a whole (`visibility`).
    pub field: Option<String>,
    /// The value the files give, as the format writes it (`(x: 1.0, y: 0.0, z: 0.0)`, `800.0`,
    /// a custom field's expression); `None` when the files do not write the field (the type's
    /// `Default` spawned).
    pub file: Option<String>,
    /// The live value, written the same way.
    pub live: String,
    /// Where the files write the value now: the entity's entry in the scene, the override of
    /// an instance that sets it (the last one), or the entry in the prefab file that defines
    /// the entity. `None` when no file writes it (the type's default, a model's node) or the
    /// world has no [`LiveLink`](super::LiveLink).
    pub written: Option<WrittenAt>,
}

/// Where a file writes a value ([`LiveDifference::written`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WrittenAt {
    /// The file's asset path.
    pub asset: String,
    /// `entity` for an entity's own entry, `override` for an override of it.
    pub kind: &'static str,
    /// The id of the entry in that file: the entity's, or for an override the instance
    /// entity's whose `instance` holds it.
    pub entity: u64,
    /// For an override, its `target` (the id path inside the prefab); empty for an entry.
    pub target: Vec<u64>,
}

impl LiveDifference {
    fn new(
        id_path: &[u64],
        component: &str,
        field: Option<&str>,
        file: Option<String>,
        live: String,
    ) -> Self {
        Self {
            id_path: id_path.to_vec(),
            component: component.to_owned(),
            field: field.map(str::to_owned),
            file,
            live,
            written: None,
        }
    }
}

impl From<CaptureError> for LinkError {
    fn from(e: CaptureError) -> Self {
        match e {
            CaptureError::NotAnInstance(root) | CaptureError::SceneNotLoaded(root) => {
                LinkError::NotARoot(root)
            }
            CaptureError::Write(e) => LinkError::Write(e),
            CaptureError::Edit(e) => LinkError::Edit(e),
        }
    }
}

/// Every field of the instance on `root` whose live value differs from what its files say,
/// entity by entity in file order (prefab entities after the instance that places them):
/// names, transform parts, built-in payload fields and custom fields, each as the format
/// writes it (Euler degrees, sRGB colours, custom fields as expressions). Components the files
/// do not name (runtime state, `GlobalTransform`, a component the game inserted) are not
/// differences; nor is an entity that is not live.
///
/// # Errors
/// [`LinkError::NotARoot`] when `root` has not spawned a scene (or its scene is gone).
pub fn differences(world: &World, root: Entity) -> Result<Vec<LiveDifference>, LinkError> {
    differences_of(world, root, None)
}

/// [`differences`] of the entities at `id_paths` of the instance on `root` only (an
/// editor's panel asks for the selected entity's): what the whole list says of them, at a
/// cost that grows with the entities asked for, not with the scene. An id path the scene does
/// not have gives nothing.
///
/// # Errors
/// As [`differences`].
pub fn differences_at(
    world: &World,
    root: Entity,
    id_paths: &[Vec<u64>],
) -> Result<Vec<LiveDifference>, LinkError> {
    let keys: Vec<u64> = id_paths
        .iter()
        .map(|path| crate::prefab::key_of(path))
        .collect();
    differences_of(world, root, Some(&keys))
}

/// What changed in an instance after a tick: the answer of [`changed_since`].
#[derive(Clone, Debug, PartialEq)]
pub struct LiveChanges {
    /// The id paths of the entities with any component written since the tick, in file order.
    pub entities: Vec<Vec<u64>>,
    /// The differences of those entities from their files now (none for an entity that
    /// changed back, or changed only what the files do not name).
    pub differences: Vec<LiveDifference>,
}

/// The entities of the instance on `root` that changed (any component written) after tick
/// `since`, by id path in file order, with their differences now: `None` when none changed.
/// A changed entity without differences changed back to what the files say, or changed
/// something the files do not name. What a watching client asks each frame, with `since` the
/// tick it last asked at (`World::last_change_tick` in a system).
///
/// # Errors
/// As [`differences`].
pub fn changed_since(
    world: &World,
    root: Entity,
    since: bevy_ecs::change_detection::Tick,
) -> Result<Option<LiveChanges>, LinkError> {
    let instance = world
        .get::<ForgeSceneInstance>(root)
        .ok_or(LinkError::NotARoot(root))?;
    let now = world.read_change_tick();
    let mut keys: Vec<u64> = instance
        .iter()
        .filter(|(_, e)| {
            world.get_entity(*e).is_ok_and(|e| {
                e.archetype().iter_components().any(|id| {
                    e.get_change_ticks_by_id(id)
                        .is_some_and(|t| t.is_changed(since, now))
                })
            })
        })
        .map(|(path, _)| crate::prefab::key_of(path))
        .collect();
    if keys.is_empty() {
        return Ok(None);
    }
    // In file order, as `differences` lists them.
    if let Some(scene) = world
        .get_resource::<bevy_asset::Assets<crate::runtime::asset::scene::ForgeScene>>()
        .and_then(|a| a.get(instance.scene()))
    {
        let doc = scene.spawn_doc();
        keys.sort_by_key(|k| doc.entities.get_index_of(k).unwrap_or(usize::MAX));
    }
    let paths = keys.iter().map(|k| instance.path_of_key(*k).0).collect();
    differences_of(world, root, Some(&keys)).map(|differences| {
        Some(LiveChanges {
            entities: paths,
            differences,
        })
    })
}

/// [`differences`] of the entities with keys `only`.
pub(crate) fn differences_of(
    world: &World,
    root: Entity,
    only: Option<&[u64]>,
) -> Result<Vec<LiveDifference>, LinkError> {
    let nodes = live_nodes(world, root, only)?;
    let instance = world
        .get::<ForgeSceneInstance>(root)
        .ok_or(LinkError::NotARoot(root))?;
    let mut out = Vec::new();
    for node in &nodes {
        let path = instance.path_of_key(node.key).0;
        compare(&path, node, &mut out);
    }
    if let (Some(link), Ok(scene)) = (
        world.get_resource::<super::LiveLink>(),
        super::root_asset(world, root),
    ) {
        let files = super::files_of(world);
        let mut views = bevy_platform::collections::HashMap::new();
        for d in &mut out {
            d.written = written_at(link, &files, &mut views, &scene, d);
        }
    }
    Ok(out)
}

/// Where the files write the value of difference `d` of scene `scene` (views read once per
/// file into `views`).
fn written_at(
    link: &super::LiveLink,
    files: &crate::runtime::asset::files::SceneFiles,
    views: &mut bevy_platform::collections::HashMap<String, Option<super::FileView>>,
    scene: &str,
    d: &LiveDifference,
) -> Option<WrittenAt> {
    let mut asset = scene.to_owned();
    let mut path = d.id_path.as_slice();
    // Prefab chains are refused at load; the bound keeps a file changed since from looping.
    for _ in 0..64 {
        let view = views
            .entry(asset.clone())
            .or_insert_with(|| link.view(files, &asset).ok())
            .as_ref()?;
        match path {
            [id] => {
                return Some(WrittenAt {
                    asset,
                    kind: "entity",
                    entity: *id,
                    target: Vec::new(),
                });
            }
            [id, rest @ ..] => {
                let instance = view.parsed.doc.entity(*id)?.instance.as_deref()?;
                if instance
                    .overrides
                    .iter()
                    .any(|o| o.target == rest && o.node.is_empty() && sets(o, d))
                {
                    return Some(WrittenAt {
                        asset,
                        kind: "override",
                        entity: *id,
                        target: rest.to_vec(),
                    });
                }
                if instance.model.is_some() {
                    return None;
                }
                let next = instance.scene.to_string();
                asset = next;
                path = rest;
            }
            [] => return None,
        }
    }
    None
}

/// Whether override `o` writes the value difference `d` is about (in `set`, or a component it
/// adds).
fn sets(o: &crate::format::Override, d: &LiveDifference) -> bool {
    let component = d.component.as_str();
    let named = |c: &ComponentData| component_name(c) == component;
    match (component, d.field.as_deref()) {
        ("name", None) => o.name.is_some(),
        ("transform", Some(_)) => o.transform.is_some(),
        (_, field) => {
            o.add.iter().any(named)
                || o.set.iter().any(|p| {
                    named(&p.component)
                        && match (&p.component, field) {
                            (ComponentData::Custom(c), Some(f)) => {
                                c.fields.iter().any(|x| x.name == f)
                            }
                            (ComponentData::Custom(c), None) => c.value.is_some(),
                            (_, Some(f)) => p.sets(f),
                            (_, None) => true,
                        }
                })
        }
    }
}

/// The differences of one entity.
fn compare(path: &[u64], node: &LiveNode, out: &mut Vec<LiveDifference>) {
    let (file, live): (&EntityNode, &EntityNode) = (node.file, &node.live);
    if file.name != live.name {
        out.push(LiveDifference::new(
            path,
            "name",
            None,
            Some(fragment::string(&file.name)),
            fragment::string(&live.name),
        ));
    }
    let (a, b) = (&file.transform, &live.transform);
    for (part, x, y) in [
        ("translation", a.translation, b.translation),
        ("rotation", a.rotation, b.rotation),
        ("scale", a.scale, b.scale),
    ] {
        if x != y {
            out.push(LiveDifference::new(
                path,
                "transform",
                Some(part),
                Some(vec3(x)),
                vec3(y),
            ));
        }
    }
    for c in &file.components {
        let Some(now) = live.components.iter().find(|l| l.same_key(c)) else {
            continue;
        };
        let name = component_name(c);
        match (c, now) {
            (ComponentData::Custom(c), ComponentData::Custom(now)) => {
                custom(path, &name, c, now, out)
            }
            _ => builtin(path, &name, c, now, out),
        }
    }
}

/// A vector on one line, as the format writes transform parts: `(x: 1.0, y: 2.0, z: 0.0)`.
fn vec3(v: crate::format::Vec3Data) -> String {
    format!(
        "(x: {}, y: {}, z: {})",
        fragment::float(v.x),
        fragment::float(v.y),
        fragment::float(v.z)
    )
}

fn custom(
    path: &[u64],
    name: &str,
    file: &CustomComponent,
    live: &CustomComponent,
    out: &mut Vec<LiveDifference>,
) {
    if file.value != live.value
        && let Some(now) = &live.value
    {
        out.push(LiveDifference::new(
            path,
            name,
            None,
            file.value.as_ref().map(ToString::to_string),
            now.to_string(),
        ));
    }
    for f in &live.fields {
        let written = file.fields.iter().rev().find(|w| w.name == f.name);
        if written.is_some_and(|w| w.expr == f.expr) {
            continue;
        }
        out.push(LiveDifference::new(
            path,
            name,
            Some(&f.name),
            written.map(|w| w.expr.to_string()),
            f.expr.to_string(),
        ));
    }
}

fn builtin(
    path: &[u64],
    name: &str,
    file: &ComponentData,
    live: &ComponentData,
    out: &mut Vec<LiveDifference>,
) {
    if file == live {
        return;
    }
    let Some(tag) = file.builtin() else {
        return;
    };
    let fields = tag.fields();
    if fields.is_empty() {
        out.push(LiveDifference::new(
            path,
            name,
            None,
            Some(fragment::data(file)),
            fragment::data(live),
        ));
        return;
    }
    for (i, field) in fields.iter().enumerate() {
        let (Some(x), Some(y)) = ((tag.get)(file, i), (tag.get)(live, i)) else {
            continue;
        };
        if x != y {
            out.push(LiveDifference::new(
                path,
                name,
                Some(field.path),
                Some(fragment::builtin_value(x)),
                fragment::builtin_value(y),
            ));
        }
    }
}

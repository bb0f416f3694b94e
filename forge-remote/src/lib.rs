//! The live link of `bevy_forge_scene` on Bevy's remote protocol: from the running game to the
//! line that made each entity, and live tweaks kept as small text edits.
//!
//! [`ForgeRemotePlugin`] adds Bevy's `RemotePlugin` (every built-in `world.*` method, so an
//! inspector can read and change components) and `RemoteHttpPlugin` (JSON-RPC 2.0 over HTTP,
//! on `127.0.0.1:15702` unless another port or address is asked for in code), with these
//! methods, each answered from the game's `World` in Bevy's `RemoteLast` schedule
//! (docs/guide/live-link.md gives a request and an answer for each):
//!
//! | method | params | result |
//! |---|---|---|
//! | `forge.scenes` | none | every scene root: `root`, `scene`, `file`, `entities`, `state` |
//! | `forge.locate` | `{entity}` | the file, id path and line/column ranges that made it |
//! | `forge.entity` | `{path, id_path}` or `{root, id_path}` | `{entity}` |
//! | `forge.diff` | `{root}` | `{differences}`: live values that differ from the files |
//! | `forge.keep` | `{root, changes?, into?, dry_run?}` | what was written, file by file |
//! | `forge.set` | `{path, id_path, component, field?, value, dry_run?}` | what was written |
//! | `forge.changes+watch` | `{root}` | a stream: the differences of entities as they change |
//! | `forge.select` | `{entity}` or `{entity: null}` | marks it [`ForgeSelected`] (and no other) |
//!
//! Entities are written as Bevy's remote protocol writes them: the `u64` bits
//! (`Entity::to_bits`) or the string form `"5v0"` (index `v` generation, as `Entity` displays;
//! Bevy is moving its protocol to it). Both are taken in every parameter, and an answer names
//! entities in the form its request used (the bits when the request named none). Files are
//! read and written only under the asset root ([`ForgeRemotePlugin::with_asset_root`]), by the
//! format's asset path rules, symbolic links followed. A bad request gets a JSON-RPC error (see
//! [`codes`]); nothing is written then, and the game goes on. A kept or set value is written on
//! Bevy's IO task pool after the answer: the scene reloads once the file is in place.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;

use bevy_app::{App, Plugin};
use bevy_ecs::component::Component;
use bevy_ecs::entity::Entity;
use bevy_ecs::reflect::ReflectComponent;
use bevy_ecs::system::In;
use bevy_ecs::world::World;
use bevy_forge_scene::live_link::{self, FieldRef, KeepInto, LinkError, LiveLink, SetValue};
use bevy_reflect::std_traits::ReflectDefault;
use bevy_remote::http::RemoteHttpPlugin;
use bevy_remote::{BrpError, BrpResult, RemotePlugin, error_codes};
use serde::Deserialize;
use serde_json::{Value, json};

/// The error codes of the `forge.*` methods, beside JSON-RPC's own (`-32602` invalid params;
/// Bevy's transport answers a body that is not JSON with `-32600`, invalid request, and no
/// `id`) and Bevy's (`-23401` entity not found).
pub mod codes {
    /// The change would make a file invalid; the message has the diagnostic (file, line,
    /// column). Nothing was written.
    pub const INVALID_SCENE: i16 = -23601;
    /// A file changed on disk while the change was made; nothing was written.
    pub const CHANGED_ON_DISK: i16 = -23602;
    /// A file could not be read or written.
    pub const FILE: i16 = -23603;
}

/// The entity a tool selected (`forge.select`, the editor's "reveal in game"): at most one
/// entity has it. The game shows it as it likes (an outline, a gizmo, the camera turned to it);
/// a query `Query<Entity, Added<ForgeSelected>>` sees each new selection.
#[derive(Component, bevy_reflect::Reflect, Debug, Default, Clone, Copy, PartialEq, Eq)]
#[reflect(Component, Default)]
pub struct ForgeSelected;

/// The most changes one `forge.keep` takes.
const MOST_CHANGES: usize = 100_000;

/// The live link over Bevy's remote protocol: adds `RemotePlugin` with the `forge.*` methods
/// and `RemoteHttpPlugin` listening on loopback, and the [`LiveLink`] resource with the asset
/// root.
///
/// ```no_run
/// # use bevy_app::App;
/// # use bevy_forge_scene_remote::ForgeRemotePlugin;
/// App::new().add_plugins(ForgeRemotePlugin::default().with_port(15702));
/// ```
///
/// A game that adds `RemotePlugin` itself passes it through [`forge_methods`] instead and adds
/// `LiveLink` and `RemoteHttpPlugin` its own way.
pub struct ForgeRemotePlugin {
    address: IpAddr,
    port: u16,
    asset_root: Option<PathBuf>,
}

impl Default for ForgeRemotePlugin {
    fn default() -> Self {
        Self {
            address: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: bevy_remote::http::DEFAULT_PORT,
            asset_root: None,
        }
    }
}

impl ForgeRemotePlugin {
    /// Listens on `port` (15702 by default).
    #[must_use]
    pub fn with_port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Listens on `address` instead of loopback (127.0.0.1). Anyone who can reach it can read
    /// the world and write the scene files under the asset root: ask for it only on a network
    /// you trust.
    #[must_use]
    pub fn with_address(mut self, address: impl Into<IpAddr>) -> Self {
        self.address = address.into();
        self
    }

    /// Reads and writes scene files under `asset_root`: the folder `AssetPlugin`'s `file_path`
    /// names. By default `assets/` in Bevy's base path (the game's manifest folder under
    /// `cargo run`, else the executable's folder), as `AssetPlugin`'s default.
    #[must_use]
    pub fn with_asset_root(mut self, asset_root: impl Into<PathBuf>) -> Self {
        self.asset_root = Some(asset_root.into());
        self
    }
}

impl Plugin for ForgeRemotePlugin {
    fn build(&self, app: &mut App) {
        let root = self.asset_root.clone().unwrap_or_else(|| {
            bevy_asset::io::file::FileAssetReader::get_base_path().join("assets")
        });
        app.register_type::<ForgeSelected>()
            .insert_resource(LiveLink::new(root))
            .add_plugins(forge_methods(RemotePlugin::default()))
            .add_plugins(
                RemoteHttpPlugin::default()
                    .with_address(self.address)
                    .with_port(self.port),
            );
    }
}

/// `plugin` with the `forge.*` methods added (the crate docs list them).
pub fn forge_methods(plugin: RemotePlugin) -> RemotePlugin {
    plugin
        .with_method_main("forge.scenes", scenes)
        .with_method_main("forge.locate", locate)
        .with_method_main("forge.entity", entity)
        .with_method_main("forge.diff", diff)
        .with_method_main("forge.keep", keep)
        .with_method_main("forge.set", set)
        .with_watching_method_main("forge.changes+watch", changes)
        .with_method_main("forge.select", select)
}

fn invalid_params(message: impl Into<String>) -> BrpError {
    BrpError {
        code: error_codes::INVALID_PARAMS,
        message: message.into(),
        data: None,
    }
}

/// `params` read as `T`, or a JSON-RPC invalid-params error naming what is wrong.
fn params<T: for<'de> Deserialize<'de>>(params: Option<Value>) -> BrpResult<T> {
    let value = params.unwrap_or(Value::Null);
    serde_json::from_value(value).map_err(|e| invalid_params(format!("invalid params: {e}")))
}

/// An entity as a request names it: Bevy's `u64` bits, or the string form `"5v0"`.
#[derive(Deserialize, Clone, Debug)]
#[serde(untagged)]
enum EntityParam {
    Bits(u64),
    Text(String),
}

/// How a request named its entities, and so how the answer names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Form {
    #[default]
    Bits,
    Text,
}

impl EntityParam {
    fn form(&self) -> Form {
        match self {
            EntityParam::Bits(_) => Form::Bits,
            EntityParam::Text(_) => Form::Text,
        }
    }

    fn entity(&self) -> BrpResult<Entity> {
        let entity = match self {
            EntityParam::Bits(bits) => Entity::try_from_bits(*bits),
            EntityParam::Text(text) => text.split_once('v').and_then(|(index, generation)| {
                let index = bevy_ecs::entity::EntityIndex::from_raw_u32(index.parse().ok()?)?;
                let generation =
                    bevy_ecs::entity::EntityGeneration::from_bits(generation.parse().ok()?);
                Some(Entity::from_index_and_generation(index, generation))
            }),
        };
        entity.filter(|e| *e != Entity::PLACEHOLDER).ok_or_else(|| {
            invalid_params(match self {
                EntityParam::Bits(bits) => format!("{bits} is not an entity (Entity::to_bits)"),
                EntityParam::Text(text) => format!(
                    "`{text}` is not an entity: give `Entity::to_bits` or the form `5v0` (index v generation)"
                ),
            })
        })
    }
}

/// `entity` named in `form`.
fn named(entity: Entity, form: Form) -> Value {
    match form {
        Form::Bits => json!(entity.to_bits()),
        Form::Text => json!(entity.to_string()),
    }
}

/// `value` with the entities it names (`root`, `entity`, as bits) in `form`.
fn in_form(mut value: Value, form: Form) -> Value {
    if form == Form::Text {
        restyle(&mut value);
    }
    value
}

fn restyle(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match (key.as_str(), v.as_u64()) {
                    ("root" | "entity", Some(bits)) => {
                        if let Some(e) = Entity::try_from_bits(bits) {
                            *v = json!(e.to_string());
                        }
                    }
                    _ => restyle(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(restyle),
        _ => {}
    }
}

/// A link error as a JSON-RPC error.
fn brp(e: LinkError) -> BrpError {
    let code = match &e {
        LinkError::NotInAScene(_) | LinkError::NotARoot(_) => error_codes::ENTITY_NOT_FOUND,
        LinkError::Invalid { .. } | LinkError::Edit(_) => codes::INVALID_SCENE,
        LinkError::ChangedOnDisk(_) => codes::CHANGED_ON_DISK,
        LinkError::Read { .. } | LinkError::Write(_) => codes::FILE,
        LinkError::NoLink => error_codes::INTERNAL_ERROR,
        _ => error_codes::INVALID_PARAMS,
    };
    BrpError {
        code,
        message: e.to_string(),
        data: None,
    }
}

fn to_json(value: impl serde::Serialize) -> BrpResult {
    serde_json::to_value(value).map_err(BrpError::internal)
}

fn scenes(In(_): In<Option<Value>>, world: &mut World) -> BrpResult {
    to_json(live_link::scenes(world).map_err(brp)?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntityParams {
    entity: EntityParam,
}

fn locate(In(p): In<Option<Value>>, world: &mut World) -> BrpResult {
    let p: EntityParams = params(p)?;
    let located = live_link::locate(world, p.entity.entity()?).map_err(brp)?;
    Ok(in_form(to_json(located)?, p.entity.form()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FindParams {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    root: Option<EntityParam>,
    id_path: Vec<u64>,
}

fn entity(In(p): In<Option<Value>>, world: &mut World) -> BrpResult {
    let p: FindParams = params(p)?;
    if p.path.is_none() && p.root.is_none() {
        return Err(invalid_params(
            "give `path` (a scene's asset path) or `root`",
        ));
    }
    let root = p.root.as_ref().map(EntityParam::entity).transpose()?;
    let form = p.root.as_ref().map(EntityParam::form).unwrap_or_default();
    let found = live_link::find(world, root, p.path.as_deref(), &p.id_path).map_err(brp)?;
    Ok(json!({ "entity": named(found, form) }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RootParams {
    root: EntityParam,
}

fn diff(In(p): In<Option<Value>>, world: &mut World) -> BrpResult {
    let p: RootParams = params(p)?;
    let differences = live_link::differences(world, p.root.entity()?).map_err(brp)?;
    Ok(json!({ "differences": to_json(differences)? }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeepParams {
    root: EntityParam,
    #[serde(default)]
    changes: Option<Vec<FieldRef>>,
    #[serde(default)]
    into: KeepInto,
    #[serde(default)]
    dry_run: bool,
}

fn keep(In(p): In<Option<Value>>, world: &mut World) -> BrpResult {
    let p: KeepParams = params(p)?;
    if p.changes.as_ref().is_some_and(|c| c.len() > MOST_CHANGES) {
        return Err(invalid_params(format!(
            "at most {MOST_CHANGES} changes per request"
        )));
    }
    let root = p.root.entity()?;
    to_json(live_link::keep(world, root, p.changes.as_deref(), p.into, p.dry_run).map_err(brp)?)
}

#[derive(Deserialize)]
struct SetParams {
    #[serde(flatten)]
    value: SetValue,
    #[serde(default)]
    dry_run: bool,
}

fn set(In(p): In<Option<Value>>, world: &mut World) -> BrpResult {
    let p: SetParams = params(p)?;
    to_json(live_link::set(world, &p.value, p.dry_run).map_err(brp)?)
}

/// `forge.changes+watch {root}`: each frame in which entities of the root changed, their
/// differences now: sent when there are some, or when an entity that differed before is back
/// to what the files say (an entry with no differences of its own then means "none left").
/// Nothing is sent for changes that differ from nothing (a game's runtime state).
fn changes(
    In(p): In<Option<Value>>,
    world: &mut World,
    mut differing: bevy_ecs::system::Local<HashMap<Entity, HashSet<Vec<u64>>>>,
) -> BrpResult<Option<Value>> {
    let p: RootParams = params(p)?;
    let root = p.root.entity()?;
    let since = world.last_change_tick();
    let Some(live_link::LiveChanges {
        entities: changed,
        differences,
    }) = live_link::changed_since(world, root, since).map_err(brp)?
    else {
        return Ok(None);
    };
    let before = differing.entry(root).or_default();
    let back: Vec<Vec<u64>> = changed
        .iter()
        .filter(|path| before.contains(*path) && !differences.iter().any(|d| &d.id_path == *path))
        .cloned()
        .collect();
    if differences.is_empty() && back.is_empty() {
        return Ok(None);
    }
    for path in &back {
        before.remove(path);
    }
    before.extend(differences.iter().map(|d| d.id_path.clone()));
    Ok(Some(
        json!({ "changed": to_json(differences)?, "back": back }),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SelectParams {
    entity: Option<EntityParam>,
}

/// `forge.select {entity}`: [`ForgeSelected`] on that entity and on no other; `null` clears
/// the selection. Answers `{entity}` (the entity selected, or `null`).
fn select(In(p): In<Option<Value>>, world: &mut World) -> BrpResult {
    let p: SelectParams = params(p)?;
    let form = p.entity.as_ref().map(EntityParam::form).unwrap_or_default();
    let entity = p.entity.as_ref().map(EntityParam::entity).transpose()?;
    if let Some(e) = entity
        && world.get_entity(e).is_err()
    {
        return Err(BrpError::entity_not_found(e));
    }
    let selected: Vec<Entity> =
        match world.try_query_filtered::<Entity, bevy_ecs::query::With<ForgeSelected>>() {
            Some(mut q) => q.iter(world).collect(),
            None => Vec::new(),
        };
    for e in selected {
        if Some(e) != entity
            && let Ok(mut e) = world.get_entity_mut(e)
        {
            e.remove::<ForgeSelected>();
        }
    }
    if let Some(e) = entity
        && let Ok(mut e) = world.get_entity_mut(e)
    {
        e.insert(ForgeSelected);
    }
    Ok(json!({ "entity": entity.map(|e| named(e, form)) }))
}

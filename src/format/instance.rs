//! Prefab instances: an entity that places another scene file, with overrides keyed by the
//! prefab's stable ids (the `format` module docs, "Prefab instances").

use serde::{Deserialize, Serialize};

use super::builtin::ComponentData;
use super::component::EcoString;
use super::value::TransformData;

/// Deepest nesting of prefab instances: a scene may instance a prefab that instances another, up
/// to this many files below the scene. Deeper chains are refused (a cycle always is).
pub const MAX_PREFAB_DEPTH: usize = 32;

/// Most entities one scene may have with its instances expanded (2^18). A prefab placed twice
/// by a prefab placed twice by ... doubles at each file: without a bound, 32 files could ask
/// for 2^32 entities. A scene that would expand to more is refused.
pub const MAX_EXPANDED_ENTITIES: usize = 1 << 18;

/// What an instance entity places: the prefab scene file (or a glTF model's scene) and the
/// changes to its entities (or nodes).
///
/// The instance entity's own name, transform, components and children apply as for any entity;
/// the prefab's roots become its children, before its own children.
///
/// Exactly one of `scene` and `model` is written in a file (the reader refuses both or
/// neither); when `model` is `Some`, `scene` is empty and each override addresses a node by
/// [`Override::node`] instead of [`Override::target`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// The prefab scene: an asset path relative to the assets directory, with `/` separators
    /// (the format page, "Asset paths"), ending in `.forge.ron`. Empty for a model instance.
    #[serde(default, skip_serializing_if = "EcoString::is_empty")]
    pub scene: EcoString,
    /// A glTF model's scene placed instead of a prefab: an asset path ending in `.gltf` or
    /// `.glb` and a scene label, `models/house.glb#Scene0` (the format page, "Models").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<EcoString>,
    /// Changes to the prefab's entities, in file order. Several may target one entity; later
    /// ones win.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<Override>,
    /// Whether the instance is a streamed cell, and its radii: `None` (the default, and what
    /// files without the field read as) spawns it with the scene; `Some` spawns what it places
    /// only while a `ForgeStreamingSource` is near (the format page, "Streaming").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<Streaming>,
}

/// The distances at which a streamed instance (a **cell**) comes in and goes out, in world
/// units from the instance entity's world position: it comes in when a streaming source is
/// within `load_radius`, and goes out when every source is beyond `unload_radius`. The gap
/// between the two (hysteresis) keeps a source at the edge from loading and unloading it frame
/// after frame. Valid when `0 < load_radius < unload_radius`, both finite (validation,
/// `forge::prefab::streaming`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Streaming {
    /// A source this close (or closer) brings the cell in, in world units.
    pub load_radius: f32,
    /// The cell goes out when every source is farther than this, in world units.
    pub unload_radius: f32,
}

impl Streaming {
    /// What is wrong with these radii, if anything: the field at fault and why.
    pub fn problem(&self) -> Option<(&'static str, String)> {
        let (load, unload) = (self.load_radius, self.unload_radius);
        if !(load.is_finite() && load > 0.0) {
            return Some((
                "load_radius",
                format!("`load_radius` must be a finite distance above 0, found {load}"),
            ));
        }
        if !(unload.is_finite() && unload > load) {
            return Some((
                "unload_radius",
                format!(
                    "`unload_radius` must be finite and larger than `load_radius` ({load}), found {unload}"
                ),
            ));
        }
        None
    }
}

/// Changes to one entity of a prefab, stored as deltas: only what is set differs from the
/// prefab.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Override {
    /// The prefab entity, by id path: its id in the prefab, then, for an entity inside an
    /// instance of the prefab, its id in that nested prefab, and so on (`[7, 2]`). Never empty.
    /// Empty in an override of a model's node, which uses [`node`](Self::node).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target: Vec<u64>,
    /// The model node, by node path (model instances only): glTF node names from the model
    /// scene's root nodes down (`["Roof", "Chimney"]`), an unnamed node as `GltfNode{index}`,
    /// as Bevy's glTF loader names its entities. Written as the override's `target`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node: Vec<EcoString>,
    /// A new name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<EcoString>,
    /// A new local transform (rotation in Euler degrees).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<TransformData>,
    /// New values of fields of components the entity has.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set: Vec<ComponentPatch>,
    /// Components added to the entity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add: Vec<ComponentData>,
    /// Components removed from the entity, by [`key`](ComponentData::key) (`sprite`,
    /// `custom:game::Health`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove: Vec<EcoString>,
    /// Entities of this file placed under the prefab entity, in order after its own children.
    /// Their `parent` is the instance entity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<u64>,
}

impl Instance {
    /// An instance of the prefab at `scene`, without overrides, not streamed.
    pub fn new(scene: impl Into<EcoString>) -> Self {
        Self {
            scene: scene.into(),
            model: None,
            overrides: Vec::new(),
            streaming: None,
        }
    }

    /// An instance of the glTF model scene at `model` (`models/house.glb#Scene0`), without
    /// overrides, not streamed.
    pub fn model(model: impl Into<EcoString>) -> Self {
        Self {
            scene: EcoString::default(),
            model: Some(model.into()),
            overrides: Vec::new(),
            streaming: None,
        }
    }

    /// Whether the instance places a glTF model rather than a prefab scene.
    pub fn is_model(&self) -> bool {
        self.model.is_some()
    }
}

impl Override {
    /// An override of the entity at `target` that changes nothing yet.
    pub fn new(target: impl Into<Vec<u64>>) -> Self {
        Self {
            target: target.into(),
            ..Self::default()
        }
    }

    /// An override of the model node at node path `node` (`["Roof", "Chimney"]`) that changes
    /// nothing yet.
    pub fn at_node<S: Into<EcoString>>(node: impl IntoIterator<Item = S>) -> Self {
        Self {
            node: node.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// Whether the override changes nothing.
    pub fn is_empty(&self) -> bool {
        self.name.is_none()
            && self.transform.is_none()
            && self.set.is_empty()
            && self.add.is_empty()
            && self.remove.is_empty()
            && self.children.is_empty()
    }
}

/// New values for some fields of one component: `(type: point_light, data: (intensity: 800.0))`
/// sets `intensity` and leaves the other fields as the prefab has them.
///
/// `component` holds the values; only the payload fields in `fields` are applied (the others
/// are defaults that were not written). For a custom component the listed custom fields are the
/// ones set, each replacing the prefab's expression of that name (or added when the prefab does
/// not list it), and `fields` is empty; an enum's `value` replaces the prefab's. For
/// `visibility` the whole value is set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComponentPatch {
    /// The component with the new values.
    pub component: ComponentData,
    /// The payload fields set, by path (`intensity`, `custom_size`, `material.base_color`,
    /// `mesh`), in the order of [`ComponentPatch::fields_of`] the component's tag.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<EcoString>,
}

impl ComponentPatch {
    /// The fields a patch may set of the component with tag `tag`, in order: the fields of its
    /// [`BuiltinTag`](super::builtin::BuiltinTag) (`intensity`, `material.metallic`, `mesh`).
    /// Empty for `camera2d` and `camera3d` (add or remove them instead) and for `visibility` and
    /// `custom`, which are set as a whole value and field by field.
    pub fn fields_of(tag: &str) -> Vec<&'static str> {
        super::builtin::builtin_tag(tag)
            .map(|b| b.fields().iter().map(|f| f.path).collect())
            .unwrap_or_default()
    }

    /// A patch that sets `fields` of `component` (built-ins), or the listed fields of a custom
    /// component (`fields` empty).
    pub fn new(component: ComponentData, fields: &[&str]) -> Self {
        Self {
            component,
            fields: fields.iter().map(|f| EcoString::from(*f)).collect(),
        }
    }

    /// Whether the patch sets field `path` of a built-in.
    pub fn sets(&self, path: &str) -> bool {
        self.fields.iter().any(|f| f == path)
    }

    /// Applies the patch onto `target`, a component with the same key (custom components: the
    /// same type, which the caller matches; a type path may be written by its bare name).
    /// Returns `false`, changing nothing, when the components are of different kinds.
    pub fn apply_to(&self, target: &mut ComponentData) -> bool {
        let both_custom = matches!(
            (&self.component, &*target),
            (ComponentData::Custom(_), ComponentData::Custom(_))
        );
        if !both_custom && !self.component.same_key(target) {
            return false;
        }
        match (&self.component, target) {
            (ComponentData::Custom(p), ComponentData::Custom(t)) => {
                for field in &p.fields {
                    match t.fields.iter_mut().find(|f| f.name == field.name) {
                        Some(existing) => existing.expr = field.expr.clone(),
                        None => t.fields.push(field.clone()),
                    }
                }
                // An enum's value is set whole.
                if let Some(value) = &p.value {
                    t.value = Some(value.clone());
                }
            }
            (patch, target) => {
                let Some(b) = patch.builtin() else {
                    return true;
                };
                if let super::builtin::Payload::Mode(_) = b.payload {
                    *target = patch.clone();
                }
                for f in &self.fields {
                    if let Some(i) = b.index_of(f)
                        && let Some(v) = (b.get)(patch, i)
                    {
                        (b.set)(target, i, v.to_value());
                    }
                }
            }
        }
        true
    }
}

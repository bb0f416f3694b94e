//! The body of a cooked file as `postcard` encodes it: the document's types, written the way a
//! format without field names needs. The text format's serde attributes (adjacently tagged
//! components, fields left out when empty) describe RON, where fields are named; here every
//! field is always written, in declaration order, and enums by variant index. Changing anything
//! here changes the encoding: bump [`super::COOKED_VERSION`].

use serde::{Deserialize, Serialize};

use crate::format::{
    ComponentData, ComponentPatch, CustomComponent, DirectionalLightData, EcoString, EntityNode,
    Instance, MaterialData, Mesh3dData, MeshSource, Override, PointLightData, PrimitiveShape,
    SceneDoc, SpriteData, Text2dData, Transform, VisibilityMode,
};

/// The body of a cooked file, as written.
#[derive(Serialize)]
pub(super) struct Body {
    pub(super) source: String,
    pub(super) doc: Doc,
    pub(super) prefabs: Vec<(String, Doc)>,
}

/// The body of a cooked file, as read: the same fields, entities read straight into the
/// document's map (no list of them in between).
#[derive(Deserialize)]
pub(super) struct BodyIn {
    pub(super) source: String,
    pub(super) doc: DocIn,
    pub(super) prefabs: Vec<(String, DocIn)>,
}

#[derive(Serialize)]
pub(super) struct Doc {
    format_version: u32,
    name: String,
    /// Key and entity: a key the entity's `id` disagrees with is kept (validation reports it).
    entities: Vec<(u64, Entity)>,
    roots: Vec<u64>,
    next_id: u64,
}

/// [`Doc`] as read.
#[derive(Deserialize)]
pub(super) struct DocIn {
    format_version: u32,
    name: String,
    entities: Entities,
    roots: Vec<u64>,
    next_id: u64,
}

/// The smallest encoding of an entity: key, id, name, parent, children, a transform of nine
/// `f32`s, components, `locked`, `instance`.
pub(super) const MIN_ENTITY_BYTES: usize = 1 + 1 + 1 + 1 + 1 + 36 + 1 + 1 + 1;

thread_local! {
    /// The most entities the body being decoded could hold (its length over
    /// [`MIN_ENTITY_BYTES`]), set by [`super::CookedScene::decode`]: what a list of entities may
    /// reserve up front.
    pub(super) static ENTITY_BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The entities of a document read into its map, and the first key given twice.
struct Entities(crate::format::EntityMap, Option<u64>);

impl<'de> Deserialize<'de> for Entities {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Entities;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of entities")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Entities, A::Error> {
                // A length from the file is a hint, not a promise: reserve no more entities
                // than the body's bytes could hold.
                let hint = seq.size_hint().unwrap_or(0).min(ENTITY_BUDGET.get());
                let mut map =
                    crate::format::EntityMap::with_capacity_and_hasher(hint, Default::default());
                let mut twice = None;
                while let Some((key, entity)) = seq.next_element::<(u64, EntityIn)>()? {
                    if map.insert(key, entity.into_node()).is_some() {
                        twice.get_or_insert(key);
                    }
                }
                Ok(Entities(map, twice))
            }
        }
        d.deserialize_seq(Visit)
    }
}

#[derive(Serialize)]
struct Entity {
    id: u64,
    name: EcoString,
    parent: Option<u64>,
    children: Vec<u64>,
    transform: Transform,
    components: Vec<Component>,
    locked: bool,
    instance: Option<Box<Placed>>,
}

/// [`Entity`] as read: components straight into the document's type.
#[derive(Deserialize)]
struct EntityIn {
    id: u64,
    name: EcoString,
    parent: Option<u64>,
    children: Vec<u64>,
    transform: Transform,
    components: Components,
    locked: bool,
    instance: Option<Box<Placed>>,
}

/// A list of [`Component`]s read as the document's components.
struct Components(Vec<ComponentData>);

impl<'de> Deserialize<'de> for Components {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Components;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of components")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Components, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(c) = seq.next_element::<Component>()? {
                    out.push(c.into_data());
                }
                Ok(Components(out))
            }
        }
        d.deserialize_seq(Visit)
    }
}

#[derive(Serialize, Deserialize)]
enum Component {
    Sprite(Box<SpriteData>),
    Text2d(Box<Text2dData>),
    Camera2d,
    Camera3d,
    PointLight(PointLightData),
    DirectionalLight(DirectionalLightData),
    Mesh3d(Box<(Mesh, MaterialData)>),
    Visibility(VisibilityMode),
    Custom(CustomComponent),
}

#[derive(Serialize, Deserialize)]
enum Mesh {
    Primitive(PrimitiveShape),
    Asset(String),
}

#[derive(Serialize, Deserialize)]
struct Placed {
    scene: EcoString,
    overrides: Vec<Change>,
}

#[derive(Serialize, Deserialize)]
struct Change {
    target: Vec<u64>,
    name: Option<EcoString>,
    transform: Option<Transform>,
    set: Vec<(Component, Vec<EcoString>)>,
    add: Vec<Component>,
    remove: Vec<EcoString>,
    children: Vec<u64>,
}

impl Doc {
    pub(super) fn of(doc: &SceneDoc) -> Self {
        Doc {
            format_version: doc.format_version,
            name: doc.name.clone(),
            entities: doc
                .entities
                .iter()
                .map(|(key, node)| (*key, Entity::of(node)))
                .collect(),
            roots: doc.roots.clone(),
            next_id: doc.next_id,
        }
    }
}

impl DocIn {
    /// The document.
    ///
    /// # Errors
    /// The id of an entity given twice (the text reader refuses a repeated key too).
    pub(super) fn into_doc(self) -> Result<SceneDoc, u64> {
        let Entities(entities, twice) = self.entities;
        if let Some(key) = twice {
            return Err(key);
        }
        Ok(SceneDoc {
            format_version: self.format_version,
            name: self.name,
            entities,
            roots: self.roots,
            next_id: self.next_id,
        })
    }
}

impl Entity {
    fn of(node: &EntityNode) -> Self {
        Entity {
            id: node.id,
            name: node.name.clone(),
            parent: node.parent,
            children: node.children.clone(),
            transform: node.transform,
            components: node.components.iter().map(Component::of).collect(),
            locked: node.locked,
            instance: node.instance.as_deref().map(|i| {
                Box::new(Placed {
                    scene: i.scene.clone(),
                    overrides: i.overrides.iter().map(Change::of).collect(),
                })
            }),
        }
    }
}

impl EntityIn {
    fn into_node(self) -> EntityNode {
        EntityNode {
            id: self.id,
            name: self.name,
            parent: self.parent,
            children: self.children,
            transform: self.transform,
            components: self.components.0,
            locked: self.locked,
            instance: self.instance.map(|placed| {
                Box::new(Instance {
                    scene: placed.scene,
                    overrides: placed
                        .overrides
                        .into_iter()
                        .map(Change::into_override)
                        .collect(),
                })
            }),
        }
    }
}

impl Component {
    fn of(data: &ComponentData) -> Self {
        match data {
            ComponentData::Sprite(s) => Component::Sprite(s.clone()),
            ComponentData::Text2d(t) => Component::Text2d(t.clone()),
            ComponentData::Camera2d => Component::Camera2d,
            ComponentData::Camera3d => Component::Camera3d,
            ComponentData::PointLight(p) => Component::PointLight(p.clone()),
            ComponentData::DirectionalLight(d) => Component::DirectionalLight(d.clone()),
            ComponentData::Mesh3d(m) => {
                let mesh = match &m.mesh {
                    MeshSource::Primitive(shape) => Mesh::Primitive(shape.clone()),
                    MeshSource::Asset(path) => Mesh::Asset(path.clone()),
                };
                Component::Mesh3d(Box::new((mesh, m.material.clone())))
            }
            ComponentData::Visibility(v) => Component::Visibility(*v),
            ComponentData::Custom(c) => Component::Custom(c.clone()),
        }
    }

    fn into_data(self) -> ComponentData {
        match self {
            Component::Sprite(s) => ComponentData::Sprite(s),
            Component::Text2d(t) => ComponentData::Text2d(t),
            Component::Camera2d => ComponentData::Camera2d,
            Component::Camera3d => ComponentData::Camera3d,
            Component::PointLight(p) => ComponentData::PointLight(p),
            Component::DirectionalLight(d) => ComponentData::DirectionalLight(d),
            Component::Mesh3d(m) => {
                let (mesh, material) = *m;
                let mesh = match mesh {
                    Mesh::Primitive(shape) => MeshSource::Primitive(shape),
                    Mesh::Asset(path) => MeshSource::Asset(path),
                };
                ComponentData::Mesh3d(Box::new(Mesh3dData { mesh, material }))
            }
            Component::Visibility(v) => ComponentData::Visibility(v),
            Component::Custom(c) => ComponentData::Custom(c),
        }
    }
}

impl Change {
    fn of(o: &Override) -> Self {
        Change {
            target: o.target.clone(),
            name: o.name.clone(),
            transform: o.transform,
            set: o
                .set
                .iter()
                .map(|p| (Component::of(&p.component), p.fields.clone()))
                .collect(),
            add: o.add.iter().map(Component::of).collect(),
            remove: o.remove.clone(),
            children: o.children.clone(),
        }
    }

    fn into_override(self) -> Override {
        Override {
            target: self.target,
            name: self.name,
            transform: self.transform,
            set: self
                .set
                .into_iter()
                .map(|(component, fields)| ComponentPatch {
                    component: component.into_data(),
                    fields,
                })
                .collect(),
            add: self.add.into_iter().map(Component::into_data).collect(),
            remove: self.remove,
            children: self.children,
        }
    }
}

//! glTF models placed by instances (`instance: Some((model: "models/house.glb#Scene0"))`): the
//! rules of a model path, and (feature `gltf`) the node tree of a glTF file's JSON, which
//! offline validation checks override node paths against.
//!
//! Node names follow Bevy 0.20.1's glTF loader (`bevy_gltf`, `loader/gltf_ext/scene.rs`): a
//! node's entity is named after the glTF node's `name`, or `GltfNode{index}` when it has none.
//! A node path starts at the scene's root nodes (the scene's own root entity is not part of it).

/// The file and scene index of a model path (`models/house.glb#Scene0` -> `("models/house.glb",
/// 0)`), or `None` when it does not name a `.gltf` or `.glb` file (any case) with a `#SceneN`
/// label (`N` a decimal index without a sign or leading zeros).
pub(crate) fn split_model_path(path: &str) -> Option<(&str, usize)> {
    let (file, label) = path.split_once('#')?;
    let ext = file.rsplit_once('.')?.1.to_ascii_lowercase();
    if ext != "gltf" && ext != "glb" {
        return None;
    }
    let n = label.strip_prefix("Scene")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) || (n.len() > 1 && n.starts_with('0'))
    {
        return None;
    }
    Some((file, n.parse().ok()?))
}

#[cfg(feature = "gltf")]
pub use tree::{ModelEntity, ModelLight, ModelTree, NodeMiss, NodeParts};

#[cfg(feature = "gltf")]
mod tree {
    use serde_json::Value;

    /// The `JSON` chunk type of a `.glb` (glTF 2.0, "Binary glTF Layout").
    const JSON_CHUNK: u32 = 0x4E4F_534A;
    /// `glTF`, little-endian: the magic of a `.glb`.
    const GLB_MAGIC: u32 = 0x4654_6C67;

    /// The scenes and named node tree of a glTF file, with what each node holds (its mesh's
    /// primitives and its light) as Bevy 0.20.1's glTF loader spawns them.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ModelTree {
        /// Each scene's root nodes, by node index.
        pub scenes: Vec<Vec<usize>>,
        /// Each node's entity name and children, by node index.
        pub nodes: Vec<(String, Vec<usize>)>,
        /// Each node's mesh and light, by node index.
        pub parts: Vec<NodeParts>,
        /// Each mesh's primitives, by mesh index: the names Bevy gives their entities (under
        /// the node), `{mesh}.{material}`, or the mesh's name alone for a primitive whose
        /// material has none (`Mesh` for a mesh without a name).
        pub meshes: Vec<Vec<String>>,
        /// The file's punctual lights (`KHR_lights_punctual`), by light index.
        pub lights: Vec<ModelLight>,
    }

    /// What a node holds besides its children.
    #[derive(Debug, Clone, Default, PartialEq, Eq)]
    pub struct NodeParts {
        /// Its mesh, by index in [`ModelTree::meshes`].
        pub mesh: Option<usize>,
        /// Its light, by index in [`ModelTree::lights`].
        pub light: Option<usize>,
        /// Its camera, by index in the file's `cameras`: Bevy puts the camera (`Camera3d`,
        /// `Camera`, `Projection`) on the node's own entity.
        pub camera: Option<usize>,
    }

    /// The entity of a placed model a node path names, as the runtime's `ForgeModelNodes`
    /// finds it: below a node, Bevy 0.20.1's glTF loader spawns its mesh's primitives first,
    /// then its light's entity, then the child nodes, and a path step takes the first of them
    /// with the name.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum ModelEntity {
        /// The glTF scene's own root entity (the empty path).
        SceneRoot,
        /// A node, by index in [`ModelTree::nodes`].
        Node(usize),
        /// Primitive `primitive` of node `node`'s mesh (named `{mesh}.{material}`).
        Primitive {
            /// The node whose mesh it is.
            node: usize,
            /// Its index in the mesh's primitives.
            primitive: usize,
        },
        /// The entity of node `node`'s light: named after the light (Blender names every
        /// light: `Point`, `Spot.001`), or unnamed, the path step `""`.
        Light {
            /// The node whose light it is.
            node: usize,
        },
    }

    /// A punctual light of a glTF file, as its JSON writes it.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ModelLight {
        /// `point`, `spot` or `directional`.
        pub kind: String,
        /// Its name; Bevy's light entity is unnamed without one.
        pub name: Option<String>,
        /// Linear RGB (white when the file leaves it out).
        pub color: [f32; 3],
        /// Candela for point and spot lights, lux for directional ones (1 when left out).
        pub intensity: f32,
        /// The cut-off distance, when the file gives one.
        pub range: Option<f32>,
    }

    /// Where a node path leaves the tree: its first name (by index) that is no node at that
    /// place, and the names there are.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct NodeMiss {
        /// The index in the path of the first name that is no node there.
        pub at: usize,
        /// The node names at that place.
        pub names: Vec<String>,
    }

    impl ModelTree {
        /// Reads the JSON of a `.gltf`, or of a `.glb`'s first chunk.
        ///
        /// # Errors
        /// What is wrong, in words: not JSON, a `.glb` whose header or first chunk is not one,
        /// `scenes` or `nodes` of the wrong shape, a node index out of range.
        pub fn read(bytes: &[u8]) -> Result<Self, String> {
            let json = if bytes.len() >= 4 && u32_at(bytes, 0) == Some(GLB_MAGIC) {
                glb_json(bytes)?
            } else {
                bytes
            };
            let root: Value =
                serde_json::from_slice(json).map_err(|e| format!("its JSON does not read: {e}"))?;
            let indices = |v: Option<&Value>, what: &str| -> Result<Vec<usize>, String> {
                let Some(v) = v else { return Ok(Vec::new()) };
                let list = v
                    .as_array()
                    .ok_or_else(|| format!("{what} is not a list of node indices"))?;
                list.iter()
                    .map(|i| {
                        i.as_u64()
                            .and_then(|i| usize::try_from(i).ok())
                            .ok_or_else(|| format!("{what} holds {i}, not a node index"))
                    })
                    .collect()
            };
            let list = |key: &str| match root.get(key) {
                None => Ok(&[][..]),
                Some(v) => v
                    .as_array()
                    .map(Vec::as_slice)
                    .ok_or_else(|| format!("`{key}` is not a list")),
            };
            let nodes = list("nodes")?
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let name = match n.get("name").and_then(Value::as_str) {
                        Some(name) => name.to_owned(),
                        None => format!("GltfNode{i}"),
                    };
                    Ok((
                        name,
                        indices(n.get("children"), &format!("nodes[{i}].children"))?,
                    ))
                })
                .collect::<Result<Vec<_>, String>>()?;
            let scenes = list("scenes")?
                .iter()
                .enumerate()
                .map(|(i, s)| indices(s.get("nodes"), &format!("scenes[{i}].nodes")))
                .collect::<Result<Vec<_>, String>>()?;
            let index = |v: Option<&Value>| {
                v.and_then(Value::as_u64)
                    .and_then(|i| usize::try_from(i).ok())
            };
            let parts = list("nodes")?
                .iter()
                .map(|n| NodeParts {
                    mesh: index(n.get("mesh")),
                    light: index(n.pointer("/extensions/KHR_lights_punctual/light")),
                    camera: index(n.get("camera")),
                })
                .collect();
            let materials: Vec<Option<&str>> = list("materials")?
                .iter()
                .map(|m| m.get("name").and_then(Value::as_str))
                .collect();
            let meshes = list("meshes")?
                .iter()
                .map(|m| {
                    let mesh = m.get("name").and_then(Value::as_str).unwrap_or("Mesh");
                    let primitives = m.get("primitives").and_then(Value::as_array);
                    primitives
                        .into_iter()
                        .flatten()
                        .map(|p| {
                            // As Bevy's loader (`primitive_name`): the material's name after a dot.
                            let material = index(p.get("material"))
                                .and_then(|i| materials.get(i).copied().flatten());
                            match material {
                                Some(material) => format!("{mesh}.{material}"),
                                None => mesh.to_owned(),
                            }
                        })
                        .collect()
                })
                .collect();
            let number = |v: Option<&Value>| v.and_then(Value::as_f64).map(|f| f as f32);
            let lights = root
                .pointer("/extensions/KHR_lights_punctual/lights")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|l| {
                    let c = |i: usize| number(l.get("color").and_then(|c| c.get(i))).unwrap_or(1.0);
                    ModelLight {
                        kind: l
                            .get("type")
                            .and_then(Value::as_str)
                            .unwrap_or("point")
                            .to_owned(),
                        name: l.get("name").and_then(Value::as_str).map(str::to_owned),
                        color: [c(0), c(1), c(2)],
                        intensity: number(l.get("intensity")).unwrap_or(1.0),
                        range: number(l.get("range")),
                    }
                })
                .collect();
            let tree = Self {
                scenes,
                nodes,
                parts,
                meshes,
                lights,
            };
            let all = tree.scenes.iter().flatten();
            if let Some(bad) = all
                .chain(tree.nodes.iter().flat_map(|n| &n.1))
                .find(|i| **i >= tree.nodes.len())
            {
                return Err(format!(
                    "it refers to node {bad}, but has {} nodes",
                    tree.nodes.len()
                ));
            }
            Ok(tree)
        }

        /// Follows `path` from the root nodes of scene `scene` (which must exist); the first
        /// of siblings sharing a name is taken, as a lookup by name finds it.
        pub fn find<S: AsRef<str>>(&self, scene: usize, path: &[S]) -> Result<usize, NodeMiss> {
            let mut here: &[usize] = self.scenes.get(scene).map_or(&[], Vec::as_slice);
            let mut found = usize::MAX;
            for (at, name) in path.iter().enumerate() {
                let next = here
                    .iter()
                    .copied()
                    .find(|i| self.nodes[*i].0 == name.as_ref());
                match next {
                    Some(i) => {
                        found = i;
                        here = &self.nodes[i].1;
                    }
                    None => {
                        let names = here.iter().map(|i| self.nodes[*i].0.clone()).collect();
                        return Err(NodeMiss { at, names });
                    }
                }
            }
            Ok(found)
        }
    }

    impl ModelTree {
        /// Reads the model a model path names (`models/house.glb#Scene0`) from the assets
        /// directory `assets`, with the scene index of its label (which may be out of range).
        ///
        /// # Errors
        /// What is wrong, in words: not a model path, the file cannot be read, or
        /// [`read`](Self::read)'s errors.
        pub fn open(assets: &std::path::Path, model: &str) -> Result<(Self, usize), String> {
            let (file, scene) = super::split_model_path(model)
                .ok_or_else(|| format!("`{model}` does not name a glTF scene"))?;
            let bytes =
                std::fs::read(assets.join(file)).map_err(|e| format!("it cannot be read: {e}"))?;
            Ok((Self::read(&bytes)?, scene))
        }

        /// The names of the primitive entities of node `node`'s mesh (none without a mesh).
        pub fn primitives(&self, node: usize) -> &[String] {
            self.parts
                .get(node)
                .and_then(|p| p.mesh)
                .and_then(|m| self.meshes.get(m))
                .map_or(&[], Vec::as_slice)
        }

        /// Node `node`'s light, if it has one.
        pub fn light(&self, node: usize) -> Option<&ModelLight> {
            self.parts
                .get(node)
                .and_then(|p| p.light)
                .and_then(|l| self.lights.get(l))
        }

        /// The entities directly below node `node` with the names Bevy gives them, in the
        /// order Bevy 0.20.1's glTF loader spawns them: the mesh's primitives, the light's
        /// entity (its name, or `""`), then the child nodes.
        pub fn entities_below(&self, node: usize) -> Vec<(ModelEntity, &str)> {
            let mut out: Vec<(ModelEntity, &str)> = self
                .primitives(node)
                .iter()
                .enumerate()
                .map(|(primitive, name)| {
                    (ModelEntity::Primitive { node, primitive }, name.as_str())
                })
                .collect();
            if let Some(light) = self.light(node) {
                out.push((
                    ModelEntity::Light { node },
                    light.name.as_deref().unwrap_or(""),
                ));
            }
            if let Some((_, children)) = self.nodes.get(node) {
                out.extend(
                    children.iter().filter_map(|c| {
                        Some((ModelEntity::Node(*c), self.nodes.get(*c)?.0.as_str()))
                    }),
                );
            }
            out
        }

        /// The entity `path` names in scene `scene` (which must exist), as the runtime finds
        /// it ([`ModelEntity`]): node names from the scene's root nodes down, and below a node
        /// also its mesh's primitives and its light's entity; the first of same-named siblings
        /// in Bevy's order.
        ///
        /// # Errors
        /// The first name that names nothing at its place, with the names there are.
        pub fn resolve<S: AsRef<str>>(
            &self,
            scene: usize,
            path: &[S],
        ) -> Result<ModelEntity, NodeMiss> {
            let mut at = ModelEntity::SceneRoot;
            for (step, name) in path.iter().enumerate() {
                let here: Vec<(ModelEntity, &str)> = match at {
                    ModelEntity::SceneRoot => self
                        .scenes
                        .get(scene)
                        .into_iter()
                        .flatten()
                        .filter_map(|i| {
                            Some((ModelEntity::Node(*i), self.nodes.get(*i)?.0.as_str()))
                        })
                        .collect(),
                    ModelEntity::Node(node) => self.entities_below(node),
                    // Primitives and lights have nothing below them.
                    _ => Vec::new(),
                };
                match here.iter().find(|(_, n)| *n == name.as_ref()) {
                    Some((e, _)) => at = *e,
                    None => {
                        return Err(NodeMiss {
                            at: step,
                            names: here.iter().map(|(_, n)| (*n).to_owned()).collect(),
                        });
                    }
                }
            }
            Ok(at)
        }

        /// The built-in tags on entity `entity` that an override's `set` and `remove` reach
        /// there (the format page, "Models"): on a node, its camera's `camera3d` and its
        /// light's tag (on the light's entity); on a light's entity its tag; on a primitive
        /// `mesh3d`. `visibility`, which every entity has and `set` writes whole, is not
        /// listed.
        pub fn builtins_at(&self, entity: ModelEntity) -> Vec<&'static str> {
            let light_tag = |node: usize| {
                self.light(node).map(|l| match l.kind.as_str() {
                    "spot" => "spot_light",
                    "directional" => "directional_light",
                    _ => "point_light",
                })
            };
            match entity {
                ModelEntity::SceneRoot => Vec::new(),
                ModelEntity::Node(node) => {
                    let camera = self
                        .parts
                        .get(node)
                        .and_then(|p| p.camera)
                        .map(|_| "camera3d");
                    camera.into_iter().chain(light_tag(node)).collect()
                }
                ModelEntity::Light { node } => light_tag(node).into_iter().collect(),
                ModelEntity::Primitive { .. } => vec!["mesh3d"],
            }
        }

        /// The nodes directly below `path` in scene `scene` (its root nodes for an empty
        /// path), or `None` when the scene or the path is not in the tree.
        pub fn children_at<S: AsRef<str>>(&self, scene: usize, path: &[S]) -> Option<&[usize]> {
            if path.is_empty() {
                return self.scenes.get(scene).map(Vec::as_slice);
            }
            let node = self.find(scene, path).ok()?;
            Some(&self.nodes[node].1)
        }
    }

    fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
        let b = bytes.get(at..at + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The JSON chunk of a `.glb`: a 12-byte header (magic, version 2, length), then chunks of
    /// `u32` length, `u32` type and data, the first of type `JSON`.
    fn glb_json(bytes: &[u8]) -> Result<&[u8], String> {
        let version = u32_at(bytes, 4).ok_or("its .glb header is cut short")?;
        if version != 2 {
            return Err(format!(
                "it is a version {version} .glb; glTF 2.0 is version 2"
            ));
        }
        let len = u32_at(bytes, 12).ok_or("its .glb has no first chunk")? as usize;
        if u32_at(bytes, 16) != Some(JSON_CHUNK) {
            return Err("its .glb's first chunk is not the JSON chunk".to_owned());
        }
        bytes
            .get(20..20usize.saturating_add(len))
            .ok_or_else(|| format!("its .glb's JSON chunk of {len} bytes is cut short"))
    }
}

#[cfg(test)]
mod tests {
    use super::split_model_path;

    #[test]
    fn model_paths_need_a_gltf_file_and_a_scene_label() {
        assert_eq!(
            split_model_path("models/house.glb#Scene0"),
            Some(("models/house.glb", 0))
        );
        assert_eq!(split_model_path("a.GLTF#Scene12"), Some(("a.GLTF", 12)));
        for bad in [
            "models/house.glb",
            "models/house.glb#Mesh0",
            "models/house.glb#Scene",
            "models/house.glb#Scene01",
            "models/house.glb#Scene-1",
            "models/house.obj#Scene0",
            "house.forge.ron#Scene0",
        ] {
            assert_eq!(split_model_path(bad), None, "{bad}");
        }
    }
}

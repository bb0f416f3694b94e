//! The rules of [`validate_parsed`](super::validate_parsed) kept part by part, so the next
//! version of a text is checked again only where it changed ([`RuleParts::again`]): each
//! entity's own rules by entity, the forest and the names whole when an edit could change them,
//! the scene-wide rules from counts kept by entity.

use bevy_platform::collections::HashMap;

use super::scene::{SceneFacts, scene_rules};
use super::structure::{duplicate_names, scene_name, structure};
use super::{Collector, Diagnostic, placed, read_warnings};
use crate::format::builtin::Role;
use crate::format::{EntityNode, IdHasher, ParsedScene, SceneDoc, SourceMap, TextChange};
use crate::project::AssetIndex;

/// What an edit changed in a document, as [`RuleParts::again`] and the pipeline's incremental
/// check need it.
#[derive(Debug)]
pub(crate) struct Edit<'a> {
    /// The edit of the text.
    pub(crate) text: TextChange,
    /// The document before it.
    pub(crate) old: &'a SceneDoc,
    /// The entities of the new document whose entries the edit touched, or that are new, in
    /// file order.
    pub(crate) changed: Vec<u64>,
    /// The entities of the old document the new one does not have.
    pub(crate) removed: Vec<u64>,
}

impl Edit<'_> {
    /// Whether the forest may have changed: an entity came or went, a changed entity has
    /// another parent, children or overrides that place children, or `roots`, `next_id` or a
    /// layer's id, name or parent changed.
    pub(crate) fn forest_changed(&self, new: &SceneDoc) -> bool {
        fn placing(n: &EntityNode) -> Option<Vec<&Vec<u64>>> {
            n.instance
                .as_deref()
                .map(|i| i.overrides.iter().map(|o| &o.children).collect())
        }
        let layers = |d: &SceneDoc| {
            d.layers
                .iter()
                .map(|l| (l.id, l.name.clone(), l.parent))
                .collect::<Vec<_>>()
        };
        !self.removed.is_empty()
            || self.old.roots != new.roots
            || self.old.next_id != new.next_id
            || layers(self.old) != layers(new)
            || self.changed.iter().any(|id| {
                match (self.old.entities.get(id), new.entities.get(id)) {
                    (Some(a), Some(b)) => {
                        a.id != b.id
                            || a.parent != b.parent
                            || a.children != b.children
                            || placing(a) != placing(b)
                    }
                    _ => true,
                }
            })
    }

    /// Whether an entity's name may have changed (or an entity came or went).
    pub(crate) fn names_changed(&self, new: &SceneDoc) -> bool {
        !self.removed.is_empty()
            || self.changed.iter().any(|id| {
                match (self.old.entities.get(id), new.entities.get(id)) {
                    (Some(a), Some(b)) => a.name != b.name,
                    _ => true,
                }
            })
    }
}

/// Moves the positions of `d` (a diagnostic of the old text) to where they are in the new one
/// (`map` is the new text's): `false` when one is inside what `change` replaced (then the rule
/// that found it must look again).
pub(crate) fn moved(d: &mut Diagnostic, change: &TextChange, map: &SourceMap) -> bool {
    if d.file.is_some() {
        // Another file's places: the edit is not in it.
        return true;
    }
    let at = |p: &mut Option<crate::format::Position>| match *p {
        None => true,
        Some(old) if old.offset < change.start => true,
        Some(old) => match change.moved(old.offset) {
            Some(new) => {
                *p = Some(map.position_of_offset(new));
                true
            }
            None => false,
        },
    };
    let mut ok = at(&mut d.position);
    for r in &mut d.related {
        if r.file.is_none() {
            ok &= at(&mut r.position);
        }
    }
    ok
}

/// Moves every diagnostic of `list` to the new text; `false` (and `list` half moved) when one
/// cannot be.
fn all_moved(list: &mut [Diagnostic], change: &TextChange, map: &SourceMap) -> bool {
    list.iter_mut().all(|d| moved(d, change, map))
}

/// The camera, light and mesh components of one entity: what the scene-wide rules count.
#[derive(Debug, Clone, Default, PartialEq)]
struct Roles {
    /// Its cameras in component order: `true` for a 3D one.
    cameras: Vec<bool>,
    lights: usize,
    meshes: usize,
}

impl Roles {
    fn of(node: &EntityNode) -> Option<Roles> {
        let mut roles = Roles::default();
        for component in &node.components {
            match component.builtin().map(|b| b.role) {
                Some(Role::Camera2d) => roles.cameras.push(false),
                Some(Role::Camera3d) => roles.cameras.push(true),
                Some(Role::Light) => roles.lights += 1,
                Some(Role::Mesh) => roles.meshes += 1,
                _ => {}
            }
        }
        (roles != Roles::default()).then_some(roles)
    }
}

/// The diagnostics of `validate_parsed`, kept by part.
#[derive(Debug, Clone, Default)]
pub(crate) struct RuleParts {
    /// The forest rules.
    structure: Vec<Diagnostic>,
    /// Entity names used twice.
    names: Vec<Diagnostic>,
    /// Each entity's own rules (its name, transform, components, instance), by id; entities
    /// without any are not listed.
    entities: HashMap<u64, Vec<Diagnostic>, IdHasher>,
    /// The entities with cameras, lights or meshes, by id.
    roles: HashMap<u64, Roles, IdHasher>,
    /// How many lights and meshes all the entities have.
    lights: usize,
    meshes: usize,
    /// The rest, found again for every version: the scene's name, cameras and lights across
    /// the scene, tile layers, what the reader noticed.
    scene: Vec<Diagnostic>,
}

impl RuleParts {
    /// Every rule over the whole of `parsed` (asset paths against `assets`, when given).
    pub(crate) fn whole(parsed: &ParsedScene, assets: Option<&AssetIndex>) -> RuleParts {
        let doc = &parsed.doc;
        let mut parts = RuleParts {
            structure: found(parsed, |c| structure(c, doc)),
            names: found(parsed, |c| duplicate_names(c, doc)),
            ..RuleParts::default()
        };
        let mut facts = SceneFacts::default();
        for (&id, node) in &doc.entities {
            parts.add_entity(parsed, id, node, assets, &mut facts);
        }
        parts.scene = parts.scene_rules(parsed);
        parts
    }

    /// The parts of `parsed`, the text after `edit`, from those of the text before it (`self`):
    /// the changed entities' rules run again, the forest's and the names' when the edit could
    /// change them, the scene-wide rules from the kept counts; every kept position moved to
    /// the new text. Gives what [`whole`](Self::whole) gives.
    pub(crate) fn again(
        mut self,
        parsed: &ParsedScene,
        assets: Option<&AssetIndex>,
        edit: &Edit<'_>,
    ) -> RuleParts {
        let doc = &parsed.doc;
        let map = &parsed.source_map;
        let change = &edit.text;
        if edit.forest_changed(doc) || !all_moved(&mut self.structure, change, map) {
            self.structure = found(parsed, |c| structure(c, doc));
        }
        if edit.names_changed(doc) || !all_moved(&mut self.names, change, map) {
            self.names = found(parsed, |c| duplicate_names(c, doc));
        }
        for id in edit.removed.iter().chain(&edit.changed) {
            self.entities.remove(id);
            if let Some(roles) = self.roles.remove(id) {
                self.lights -= roles.lights;
                self.meshes -= roles.meshes;
            }
        }
        // Kept entities' rules moved; one whose place the edit replaced is checked again.
        let mut again: Vec<u64> = Vec::new();
        for (id, list) in &mut self.entities {
            if !all_moved(list, change, map) {
                again.push(*id);
            }
        }
        for id in &again {
            self.entities.remove(id);
            if let Some(roles) = self.roles.remove(id) {
                self.lights -= roles.lights;
                self.meshes -= roles.meshes;
            }
        }
        let mut facts = SceneFacts::default();
        for id in edit.changed.iter().chain(&again) {
            if let Some(node) = doc.entities.get(id) {
                self.add_entity(parsed, *id, node, assets, &mut facts);
            }
        }
        self.scene = self.scene_rules(parsed);
        self
    }

    /// Every diagnostic, unsorted.
    pub(crate) fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut out = Vec::with_capacity(
            self.structure.len() + self.names.len() + self.entities.len() + self.scene.len(),
        );
        out.extend(self.structure.iter().cloned());
        out.extend(self.names.iter().cloned());
        out.extend(self.entities.values().flatten().cloned());
        out.extend(self.scene.iter().cloned());
        out
    }

    /// Runs entity `id`'s own rules and counts its roles.
    fn add_entity(
        &mut self,
        parsed: &ParsedScene,
        id: u64,
        node: &EntityNode,
        assets: Option<&AssetIndex>,
        facts: &mut SceneFacts,
    ) {
        let list = found(parsed, |c| {
            super::entity::entity(c, id, node, assets, facts)
        });
        if !list.is_empty() {
            self.entities.insert(id, list);
        }
        if let Some(roles) = Roles::of(node) {
            self.lights += roles.lights;
            self.meshes += roles.meshes;
            self.roles.insert(id, roles);
        }
    }

    /// The rules found again for every version: the scene's name, cameras and lights across the
    /// scene (from the kept roles), tile layers, and what the reader noticed.
    fn scene_rules(&self, parsed: &ParsedScene) -> Vec<Diagnostic> {
        let doc = &parsed.doc;
        let mut facts = SceneFacts {
            lights: self.lights,
            meshes: self.meshes,
            ..SceneFacts::default()
        };
        // Cameras in file order (few entities have one).
        let mut cameras: Vec<(usize, u64, &[bool])> = self
            .roles
            .iter()
            .filter(|(_, r)| !r.cameras.is_empty())
            .map(|(id, r)| {
                let at = doc.entities.get_index_of(id).unwrap_or(usize::MAX);
                (at, *id, &r.cameras[..])
            })
            .collect();
        cameras.sort_unstable();
        for (_, id, kinds) in cameras {
            for three in kinds {
                facts.cameras += 1;
                facts.camera_entities.push(id);
                match three {
                    true => facts.first_3d.get_or_insert(id),
                    false => facts.first_2d.get_or_insert(id),
                };
            }
        }
        let mut out = found(parsed, |c| {
            scene_name(c, doc);
            scene_rules(c, &facts);
            super::layer::layers(c, doc);
        });
        out.extend(read_warnings(parsed));
        out
    }
}

/// What `rules` found, placed in `parsed`.
fn found(parsed: &ParsedScene, rules: impl FnOnce(&mut Collector)) -> Vec<Diagnostic> {
    let mut c = Collector { found: Vec::new() };
    rules(&mut c);
    c.found
        .into_iter()
        .map(|(d, loc)| placed(parsed, d, loc))
        .collect()
}

//! Typed edits: one value written at one place of a scene file, an entity's entry or an
//! override of the instance that placed it ([`FieldEdit`]). Each kind of value is written once
//! here, the same way at both places (a custom field, a built-in's field, a transform part, a
//! name); [`SceneEdit::write`](super::SceneEdit::write) then splices the text of the entities
//! they touched, and only those.

use super::{Expect, PatchGroup, SceneEdit, SceneEditError, refuse_new_errors, splice};
use crate::format::{
    ComponentData, ComponentPatch, CustomComponent, EcoString, EditError, EntityNode, Instance,
    Override, TransformData, Vec3Data,
};

/// Where a [`FieldEdit`] writes.
#[derive(Debug, Clone, PartialEq)]
pub enum EditAt {
    /// Entity `0`'s own entry.
    Entry(u64),
    /// The override of the instance on entity `instance` whose target is the prefab entity at
    /// id path `target` (added after the others when the instance has none for it).
    Override {
        /// The instance entity's id.
        instance: u64,
        /// The prefab entity's id path inside the instance (`[1]`, `[7, 2]`).
        target: Vec<u64>,
    },
}

/// A part of a transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransformPart {
    /// `translation`.
    Translation,
    /// `rotation` (Euler degrees).
    Rotation,
    /// `scale`.
    Scale,
}

impl TransformPart {
    /// The part named `name` (`translation`, `rotation`, `scale`).
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "translation" => Some(Self::Translation),
            "rotation" => Some(Self::Rotation),
            "scale" => Some(Self::Scale),
            _ => None,
        }
    }

    /// Its name in the file.
    pub fn name(self) -> &'static str {
        match self {
            Self::Translation => "translation",
            Self::Rotation => "rotation",
            Self::Scale => "scale",
        }
    }

    /// This part of `t`.
    pub fn of(self, t: &TransformData) -> Vec3Data {
        match self {
            Self::Translation => t.translation,
            Self::Rotation => t.rotation,
            Self::Scale => t.scale,
        }
    }

    fn set(self, t: &mut TransformData, v: Vec3Data) {
        match self {
            Self::Translation => t.translation = v,
            Self::Rotation => t.rotation = v,
            Self::Scale => t.scale = v,
        }
    }
}

/// A value a [`FieldEdit`] writes, as the format holds it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FieldValue {
    /// The entity's name.
    Name(EcoString),
    /// One part of the transform. An override that writes no transform yet starts from
    /// `base` (the entity's transform as it spawns) with this part changed.
    Transform {
        /// Which part.
        part: TransformPart,
        /// Its new value (rotation in Euler degrees).
        value: Vec3Data,
        /// The whole transform an override starts from.
        base: TransformData,
    },
    /// Field `field` of custom component `type_path` (the component added when the place has
    /// none).
    CustomField {
        /// The component's type path.
        type_path: EcoString,
        /// The field's name.
        field: EcoString,
        /// Its expression.
        expr: EcoString,
    },
    /// The whole `value` of custom (enum) component `type_path`.
    CustomValue {
        /// The component's type path.
        type_path: EcoString,
        /// Its expression.
        expr: EcoString,
    },
    /// Payload field `field` (its index in its tag's fields) of a built-in, whose new value
    /// `component` holds.
    BuiltinField {
        /// The built-in with the new value.
        component: ComponentData,
        /// The field's index in its tag's fields.
        field: usize,
    },
    /// A built-in written whole (`visibility`, or every field).
    Builtin(ComponentData),
}

/// One value written at one place of a scene file.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldEdit {
    /// Where.
    pub at: EditAt,
    /// What.
    pub value: FieldValue,
}

impl FieldEdit {
    /// The entity whose entry this edit changes: the entity itself, or the instance entity.
    pub fn entity(&self) -> u64 {
        match &self.at {
            EditAt::Entry(id) => *id,
            EditAt::Override { instance, .. } => *instance,
        }
    }

    /// Writes this edit into `node`, the entity [`entity`](Self::entity) names.
    ///
    /// # Errors
    /// [`EditError::NoSuchComponent`] for a built-in field of a component the entry does not
    /// write; [`EditError::NoSuchEntity`] for an override of an entity without an instance.
    pub fn write(&self, node: &mut EntityNode) -> Result<(), EditError> {
        match &self.at {
            EditAt::Entry(_) => write_entry(node, &self.value),
            EditAt::Override { target, .. } => {
                let id = node.id;
                let instance: &mut Instance = node
                    .instance
                    .as_deref_mut()
                    .ok_or(EditError::NoSuchEntity(id))?;
                let o = override_for(instance, target);
                write_override(o, &self.value);
                Ok(())
            }
        }
    }
}

/// The last override of `instance` whose target is `target` (a later one wins), added after
/// the others when there is none.
fn override_for<'a>(instance: &'a mut Instance, target: &[u64]) -> &'a mut Override {
    let at = instance
        .overrides
        .iter()
        .rposition(|o| o.target == target && o.node.is_empty());
    let at = match at {
        Some(at) => at,
        None => {
            instance.overrides.push(Override {
                target: target.to_vec(),
                ..Default::default()
            });
            instance.overrides.len() - 1
        }
    };
    &mut instance.overrides[at]
}

fn write_entry(node: &mut EntityNode, value: &FieldValue) -> Result<(), EditError> {
    let id = node.id;
    match value {
        FieldValue::Name(name) => node.name = name.as_str().into(),
        FieldValue::Transform { part, value, .. } => part.set(&mut node.transform, *value),
        FieldValue::CustomField {
            type_path,
            field,
            expr,
        } => custom_in(&mut node.components, type_path).set_field(field, expr),
        FieldValue::CustomValue { type_path, expr } => {
            custom_in(&mut node.components, type_path).value = Some(expr.clone());
        }
        FieldValue::BuiltinField { component, field } => {
            let slot = builtin_in(&mut node.components, component, id)?;
            copy_field(slot, component, *field);
        }
        FieldValue::Builtin(component) => {
            *builtin_in(&mut node.components, component, id)? = component.clone();
        }
    }
    Ok(())
}

fn builtin_in<'a>(
    components: &'a mut [ComponentData],
    component: &ComponentData,
    id: u64,
) -> Result<&'a mut ComponentData, EditError> {
    components
        .iter_mut()
        .find(|c| c.same_key(component))
        .ok_or_else(|| EditError::NoSuchComponent {
            id,
            key: component.key(),
        })
}

fn write_override(o: &mut Override, value: &FieldValue) {
    match value {
        FieldValue::Name(name) => o.name = Some(name.clone()),
        FieldValue::Transform { part, value, base } => {
            let mut t = o.transform.unwrap_or(*base);
            part.set(&mut t, *value);
            o.transform = Some(t);
        }
        FieldValue::CustomField {
            type_path,
            field,
            expr,
        } => custom_patch(o, type_path).set_field(field, expr),
        FieldValue::CustomValue { type_path, expr } => {
            custom_patch(o, type_path).value = Some(expr.clone());
        }
        FieldValue::BuiltinField { component, field } => {
            let patch = patch_of(o, component);
            copy_field(&mut patch.component, component, *field);
            if let Some(path) = component
                .builtin()
                .and_then(|b| b.fields().get(*field))
                .map(|f| f.path)
                && !patch.sets(path)
            {
                patch.fields.push(path.into());
                // The fields in their tag's order, as the writer lists them.
                let order = ComponentPatch::fields_of(component.tag());
                patch.fields.sort_by_key(|f| {
                    order
                        .iter()
                        .position(|o| *o == f.as_str())
                        .unwrap_or(usize::MAX)
                });
            }
        }
        FieldValue::Builtin(component) => {
            let patch = patch_of(o, component);
            patch.component = component.clone();
            patch.fields = ComponentPatch::fields_of(component.tag())
                .into_iter()
                .map(EcoString::from)
                .collect();
        }
    }
}

/// The last `set` patch of `component`'s key in `o`, added (setting nothing yet) when it has
/// none.
fn patch_of<'a>(o: &'a mut Override, component: &ComponentData) -> &'a mut ComponentPatch {
    let at = match o.set.iter().rposition(|p| p.component.same_key(component)) {
        Some(at) => at,
        None => {
            o.set.push(ComponentPatch::new(component.clone(), &[]));
            o.set.len() - 1
        }
    };
    &mut o.set[at]
}

/// Field `field` of built-in `from` copied into `to`.
fn copy_field(to: &mut ComponentData, from: &ComponentData, field: usize) {
    if let Some(tag) = from.builtin()
        && let Some(v) = (tag.get)(from, field)
    {
        (tag.set)(to, field, v.to_value());
    }
}

/// The custom component `type_path` of `components`, added empty when it has none.
fn custom_in<'a>(
    components: &'a mut Vec<ComponentData>,
    type_path: &str,
) -> &'a mut CustomComponent {
    let at = components
        .iter()
        .position(|c| matches!(c, ComponentData::Custom(c) if c.type_path == type_path));
    let at = at.unwrap_or_else(|| {
        components.push(ComponentData::Custom(CustomComponent {
            type_path: type_path.into(),
            ..Default::default()
        }));
        components.len() - 1
    });
    match &mut components[at] {
        ComponentData::Custom(c) => c,
        _ => unreachable!("position found a custom component"),
    }
}

/// The `set` patch of custom component `type_path` in `o`, added when it has none.
fn custom_patch<'a>(o: &'a mut Override, type_path: &str) -> &'a mut CustomComponent {
    let custom = ComponentData::Custom(CustomComponent {
        type_path: type_path.into(),
        ..Default::default()
    });
    match &mut patch_of(o, &custom).component {
        ComponentData::Custom(c) => c,
        _ => unreachable!("a patch of a custom key is custom"),
    }
}

impl SceneEdit {
    /// Writes each of `edits` ([`FieldEdit`]: a value at an entity's entry or in an override
    /// of its instance) as one edit labelled `label`: only the touched entities' bytes
    /// change, as for [`change`](Self::change), and only their entries are read again.
    ///
    /// # Errors
    /// As [`change`](Self::change); [`EditError::NoSuchEntity`] for an entity the text does
    /// not have.
    pub fn write(
        &mut self,
        label: impl Into<String>,
        edits: &[FieldEdit],
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        let nodes = self.written(edits)?;
        let mut doc = self.parsed.doc.clone();
        for node in &nodes {
            if let Some(slot) = doc.entity_mut(node.id) {
                *slot = node.clone();
            }
        }
        refuse_new_errors(&self.parsed.doc, &doc)?;
        self.splice_entities(label.into(), &nodes)
    }

    /// [`write`](Self::write) without looking for new validation errors: the caller checks
    /// the result (the live link's write path checks it in part, with the game's schemas).
    pub(crate) fn write_unchecked(
        &mut self,
        label: impl Into<String>,
        edits: &[FieldEdit],
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        let nodes = self.written(edits)?;
        self.splice_entities(label.into(), &nodes)
    }

    /// The entities `edits` touch, each as it is once they are written.
    fn written(&self, edits: &[FieldEdit]) -> Result<Vec<EntityNode>, SceneEditError> {
        let mut nodes: Vec<EntityNode> = Vec::new();
        for edit in edits {
            let id = edit.entity();
            let at = match nodes.iter().position(|n| n.id == id) {
                Some(at) => at,
                None => {
                    let node = self
                        .parsed
                        .doc
                        .entity(id)
                        .ok_or(EditError::NoSuchEntity(id))?;
                    nodes.push(node.clone());
                    nodes.len() - 1
                }
            };
            edit.write(&mut nodes[at])?;
        }
        Ok(nodes)
    }

    /// Splices the text of each of `nodes` (entities of the document, changed) and records it
    /// as one group.
    fn splice_entities(
        &mut self,
        label: String,
        nodes: &[EntityNode],
    ) -> Result<Option<PatchGroup>, SceneEditError> {
        let pairs: Vec<(&EntityNode, &EntityNode)> = nodes
            .iter()
            .filter_map(|n| Some((self.parsed.doc.entity(n.id)?, n)))
            .collect();
        let splices = splice::entity_splices(&self.text, &self.parsed.source_map, &pairs)
            .map_err(|e| SceneEditError::InPlace(e.0))?;
        self.splice_in(label, &splices, Some(Expect::Entities(nodes)))
    }
}

//! Renamed custom component types and fields (`#[forge(renamed_from = "..")]`): which old
//! names a scene may still write, and the document with them written as the new ones.
//!
//! The table is built from the schemas (the game's [`ForgeSchemas`](crate::ForgeSchemas) in the
//! loader, a [`SchemaFile`](super::SchemaFile) in tools). The pipeline applies it to every
//! document before the custom components are checked, so everything after it (building,
//! spawning, hot reload, cooking) sees the new names, and each old name becomes one warning
//! (`forge::custom::renamed`, `forge::custom::renamed_field`) where it is written;
//! `forge migrate --schema` rewrites the old names in the file itself.

use std::collections::HashMap;

use super::ComponentSchema;
use crate::format::{ComponentData, CustomComponent, SceneDoc};

/// The old names of the types and fields of a set of schemas.
#[derive(Debug, Clone, Default)]
pub(crate) struct Renames {
    /// Old type path to the current one.
    types: HashMap<String, String>,
    /// Current type path to its fields' `(old, current)` names.
    fields: HashMap<String, Vec<(String, String)>>,
    /// Current type path of an enum component to its variants' `(old, current)` names.
    variants: HashMap<String, Vec<(String, String)>>,
    /// Every current type path: a bare name that ends one of them is not an old name.
    current: Vec<String>,
}

/// Where a renamed name is written in a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Component `index` of entity `entity`.
    Component {
        /// The entity's id.
        entity: u64,
        /// The component's index in `components`.
        index: usize,
    },
    /// Component `index` of the `set` list of override `at` of the instance on `entity`.
    OverrideSet {
        /// The instance entity's id.
        entity: u64,
        /// The override's index.
        at: usize,
        /// The patch's index in `set`.
        index: usize,
    },
    /// Component `index` of the `add` list of override `at` of the instance on `entity`.
    OverrideAdd {
        /// The instance entity's id.
        entity: u64,
        /// The override's index.
        at: usize,
        /// The component's index in `add`.
        index: usize,
    },
    /// Key `index` of the `remove` list of override `at` of the instance on `entity`.
    OverrideRemove {
        /// The instance entity's id.
        entity: u64,
        /// The override's index.
        at: usize,
        /// The key's index in `remove`.
        index: usize,
    },
}

impl Place {
    /// The entity the name is on.
    pub(crate) fn entity(&self) -> u64 {
        match *self {
            Place::Component { entity, .. }
            | Place::OverrideSet { entity, .. }
            | Place::OverrideAdd { entity, .. }
            | Place::OverrideRemove { entity, .. } => entity,
        }
    }
}

/// One old name found (and replaced) in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Renamed {
    /// Where the component is.
    pub(crate) place: Place,
    /// What was renamed.
    pub(crate) what: RenamedPart,
}

/// A renamed type path or field name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RenamedPart {
    /// The component's type path, as written (`from`) and now (`to`).
    Type {
        /// As the file writes it.
        from: String,
        /// The current type path.
        to: String,
    },
    /// The variant an enum component's `value` names (its name at byte `at` of `value`).
    Variant {
        /// The current type path of the component.
        type_path: String,
        /// The `value` as the file writes it.
        value: String,
        /// Where the variant's name starts in `value`.
        at: usize,
        /// The variant as the file writes it.
        from: String,
        /// The current name.
        to: String,
    },
    /// Field `field` (its index in the component's fields) of the type `type_path`.
    Field {
        /// The current type path of the component.
        type_path: String,
        /// The field's index among the component's fields.
        field: usize,
        /// As the file writes it.
        from: String,
        /// The current name.
        to: String,
    },
}

/// The last segment of a type path.
fn ident(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

impl Renames {
    /// The old names `schemas` list.
    pub(crate) fn new<'a>(schemas: impl IntoIterator<Item = &'a ComponentSchema> + Clone) -> Self {
        let mut out = Renames::default();
        // Most games rename nothing: then every load skips the table (and the walk) at once.
        let renamed = |s: &ComponentSchema| {
            !s.renamed_from.is_empty()
                || !s.renamed_variants.is_empty()
                || s.fields.iter().any(|f| !f.renamed_from.is_empty())
        };
        if !schemas.clone().into_iter().any(renamed) {
            return out;
        }
        for schema in schemas {
            out.current.push(schema.type_path.clone());
            for old in &schema.renamed_from {
                out.types
                    .entry(old.clone())
                    .or_insert_with(|| schema.type_path.clone());
            }
            let fields: Vec<(String, String)> = schema
                .fields
                .iter()
                .flat_map(|f| f.renamed_from.iter().map(|o| (o.clone(), f.name.clone())))
                .collect();
            if !fields.is_empty() {
                out.fields.insert(schema.type_path.clone(), fields);
            }
            let variants: Vec<(String, String)> = schema
                .renamed_variants
                .iter()
                .filter(|r| schema.variant(&r.from).is_none())
                .map(|r| (r.from.clone(), r.to.clone()))
                .collect();
            if !variants.is_empty() {
                out.variants.insert(schema.type_path.clone(), variants);
            }
        }
        // A path that is some type's current path names that type, even when another type was
        // once called so.
        let current = &out.current;
        out.types.retain(|old, _| !current.contains(old));
        out
    }

    /// Whether no type or field was renamed (then documents need no walk).
    pub(crate) fn is_empty(&self) -> bool {
        self.types.is_empty() && self.fields.is_empty() && self.variants.is_empty()
    }

    /// The current type path that `written` (a scene's `type_path`: full, or a bare type name)
    /// names, when it is an old name: exactly, or as the bare name of one old path only, and of
    /// no current one.
    pub(crate) fn renamed_type(&self, written: &str) -> Option<&str> {
        if let Some(to) = self.types.get(written) {
            return Some(to);
        }
        if written.contains("::") || self.current_path(written).is_some() {
            return None;
        }
        let mut found = self
            .types
            .iter()
            .filter(|(old, _)| ident(old) == written)
            .map(|(_, to)| to.as_str());
        match (found.next(), found.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// The current type path `written` names: exactly, or as a unique bare name.
    fn current_path(&self, written: &str) -> Option<&str> {
        if let Some(p) = self.current.iter().find(|p| *p == written) {
            return Some(p);
        }
        if written.contains("::") {
            return None;
        }
        let mut found = self.current.iter().filter(|p| ident(p) == written);
        match (found.next(), found.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// The current name of field `written` of the type whose current path is `type_path`,
    /// when `written` is an old name of one of its fields.
    pub(crate) fn renamed_field(&self, type_path: &str, written: &str) -> Option<&str> {
        let written = written.strip_prefix("r#").unwrap_or(written);
        self.fields
            .get(type_path)?
            .iter()
            .find(|(old, _)| old == written)
            .map(|(_, now)| now.as_str())
    }

    /// Writes the old names of `custom` as the current ones; what it renamed, with `place`.
    /// Whether [`apply`](Self::apply) may change a name in `node`: a custom component of a
    /// renamed type, or of a type with renamed fields or variants, or an instance's overrides.
    fn may_rename(&self, node: &crate::format::EntityNode) -> bool {
        let touched = |path: &str| {
            self.renamed_type(path).is_some()
                || self
                    .current_path(path)
                    .is_some_and(|p| self.fields.contains_key(p) || self.variants.contains_key(p))
        };
        node.instance
            .as_ref()
            .is_some_and(|i| !i.overrides.is_empty())
            || node.components.iter().any(|c| match c {
                ComponentData::Custom(custom) => touched(&custom.type_path),
                _ => false,
            })
    }

    fn rename_custom(&self, custom: &mut CustomComponent, place: Place, out: &mut Vec<Renamed>) {
        let current = match self.renamed_type(&custom.type_path) {
            Some(to) => {
                let to = to.to_owned();
                out.push(Renamed {
                    place,
                    what: RenamedPart::Type {
                        from: custom.type_path.to_string(),
                        to: to.clone(),
                    },
                });
                custom.type_path = to.as_str().into();
                to
            }
            None => match self.current_path(&custom.type_path) {
                Some(p) => p.to_owned(),
                None => return,
            },
        };
        self.rename_variant(custom, &current, place, out);
        if !self.fields.contains_key(&current) {
            return;
        }
        for i in 0..custom.fields.len() {
            let Some(to) = self.renamed_field(&current, &custom.fields[i].name) else {
                continue;
            };
            // A component that also sets the new name keeps the old one, which is then
            // reported as an unknown field: the two cannot both be meant.
            if custom
                .fields
                .iter()
                .any(|f| f.name.strip_prefix("r#").unwrap_or(&f.name) == to)
            {
                continue;
            }
            out.push(Renamed {
                place,
                what: RenamedPart::Field {
                    type_path: current.clone(),
                    field: i,
                    from: custom.fields[i].name.to_string(),
                    to: to.to_owned(),
                },
            });
            custom.fields[i].name = to.into();
        }
    }

    /// Writes the old variant name that the `value` of `custom` (of the enum whose current path
    /// is `type_path`) starts with as the current one.
    fn rename_variant(
        &self,
        custom: &mut CustomComponent,
        type_path: &str,
        place: Place,
        out: &mut Vec<Renamed>,
    ) {
        let (Some(renamed), Some(value)) = (self.variants.get(type_path), &custom.value) else {
            return;
        };
        let Some(at) = head_variant(value) else {
            return;
        };
        let written = &value[at.clone()];
        let Some((_, to)) = renamed.iter().find(|(old, _)| old == written) else {
            return;
        };
        let mut new = value.to_string();
        new.replace_range(at.clone(), to);
        out.push(Renamed {
            place,
            what: RenamedPart::Variant {
                type_path: type_path.to_owned(),
                value: value.to_string(),
                at: at.start,
                from: written.to_owned(),
                to: to.clone(),
            },
        });
        custom.value = Some(new.into());
    }

    /// Writes every old name in `doc` (entities' custom components and the custom components
    /// of instance overrides) as the current one; what it renamed, in document order.
    pub(crate) fn apply(&self, doc: &mut SceneDoc) -> Vec<Renamed> {
        let mut out = Vec::new();
        if self.is_empty() {
            return out;
        }
        for (id, shared) in doc.entities.iter_mut() {
            // An entity another document shares is copied only when a name in it may change.
            if !self.may_rename(shared) {
                continue;
            }
            let node = std::sync::Arc::make_mut(shared);
            let entity = *id;
            for (index, component) in node.components.iter_mut().enumerate() {
                if let ComponentData::Custom(custom) = component {
                    self.rename_custom(custom, Place::Component { entity, index }, &mut out);
                }
            }
            let Some(instance) = &mut node.instance else {
                continue;
            };
            for (at, o) in instance.overrides.iter_mut().enumerate() {
                for (index, patch) in o.set.iter_mut().enumerate() {
                    if let ComponentData::Custom(custom) = &mut patch.component {
                        let place = Place::OverrideSet { entity, at, index };
                        self.rename_custom(custom, place, &mut out);
                    }
                }
                for (index, component) in o.add.iter_mut().enumerate() {
                    if let ComponentData::Custom(custom) = component {
                        let place = Place::OverrideAdd { entity, at, index };
                        self.rename_custom(custom, place, &mut out);
                    }
                }
                for (index, key) in o.remove.iter_mut().enumerate() {
                    let Some(to) = key
                        .strip_prefix("custom:")
                        .and_then(|path| self.renamed_type(path))
                    else {
                        continue;
                    };
                    let from = key["custom:".len()..].to_owned();
                    out.push(Renamed {
                        place: Place::OverrideRemove { entity, at, index },
                        what: RenamedPart::Type {
                            from,
                            to: to.to_owned(),
                        },
                    });
                    *key = format!("custom:{to}").into();
                }
            }
        }
        out
    }
}

/// Where the variant's name is in an enum value's expression: the last segment of the path it
/// starts with (`Moving` in `RigidBody::Moving { speed: 2.0 }`, `Moving(2.0)`, `Moving`);
/// `None` when it does not start with a path.
pub(crate) fn head_variant(value: &str) -> Option<std::ops::Range<usize>> {
    let is_start = |c: char| c == '_' || c.is_alphabetic();
    let is_part = |c: char| c == '_' || c.is_alphanumeric();
    let mut at = value.len() - value.trim_start().len();
    loop {
        let rest = &value[at..];
        if !rest.starts_with(is_start) {
            return None;
        }
        let len = rest.find(|c: char| !is_part(c)).unwrap_or(rest.len());
        let after = rest[len..].trim_start();
        match after.strip_prefix("::") {
            Some(next) => at = value.len() - next.trim_start().len(),
            None => return Some(at..at + len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{FieldKind, FieldSchema};

    fn schema(path: &str, old: &[&str], fields: &[(&str, &[&str])]) -> ComponentSchema {
        ComponentSchema {
            type_path: path.into(),
            type_name: ident(path).into(),
            docs: String::new(),
            fields: fields
                .iter()
                .map(|(name, olds)| FieldSchema {
                    name: (*name).into(),
                    type_name: "u32".into(),
                    kind: FieldKind::Integer {
                        signed: false,
                        bits: 32,
                    },
                    required: false,
                    default: None,
                    range: None,
                    docs: String::new(),
                    renamed_from: olds.iter().map(|o| (*o).to_owned()).collect(),
                })
                .collect(),
            skipped: Vec::new(),
            renamed_from: old.iter().map(|o| (*o).to_owned()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn old_type_paths_and_bare_names_resolve_to_the_current_path() {
        let schemas = [
            schema("game::Health", &["game::Hp"], &[("hp", &["points"])]),
            schema("game::Hp2", &[], &[]),
            schema("other::Orbit", &["game::Circle", "old::Hp"], &[]),
        ];
        let renames = Renames::new(&schemas);
        assert_eq!(renames.renamed_type("game::Hp"), Some("game::Health"));
        assert_eq!(renames.renamed_type("Circle"), Some("other::Orbit"));
        // `Hp` ends two old paths: not resolved.
        assert_eq!(renames.renamed_type("Hp"), None);
        // A current name is never an old one.
        assert_eq!(renames.renamed_type("Hp2"), None);
        assert_eq!(renames.renamed_type("game::Health"), None);
        assert_eq!(renames.renamed_field("game::Health", "points"), Some("hp"));
        assert_eq!(renames.renamed_field("game::Health", "hp"), None);
    }

    #[test]
    fn the_head_variant_is_the_last_segment_of_the_leading_path() {
        fn at(v: &str) -> Option<&str> {
            head_variant(v).map(|r| &v[r])
        }
        assert_eq!(at("Moving"), Some("Moving"));
        assert_eq!(at(" RigidBody::Moving"), Some("Moving"));
        assert_eq!(at("game::Body :: Moving { speed: 2.0 }"), Some("Moving"));
        assert_eq!(at("Shape::Circle(1.0)"), Some("Circle"));
        assert_eq!(at("(1, 2)"), None);
        assert_eq!(at("Body::"), None);
    }

    #[test]
    fn an_old_path_that_another_type_has_now_names_that_type() {
        let schemas = [
            schema("watch::Patrol", &["game::Patrol", "game::Route"], &[]),
            schema("game::Patrol", &[], &[]),
        ];
        let renames = Renames::new(&schemas);
        assert_eq!(renames.renamed_type("game::Patrol"), None);
        assert_eq!(renames.renamed_type("game::Route"), Some("watch::Patrol"));
    }
}

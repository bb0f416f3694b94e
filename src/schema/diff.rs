//! What changed between two exports of a game's schemas ([`SchemaFile::diff`]): types and
//! fields added, removed or renamed, fields whose kind, requirement or range changed, and an
//! enum component's variants added, removed, renamed or given other fields.
//! `forge schema diff old new scenes/` lists it and checks which scenes it breaks.

use std::fmt;

use super::{ComponentSchema, FieldRange, FieldSchema, SchemaFile, VariantSchema};

/// One change from an old schema file to a new one. Type paths are the new file's, except for
/// a removed type.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SchemaChange {
    /// A type the old file does not have.
    TypeAdded {
        /// Its type path.
        type_path: String,
    },
    /// A type the new file does not have (under its path or as an old path of another).
    TypeRemoved {
        /// Its type path in the old file.
        type_path: String,
    },
    /// A type whose new schema lists the old path as `renamed_from`: scenes keep loading, with a
    /// warning, until `forge migrate --schema` rewrites them.
    TypeRenamed {
        /// The old type path.
        from: String,
        /// The new type path.
        to: String,
    },
    /// A field the type did not have.
    FieldAdded {
        /// The type's path.
        type_path: String,
        /// The field.
        field: String,
        /// Whether scenes must set it (`#[forge(required)]`): every scene with the type breaks.
        required: bool,
    },
    /// A field the type no longer has (or scenes may no longer set: now `#[forge(skip)]`).
    FieldRemoved {
        /// The type's path.
        type_path: String,
        /// The field.
        field: String,
    },
    /// A field whose new schema lists the old name as `renamed_from`.
    FieldRenamed {
        /// The type's path.
        type_path: String,
        /// The old name.
        from: String,
        /// The new name.
        to: String,
    },
    /// A field whose type changed: an expression of the old type may not evaluate as the new.
    FieldTypeChanged {
        /// The type's path.
        type_path: String,
        /// The field.
        field: String,
        /// The old type (`f32`).
        from: String,
        /// The new type (`f64`).
        to: String,
    },
    /// A field that became `#[forge(required)]`.
    FieldRequired {
        /// The type's path.
        type_path: String,
        /// The field.
        field: String,
    },
    /// A field whose `#[forge(range)]` changed (`None`: no range).
    RangeChanged {
        /// The type's path.
        type_path: String,
        /// The field.
        field: String,
        /// The old range.
        from: Option<FieldRange>,
        /// The new range.
        to: Option<FieldRange>,
    },
    /// A variant the enum component did not have.
    VariantAdded {
        /// The type's path.
        type_path: String,
        /// The variant.
        variant: String,
    },
    /// A variant the enum component no longer has: a scene writing it fails to load.
    VariantRemoved {
        /// The type's path.
        type_path: String,
        /// The variant.
        variant: String,
    },
    /// A variant whose new schema lists the old name in `renamed_variants`.
    VariantRenamed {
        /// The type's path.
        type_path: String,
        /// The old name.
        from: String,
        /// The new name.
        to: String,
    },
    /// A variant whose fields changed (their number, names or kinds, or the variant's shape).
    VariantChanged {
        /// The type's path.
        type_path: String,
        /// The variant.
        variant: String,
    },
    /// The enum component's `Default` (`None`: not an enum) is another value: scenes that write
    /// no `value` spawn it.
    DefaultChanged {
        /// The type's path.
        type_path: String,
        /// The old default (`RigidBody::Dynamic`).
        from: Option<String>,
        /// The new default.
        to: Option<String>,
    },
}

impl SchemaChange {
    /// Whether a scene that loaded with the old schemas may fail to load with the new ones
    /// (a removed type or field, a new required field, a changed type or narrower range).
    /// Renames never break: the old names load with a warning.
    pub fn may_break(&self) -> bool {
        match self {
            SchemaChange::TypeRemoved { .. }
            | SchemaChange::FieldRemoved { .. }
            | SchemaChange::FieldTypeChanged { .. }
            | SchemaChange::FieldRequired { .. }
            | SchemaChange::VariantRemoved { .. }
            | SchemaChange::VariantChanged { .. } => true,
            SchemaChange::FieldAdded { required, .. } => *required,
            SchemaChange::RangeChanged { from, to, .. } => match (from, to) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(a), Some(b)) => {
                    b.min > a.min
                        || b.max < a.max
                        || (b.max == a.max && a.inclusive && !b.inclusive)
                }
            },
            _ => false,
        }
    }
}

fn range_text(r: &Option<FieldRange>) -> String {
    r.map_or_else(|| "none".to_owned(), |r| r.to_string())
}

impl fmt::Display for SchemaChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaChange::TypeAdded { type_path } => write!(f, "+ `{type_path}`: new type"),
            SchemaChange::TypeRemoved { type_path } => write!(f, "- `{type_path}`: removed"),
            SchemaChange::TypeRenamed { from, to } => {
                write!(f, "~ `{to}`: renamed from `{from}`")
            }
            SchemaChange::FieldAdded {
                type_path,
                field,
                required,
            } => {
                let required = if *required { " (required)" } else { "" };
                write!(f, "+ `{type_path}`: new field `{field}`{required}")
            }
            SchemaChange::FieldRemoved { type_path, field } => {
                write!(f, "- `{type_path}`: field `{field}` removed")
            }
            SchemaChange::FieldRenamed {
                type_path,
                from,
                to,
            } => write!(f, "~ `{type_path}`: field `{to}` renamed from `{from}`"),
            SchemaChange::FieldTypeChanged {
                type_path,
                field,
                from,
                to,
            } => write!(
                f,
                "~ `{type_path}`: field `{field}` is now `{to}` (was `{from}`)"
            ),
            SchemaChange::FieldRequired { type_path, field } => {
                write!(f, "~ `{type_path}`: field `{field}` is now required")
            }
            SchemaChange::RangeChanged {
                type_path,
                field,
                from,
                to,
            } => write!(
                f,
                "~ `{type_path}`: field `{field}` range {} (was {})",
                range_text(to),
                range_text(from)
            ),
            SchemaChange::VariantAdded { type_path, variant } => {
                write!(f, "+ `{type_path}`: new variant `{variant}`")
            }
            SchemaChange::VariantRemoved { type_path, variant } => {
                write!(f, "- `{type_path}`: variant `{variant}` removed")
            }
            SchemaChange::VariantRenamed {
                type_path,
                from,
                to,
            } => write!(f, "~ `{type_path}`: variant `{to}` renamed from `{from}`"),
            SchemaChange::VariantChanged { type_path, variant } => {
                write!(f, "~ `{type_path}`: variant `{variant}` has other fields")
            }
            SchemaChange::DefaultChanged {
                type_path,
                from,
                to,
            } => {
                let text = |d: &Option<String>| d.as_deref().unwrap_or("none").to_owned();
                write!(
                    f,
                    "~ `{type_path}`: default is now `{}` (was `{}`)",
                    text(to),
                    text(from)
                )
            }
        }
    }
}

/// The fields scenes may set, by their current name.
fn settable<'a>(schema: &'a ComponentSchema, name: &str) -> Option<&'a FieldSchema> {
    schema.fields.iter().find(|f| f.name == name)
}

impl SchemaFile {
    /// What changed from `self` (the old export) to `new`, in `new`'s type order, then the
    /// removed types. A type (field) the new schema lists as `renamed_from` is a rename, not a
    /// removal and an addition.
    pub fn diff(&self, new: &SchemaFile) -> Vec<SchemaChange> {
        let mut out = Vec::new();
        let mut matched: Vec<&str> = Vec::new();
        for now in &new.components {
            let path = &now.type_path;
            let before = self.get(path).map(|s| (s, None)).or_else(|| {
                now.renamed_from
                    .iter()
                    .rev()
                    .find_map(|old| self.get(old).map(|s| (s, Some(old.clone()))))
            });
            let Some((was, renamed)) = before else {
                out.push(SchemaChange::TypeAdded {
                    type_path: path.clone(),
                });
                continue;
            };
            matched.push(&was.type_path);
            if let Some(from) = renamed {
                out.push(SchemaChange::TypeRenamed {
                    from,
                    to: path.clone(),
                });
            }
            let mut matched_fields: Vec<&str> = Vec::new();
            for field in &now.fields {
                let before = settable(was, &field.name).map(|f| (f, false)).or_else(|| {
                    field
                        .renamed_from
                        .iter()
                        .rev()
                        .find_map(|old| settable(was, old).map(|f| (f, true)))
                });
                let Some((old, renamed)) = before else {
                    out.push(SchemaChange::FieldAdded {
                        type_path: path.clone(),
                        field: field.name.clone(),
                        required: field.required,
                    });
                    continue;
                };
                matched_fields.push(&old.name);
                if renamed {
                    out.push(SchemaChange::FieldRenamed {
                        type_path: path.clone(),
                        from: old.name.clone(),
                        to: field.name.clone(),
                    });
                }
                if old.kind != field.kind {
                    out.push(SchemaChange::FieldTypeChanged {
                        type_path: path.clone(),
                        field: field.name.clone(),
                        from: old.type_name.clone(),
                        to: field.type_name.clone(),
                    });
                }
                if field.required && !old.required {
                    out.push(SchemaChange::FieldRequired {
                        type_path: path.clone(),
                        field: field.name.clone(),
                    });
                }
                if old.range != field.range {
                    out.push(SchemaChange::RangeChanged {
                        type_path: path.clone(),
                        field: field.name.clone(),
                        from: old.range,
                        to: field.range,
                    });
                }
            }
            for old in &was.fields {
                if !matched_fields.contains(&old.name.as_str()) {
                    out.push(SchemaChange::FieldRemoved {
                        type_path: path.clone(),
                        field: old.name.clone(),
                    });
                }
            }
            variant_changes(was, now, &mut out);
        }
        for was in &self.components {
            if !matched.contains(&was.type_path.as_str()) {
                out.push(SchemaChange::TypeRemoved {
                    type_path: was.type_path.clone(),
                });
            }
        }
        out
    }
}

/// The variant changes from the enum component `was` to `now` (the same type), after its field
/// changes: in `now`'s variant order, then the removed variants, then a changed default.
fn variant_changes(was: &ComponentSchema, now: &ComponentSchema, out: &mut Vec<SchemaChange>) {
    let path = &now.type_path;
    let old_variant = |name: &str| was.variants.iter().find(|v| v.name() == name);
    let mut matched: Vec<&str> = Vec::new();
    for variant in &now.variants {
        let name = variant.name();
        let before = old_variant(name).map(|v| (v, false)).or_else(|| {
            now.renamed_variants
                .iter()
                .rev()
                .filter(|r| r.to == name)
                .find_map(|r| old_variant(&r.from).map(|v| (v, true)))
        });
        let Some((old, renamed)) = before else {
            out.push(SchemaChange::VariantAdded {
                type_path: path.clone(),
                variant: name.to_owned(),
            });
            continue;
        };
        matched.push(old.name());
        if renamed {
            out.push(SchemaChange::VariantRenamed {
                type_path: path.clone(),
                from: old.name().to_owned(),
                to: name.to_owned(),
            });
        }
        if !same_fields(old, variant) {
            out.push(SchemaChange::VariantChanged {
                type_path: path.clone(),
                variant: name.to_owned(),
            });
        }
    }
    for old in &was.variants {
        if !matched.contains(&old.name()) {
            out.push(SchemaChange::VariantRemoved {
                type_path: path.clone(),
                variant: old.name().to_owned(),
            });
        }
    }
    // The old default as the new schema names it: its type's new name, its variant's new name.
    let was_default = was.default.as_deref().map(|d| {
        let variant = d.strip_prefix(&format!("{}::", was.type_name)).unwrap_or(d);
        let (name, rest) = variant.split_at(
            variant
                .find(|c: char| !(c == '_' || c.is_alphanumeric()))
                .unwrap_or(variant.len()),
        );
        let name = now
            .renamed_variants
            .iter()
            .rev()
            .find(|r| r.from == name)
            .map_or(name, |r| r.to.as_str());
        format!("{}::{name}{rest}", now.type_name)
    });
    if was_default != now.default {
        out.push(SchemaChange::DefaultChanged {
            type_path: path.clone(),
            from: was.default.clone(),
            to: now.default.clone(),
        });
    }
}

/// Whether two variants (of any names) take the same fields.
fn same_fields(a: &VariantSchema, b: &VariantSchema) -> bool {
    match (a, b) {
        (VariantSchema::Unit { .. }, VariantSchema::Unit { .. }) => true,
        (VariantSchema::Tuple { fields: x, .. }, VariantSchema::Tuple { fields: y, .. }) => x == y,
        (VariantSchema::Struct { fields: x, .. }, VariantSchema::Struct { fields: y, .. }) => {
            x == y
        }
        _ => false,
    }
}

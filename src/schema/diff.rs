//! What changed between two exports of a game's schemas ([`SchemaFile::diff`]): types and
//! fields added, removed or renamed, and fields whose kind, requirement or range changed.
//! `forge schema diff old new scenes/` lists it and checks which scenes it breaks.

use std::fmt;

use super::{ComponentSchema, FieldRange, FieldSchema, SchemaFile};

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
            | SchemaChange::FieldRequired { .. } => true,
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

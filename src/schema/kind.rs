//! The [`FieldKind`] of a reflected type: what the derive records of each field, so scenes can
//! be checked against the schema without the type.

use bevy_reflect::TypeInfo;
use bevy_reflect::enums::VariantInfo;

use super::expr::{ENTITY_TYPE_PATH, IntTy, special_kind};
use super::{FieldKind, MemberSchema, TypeSchema, VariantSchema};

/// The [`FieldKind`] of a reflected type, with its parts (see [`FieldKind`] for the limits).
pub fn kind_of(info: &TypeInfo) -> FieldKind {
    KindBuilder { parts: 0 }.kind(info, 0)
}

/// How deep [`kind_of`] describes nested types.
const MAX_KIND_DEPTH: usize = 16;
/// How many parts [`kind_of`] describes per field (a recursive type could otherwise describe
/// exponentially many within the depth limit).
const MAX_KIND_PARTS: usize = 4096;

/// Builds a [`FieldKind`], counting the parts described so far.
struct KindBuilder {
    parts: usize,
}

impl KindBuilder {
    fn kind(&mut self, info: &TypeInfo, depth: usize) -> FieldKind {
        self.parts += 1;
        if depth > MAX_KIND_DEPTH || self.parts > MAX_KIND_PARTS {
            return FieldKind::Other;
        }
        if let Some(k) = special_kind(info) {
            return k;
        }
        let path = info.type_path();
        match info {
            TypeInfo::Opaque(_) => match path {
                "bool" => FieldKind::Bool,
                ENTITY_TYPE_PATH => FieldKind::Entity,
                "char" => FieldKind::Char,
                "f32" => FieldKind::Float { bits: 32 },
                "f64" => FieldKind::Float { bits: 64 },
                "alloc::string::String" | "String" => FieldKind::String,
                p => match IntTy::from_name(p) {
                    Some(i) => FieldKind::Integer {
                        signed: i.signed(),
                        bits: i.bits(),
                    },
                    None => FieldKind::Other,
                },
            },
            TypeInfo::Enum(e) if path.starts_with("core::option::Option<") => {
                let some = e.variant("Some").and_then(|v| match v {
                    VariantInfo::Tuple(t) => t.field_at(0)?.type_info(),
                    _ => None,
                });
                FieldKind::Option(Box::new(self.ty(some, depth)))
            }
            // No value can be written (or exist): nothing to describe.
            TypeInfo::Enum(e) if e.variant_len() == 0 => FieldKind::Other,
            TypeInfo::Enum(e) => {
                let mut variants = Vec::with_capacity(e.variant_len());
                for v in e.iter() {
                    let name = v.name().to_owned();
                    variants.push(match v {
                        VariantInfo::Unit(_) => VariantSchema::Unit { name },
                        VariantInfo::Tuple(t) => VariantSchema::Tuple {
                            name,
                            fields: t.iter().map(|f| self.ty(f.type_info(), depth)).collect(),
                        },
                        VariantInfo::Struct(s) => VariantSchema::Struct {
                            name,
                            fields: s
                                .iter()
                                .map(|f| self.member(f.name(), f.type_info(), depth))
                                .collect(),
                        },
                    });
                }
                FieldKind::Enum { variants }
            }
            TypeInfo::Struct(s) => FieldKind::Struct {
                fields: s
                    .iter()
                    .map(|f| self.member(f.name(), f.type_info(), depth))
                    .collect(),
            },
            TypeInfo::TupleStruct(s) => FieldKind::TupleStruct {
                fields: s.iter().map(|f| self.ty(f.type_info(), depth)).collect(),
            },
            TypeInfo::Tuple(s) => FieldKind::Tuple {
                fields: s.iter().map(|f| self.ty(f.type_info(), depth)).collect(),
            },
            TypeInfo::List(l) => FieldKind::List(Box::new(self.ty(l.item_info(), depth))),
            TypeInfo::Array(a) => FieldKind::Array {
                item: Box::new(self.ty(a.item_info(), depth)),
                len: a.capacity(),
            },
            _ => FieldKind::Other,
        }
    }

    /// The schema of a part of a type at `depth`; `None` (no type information) is an unnamed
    /// [`FieldKind::Other`].
    fn ty(&mut self, info: Option<&TypeInfo>, depth: usize) -> TypeSchema {
        match info {
            Some(info) => TypeSchema {
                type_name: info.type_path_table().short_path().to_owned(),
                kind: self.kind(info, depth + 1),
            },
            None => TypeSchema {
                type_name: String::new(),
                kind: FieldKind::Other,
            },
        }
    }

    fn member(&mut self, name: &str, info: Option<&TypeInfo>, depth: usize) -> MemberSchema {
        let TypeSchema { type_name, kind } = self.ty(info, depth);
        MemberSchema {
            name: name.to_owned(),
            type_name,
            kind,
        }
    }
}

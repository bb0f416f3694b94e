//! Where a custom component sits in the file ([`Site`]) and which of its expressions a
//! diagnostic is about ([`ExprPlace`]): the positions every custom component check reports at.

use super::diagnostic::{Diagnostic, Severity};
use crate::format::{Position, SourceMap};

/// Where a custom component sits in the file.
pub(crate) struct Site<'a> {
    pub(super) map: &'a SourceMap,
    /// The id path of the entity, when an instance placed it.
    pub(super) placed: Option<Box<[u64]>>,
    pub(super) entity: u64,
    pub(super) entity_name: &'a str,
    pub(super) component: usize,
    /// Checked against a schema file (`forge validate --schema`), not the game's types.
    pub(super) offline: bool,
}

impl Site<'_> {
    /// The entity as messages name it: its id, or the id path of one an instance placed
    /// (`[5, 1]`).
    pub(crate) fn label(&self) -> String {
        match &self.placed {
            Some(path) => format!("{path:?}"),
            None => self.entity.to_string(),
        }
    }

    pub(crate) fn error(
        &self,
        code: &'static str,
        message: String,
        path: String,
        position: Option<Position>,
    ) -> Diagnostic {
        let mut d = Diagnostic::new(Severity::Error, code, message)
            .with_entity(self.entity)
            .with_path(format!("components[{}].data{path}", self.component));
        d.position = position.or_else(|| self.map.component(self.entity, self.component));
        d
    }

    /// The position of the component's `type_path` value.
    pub(crate) fn type_path_position(&self) -> Option<Position> {
        self.map
            .component_field(self.entity, self.component, "type_path")
    }

    /// The file position of byte `at` of the expression at `place`: exact, escapes of a quoted
    /// string (`\"`, `\n`, `\u{e9}`) counted as written ([`SourceMap::expr_offset`]).
    pub(crate) fn expr_position(
        &self,
        place: ExprPlace,
        expr: &str,
        at: usize,
    ) -> Option<Position> {
        let span = match place {
            ExprPlace::Field(field) => self.map.custom_field_span(
                self.entity,
                self.component,
                field,
                crate::format::CustomPart::Expr,
            )?,
            ExprPlace::Value => {
                self.map
                    .component_field_span(self.entity, self.component, "value")?
            }
        };
        Some(
            self.map
                .position_of_offset(self.map.expr_offset(span, expr, at)),
        )
    }

    /// The position of the component's `value` (an enum's whole value).
    pub(crate) fn value_position(&self) -> Option<Position> {
        self.map
            .component_field(self.entity, self.component, "value")
    }

    /// The position of the component's `fields` list.
    pub(crate) fn fields_position(&self) -> Option<Position> {
        self.map
            .component_field(self.entity, self.component, "fields")
    }

    /// The entity as messages name it, with its name: "entity 3 (`Crate`)".
    pub(crate) fn who(&self) -> String {
        format!("entity {} (`{}`)", self.label(), self.entity_name)
    }
}

/// Which expression of a custom component a diagnostic is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExprPlace {
    /// The `expr` of field `.0` of `fields`.
    Field(usize),
    /// The whole `value` (an enum's).
    Value,
}

impl ExprPlace {
    /// The diagnostic path of the expression below the component's `data`.
    pub(crate) fn path(self) -> String {
        match self {
            ExprPlace::Field(j) => format!(".fields[{j}].expr"),
            ExprPlace::Value => ".value".to_owned(),
        }
    }
}

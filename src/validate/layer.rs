//! The rules of tile layers that the scene file alone shows (the `format` module docs, "Tile
//! layers"): ids, parents, cell sizes, palettes, rows and cells, the size limit, the shape of
//! cell overrides. Whether each palette prefab exists is for whoever reads it (the loader,
//! `forge validate`); what needs the prefabs (override targets) is [`crate::prefab`]'s.

use bevy_platform::collections::{HashMap, HashSet};

use super::{Collector, Diagnostic, Loc, Severity};
use crate::codes;
use crate::format::{CellSource, LayerPart, MAX_CELL_INDEX, MAX_LAYER_CELLS, SceneDoc, TileLayer};

pub(super) fn layers(c: &mut Collector, doc: &SceneDoc) {
    let mut ids: HashSet<u64> = HashSet::default();
    for (n, layer) in doc.layers.iter().enumerate() {
        let id = layer.id;
        let at = |rest: &str| format!("layers[{n}]{rest}");
        let error = |code: &'static str, message: String| {
            Diagnostic::new(Severity::Error, code, message).with_entity(id)
        };
        let taken = if id == 0 {
            Some("0 is not an id".to_owned())
        } else if doc.entities.contains_key(&id) {
            Some(format!(
                "layer id {id} is the id of entity `{}`",
                doc.entities[&id].name
            ))
        } else if !ids.insert(id) {
            Some(format!("layer id {id} is the id of another layer"))
        } else if id >= doc.next_id {
            Some(format!(
                "layer id {id} is not below `next_id` ({})",
                doc.next_id
            ))
        } else {
            None
        };
        if let Some(message) = taken {
            c.push(
                error(codes::layer::ID, message)
                    .with_path(at(".id"))
                    .with_help("a layer takes an id of the scene's entities that no entity has, below `next_id` (raise `next_id` past it)"),
                Loc::Layer(LayerPart::Field("id")),
            );
        }
        if let Some(parent) = layer.parent
            && !doc.entities.contains_key(&parent)
        {
            // A layer's id is not an entity of `entities`: say so rather than "no such entity".
            let message = if parent == id {
                format!("layer `{}` is placed under itself", layer.name)
            } else if let Some(other) = doc.layers.iter().find(|l| l.id == parent) {
                format!(
                    "layer `{}` is placed under layer `{}` (id {parent}); a layer is placed under an entity of `entities`",
                    layer.name, other.name
                )
            } else {
                format!(
                    "layer `{}` is placed under entity {parent}, which the scene does not have",
                    layer.name
                )
            };
            c.push(
                error(codes::layer::PARENT, message)
                    .with_path(at(".parent"))
                    .with_help("set `parent` to an entity's id, or `None` to place the layer at the top of the scene"),
                Loc::Layer(LayerPart::Field("parent")),
            );
        }
        let size = layer.cell_size;
        if !(size.x.is_finite() && size.y.is_finite() && size.x > 0.0 && size.y > 0.0) {
            c.push(
                error(
                    codes::layer::CELL_SIZE,
                    format!(
                        "cell size ({}, {}) is not two finite sizes above zero",
                        size.x, size.y
                    ),
                )
                .with_path(at(".cell_size")),
                Loc::Layer(LayerPart::Field("cell_size")),
            );
        }
        let o = layer.origin;
        if !(o.x.is_finite() && o.y.is_finite() && o.z.is_finite()) {
            c.push(
                error(codes::layer::ORIGIN, "the origin is not finite".to_owned())
                    .with_path(at(".origin")),
                Loc::Layer(LayerPart::Field("origin")),
            );
        }
        // Sizes and an origin each finite can still put a far cell past the f32 range
        // (65,535 cells of 1e34): its entities would spawn at an infinite place.
        let finite = crate::format::Vec3Data::is_finite;
        if finite(o) && size.x.is_finite() && size.y.is_finite() {
            let width = layer.rows.first().map_or(0, |r| r.chars().count() as u64);
            let (mut far_i, mut far_j) = (u64::from(layer.start.0), u64::from(layer.start.1));
            if width > 0 {
                let (i, j) = layer.row_cell(0, width as usize - 1);
                (far_i, far_j) = (far_i.max(i), far_j.max(j));
            }
            for cell in &layer.cells {
                (far_i, far_j) = (far_i.max(u64::from(cell.i)), far_j.max(u64::from(cell.j)));
            }
            let anchor = layer.anchor();
            let far = layer.cell_offset(far_i, far_j);
            let place =
                crate::format::Vec3Data::new(anchor.x + far.x, anchor.y + far.y, anchor.z + far.z);
            if !(finite(anchor) && finite(far) && finite(place)) {
                c.push(
                    error(
                        codes::layer::CELL_SIZE,
                        format!(
                            "cell ({far_i}, {far_j}) would sit at an infinite place: cell size ({}, {}) times its index, from the origin, passes the largest f32",
                            size.x, size.y
                        ),
                    )
                    .with_path(at(".cell_size"))
                    .with_help("use a smaller cell size (world units per cell), or fewer cells"),
                    Loc::Layer(LayerPart::Field("cell_size")),
                );
            }
        }
        for (k, (_, scene)) in layer.palette.iter().enumerate() {
            if let Some((code, message)) = super::instance::prefab_path_problem(scene) {
                c.push(
                    error(code, message)
                        .with_path(at(".palette"))
                        .with_help("a palette entry names a prefab file by its path in the assets directory, like `prefabs/grass.forge.ron`"),
                    Loc::Layer(LayerPart::PaletteScene(k)),
                );
            }
        }
        if !layer.rows.is_empty() && !layer.cells.is_empty() {
            c.push(
                error(
                    codes::layer::ROWS_AND_CELLS,
                    "a layer has either `rows` or `cells`, not both".to_owned(),
                )
                .with_path(at(".cells"))
                .with_help("paint the sparse cells into the rows, or drop the rows"),
                Loc::Layer(LayerPart::Field("cells")),
            );
        }
        if layer.extent() > MAX_LAYER_CELLS {
            let field = if layer.cells.is_empty() {
                "rows"
            } else {
                "cells"
            };
            c.push(
                error(
                    codes::layer::TOO_LARGE,
                    format!(
                        "the layer spans {} cells; the limit is {MAX_LAYER_CELLS}",
                        layer.extent()
                    ),
                )
                .with_path(at(&format!(".{field}")))
                .with_help("split the layer into several layers"),
                Loc::Layer(LayerPart::Field(field)),
            );
        } else if let Some(width) = layer.rows.first().map(|r| r.chars().count())
            && width > 0
        {
            // The last column and the top row: cell indices of `rows` go up to
            // MAX_CELL_INDEX, as those of `cells` and of a paint.
            let (last_i, last_j) = layer.row_cell(0, width - 1);
            if last_i > u64::from(MAX_CELL_INDEX) || last_j > u64::from(MAX_CELL_INDEX) {
                c.push(
                    error(
                        codes::layer::TOO_LARGE,
                        format!(
                            "the rows reach cell ({last_i}, {last_j}); cell indices go up to {MAX_CELL_INDEX}"
                        ),
                    )
                    .with_path(at(".rows"))
                    .with_help("lower `start` (moving `origin` back by as many cells), or split the layer"),
                    Loc::Layer(LayerPart::Field("rows")),
                );
            }
        }
        rows_and_keys(c, n, layer);
        super::instance::overrides(c, id, &layer.overrides, &at(""), Loc::Override);
        for (i, ov) in layer.overrides.iter().enumerate() {
            if !ov.target.is_empty() && ov.target.len() < 3 {
                c.push(
                    error(
                        codes::layer::OVERRIDE_TARGET,
                        format!("override target {:?} names no entity of a cell", ov.target),
                    )
                    .with_path(at(&format!(".overrides[{i}].target")))
                    .with_help("a cell's entity is `[i, j, id..]`: the cell, then the entity's id path in the cell's prefab"),
                    Loc::Override(i, crate::format::OverridePart::Field("target")),
                );
            }
            if !ov.children.is_empty() {
                c.push(
                    error(
                        codes::layer::OVERRIDE_CHILDREN,
                        "an override of a layer's cell cannot place entities of the scene"
                            .to_owned(),
                    )
                    .with_path(at(&format!(".overrides[{i}].children")))
                    .with_help("place the entities under the layer's parent instead"),
                    Loc::Override(i, crate::format::OverridePart::Field("children")),
                );
            }
        }
    }
}

/// Ragged rows, unknown palette keys (once per key and layer, at its first cell), sparse cells
/// given twice (a sparse cell on a cell of the rows is `rows_and_cells`' problem, not one more).
fn rows_and_keys(c: &mut Collector, n: usize, layer: &TileLayer) {
    let id = layer.id;
    let width = layer.rows.first().map(|r| r.chars().count());
    for (r, row) in layer.rows.iter().enumerate() {
        let len = row.chars().count();
        if Some(len) != width {
            c.push(
                Diagnostic::new(
                    Severity::Error,
                    codes::layer::RAGGED,
                    format!(
                        "row {r} has {len} cells; the first row has {}",
                        width.unwrap_or(0)
                    ),
                )
                .with_entity(id)
                .with_path(format!("layers[{n}].rows[{r}]"))
                .with_help("every row has one character per cell, `.` for an empty one"),
                Loc::Layer(LayerPart::Row(r)),
            );
        }
    }
    // Unknown keys: one diagnostic per key, at its first cell, with how many cells use it.
    let mut unknown: HashMap<char, (CellSource, usize)> = HashMap::default();
    let mut order = Vec::new();
    let mut seen: HashSet<(u64, u64)> = HashSet::default();
    for (i, j, key, source) in layer.filled() {
        if layer.prefab(key).is_none() {
            let entry = unknown.entry(key).or_insert_with(|| {
                order.push(key);
                (source, 0)
            });
            entry.1 += 1;
        }
        if let CellSource::Cell(k) = source
            && !seen.insert((i, j))
        {
            c.push(
                Diagnostic::new(
                    Severity::Error,
                    codes::layer::DUPLICATE_CELL,
                    format!("cell ({i}, {j}) is given twice"),
                )
                .with_entity(id)
                .with_path(format!("layers[{n}].cells[{k}]"))
                .with_help("a cell holds one prefab: delete one of the entries"),
                Loc::Layer(LayerPart::Cell(k)),
            );
        }
    }
    for key in order {
        let (source, count) = unknown[&key];
        let keys: String = layer.palette.iter().map(|(k, _)| *k).collect();
        let (path, loc) = match source {
            CellSource::Row { row, byte } => (
                format!("layers[{n}].rows[{row}]"),
                Loc::LayerChar(row, byte),
            ),
            CellSource::Cell(k) => (
                format!("layers[{n}].cells[{k}]"),
                Loc::Layer(LayerPart::Cell(k)),
            ),
        };
        let more = if count > 1 {
            format!(" ({count} cells)")
        } else {
            String::new()
        };
        c.push(
            Diagnostic::new(
                Severity::Error,
                codes::layer::UNKNOWN_KEY,
                format!("`{key}` is not a key of the layer's palette{more}"),
            )
            .with_entity(id)
            .with_path(path)
            .with_help(format!(
                "the palette has {}; `.` leaves a cell empty",
                if keys.is_empty() {
                    "no keys".to_owned()
                } else {
                    format!("`{keys}`")
                }
            )),
            loc,
        );
    }
}

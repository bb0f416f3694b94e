//! The tile layer scenes of `benches/tiles.rs` and `benches/peak_memory.rs`: a prefab of `n`
//! entities, a level with a 100 × 100 layer of it, and the same world written flat.
#![allow(dead_code)]

/// Cells per side of the layer.
pub const SIDE: usize = 100;

pub fn transform(x: f32) -> String {
    format!(
        "transform: (translation: (x: {x:?}, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0))"
    )
}

pub fn sprite(w: f32, h: f32) -> String {
    format!(
        "(type: sprite, data: (image: None, color: (r: 0.2, g: 0.7, b: 0.2, a: 1.0), custom_size: Some((x: {w:?}, y: {h:?})), flip_x: false, flip_y: false))"
    )
}

pub fn tag(label: &str) -> String {
    format!(
        "(type: custom, data: (type_path: \"bench::Tag\", fields: [(name: \"label\", expr: \"\\\"{label}\\\"\")]))"
    )
}

/// A prefab of `n` entities: a root with a sprite and a tag, and `n - 1` children with sprites.
pub fn prefab(n: u64) -> String {
    let mut entities = String::new();
    for id in 1..=n {
        let (parent, children, components) = if id == 1 {
            let children: Vec<String> = (2..=n).map(|c| c.to_string()).collect();
            (
                "None".to_owned(),
                children.join(", "),
                format!("{}, {}", sprite(16.0, 16.0), tag("tile")),
            )
        } else {
            ("Some(1)".to_owned(), String::new(), sprite(2.0, 2.0))
        };
        entities.push_str(&format!(
            "  {id}: (id: {id}, name: \"Part {id}\", parent: {parent}, children: [{children}], {}, components: [{components}]),\n",
            transform(id as f32 - 1.0)
        ));
    }
    format!(
        "(format_version: 1, name: \"Tile\", entities: {{\n{entities}}}, roots: [1], next_id: {})",
        n + 1
    )
}

/// The level: entity 1 "Ground" with layer 2 under it, `rows` of `t` (the prefab) and `.`.
pub fn level(rows: &[String]) -> String {
    let rows: Vec<String> = rows.iter().map(|r| format!("      \"{r}\",\n")).collect();
    format!(
        "(\n  format_version: 1,\n  name: \"Field\",\n  entities: {{\n    1: (id: 1, name: \"Ground\", parent: None, children: [], {}, components: []),\n  }},\n  roots: [1],\n  next_id: 3,\n  layers: [\n    (\n      id: 2,\n      name: \"Tiles\",\n      parent: Some(1),\n      plane: xy,\n      cell_size: (x: 16.0, y: 16.0),\n      origin: (x: 0.0, y: 0.0, z: 0.0),\n      palette: {{\n        \"t\": \"prefabs/tile.forge.ron\",\n      }},\n      rows: [\n{}      ],\n    ),\n  ],\n)\n",
        transform(0.0),
        rows.concat()
    )
}

pub fn full_rows() -> Vec<String> {
    vec!["t".repeat(SIDE); SIDE]
}

/// An expanded document as one plain document, ids `1..`.
pub fn flat(doc: &bevy_forge_scene::format::SceneDoc) -> bevy_forge_scene::format::SceneDoc {
    let ids: std::collections::HashMap<u64, u64> = doc
        .entities
        .keys()
        .enumerate()
        .map(|(i, k)| (*k, i as u64 + 1))
        .collect();
    let mut out = bevy_forge_scene::format::SceneDoc::new("Field, flat");
    for (key, node) in &doc.entities {
        let mut node = bevy_forge_scene::format::EntityNode::clone(node);
        node.id = ids[key];
        node.parent = node.parent.map(|p| ids[&p]);
        node.children = node.children.iter().map(|c| ids[c]).collect();
        out.entities.insert(node.id, node.into());
    }
    out.roots = doc.roots.iter().map(|r| ids[r]).collect();
    out.next_id = ids.len() as u64 + 1;
    out
}

/// The level with every cell filled, expanded with `prefab` (its text) as
/// `prefabs/tile.forge.ron`, then written flat: the flat side of the comparison.
pub fn flat_text(prefab_text: &str) -> String {
    let level = bevy_forge_scene::format::SceneDoc::from_str(&level(&full_rows())).unwrap();
    let prefab_text = prefab_text.to_owned();
    let mut files = bevy_forge_scene::pipeline::PrefabFiles::new(move |p: &str| {
        if p == "prefabs/tile.forge.ron" {
            Ok(prefab_text.clone().into_bytes())
        } else {
            Err(format!("no file `{p}`"))
        }
    });
    let (expanded, _) = files.expand_scene("field.forge.ron", &level);
    flat(&expanded.unwrap().doc).to_canonical_string()
}

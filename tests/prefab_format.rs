//! Prefab instances as data: read with positions, written canonically, kept by the forest rules
//! and edits, expanded by id path (no `World` here), and expansion over any graph of files ends.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;

use bevy_forge_scene::format::*;
use bevy_forge_scene::pipeline::PrefabFiles;
use bevy_forge_scene::prefab::{expand, key_of};
use bevy_forge_scene::validate::validate_parsed;
use proptest::prelude::*;

const T: &str = "transform: (translation: (x: 0, y: 0, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1))";

/// A level whose entity 5 places `prefabs/lamp.forge.ron` with one override of every kind.
fn level() -> String {
    format!(
        r#"(
  format_version: 1,
  name: "Level",
  entities: {{
    5: (id: 5, name: "Lamp", parent: None, children: [], {T}, components: [],
        instance: Some((
          scene: "prefabs/lamp.forge.ron",
          overrides: [
            (target: [1], name: Some("Big Lamp"), set: [(type: point_light, data: (range: 40.0, intensity: 900.0))]),
            (target: [2], transform: Some(({tt})), add: [(type: visibility, data: hidden)], remove: ["sprite"], children: [6]),
            (target: [3, 1], set: [(type: custom, data: (type_path: "game::Glow", fields: [(name: "power", expr: "2.5")]))]),
          ],
        ))),
    6: (id: 6, name: "Moth", parent: Some(5), children: [], {T}, components: []),
  }},
  roots: [5],
  next_id: 7,
)"#,
        tt = "translation: (x: 0, y: 2, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)"
    )
}

fn light(intensity: f32) -> String {
    format!(
        "(type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: {intensity:?}, range: 20.0, shadows: false))"
    )
}

const SPRITE: &str = "(type: sprite, data: (image: None, color: (r: 1, g: 1, b: 1, a: 1), custom_size: Some((x: 4, y: 4)), flip_x: false, flip_y: false))";

/// The lamp: 1 "Lamp" [light] with 2 "Shade" [sprite] under it, and 3 "Bulb" placing a bulb.
fn lamp() -> String {
    format!(
        r#"(format_version: 1, name: "Lamp", entities: {{
  1: (id: 1, name: "Lamp", parent: None, children: [2, 3], {T}, components: [{light}]),
  2: (id: 2, name: "Shade", parent: Some(1), children: [], {T}, components: [{SPRITE}]),
  3: (id: 3, name: "Bulb", parent: Some(1), children: [], {T}, components: [], instance: Some((scene: "prefabs/bulb.forge.ron"))),
}}, roots: [1], next_id: 4)"#,
        light = light(400.0)
    )
}

fn bulb() -> String {
    format!(
        r#"(format_version: 1, name: "Bulb", entities: {{
  1: (id: 1, name: "Bulb", parent: None, children: [], {T}, components: [(type: custom, data: (type_path: "game::Glow", fields: [(name: "power", expr: "1.0"), (name: "hue", expr: "0.5")]))]),
}}, roots: [1], next_id: 2)"#
    )
}

fn files() -> HashMap<String, String> {
    HashMap::from([
        ("prefabs/lamp.forge.ron".to_owned(), lamp()),
        ("prefabs/bulb.forge.ron".to_owned(), bulb()),
    ])
}

fn reader(files: HashMap<String, String>) -> impl FnMut(&str) -> Result<Vec<u8>, String> {
    move |path: &str| {
        files
            .get(path)
            .map(|t| t.as_bytes().to_vec())
            .ok_or_else(|| "no such file".to_owned())
    }
}

#[test]
fn instances_read_with_every_override_part() {
    let parsed = SceneDoc::from_str(&level()).unwrap();
    let instance = parsed.doc.entity(5).unwrap().instance.as_deref().unwrap();
    assert_eq!(instance.scene, "prefabs/lamp.forge.ron");
    let [first, second, third] = &instance.overrides[..] else {
        panic!("three overrides: {instance:?}")
    };
    assert_eq!(first.target, [1]);
    assert_eq!(first.name.as_deref(), Some("Big Lamp"));
    // Fields in the patch's own order, whatever order the file has them in.
    assert_eq!(first.set[0].fields, ["intensity", "range"]);
    let ComponentData::PointLight(l) = &first.set[0].component else {
        panic!()
    };
    assert_eq!((l.intensity, l.range), (900.0, 40.0));
    assert_eq!(second.transform.unwrap().translation.y, 2.0);
    assert_eq!(
        second.add,
        [ComponentData::Visibility(VisibilityMode::Hidden)]
    );
    assert_eq!(second.remove, ["sprite"]);
    assert_eq!(second.children, [6]);
    assert_eq!(third.target, [3, 1]);
    assert!(
        third.set[0].fields.is_empty(),
        "custom: its fields list says"
    );
    // Positions of the parts, 1-based, as an editor shows them.
    let map = &parsed.source_map;
    let text = level();
    let at = |needle: &str| {
        let offset = text.find(needle).unwrap();
        let line = text[..offset].matches('\n').count() as u32 + 1;
        let column = text[..offset].rsplit('\n').next().unwrap().chars().count() as u32 + 1;
        (line, column)
    };
    let pos = |p: Option<Position>| p.map(|p| (p.line, p.column));
    assert_eq!(
        pos(map.instance_scene(5)),
        Some(at("\"prefabs/lamp.forge.ron\""))
    );
    assert_eq!(
        pos(map.override_part(5, 0, OverridePart::Field("name"))),
        Some(at("Some(\"Big Lamp\")"))
    );
    assert_eq!(
        pos(map.override_part(5, 0, OverridePart::SetField(0, "intensity"))),
        Some(at("900.0"))
    );
    assert_eq!(
        pos(map.override_part(5, 1, OverridePart::Remove(0))),
        Some(at("\"sprite\""))
    );
    assert_eq!(
        pos(map.override_part(5, 2, OverridePart::SetCustomExpr(0, 0))),
        Some(at("\"2.5\""))
    );
    assert_eq!(map.override_part(5, 9, OverridePart::Entry), None);
}

#[test]
fn instances_write_canonically_and_read_back_equal() {
    let doc = SceneDoc::from_str(&level()).unwrap().doc;
    let canonical = doc.to_canonical_string();
    let again = SceneDoc::from_str(&canonical).unwrap().doc;
    assert_eq!(again, doc);
    assert_eq!(again.to_canonical_string(), canonical, "byte-stable");
    // A patch writes only the fields it sets.
    assert!(
        canonical.contains(
            "                type: point_light,\n                data: (\n                  intensity: 900.0,\n                  range: 40.0,\n                ),"
        ),
        "{canonical}"
    );
    // A plain entity gets no `instance` line.
    let moth = canonical.find("    6: (").unwrap();
    assert!(!canonical[moth..].contains("instance"));
}

#[test]
fn override_mistakes_are_read_errors_with_positions() {
    let with = |o: &str| level().replace("(target: [1], name: Some(\"Big Lamp\")", o);
    let camera = SceneDoc::from_str(&with("(target: [1], set: [(type: camera2d)]")).unwrap_err();
    assert!(matches!(
        camera.kind(),
        ReadErrorKind::NothingToSet { tag: "camera2d" }
    ));
    assert_eq!((camera.entity(), camera.line()), (Some(5), 9));
    let typo = SceneDoc::from_str(&with("(target: [1], nme: Some(\"x\")")).unwrap_err();
    assert!(typo.to_string().contains("did you mean `name`"), "{typo}");
    let untargeted = SceneDoc::from_str(&with("(name: Some(\"x\")")).unwrap_err();
    assert!(
        matches!(
            untargeted.kind(),
            ReadErrorKind::MissingField {
                field: "target",
                ..
            }
        ),
        "{untargeted}"
    );
    let wrong_type = SceneDoc::from_str(&with(
        "(target: [1], set: [(type: point_light, data: (intensity: \"bright\"))]",
    ))
    .unwrap_err();
    assert_eq!(
        wrong_type.field(),
        Some("instance.overrides[0].set[0].data.intensity")
    );
}

#[test]
fn the_forest_rules_count_override_children_as_placed() {
    let doc = SceneDoc::from_str(&level()).unwrap().doc;
    assert_eq!(doc.check_integrity(), []);
    // Listed twice: in the instance's own children and in an override.
    let mut twice = doc.clone();
    twice.entity_mut(5).unwrap().children.push(6);
    assert!(
        twice
            .check_integrity()
            .contains(&IntegrityProblem::DuplicateReference { id: 6, count: 2 })
    );
    // An override child must name the instance entity as its parent.
    let mut astray = doc.clone();
    astray.entity_mut(6).unwrap().parent = None;
    astray.roots.push(6);
    assert!(astray.check_integrity().iter().any(|p| matches!(
        p,
        IntegrityProblem::ChildDisagrees {
            id: 5,
            child: 6,
            ..
        }
    )));
}

#[test]
fn edits_keep_entities_placed_by_overrides() {
    let doc = SceneDoc::from_str(&level()).unwrap().doc;
    // Deleting the instance deletes what its overrides placed.
    let mut deleted = doc.clone();
    let removed = deleted.delete_subtree(5).unwrap();
    assert_eq!(removed, [5, 6]);
    assert!(deleted.entities.is_empty());
    // Duplicating it copies them, under the copy's overrides.
    let mut copied = doc.clone();
    let copy = copied.duplicate_subtree(5).unwrap();
    let placed: Vec<u64> = copied.entity(copy).unwrap().placed_children().collect();
    assert_eq!(placed.len(), 1);
    assert_ne!(placed[0], 6);
    assert_eq!(copied.entity(placed[0]).unwrap().parent, Some(copy));
    assert_eq!(copied.check_integrity(), []);
    // Moving one out takes it out of the override.
    let mut moved = doc.clone();
    moved.reparent(6, None, 1).unwrap();
    let instance = moved.entity(5).unwrap().instance.as_deref().unwrap();
    assert!(instance.overrides[1].children.is_empty());
    assert_eq!(moved.check_integrity(), []);
}

#[test]
fn a_changed_instance_shows_in_the_diff() {
    let old = SceneDoc::from_str(&level()).unwrap().doc;
    let mut new = old.clone();
    let instance = new.entity_mut(5).unwrap().instance.as_deref_mut().unwrap();
    instance.overrides[0].name = Some("Huge Lamp".into());
    let d = bevy_forge_scene::diff::diff(&old, &new);
    assert_eq!(d.changed_count(), 1);
    assert!(
        d.to_string().contains("~ 5 instance overrides changed"),
        "{d}"
    );
    let mut patched = old.clone();
    d.apply_to(&mut patched);
    assert_eq!(patched, new);
}

#[test]
fn expansion_places_prefabs_by_id_path_and_applies_overrides() {
    let parsed = SceneDoc::from_str(&level()).unwrap();
    let mut prefabs = PrefabFiles::new(reader(files()));
    let (expanded, problems) = prefabs.expand_scene("level.forge.ron", &parsed);
    assert!(problems.is_empty(), "{problems:#?}");
    let e = expanded.unwrap();
    let doc = &e.doc;
    // 5, 6, and the lamp's 1, 2, 3 with the bulb's 1 inside 3.
    assert_eq!(doc.entities.len(), 6);
    assert_eq!(doc.check_integrity(), []);
    let key = |path: &[u64]| e.key(path).unwrap();
    assert_eq!(key(&[5]), 5);
    assert_eq!(key(&[5, 1]), key_of(&[5, 1]));
    assert_eq!(e.path(key(&[5, 3, 1])), Some(vec![5, 3, 1]));
    assert_eq!(e.own_id(key(&[5, 3, 1])), 1);
    assert_eq!(e.instance_scene(5), Some("prefabs/lamp.forge.ron"));
    assert_eq!(
        e.instance_scene(key(&[5, 3])),
        Some("prefabs/bulb.forge.ron")
    );
    let lamp = doc.entity(key(&[5, 1])).unwrap();
    assert_eq!(lamp.name, "Big Lamp");
    assert_eq!(lamp.parent, Some(5));
    let ComponentData::PointLight(l) = &lamp.components[0] else {
        panic!()
    };
    assert_eq!((l.intensity, l.range, l.shadows), (900.0, 40.0, false));
    let shade = doc.entity(key(&[5, 2])).unwrap();
    assert_eq!(
        shade.components,
        [ComponentData::Visibility(VisibilityMode::Hidden)]
    );
    assert_eq!(shade.children, [6], "the moth, placed under the shade");
    assert_eq!(doc.entity(6).unwrap().parent, Some(key(&[5, 2])));
    let ComponentData::Custom(glow) = &doc.entity(key(&[5, 3, 1])).unwrap().components[0] else {
        panic!()
    };
    assert_eq!(
        glow.fields,
        [
            CustomField::new("power", "2.5"),
            CustomField::new("hue", "0.5")
        ],
        "the field set, the other kept"
    );
    assert_eq!(doc.entity(5).unwrap().children, [key(&[5, 1])]);
    // The prefab files were read once each, without problems.
    let read: Vec<&str> = prefabs.files().map(|(p, _)| p).collect();
    assert_eq!(read, ["prefabs/bulb.forge.ron", "prefabs/lamp.forge.ron"]);
}

#[test]
fn overrides_that_do_not_apply_are_reported_at_their_lines() {
    let text = level()
        .replace("(target: [3, 1]", "(target: [3, 9]")
        .replace("remove: [\"sprite\"]", "remove: [\"text2d\"], add: [(type: sprite, data: (image: None, color: (r: 1, g: 1, b: 1, a: 1), custom_size: None, flip_x: false, flip_y: false))]")
        .replace(", add: [(type: visibility, data: hidden)]", "");
    let parsed = SceneDoc::from_str(&text).unwrap();
    let (_, problems) = PrefabFiles::new(reader(files())).expand_scene("level.forge.ron", &parsed);
    let codes: Vec<(&str, Option<u32>)> = problems.iter().map(|d| (d.code, d.line())).collect();
    assert!(
        codes.contains(&("forge::prefab::unused_override", Some(11))),
        "missing target [3, 9]: {problems:#?}"
    );
    assert!(
        codes.contains(&("forge::prefab::unused_override", Some(10))),
        "no text2d to remove: {problems:#?}"
    );
    assert!(
        codes.contains(&("forge::prefab::add_existing", Some(10))),
        "the shade has a sprite: {problems:#?}"
    );
    let unused = problems
        .iter()
        .find(|d| d.message.contains("[3, 9]"))
        .unwrap();
    assert_eq!(
        unused.severity,
        bevy_forge_scene::validate::Severity::Warning
    );
    assert_eq!(unused.path.as_deref(), Some("instance.overrides[2]"));
}

#[test]
fn instance_shape_rules_need_no_prefab() {
    let text = level()
        .replace("\"prefabs/lamp.forge.ron\"", "\"../lamp.ron\"")
        .replace("(target: [2]", "(target: []")
        .replace("remove: [\"sprite\"]", "remove: [\"sprites\"]");
    let parsed = SceneDoc::from_str(&text).unwrap();
    let report = validate_parsed(&parsed, None);
    let codes: Vec<&str> = report.iter().map(|d| d.code).collect();
    for code in [
        "forge::asset::parent_dir",
        "forge::prefab::empty_target",
        "forge::prefab::remove_key",
    ] {
        assert!(codes.contains(&code), "{code}: {codes:?}");
    }
    assert!(
        !report
            .iter()
            .any(|d| d.code == "forge::entity::transform_only" && d.entity == Some(5)),
        "an instance entity places something: {codes:?}"
    );
    let shape = report
        .iter()
        .find(|d| d.code == "forge::prefab::empty_target")
        .unwrap();
    assert_eq!((shape.entity, shape.line()), (Some(5), Some(10)));
    let not_a_scene = SceneDoc::from_str(&level().replace("lamp.forge.ron", "lamp.png")).unwrap();
    assert!(
        validate_parsed(&not_a_scene, None)
            .iter()
            .any(|d| d.code == "forge::prefab::not_a_scene")
    );
}

#[test]
fn a_cycle_names_every_link_with_its_position() {
    let a = format!(
        "(format_version: 1, name: \"A\", entities: {{\n1: (id: 1, name: \"to b\", parent: None, children: [], {T}, components: [], instance: Some((scene: \"b.forge.ron\"))),\n}}, roots: [1], next_id: 2)"
    );
    let b = a.replace("b.forge.ron", "c.forge.ron");
    let c = a.replace("b.forge.ron", "a.forge.ron");
    let files = HashMap::from([
        ("b.forge.ron".to_owned(), b),
        ("c.forge.ron".to_owned(), c),
        ("a.forge.ron".to_owned(), a.clone()),
    ]);
    let parsed = SceneDoc::from_str(&a).unwrap();
    let mut prefabs = PrefabFiles::new(reader(files));
    let (_, problems) = prefabs.expand_scene("a.forge.ron", &parsed);
    // The problem is the prefab file's own, reported there once, not again where it is placed.
    assert!(
        problems.iter().all(|d| d.code != "forge::prefab::invalid"),
        "{problems:#?}"
    );
    let c_file = prefabs.file("c.forge.ron").unwrap();
    let cycle = c_file
        .diagnostics
        .iter()
        .find(|d| d.code == "forge::prefab::cycle")
        .unwrap();
    assert_eq!(
        cycle.message,
        "prefab cycle: `a.forge.ron` -> `b.forge.ron` -> `c.forge.ron` -> `a.forge.ron`"
    );
    assert_eq!(cycle.line(), Some(2));
    let links: Vec<(Option<&str>, Option<u32>, &str)> = cycle
        .related
        .iter()
        .map(|r| {
            (
                r.file.as_deref(),
                r.position.map(|p| p.line),
                r.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        links,
        [
            (Some("a.forge.ron"), Some(2), "places `b.forge.ron`"),
            (Some("b.forge.ron"), Some(2), "places `c.forge.ron`"),
            (Some("c.forge.ron"), Some(2), "places `a.forge.ron`"),
        ]
    );
}

/// A graph of `files` scene files, each placing some of the others (by index; an index past the
/// end names a file that does not exist), with overrides aimed at random paths.
fn graph() -> impl Strategy<Value = Vec<Vec<(usize, Vec<u64>)>>> {
    let instance = (0usize..7, proptest::collection::vec(0u64..4, 0..4));
    proptest::collection::vec(proptest::collection::vec(instance, 0..4), 1..6)
}

fn file_of(i: usize, instances: &[(usize, Vec<u64>)]) -> String {
    let mut entities = format!(
        "1: (id: 1, name: \"Own {i}\", parent: None, children: [], {T}, components: [{}]),\n",
        light(1.0)
    );
    let mut roots = vec!["1".to_owned()];
    for (j, (target, path)) in instances.iter().enumerate() {
        let id = j + 2;
        let path: Vec<String> = path.iter().map(u64::to_string).collect();
        entities.push_str(&format!(
            "{id}: (id: {id}, name: \"Instance {j}\", parent: None, children: [], {T}, components: [], instance: Some((scene: \"f{target}.forge.ron\", overrides: [(target: [{}], name: Some(\"x\"), set: [(type: point_light, data: (intensity: 2.0))])]))),\n",
            path.join(", ")
        ));
        roots.push(id.to_string());
    }
    format!(
        "(format_version: 1, name: \"F{i}\", entities: {{\n{entities}}}, roots: [{}], next_id: {})",
        roots.join(", "),
        instances.len() + 2
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// On any graph of files (cycles, files placing themselves, missing files, overrides of
    /// anything), expansion ends without a panic, every entity it places has a path through the
    /// scene's instances, and cycles are reported, never expanded.
    #[test]
    fn expansion_ends_on_any_graph_of_files(graph in graph()) {
        let files: HashMap<String, String> = graph
            .iter()
            .enumerate()
            .map(|(i, instances)| (format!("f{i}.forge.ron"), file_of(i, instances)))
            .collect();
        let scene = files["f0.forge.ron"].clone();
        let parsed = SceneDoc::from_str(&scene).unwrap();
        let mut prefabs = PrefabFiles::new(reader(files.clone()));
        let (expanded, problems) = prefabs.expand_scene("f0.forge.ron", &parsed);
        if let Some(e) = &expanded {
            prop_assert_eq!(e.doc.check_integrity(), vec![]);
            for key in e.doc.entities.keys() {
                let path = e.path(*key).unwrap();
                prop_assert_eq!(e.key(&path), Some(*key));
                prop_assert!(path.len() <= MAX_PREFAB_DEPTH + 1);
            }
        }
        // A file that places itself, directly or not, is refused somewhere along the way.
        let self_placing = graph[0].iter().any(|(t, _)| *t == 0);
        if self_placing {
            let cycle_here = problems.iter().any(|d| d.code == "forge::prefab::cycle");
            prop_assert!(cycle_here, "{:?}", problems);
        }
        // Each file was read at most once.
        prop_assert!(prefabs.files().count() <= files.len() + 7);
    }

    /// Instances survive the canonical writer: any scene with instances reads back equal.
    #[test]
    fn scenes_with_instances_read_back_from_canonical_text(graph in graph()) {
        let text = file_of(0, &graph[0]);
        let doc = SceneDoc::from_str(&text).unwrap().doc;
        let canonical = doc.to_canonical_string();
        prop_assert_eq!(&SceneDoc::from_str(&canonical).unwrap().doc, &doc);
        let (expanded, _) = expand(&SceneDoc::from_str(&canonical).unwrap(), &|_| None);
        prop_assert_eq!(expanded.is_some(), !graph[0].is_empty());
    }
}

/// Prefabs that each place the next one twice double at every file: the expansion is refused
/// once it would pass `MAX_EXPANDED_ENTITIES`, quickly, instead of growing until memory runs out.
#[test]
fn a_prefab_chain_that_doubles_is_refused_before_it_explodes() {
    let files: HashMap<String, String> = (0..25)
        .map(|i| {
            let next = format!("d{}.forge.ron", i + 1);
            let text = if i == 24 {
                format!(
                    "(format_version: 1, name: \"Leaf\", entities: {{\n1: (id: 1, name: \"Leaf\", parent: None, children: [], {T}, components: []),\n}}, roots: [1], next_id: 2)"
                )
            } else {
                format!(
                    "(format_version: 1, name: \"D{i}\", entities: {{\n1: (id: 1, name: \"A\", parent: None, children: [], {T}, components: [], instance: Some((scene: \"{next}\"))),\n2: (id: 2, name: \"B\", parent: None, children: [], {T}, components: [], instance: Some((scene: \"{next}\"))),\n}}, roots: [1, 2], next_id: 3)"
                )
            };
            (format!("d{i}.forge.ron"), text)
        })
        .collect();
    let parsed = SceneDoc::from_str(&files["d0.forge.ron"]).unwrap();
    let started = std::time::Instant::now();
    let mut prefabs = PrefabFiles::new(reader(files));
    let (_, problems) = prefabs.expand_scene("d0.forge.ron", &parsed);
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    // The problem is the prefab file's own, reported there once, not again where it is placed.
    assert!(
        problems.iter().all(|d| d.code != "forge::prefab::invalid"),
        "{problems:#?}"
    );
    let refused = prefabs
        .files()
        .flat_map(|(_, f)| f.diagnostics.iter())
        .find(|d| d.code == "forge::prefab::too_large")
        .expect("one file is refused");
    assert!(
        refused.message.contains(&MAX_EXPANDED_ENTITIES.to_string()),
        "{}",
        refused.message
    );
    // Nothing kept is larger than the limit.
    for (_, file) in prefabs.files() {
        if let Some(e) = &file.expanded {
            assert!(e.doc.entities.len() <= MAX_EXPANDED_ENTITIES);
        }
    }
}

#[test]
fn overrides_find_custom_components_by_bare_name_and_point_at_the_right_item() {
    let text = level()
        .replace(
            "(target: [3, 1], set: [(type: custom, data: (type_path: \"game::Glow\"",
            "(target: [3, 1], set: [(type: custom, data: (type_path: \"Glow\"",
        )
        .replace("remove: [\"sprite\"]", "remove: [\"sprite\", \"sprite\"]");
    let parsed = SceneDoc::from_str(&text).unwrap();
    let (expanded, problems) =
        PrefabFiles::new(reader(files())).expand_scene("level.forge.ron", &parsed);
    let e = expanded.unwrap();
    let ComponentData::Custom(glow) =
        &e.doc.entity(e.key(&[5, 3, 1]).unwrap()).unwrap().components[0]
    else {
        panic!()
    };
    assert_eq!(
        glow.fields[0],
        CustomField::new("power", "2.5"),
        "`Glow` is `game::Glow`"
    );
    // The second `sprite` is the one with nothing left to remove.
    let unused = problems
        .iter()
        .find(|d| d.code == "forge::prefab::unused_override")
        .unwrap_or_else(|| panic!("{problems:#?}"));
    let line = text
        .lines()
        .nth(unused.line().unwrap() as usize - 1)
        .unwrap();
    let second = line.rfind("\"sprite\"").unwrap();
    assert_eq!(
        unused.column(),
        Some(line[..second].chars().count() as u32 + 1)
    );
}

//! Prefab instances as data: read with positions, written canonically, kept by the forest rules
//! and edits, expanded by id path (no `World` here), and expansion over any graph of files ends.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> Option<u32> {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|l| l as u32 + 1)
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

/// Tile layers: a palette of prefabs and rows of characters, read with positions, written
/// canonically, checked, and expanded by the id paths `[layer, i, j, inner..]`.
mod tiles {
    use super::*;

    /// A level with entity 1 ("Ground") and layer 9 under it: grass `g` and lamps `l`.
    pub(super) fn level(rows: &[&str]) -> String {
        let rows: String = rows.iter().map(|r| format!("        \"{r}\",\n")).collect();
        format!(
            r#"(
  format_version: 1,
  name: "Tiles",
  entities: {{
    1: (id: 1, name: "Ground", parent: None, children: [], {T}, components: []),
  }},
  roots: [1],
  next_id: 10,
  layers: [
    (
      id: 9,
      name: "Floor",
      parent: Some(1),
      plane: xy,
      cell_size: (x: 2.0, y: 3.0),
      origin: (x: 10.0, y: 0.0, z: 0.0),
      palette: {{
        "g": "prefabs/grass.forge.ron",
        "l": "prefabs/lamp.forge.ron",
      }},
      rows: [
{rows}      ],
      overrides: [
        (target: [1, 0, 1], name: Some("Lit")),
      ],
    ),
  ],
)"#
        )
    }

    fn grass() -> String {
        format!(
            r##"(format_version: 1, name: "Grass", entities: {{
  1: (id: 1, name: "Grass", parent: None, children: [], transform: (translation: (x: 0.5, y: 0.25, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)), components: [{SPRITE}, (type: custom, data: (type_path: "game::Near", fields: [(name: "other", expr: "#1")]))]),
}}, roots: [1], next_id: 2)"##
        )
    }

    fn tile_files() -> HashMap<String, String> {
        let mut files = files();
        files.insert("prefabs/grass.forge.ron".to_owned(), grass());
        files
    }

    #[test]
    fn layers_read_with_positions_and_write_canonically() {
        let text = level(&["g.l", "ggg"]);
        let parsed = SceneDoc::from_str(&text).unwrap();
        let layer = parsed.doc.layer(9).unwrap();
        assert_eq!(layer.name, "Floor");
        assert_eq!(layer.parent, Some(1));
        assert_eq!(layer.plane, TilePlane::Xy);
        assert_eq!(layer.cell_size, Vec2Data::new(2.0, 3.0));
        assert_eq!(layer.rows, ["g.l", "ggg"]);
        assert_eq!(layer.prefab('l'), Some("prefabs/lamp.forge.ron"));
        assert_eq!(layer.overrides[0].target, [1, 0, 1]);
        // The last row is j = 0; `.` is empty.
        let filled: Vec<(u64, u64, char)> = layer.filled().map(|(i, j, k, _)| (i, j, k)).collect();
        assert_eq!(
            filled,
            [
                (0, 1, 'g'),
                (2, 1, 'l'),
                (0, 0, 'g'),
                (1, 0, 'g'),
                (2, 0, 'g')
            ]
        );
        let map = &parsed.source_map;
        let row_line = text.lines().position(|l| l.contains("\"g.l\"")).unwrap() as u32 + 1;
        let row = map.layer_part(9, LayerPart::Row(0)).unwrap();
        assert_eq!((row.line, row.column), (row_line, 9));
        // Character 2 of the row (`l`) is three columns after the quote.
        let c = map.layer_char(9, 0, &layer.rows[0], 2).unwrap();
        assert_eq!((c.line, c.column), (row_line, 12));
        assert!(map.layer_part(9, LayerPart::PaletteScene(1)).is_some());
        // Canonical text reads back equal and writes the same bytes again.
        let canonical = parsed.doc.to_canonical_string();
        let again = SceneDoc::from_str(&canonical).unwrap();
        assert_eq!(again.doc, parsed.doc);
        assert_eq!(again.doc.to_canonical_string(), canonical);
        assert!(canonical.contains("  layers: [\n"), "{canonical}");
        assert!(
            canonical.contains("      rows: [\n        \"g.l\",\n"),
            "{canonical}"
        );
        // A scene without layers writes no `layers` field: old files stay as they were.
        let plain = SceneDoc::from_str(&super::level()).unwrap().doc;
        assert!(plain.layers.is_empty());
        assert!(!plain.to_canonical_string().contains("layers"));
    }

    #[test]
    fn sparse_cells_and_start_read_and_write() {
        let text = level(&[]).replace(
            "      rows: [\n      ],\n",
            "      start: (i: 4, j: 2),\n      cells: [(i: 5, j: 2, key: \"g\"), (i: 4, j: 3, key: \"l\")],\n",
        );
        let parsed = SceneDoc::from_str(&text).unwrap();
        let layer = parsed.doc.layer(9).unwrap();
        assert_eq!(layer.start, (4, 2));
        assert!(layer.rows.is_empty());
        assert_eq!(layer.key_at(5, 2), Some('g'));
        assert_eq!(layer.key_at(4, 3), Some('l'));
        assert_eq!(layer.key_at(4, 2), None);
        // Cell `start` sits at the origin; cell (0, 0) (the layer entity) that far back.
        assert_eq!(layer.anchor(), Vec3Data::new(10.0 - 8.0, -6.0, 0.0));
        let canonical = parsed.doc.to_canonical_string();
        assert!(!canonical.contains("rows:"), "{canonical}");
        assert_eq!(SceneDoc::from_str(&canonical).unwrap().doc, parsed.doc);
    }

    #[test]
    fn layer_mistakes_are_reported_at_the_character() {
        let text = level(&["g.x", "gxg", "gg"]);
        let parsed = SceneDoc::from_str(&text).unwrap();
        let report = validate_parsed(&parsed, None);
        let find = |code: &str| {
            report
                .diagnostics
                .iter()
                .filter(|d| d.code == code)
                .collect::<Vec<_>>()
        };
        let line = |row: &str| text.lines().position(|l| l.contains(row)).unwrap() as u32 + 1;
        let unknown = find("forge::layer::unknown_key");
        assert_eq!(unknown.len(), 1, "one per key: {:#?}", report.diagnostics);
        let p = unknown[0].position.unwrap();
        assert_eq!((p.line, p.column), (line("\"g.x\""), 12));
        assert!(
            unknown[0].message.contains("(2 cells)"),
            "{}",
            unknown[0].message
        );
        assert_eq!(unknown[0].path.as_deref(), Some("layers[0].rows[0]"));
        let ragged = find("forge::layer::ragged");
        assert_eq!(ragged.len(), 1);
        assert_eq!(ragged[0].line(), Some(line("\"gg\"")));
        // Duplicate cells, both rows and cells, an id that an entity has.
        let text = level(&["g"])
            .replace("id: 9,", "id: 1,")
            .replace(
                "      overrides: [",
                "      cells: [(i: 3, j: 3, key: \"g\"), (i: 3, j: 3, key: \"l\")],\n      overrides: [",
            );
        let parsed = SceneDoc::from_str(&text).unwrap();
        let codes: Vec<(&str, Option<u32>)> = validate_parsed(&parsed, None)
            .diagnostics
            .iter()
            .map(|d| (d.code, d.line()))
            .collect();
        let line = |s: &str| {
            text.lines()
                .position(|l| l.contains(s))
                .map(|l| l as u32 + 1)
        };
        assert!(
            codes.contains(&("forge::layer::id", line("      id: 1,"))),
            "{codes:?}"
        );
        assert!(
            codes.contains(&("forge::layer::rows_and_cells", line("cells: ["))),
            "{codes:?}"
        );
        assert!(
            codes.contains(&("forge::layer::duplicate_cell", line("cells: ["))),
            "{codes:?}"
        );
        // Too large: a documented limit.
        let wide = "g".repeat(1024);
        let rows: Vec<&str> =
            std::iter::repeat_n(wide.as_str(), MAX_LAYER_CELLS / 1024 + 1).collect();
        let parsed = SceneDoc::from_str(&level(&rows)).unwrap();
        let report = validate_parsed(&parsed, None);
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.code == "forge::layer::too_large")
        );
        // Rows reaching past the largest cell index, to the right or up: one error at `rows`
        // (a paint there, or a sparse cell, is refused the same way). At the limit: fine.
        let rows_past = |start: &str, rows: &[&str]| {
            let text = level(rows).replace("plane: xy,", &format!("plane: xy, start: {start},"));
            let parsed = SceneDoc::from_str(&text).unwrap();
            let found: Vec<_> = validate_parsed(&parsed, None)
                .diagnostics
                .into_iter()
                .filter(|d| d.code == "forge::layer::too_large")
                .map(|d| (d.message.clone(), d.path.clone(), d.line()))
                .collect();
            (found, line_of(&text, "rows: ["))
        };
        let wide = "g".repeat(70_000);
        for (start, rows, reach) in [
            ("(i: 65535, j: 0)", vec!["gg"], "(65536, 0)"),
            ("(i: 0, j: 65535)", vec!["g", "g"], "(0, 65536)"),
            ("(i: 0, j: 0)", vec![wide.as_str()], "(69999, 0)"),
        ] {
            let (found, line) = rows_past(start, &rows);
            assert_eq!(found.len(), 1, "{start}: {found:?}");
            assert!(found[0].0.contains(reach), "{found:?}");
            assert!(found[0].0.contains("65535"), "{found:?}");
            assert_eq!(found[0].1.as_deref(), Some("layers[0].rows"));
            assert_eq!(found[0].2, line);
        }
        assert!(rows_past("(i: 65534, j: 65535)", &["gg"]).0.is_empty());
        // Cell sizes each finite whose far cells pass the largest f32: one error at the size.
        for (size, start, rows) in [
            ("(x: 3e38, y: 1.0)", "(i: 0, j: 0)", vec!["ggg"]),
            ("(x: 1.0, y: 1e34)", "(i: 0, j: 65534)", vec!["g", "g"]),
        ] {
            let text = level(&rows)
                .replace("cell_size: (x: 2.0, y: 3.0)", &format!("cell_size: {size}"))
                .replace("plane: xy,", &format!("plane: xy, start: {start},"));
            let parsed = SceneDoc::from_str(&text).unwrap();
            let found: Vec<_> = validate_parsed(&parsed, None)
                .diagnostics
                .into_iter()
                .filter(|d| d.code == "forge::layer::cell_size")
                .collect();
            assert_eq!(found.len(), 1, "{size}: {found:?}");
            assert!(
                found[0].message.contains("infinite place"),
                "{}",
                found[0].message
            );
            assert_eq!(found[0].line(), line_of(&text, "cell_size:"));
        }
        // A layer under no entity: one error at its `parent`, saying what the id is instead.
        let second = "    (id: 8, name: \"Upper\", plane: xy, cell_size: (x: 1.0, y: 1.0), palette: {}, rows: []),\n  ],\n)";
        for (parent, says) in [
            ("Some(7)", "under entity 7, which the scene does not have"),
            ("Some(9)", "`Floor` is placed under itself"),
            ("Some(8)", "`Floor` is placed under layer `Upper` (id 8)"),
        ] {
            let text = level(&["g"])
                .replace(
                    "parent: Some(1),\n      plane",
                    &format!("parent: {parent},\n      plane"),
                )
                .replace("  ],\n)", second);
            let parsed = SceneDoc::from_str(&text).unwrap();
            let found: Vec<_> = validate_parsed(&parsed, None)
                .diagnostics
                .into_iter()
                .filter(|d| d.code == "forge::layer::parent")
                .collect();
            assert_eq!(found.len(), 1, "{parent}: {found:?}");
            assert!(found[0].message.contains(says), "{}", found[0].message);
            assert_eq!(found[0].path.as_deref(), Some("layers[0].parent"));
            assert_eq!(
                found[0].line(),
                line_of(&text, &format!("parent: {parent},"))
            );
        }
        // A palette key is one character, and not `.`.
        for bad in ["\"gg\"", "\".\"", "\"\""] {
            let text = level(&["g"]).replace("\"g\": \"prefabs", &format!("{bad}: \"prefabs"));
            let e = SceneDoc::from_str(&text).unwrap_err();
            assert!(e.to_string().contains("palette key"), "{e}");
            assert_eq!(e.position().line, line("\"g\": \"prefabs").unwrap());
        }
    }

    #[test]
    fn a_missing_palette_prefab_is_reported_at_its_entry() {
        let text = level(&["gl"]);
        let parsed = SceneDoc::from_str(&text).unwrap();
        let mut files = tile_files();
        files.remove("prefabs/grass.forge.ron");
        let (_, problems) = PrefabFiles::new(reader(files)).expand_scene("t.forge.ron", &parsed);
        let line = text
            .lines()
            .position(|l| l.contains("grass.forge.ron"))
            .unwrap() as u32
            + 1;
        let unreadable: Vec<_> = problems
            .iter()
            .filter(|d| d.code == "forge::prefab::unreadable")
            .collect();
        assert_eq!(unreadable.len(), 1, "{problems:#?}");
        assert_eq!(unreadable[0].line(), Some(line));
        assert_eq!(unreadable[0].path.as_deref(), Some("layers[0].palette.g"));
    }

    #[test]
    fn cells_expand_by_id_path_with_overrides() {
        let parsed = SceneDoc::from_str(&level(&["g.l", "ggg"])).unwrap();
        let (expanded, problems) =
            PrefabFiles::new(reader(tile_files())).expand_scene("t.forge.ron", &parsed);
        assert!(problems.is_empty(), "{problems:#?}");
        let e = expanded.unwrap();
        let doc = &e.doc;
        assert_eq!(doc.check_integrity(), []);
        // The layer entity, under entity 1, at cell (0, 0).
        let layer = doc.entity(9).unwrap();
        assert_eq!(layer.name, "Floor");
        assert_eq!(layer.parent, Some(1));
        assert_eq!(doc.entity(1).unwrap().children, [9]);
        assert_eq!(layer.transform.translation, Vec3Data::new(10.0, 0.0, 0.0));
        // 4 grass cells of one entity, 1 lamp of 3 (and the bulb inside it).
        assert_eq!(doc.entities.len(), 2 + 4 + 4);
        let key = |path: &[u64]| e.key(path).unwrap();
        let grass = doc.entity(key(&[9, 2, 0, 1])).unwrap();
        assert_eq!(grass.parent, Some(9));
        // The cell's place plus the prefab root's own translation.
        assert_eq!(grass.transform.translation, Vec3Data::new(4.5, 0.25, 0.0));
        assert_eq!(e.path(key(&[9, 2, 1, 3, 1])), Some(vec![9, 2, 1, 3, 1]));
        // References inside a cell name the cell's own entities.
        let ComponentData::Custom(near) = &grass.components[1] else {
            panic!()
        };
        assert_eq!(near.fields[0].expr, "#9/2/0/1");
        // The override of cell (1, 0) renames its grass only.
        assert_eq!(doc.entity(key(&[9, 1, 0, 1])).unwrap().name, "Lit");
        assert_eq!(doc.entity(key(&[9, 0, 0, 1])).unwrap().name, "Grass");
        // Repainting another cell keeps the override and every other cell's key.
        let parsed2 = SceneDoc::from_str(&level(&["ggl", "ggg"])).unwrap();
        let (e2, _) = PrefabFiles::new(reader(tile_files())).expand_scene("t.forge.ron", &parsed2);
        let e2 = e2.unwrap();
        assert_eq!(e2.doc.entity(key(&[9, 1, 0, 1])).unwrap().name, "Lit");
        let diff = bevy_forge_scene::diff::diff(&e.doc, &e2.doc);
        assert_eq!(diff.added.len(), 1, "{diff}");
        assert!(diff.removed.is_empty(), "{diff}");
        assert_eq!(diff.added[0].id, e2.key(&[9, 1, 1, 1]).unwrap());
        assert_eq!(diff.added[0].parent, Some(9));
    }

    #[test]
    fn overrides_of_empty_cells_are_kept_as_warnings() {
        let text = level(&["g.", "gg"]).replace("[1, 0, 1]", "[1, 1, 1]");
        let parsed = SceneDoc::from_str(&text).unwrap();
        let (_, problems) =
            PrefabFiles::new(reader(tile_files())).expand_scene("t.forge.ron", &parsed);
        let line = text.lines().position(|l| l.contains("[1, 1, 1]")).unwrap() as u32 + 1;
        let unused: Vec<_> = problems
            .iter()
            .filter(|d| d.code == "forge::prefab::unused_override")
            .collect();
        assert_eq!(unused.len(), 1, "{problems:#?}");
        assert_eq!(unused[0].line(), Some(line));
        assert!(unused[0].message.contains("empty"), "{}", unused[0].message);
    }

    /// A sparse cell on a cell the rows also give is the layer's one problem: both `rows` and
    /// `cells`, not a duplicate cell as well.
    #[test]
    fn rows_and_cells_on_one_cell_is_one_diagnostic() {
        let text = level(&["g.", "gg"]).replace(
            "      overrides: [",
            "      cells: [(i: 0, j: 0, key: \"l\")],\n      overrides: [",
        );
        let parsed = SceneDoc::from_str(&text).unwrap();
        let layer: Vec<&str> = validate_parsed(&parsed, None)
            .diagnostics
            .iter()
            .filter(|d| d.code.starts_with("forge::layer"))
            .map(|d| d.code)
            .collect();
        assert_eq!(layer, ["forge::layer::rows_and_cells"]);
        // Two sparse cells on one cell are still a duplicate.
        let twice = text.replace(
            "(i: 0, j: 0, key: \"l\")",
            "(i: 0, j: 0, key: \"l\"), (i: 0, j: 0, key: \"g\")",
        );
        let parsed = SceneDoc::from_str(&twice).unwrap();
        let codes: Vec<&str> = validate_parsed(&parsed, None)
            .diagnostics
            .iter()
            .map(|d| d.code)
            .collect();
        assert_eq!(
            codes
                .iter()
                .filter(|c| **c == "forge::layer::duplicate_cell")
                .count(),
            1,
            "{codes:?}"
        );
    }

    /// A reference into a cell outside a 2 x 2 layer says it is outside and where the cells
    /// are; one into an empty cell inside says it is empty. An override of a cell outside the
    /// layer says the same.
    #[test]
    fn a_reference_outside_the_layer_names_its_cells() {
        let text = level(&["g.", "gg"])
            .replace(
                "components: []),",
                "components: [(type: custom, data: (type_path: \"game::Looks\", fields: [(name: \"far\", expr: \"#9/7/0/1\"), (name: \"near\", expr: \"#9/1/1/1\")]))]),",
            )
            .replace("[1, 0, 1]", "[5, 5, 1]");
        let source =
            bevy_forge_scene::pipeline::Source::read("t.forge.ron", text.as_bytes()).unwrap();
        let checked =
            bevy_forge_scene::pipeline::check(source, &mut PrefabFiles::new(reader(tile_files())));
        let messages: Vec<&str> = checked
            .diagnostics
            .iter()
            .filter(|d| {
                d.code.starts_with("forge::custom::") || d.code == "forge::prefab::unused_override"
            })
            .map(|d| d.message.as_str())
            .collect();
        let has = |want: &str| messages.iter().any(|m| m.contains(want));
        assert!(
            has("cell (7, 0) is outside tile layer `#9`, whose cells run from (0, 0) to (1, 1)"),
            "{messages:#?}"
        );
        assert!(
            has("cell (1, 1) of tile layer `#9` is empty"),
            "{messages:#?}"
        );
        assert!(
            has("cell (5, 5) is outside the layer, whose cells run from (0, 0) to (1, 1)"),
            "{messages:#?}"
        );
        assert!(
            !messages.iter().any(|m| m.contains("(7, 0) of tile layer")),
            "{messages:#?}"
        );
    }

    fn rows() -> impl Strategy<Value = Vec<String>> {
        (1usize..6, 1usize..6).prop_flat_map(|(w, h)| {
            prop::collection::vec(
                prop::collection::vec(prop::sample::select(vec!['g', 'l', '.']), w),
                h,
            )
            .prop_map(|rows| rows.into_iter().map(|r| r.into_iter().collect()).collect())
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn painted_layers_read_back_from_canonical_text(rows in rows()) {
            let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
            let parsed = SceneDoc::from_str(&level(&refs)).unwrap();
            let canonical = parsed.doc.to_canonical_string();
            let again = SceneDoc::from_str(&canonical).unwrap();
            prop_assert_eq!(&again.doc, &parsed.doc);
            prop_assert!(validate_parsed(&again, None).diagnostics.iter().all(|d| !d.code.starts_with("forge::layer")));
            // Every filled cell expands to its prefab's entities, each under its own path.
            let (e, problems) = PrefabFiles::new(reader(tile_files())).expand_scene("t.forge.ron", &again);
            prop_assert!(problems.iter().all(|d| d.severity != bevy_forge_scene::validate::Severity::Error), "{:#?}", problems);
            let e = e.unwrap();
            let grass = rows.iter().flat_map(|r| r.chars()).filter(|c| *c == 'g').count();
            let lamps = rows.iter().flat_map(|r| r.chars()).filter(|c| *c == 'l').count();
            prop_assert_eq!(e.doc.entities.len(), 2 + grass + 4 * lamps);
            prop_assert_eq!(e.doc.check_integrity(), []);
        }
    }
}

//! The edit layer (`bevy_forge_scene::edit`): edits change only the bytes of what they change,
//! read back as the same operation gives in memory, undo and redo give the bytes back exactly,
//! dry runs write nothing, a file changed on disk is not overwritten, and `forge migrate` keeps
//! comments.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use bevy_forge_scene::edit::{SceneEdit, SceneEditError, migrate};
use bevy_forge_scene::format::{
    ComponentData, CustomField, PointLightData, SceneDoc, TransformData,
};
use bevy_forge_scene::prelude::ForgeSceneInstance;
use common::{Edit, apply_edit};
use proptest::prelude::*;

/// A hand-written scene: comments everywhere, one-line and multi-line entries, fields out of
/// order, integers for floats, a missing `locked`, raw strings, trailing commas or none.
const HAND: &str = r##"// The hall, by hand.
(
  format_version: 1, // current
  name: "Hall",

  /* entities follow */
  entities: {
    // the lamp: one line
    1: (id: 1, name: "Lamp", parent: None, children: [2], transform: (translation: (x: 1, y: 2.5, z: 0), rotation: (x: 0, y: 90, z: 0), scale: (x: 1, y: 1, z: 1)), components: [(type: point_light, data: (color: (r: 1, g: 0.9, b: 0.8, a: 1), intensity: 800, range: 20, shadows: false))]),
    2: (
      id: 2,
      name: "Bulb", // inside the lamp
      parent: Some(1),
      children: [],
      transform: (
        translation: (x: 0.0, y: 0.5, z: 0.0),
        rotation: (x: 0.0, y: 0.0, z: 0.0),
        scale: (x: 0.25, y: 0.25, z: 0.25),
      ),
      components: [
        (type: custom, data: (type_path: "game::Glow", fields: [
          (name: "power", expr: "2.0 * 3.0"), // doubled
          (name: "label", expr: r#""warm \n""#),
        ])),
        (type: visibility, data: visible),
      ],
      locked: true,
    ),
    3: (id: 3, name: "Floor", parent: None, children: [], transform: (translation: (x: 0.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)), components: [], locked: false)
  },
  roots: [1, 3], // lamp first
  next_id: 4,
)
// the end
"##;

/// The comments of [`HAND`] outside any entity: no edit may lose them.
const BOM_CHAR: char = '\u{feff}';

const KEPT: &[&str] = &[
    "// The hall, by hand.",
    "// current",
    "/* entities follow */",
    "// lamp first",
    "// the end",
];

fn crlf_bom(text: &str) -> String {
    format!("\u{feff}{}", text.replace('\n', "\r\n"))
}

fn asset(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The texts the property test edits.
fn texts() -> Vec<String> {
    vec![
        HAND.to_owned(),
        crlf_bom(HAND),
        asset("assets/scenes/showcase.forge.ron"),
        asset("assets/scenes/castle_gate.forge.ron"),
        asset("assets/scenes/goblin_camp.forge.ron"),
        common::fixture_text("valid/platformer.forge.ron"),
        SceneDoc::from_str(HAND).unwrap().doc.to_canonical_string(),
    ]
}

#[derive(Debug, Clone)]
enum Step {
    Doc(Edit),
    /// Sets the expression of a custom field of the picked entity (one it has, or a new one).
    Expr(usize, usize, String),
    /// Changes a built-in's payload (a light's intensity, a sprite's flip).
    Builtin(usize, f32),
    /// Renames the scene.
    SceneName(String),
}

fn step() -> BoxedStrategy<Step> {
    prop_oneof![
        6 => common::edit().prop_map(Step::Doc),
        2 => (any::<usize>(), any::<usize>(), "[a-z0-9 +*.()]{1,12}").prop_map(|(p, f, e)| Step::Expr(p, f, e)),
        2 => (any::<usize>(), 0.0f32..5000.0).prop_map(|(p, v)| Step::Builtin(p, v)),
        1 => "[A-Za-z ]{0,8}".prop_map(Step::SceneName),
    ]
    .boxed()
}

fn run(doc: &mut SceneDoc, step: &Step) {
    let ids: Vec<u64> = doc.entities.keys().copied().collect();
    let pick = |i: usize| (!ids.is_empty()).then(|| ids[i % ids.len()]);
    match step {
        Step::Doc(e) => apply_edit(doc, e),
        Step::Expr(p, f, expr) => {
            let Some(id) = pick(*p) else { return };
            let node = doc.entity_mut(id).unwrap();
            if let Some(ComponentData::Custom(c)) = node
                .components
                .iter_mut()
                .find(|c| matches!(c, ComponentData::Custom(_)))
            {
                let n = c.fields.len();
                if n > 0 && f % 3 != 0 {
                    c.fields[f % n].expr = expr.as_str().into();
                } else {
                    c.fields
                        .push(CustomField::new(format!("f{}", f % 7), expr.as_str()));
                }
            }
        }
        Step::Builtin(p, v) => {
            let Some(id) = pick(*p) else { return };
            for c in &mut doc.entity_mut(id).unwrap().components {
                match c {
                    ComponentData::PointLight(l) => l.intensity = *v,
                    ComponentData::DirectionalLight(l) => l.illuminance = *v,
                    ComponentData::Sprite(s) => s.flip_x = !s.flip_x,
                    ComponentData::Text2d(t) => t.font_size = 1.0 + *v,
                    _ => {}
                }
            }
        }
        Step::SceneName(name) => doc.name = name.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_read_back_keep_the_rest_and_undo_byte_exactly(
        which in 0usize..7,
        steps in proptest::collection::vec(step(), 1..14),
    ) {
        let original = texts()[which].clone();
        let crlf = original.contains("\r\n");
        let mut edit = SceneEdit::from_text(&original).unwrap();
        let mut expected = edit.doc().clone();
        let mut texts_after = Vec::new();
        for s in &steps {
            let before = edit.text();
            run(&mut expected, s);
            let group = edit.change("step", |doc| {
                run(doc, s);
                Ok(())
            });
            let group = match group {
                Ok(g) => g,
                // A step that would make the scene invalid is refused and changes nothing.
                Err(SceneEditError::Invalid(_)) => {
                    prop_assert_eq!(edit.text(), before);
                    expected = edit.doc().clone();
                    continue;
                }
                Err(e) => return Err(TestCaseError::fail(format!("{s:?}: {e}\n{before}"))),
            };
            prop_assert_eq!(edit.doc(), &expected, "{:?}", s);
            let after = edit.text();
            match &group {
                None => prop_assert_eq!(&after, &before),
                Some(g) => {
                    // Every byte outside the patches is the old text's: replaying them over
                    // the old text gives the new one.
                    let bom = if before.starts_with('\u{feff}') { 3 } else { 0 };
                    let mut body = before[bom..].to_owned();
                    for p in &g.patches {
                        prop_assert_eq!(&body[p.offset..p.offset + p.before.len()], p.before.as_str());
                        body.replace_range(p.offset..p.offset + p.before.len(), &p.after);
                    }
                    let rebuilt = format!("{}{body}", &before[..bom]);
                    prop_assert_eq!(&rebuilt, &after);
                    texts_after.push(after.clone());
                }
            }
            if which < 2 {
                for kept in KEPT {
                    prop_assert!(after.contains(kept), "lost {:?} after {:?}", kept, s);
                }
            }
            if crlf {
                prop_assert!(after.starts_with(BOM_CHAR), "the byte-order mark went");
                prop_assert!(!after.replace("\r\n", "").contains('\n'), "a bare newline after {:?}", s);
            }
        }
        let last = edit.text();
        while edit.undo().is_ok() {}
        prop_assert_eq!(edit.text(), original.clone());
        while edit.redo().is_ok() {}
        prop_assert_eq!(edit.text(), last);
        prop_assert_eq!(edit.undo_stack().len(), texts_after.len());
    }
}

#[test]
fn a_transform_edit_changes_only_its_numbers() {
    let mut edit = SceneEdit::from_text(HAND).unwrap();
    let mut t = edit.entity(1).unwrap().transform;
    t.translation.x = 4.5;
    t.rotation.y = 45.0;
    let group = edit.set_transform(1, t).unwrap().unwrap();
    let after = edit.text();
    // `1` became `4.5` and `90` became `45.0`; `2.5`, `0` and the rest stay as written.
    assert_eq!(
        after,
        HAND.replacen("(x: 1, y: 2.5", "(x: 4.5, y: 2.5", 1)
            .replacen("rotation: (x: 0, y: 90", "rotation: (x: 0, y: 45.0", 1)
    );
    // One patch per number, each exact.
    let patches: Vec<(&str, &str)> = group
        .patches
        .iter()
        .map(|p| (p.before.as_str(), p.after.as_str()))
        .collect();
    assert_eq!(patches, [("1", "4.5"), ("90", "45.0")]);
}

#[test]
fn custom_field_and_builtin_edits_touch_their_values_only() {
    let mut edit = SceneEdit::from_text(HAND).unwrap();
    edit.set_custom_field(2, "game::Glow", "power", "7.5")
        .unwrap()
        .unwrap();
    assert_eq!(edit.text(), HAND.replace("\"2.0 * 3.0\"", "\"7.5\""));
    // A new field goes after the others, in the list's layout.
    edit.set_custom_field(2, "game::Glow", "hue", "0.1")
        .unwrap()
        .unwrap();
    assert_eq!(
        edit.text(),
        HAND.replace("\"2.0 * 3.0\"", "\"7.5\"").replace(
            "(name: \"label\", expr: r#\"\"warm \\n\"\"#),\n",
            "(name: \"label\", expr: r#\"\"warm \\n\"\"#),\n          (name: \"hue\", expr: \"0.1\"),\n"
        )
    );
    // A built-in's payload: its entry, on one line as it was.
    let mut light = match &edit.entity(1).unwrap().components[0] {
        ComponentData::PointLight(l) => l.clone(),
        other => panic!("{other:?}"),
    };
    light.intensity = 1200.0;
    edit.set_component(1, ComponentData::PointLight(light))
        .unwrap()
        .unwrap();
    let text = edit.text();
    // Only the number, in a one-line entry.
    assert_eq!(
        text,
        HAND.replace("\"2.0 * 3.0\"", "\"7.5\"")
            .replace(
                "(name: \"label\", expr: r#\"\"warm \\n\"\"#),\n",
                "(name: \"label\", expr: r#\"\"warm \\n\"\"#),\n          (name: \"hue\", expr: \"0.1\"),\n"
            )
            .replace("intensity: 800,", "intensity: 1200.0,")
    );
    for kept in KEPT.iter().chain(&["// doubled", "// inside the lamp"]) {
        assert!(text.contains(kept), "{kept}");
    }
}

#[test]
fn entities_added_follow_the_layout_and_deleted_ones_take_their_lines() {
    let mut edit = SceneEdit::from_text(HAND).unwrap();
    let (_, id) = edit
        .add_entity(
            "Rug",
            Some(3),
            TransformData::IDENTITY,
            vec![ComponentData::PointLight(PointLightData {
                color: bevy_forge_scene::format::ColorData::WHITE,
                intensity: 10.0,
                range: 2.0,
                shadows: false,
            })],
        )
        .unwrap();
    assert_eq!(id, 4);
    let text = edit.text();
    // After the last entry (a one-line entry): on one line too.
    let rug = text.lines().find(|l| l.contains("\"Rug\"")).unwrap();
    assert!(rug.trim_start().starts_with("4: (id: 4,"), "{rug}");
    assert!(text.contains("next_id: 5,"));
    edit.delete_subtree(2).unwrap().unwrap();
    let text = edit.text();
    assert!(!text.contains("Bulb") && !text.contains("// doubled"));
    assert!(text.contains("// inside the lamp") || !text.contains("inside the lamp"));
    assert!(!text.contains("\n\n    3:"), "no blank line left:\n{text}");
    // Undo both: the exact text.
    edit.undo().unwrap();
    edit.undo().unwrap();
    assert_eq!(edit.text(), HAND);
}

#[test]
fn no_op_edits_record_nothing() {
    let mut edit = SceneEdit::from_text(HAND).unwrap();
    assert!(edit.rename(1, "Lamp").unwrap().is_none());
    let t = edit.entity(2).unwrap().transform;
    assert!(edit.set_transform(2, t).unwrap().is_none());
    assert!(edit.undo_stack().is_empty());
    assert!(matches!(
        edit.undo(),
        Err(SceneEditError::NothingTo("undo"))
    ));
}

#[test]
fn groups_undo_as_one_and_dry_runs_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hall.forge.ron");
    std::fs::write(&path, HAND).unwrap();
    let mut edit = SceneEdit::open(&path).unwrap();

    let group = edit
        .dry_run("two renames", |e| {
            e.rename(1, "Big Lamp")?;
            e.rename(3, "Stone Floor")?;
            Ok(())
        })
        .unwrap()
        .unwrap();
    assert_eq!(group.label, "two renames");
    assert_eq!(group.patches.len(), 2);
    assert_eq!(group.patches[0].file.as_deref(), Some(path.as_path()));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), HAND);
    assert_eq!(edit.text(), HAND);
    assert!(edit.undo_stack().is_empty());

    // Applied for real: written, and undone as one.
    edit.apply(&group).unwrap();
    let renamed = std::fs::read_to_string(&path).unwrap();
    assert!(renamed.contains("\"Big Lamp\"") && renamed.contains("\"Stone Floor\""));
    // Not twice: the text is no longer the one it starts from.
    assert!(matches!(
        edit.apply(&group),
        Err(SceneEditError::NotAtStart(_))
    ));
    edit.undo().unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), HAND);
    edit.redo().unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), renamed);

    edit.begin("tidy");
    edit.rename(1, "Lamp").unwrap();
    edit.set_scene_name("Great Hall").unwrap();
    let tidy = edit.end().unwrap();
    assert_eq!(tidy.patches.len(), 2);
    edit.undo().unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), renamed);
}

#[test]
fn a_file_changed_on_disk_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hall.forge.ron");
    std::fs::write(&path, HAND).unwrap();
    let mut edit = SceneEdit::open(&path).unwrap();
    edit.rename(1, "Mine").unwrap();
    let theirs = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"Floor\"", "\"Theirs\"");
    std::fs::write(&path, &theirs).unwrap();
    let err = edit.rename(3, "Also mine").unwrap_err();
    assert!(matches!(err, SceneEditError::ChangedOnDisk(ref p) if p == &path));
    assert!(err.to_string().contains("changed on disk"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
    assert!(matches!(edit.undo(), Err(SceneEditError::ChangedOnDisk(_))));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
}

#[test]
fn crlf_and_bom_files_keep_both() {
    let text = crlf_bom(HAND);
    let mut edit = SceneEdit::from_text(&text).unwrap();
    edit.add_entity("Chair", None, TransformData::IDENTITY, Vec::new())
        .unwrap();
    edit.add_component(2, ComponentData::Camera2d).unwrap();
    let after = edit.text();
    assert!(after.starts_with('\u{feff}'));
    assert!(!after.replace("\r\n", "").contains('\n'));
    assert!(after.contains("\"Chair\""));
    edit.undo().unwrap();
    edit.undo().unwrap();
    assert_eq!(edit.text(), text);
}

#[test]
fn bad_text_is_refused_at_open_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.forge.ron");
    std::fs::write(
        &path,
        "(format_version: 1, name: \"x\", entities: {}, roots: [], next_id: )",
    )
    .unwrap();
    let err = SceneEdit::open(&path).unwrap_err();
    let SceneEditError::Read(read) = &err else {
        panic!("{err}")
    };
    assert_eq!(read.path(), Some(path.as_path()));
    assert_eq!(read.line(), 1);
    std::fs::write(&path, b"(\xff)").unwrap();
    assert!(matches!(
        SceneEdit::open(&path),
        Err(SceneEditError::Read(_))
    ));
}

#[test]
fn migrating_a_format_0_file_keeps_its_comments() {
    let old = HAND.replace("format_version: 1, // current", "format_version: 0, // old");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.forge.ron");
    std::fs::write(&path, &old).unwrap();
    let mut edit = SceneEdit::open(&path).unwrap();
    assert_eq!(edit.written_version(), Some(0));
    let migrated = migrate(&mut edit).unwrap().unwrap();
    assert_eq!((migrated.from, migrated.to), (0, 1));
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text,
        old.replace("format_version: 0,", "format_version: 1,")
    );
    assert!(text.contains("// old") && text.contains("// doubled"));
    // Current files are left alone.
    assert!(migrate(&mut edit).unwrap().is_none());
    // Undo gives the format 0 text back.
    edit.undo().unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), old);
}

#[test]
fn hot_reload_of_an_edit_touches_only_the_edited_entity() {
    use bevy_asset::AssetServer;
    use bevy_ecs::change_detection::ComponentTicks;
    use bevy_transform::components::Transform;
    use common::scenes::{Log, log_reloads};

    let text = asset("assets/scenes/showcase.forge.ron");
    let mut h = common::harness::Harness::with_setup(log_reloads);
    h.add("showcase.forge.ron", &text);
    let (root, instance) = h.spawn_scene("showcase.forge.ron");
    let ids: Vec<u64> = SceneEdit::from_text(&text)
        .unwrap()
        .doc()
        .entities
        .keys()
        .copied()
        .collect();
    let ticks = |h: &common::harness::Harness| -> Vec<ComponentTicks> {
        ids.iter()
            .map(|id| {
                h.world()
                    .entity(instance.entity(*id).unwrap())
                    .get_change_ticks::<Transform>()
                    .unwrap()
            })
            .collect()
    };
    let before = ticks(&h);

    let mut edit = SceneEdit::from_text(&text).unwrap();
    let mut t = edit.entity(6).unwrap().transform;
    t.translation.y = 3.0;
    edit.set_transform(6, t).unwrap().unwrap();
    h.add("showcase.forge.ron", &edit.text());
    h.app
        .world()
        .resource::<AssetServer>()
        .reload("showcase.forge.ron");
    h.run_until(|w| !w.resource::<Log>().reloaded.is_empty());
    h.app.update();

    let reloaded = &h.world().resource::<Log>().reloaded[0];
    assert_eq!(reloaded.changed, [[6]]);
    assert!(reloaded.added.is_empty() && reloaded.removed.is_empty());
    let after = ticks(&h);
    for (i, id) in ids.iter().enumerate() {
        let changed = after[i].changed != before[i].changed;
        assert_eq!(changed, *id == 6, "Transform of {id} changed: {changed}");
    }
    let ball = instance.entity(6).unwrap();
    assert_eq!(h.world().get::<Transform>(ball).unwrap().translation.y, 3.0);
    assert_eq!(
        h.world().get::<ForgeSceneInstance>(root).unwrap().entity(6),
        Some(ball)
    );
}

#[test]
fn a_builtin_payload_edit_rewrites_only_the_values_that_changed() {
    let garden = asset("assets/scenes/garden.forge.ron");
    let mut edit = SceneEdit::from_text(&garden).unwrap();
    let ComponentData::DirectionalLight(mut sun) = edit.entity(1).unwrap().components[0].clone()
    else {
        panic!("the garden's sun is a directional light")
    };
    sun.illuminance = 2500.0;
    sun.color.g = 0.5;
    edit.set_component(1, ComponentData::DirectionalLight(sun))
        .unwrap();
    // The colour is one value in the file's map: written as it was laid out, on one line.
    assert_eq!(
        edit.text(),
        garden
            .replacen("illuminance: 10000.0", "illuminance: 2500.0", 1)
            .replacen(
                "color: (r: 1.0, g: 0.95, b: 0.85, a: 1.0)",
                "color: (r: 1.0, g: 0.5, b: 0.85, a: 1.0)",
                1
            )
    );
    let ComponentData::Mesh3d(mut ground) = edit.entity(2).unwrap().components[0].clone() else {
        panic!("the garden's ground is a mesh")
    };
    let before = edit.text();
    ground.material.metallic = 0.25;
    edit.set_component(2, ComponentData::Mesh3d(ground))
        .unwrap();
    let group = edit.undo_stack().last().unwrap().clone();
    assert_eq!(group.patches[0].before, "0.0");
    assert_eq!(group.patches[0].after, "0.25");
    edit.undo().unwrap();
    assert_eq!(edit.text(), before);
}

#[test]
fn a_read_only_file_is_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hall.forge.ron");
    std::fs::write(&path, HAND).unwrap();
    let mut edit = SceneEdit::open(&path).unwrap();
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&path, permissions).unwrap();
    let err = edit.rename(1, "Mine").unwrap_err();
    assert!(err.to_string().contains("read-only"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), HAND);
    assert_eq!(edit.text(), HAND);
    assert!(edit.undo_stack().is_empty());
}

#[test]
fn an_edit_that_would_make_the_scene_invalid_is_refused() {
    let mut edit = SceneEdit::from_text(HAND).unwrap();
    let mut t = edit.entity(3).unwrap().transform;
    t.translation.x = f32::NAN;
    let err = edit.set_transform(3, t).unwrap_err();
    assert!(
        matches!(&err, SceneEditError::Invalid(m) if m.contains("forge::transform::non_finite") && m.contains("entity 3")),
        "{err}"
    );
    let err = edit
        .set_custom_field(2, "game::Glow", "power", "")
        .unwrap_err();
    assert!(matches!(err, SceneEditError::Invalid(_)), "{err}");
    assert_eq!(edit.text(), HAND);
    assert!(edit.undo_stack().is_empty());
    // Errors the file already has do not block other edits.
    let broken = HAND.replace("range: 20", "range: -1");
    let mut edit = SceneEdit::from_text(&broken).unwrap();
    edit.rename(3, "Stone").unwrap().unwrap();
}

/// Painting tile layers in place: a paint changes one row string, keeps comments, undoes to the
/// same bytes; growing left or down keeps every cell's index.
mod tiles {
    use bevy_forge_scene::edit::SceneEdit;
    use bevy_forge_scene::format::{CellRect, EditError, SceneDoc, Vec3Data};

    const LEVEL: &str = r#"(
  format_version: 1,
  name: "Tiles",
  entities: {},
  roots: [],
  next_id: 10,
  // The floor, by hand.
  layers: [(id: 9, plane: xy, cell_size: (x: 2, y: 1), origin: (x: 10, y: 0, z: 0),
    palette: {"g": "prefabs/grass.forge.ron", "w": "prefabs/wall.forge.ron"},
    rows: [
      "wwww", // top
      "g..g",
    ],
  )],
)
"#;

    #[test]
    fn a_paint_changes_one_row_in_place_and_undoes_exactly() {
        let mut edit = SceneEdit::from_text(LEVEL).unwrap();
        let group = edit.paint(9, CellRect::cell(1, 0), 'w').unwrap().unwrap();
        assert_eq!(group.patches.len(), 1);
        assert_eq!(group.patches[0].before, "\"g..g\"");
        assert_eq!(group.patches[0].after, "\"gw.g\"");
        assert_eq!(edit.text(), LEVEL.replace("\"g..g\"", "\"gw.g\""));
        assert_eq!(edit.doc().layer(9).unwrap().key_at(1, 0), Some('w'));
        // A rectangle over both rows, then erase.
        edit.paint(9, CellRect::between((2, 1), (1, 0)), 'g')
            .unwrap();
        assert_eq!(edit.doc().layer(9).unwrap().rows, ["wggw", "gggg"]);
        edit.erase(9, CellRect::cell(3, 1)).unwrap();
        assert_eq!(edit.doc().layer(9).unwrap().rows, ["wgg.", "gggg"]);
        assert!(edit.text().contains("// The floor, by hand."));
        assert!(edit.text().contains("// top"));
        // Painting what is there changes nothing.
        assert!(edit.paint(9, CellRect::cell(0, 0), 'g').unwrap().is_none());
        for _ in 0..3 {
            edit.undo().unwrap();
        }
        assert_eq!(edit.text(), LEVEL);
        edit.redo().unwrap();
        assert_eq!(edit.doc().layer(9).unwrap().rows, ["wwww", "gw.g"]);
    }

    #[test]
    fn growing_left_and_down_keeps_every_cells_index_and_place() {
        let mut edit = SceneEdit::from_text(&LEVEL.replace(
            "origin: (x: 10, y: 0, z: 0),",
            "origin: (x: 10, y: 0, z: 0), start: (i: 2, j: 1),",
        ))
        .unwrap();
        let before = edit.doc().layer(9).unwrap().clone();
        let cells_before: Vec<_> = before.filled().map(|(i, j, k, _)| (i, j, k)).collect();
        // One cell left of and one below the rows.
        edit.paint(9, CellRect::cell(1, 0), 'w').unwrap();
        let after = edit.doc().layer(9).unwrap().clone();
        assert_eq!(after.start, (1, 0));
        assert_eq!(after.rows, [".wwww", ".g..g", "w...."]);
        assert_eq!(after.origin, Vec3Data::new(8.0, -1.0, 0.0));
        assert_eq!(
            after.anchor(),
            before.anchor(),
            "cell (0, 0) stays where it was"
        );
        for (i, j, k) in cells_before {
            assert_eq!(after.key_at(i, j), Some(k), "cell ({i}, {j})");
        }
        // The file reads back as the edited document; undo gives the text back.
        assert_eq!(SceneDoc::from_str(&edit.text()).unwrap().doc, *edit.doc());
        edit.undo().unwrap();
        assert_eq!(edit.doc().layer(9).unwrap(), &before);
        // Below cell (0, 0) there is no room.
        let e = edit.paint(9, CellRect::cell(0, 0), 'w');
        assert!(e.is_ok(), "{e:?}");
        let e = edit.paint(9, CellRect::cell(5, 0), 'x').unwrap_err();
        assert!(e.to_string().contains("`x` is not a key"), "{e}");
        assert!(matches!(
            edit.paint(7, CellRect::cell(0, 0), 'g'),
            Err(bevy_forge_scene::edit::SceneEditError::Edit(
                EditError::NoSuchLayer(7)
            ))
        ));
    }

    #[test]
    fn sparse_layers_set_and_remove_cells() {
        let text = LEVEL.replace(
            "rows: [\n      \"wwww\", // top\n      \"g..g\",\n    ],",
            "cells: [(i: 4, j: 4, key: \"g\")],",
        );
        let mut edit = SceneEdit::from_text(&text).unwrap();
        edit.paint(9, CellRect::cell(5, 4), 'w').unwrap();
        edit.paint(9, CellRect::cell(4, 4), 'w').unwrap();
        let layer = edit.doc().layer(9).unwrap();
        assert_eq!(layer.key_at(4, 4), Some('w'));
        assert_eq!(layer.cells.len(), 2);
        edit.erase(9, CellRect::between((0, 0), (9, 9))).unwrap();
        assert!(edit.doc().layer(9).unwrap().cells.is_empty());
        assert_eq!(SceneDoc::from_str(&edit.text()).unwrap().doc, *edit.doc());
    }
}

mod format_text {
    use bevy_forge_scene::edit::format_text;
    use bevy_forge_scene::format::SceneDoc;
    use proptest::prelude::*;

    /// The comments of `text` outside strings, in order (a quick scan for the tests: the scenes
    /// here have no `//` in strings).
    fn comments(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = text;
        while let Some(at) = rest.find(['/', '"']) {
            let tail = &rest[at..];
            if let Some(body) = tail.strip_prefix('"') {
                let end = body.find('"').map_or(tail.len(), |e| e + 2);
                rest = &tail[end..];
            } else if tail.starts_with("//") {
                let end = tail.find('\n').unwrap_or(tail.len());
                out.push(tail[..end].trim_end_matches('\r').to_owned());
                rest = &tail[end..];
            } else if tail.starts_with("/*") {
                let end = tail.find("*/").map_or(tail.len(), |e| e + 2);
                out.push(tail[..end].to_owned());
                rest = &tail[end..];
            } else {
                rest = &tail[1..];
            }
        }
        out
    }

    #[test]
    fn comments_go_to_their_entries() {
        let text = "// The hall.\n(format_version: 1, name: \"Hall\",\n  entities: {\n    // The lamp, on its own line.\n    1: (id: 1, name: \"Lamp\", // its name\n      parent: None, children: [], locked: false,\n      transform: (translation: (x: 0, y: 3, z: 0), rotation: (x: 0, y: 0, z: 0), scale: (x: 1, y: 1, z: 1)),\n      components: [\n        /* bright */ (type: point_light, data: (color: (r: 1, g: 1, b: 1, a: 1), intensity: 800, range: 20, shadows: false)),\n        // more to come\n      ]),\n  }, roots: [1], next_id: 2) // end\n";
        let formatted = format_text(text).unwrap();
        let expected = "// The hall.\n(\n  format_version: 1,\n  name: \"Hall\",\n  entities: {\n    // The lamp, on its own line.\n    1: (\n      id: 1,\n      name: \"Lamp\", // its name\n      parent: None,\n      children: [],\n      transform: (\n        translation: (\n          x: 0.0,\n          y: 3.0,\n          z: 0.0,\n        ),\n        rotation: (\n          x: 0.0,\n          y: 0.0,\n          z: 0.0,\n        ),\n        scale: (\n          x: 1.0,\n          y: 1.0,\n          z: 1.0,\n        ),\n      ),\n      components: [\n        /* bright */\n        (\n          type: point_light,\n          data: (\n            color: (\n              r: 1.0,\n              g: 1.0,\n              b: 1.0,\n              a: 1.0,\n            ),\n            intensity: 800.0,\n            range: 20.0,\n            shadows: false,\n          ),\n        ),\n        // more to come\n      ],\n      locked: false,\n    ),\n  },\n  roots: [\n    1,\n  ],\n  next_id: 2,\n)\n// end\n";
        assert_eq!(formatted, expected, "\n{formatted}");
        assert_eq!(format_text(&formatted).unwrap(), formatted);
        // Without comments it is the canonical layout.
        let plain = SceneDoc::from_str(text).unwrap().doc.to_canonical_string();
        assert_eq!(format_text(&plain).unwrap(), plain);
        assert!(format_text("(format_version: 1").is_err());
    }

    #[test]
    fn the_seed_scenes_keep_every_comment() {
        for dir in ["assets/scenes", "assets/prefabs", "tests/fixtures/valid"] {
            for entry in std::fs::read_dir(super::common::repo().join(dir)).unwrap() {
                let path = entry.unwrap().path();
                let text = std::fs::read_to_string(&path).unwrap();
                let formatted =
                    format_text(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(comments(&formatted), comments(&text), "{}", path.display());
                assert_eq!(
                    SceneDoc::from_str(&formatted).unwrap().doc,
                    SceneDoc::from_str(&text).unwrap().doc
                );
                assert_eq!(
                    format_text(&formatted).unwrap(),
                    formatted,
                    "{}",
                    path.display()
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Comments put after any token of a scene (on their own line or not, line or block)
        /// are all kept, in order, the document is unchanged, and formatting again changes
        /// nothing.
        #[test]
        fn comments_anywhere_are_kept(
            which in 0usize..8,
            spots in proptest::collection::vec((0usize..100_000, 0u8..4), 1..8),
        ) {
            let paths = ["assets/scenes/goblin_camp.forge.ron", "tests/fixtures/valid/platformer.forge.ron", "assets/prefabs/goblin.forge.ron", "tests/fixtures/valid/garden.forge.ron"];
            let text = std::fs::read_to_string(super::common::repo().join(paths[which % paths.len()])).unwrap();
            // Token ends: after `,`, `(`, `[`, `{` outside strings.
            let mut ends = Vec::new();
            let (mut in_string, mut in_comment) = (false, false);
            for (i, c) in text.char_indices() {
                match c {
                    '\n' => in_comment = false,
                    '/' if !in_string && text[i..].starts_with("//") => in_comment = true,
                    _ if in_comment => {}
                    '"' => in_string = !in_string,
                    ',' | '(' | '[' | '{' if !in_string => ends.push(i + 1),
                    _ => {}
                }
            }
            let mut edited = text.clone();
            let mut spots: Vec<(usize, u8)> = spots.into_iter().map(|(s, k)| (ends[s % ends.len()], k)).collect();
            spots.sort();
            spots.dedup_by_key(|(s, _)| *s);
            for (n, (at, kind)) in spots.iter().enumerate().rev() {
                let comment = match kind {
                    0 => format!(" // note {n}\n"),
                    1 => format!("\n// note {n}\n"),
                    2 => format!(" /* note {n} */ "),
                    _ => format!("\n  /* note {n},\n     two lines */\n"),
                };
                edited.insert_str(*at, &comment);
            }
            let formatted = format_text(&edited).unwrap();
            prop_assert_eq!(comments(&formatted), comments(&edited));
            prop_assert_eq!(SceneDoc::from_str(&formatted).unwrap().doc, SceneDoc::from_str(&edited).unwrap().doc);
            prop_assert_eq!(format_text(&formatted).unwrap(), formatted);
        }
    }
}

//! The edit layer inside an instance: a change to an override (a value it sets, a value it
//! starts to set, a new override, one taken away) changes only those bytes; the comments and
//! the layout of the `instance` block stay.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bevy_forge_scene::edit::SceneEdit;
use bevy_forge_scene::format::{
    ComponentData, ComponentPatch, CustomComponent, CustomField, Instance, Override, SceneDoc,
};
use proptest::prelude::*;

/// A level placing a goblin twice, written by hand: comments inside the instance blocks, a
/// one-line override, a multi-line one, `target: [1]` on one line.
const LEVEL: &str = r#"// The camp.
(
  format_version: 1,
  name: "Camp",
  entities: {
    5: (
      id: 5,
      name: "Boss",
      parent: None,
      children: [],
      transform: (translation: (x: 4.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
      components: [],
      instance: Some((
        scene: "prefabs/goblin.forge.ron", // the common goblin
        overrides: [
          // the boss is tougher
          (target: [1], name: Some("Goblin Boss"), set: [
            (type: point_light, data: (intensity: 1200.0)), // brighter
            (type: custom, data: (type_path: "game::Health", fields: [(name: "hp", expr: "50")])),
          ]),
          (
            target: [2],
            transform: Some((
              translation: (x: 0.0, y: 1.5, z: 0.0), // raised
              rotation: (x: 0.0, y: 0.0, z: 0.0),
              scale: (x: 1.0, y: 1.0, z: 1.0),
            )),
          ),
        ],
      )),
    ),
    6: (
      id: 6,
      name: "Grunt",
      parent: None,
      children: [],
      transform: (translation: (x: 8.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
      components: [],
      instance: Some((
        scene: "prefabs/goblin.forge.ron", // no overrides yet
      )),
    ),
    7: (
      id: 7,
      name: "Runt",
      parent: None,
      children: [],
      transform: (translation: (x: 9.0, y: 0.0, z: 0.0), rotation: (x: 0.0, y: 0.0, z: 0.0), scale: (x: 1.0, y: 1.0, z: 1.0)),
      components: [],
      instance: Some((scene: "prefabs/goblin.forge.ron", overrides: [ /* none */ ])),
    ),
  },
  roots: [5, 6, 7],
  next_id: 8,
)
"#;

/// Every comment of [`LEVEL`].
fn comments(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| {
            l.find("//")
                .map(|at| &l[at..])
                .or_else(|| l.find("/*").map(|at| &l[at..]))
        })
        .collect()
}

fn instance_mut(doc: &mut SceneDoc, id: u64) -> &mut Instance {
    doc.entity_mut(id).unwrap().instance.as_deref_mut().unwrap()
}

/// `text` with `from` replaced by `to` once, checked to be there.
fn replaced(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` is not in the text");
    text.replacen(from, to, 1)
}

/// Makes `change` through the edit layer and checks that the text reads back as the document
/// the change made.
fn edited(change: impl FnOnce(&mut SceneDoc)) -> String {
    let mut edit = SceneEdit::from_text(LEVEL).unwrap();
    let mut expected = edit.doc().clone();
    change(&mut expected);
    edit.change("test", |doc| {
        *doc = expected.clone();
        Ok(())
    })
    .unwrap()
    .expect("something changed");
    let text = edit.text();
    assert_eq!(SceneDoc::from_str(&text).unwrap().doc, expected);
    text
}

fn custom_patch(p: &mut ComponentPatch) -> &mut CustomComponent {
    match &mut p.component {
        ComponentData::Custom(c) => c,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_custom_field_an_override_sets_changes_its_expression_only() {
    let text = edited(|doc| {
        let o = &mut instance_mut(doc, 5).overrides[0];
        custom_patch(&mut o.set[1]).fields[0].expr = "75".into();
    });
    assert_eq!(text, replaced(LEVEL, r#"expr: "50""#, r#"expr: "75""#));
}

#[test]
fn a_builtin_field_an_override_sets_changes_its_number_only() {
    let text = edited(|doc| {
        let o = &mut instance_mut(doc, 5).overrides[0];
        if let ComponentData::PointLight(l) = &mut o.set[0].component {
            l.intensity = 900.0;
        }
    });
    assert_eq!(
        text,
        replaced(LEVEL, "intensity: 1200.0", "intensity: 900.0")
    );
}

#[test]
fn a_field_a_patch_starts_to_set_goes_after_the_one_before_it() {
    let text = edited(|doc| {
        let o = &mut instance_mut(doc, 5).overrides[0];
        if let ComponentData::PointLight(l) = &mut o.set[0].component {
            l.range = 12.5;
        }
        o.set[0].fields.push("range".into());
        custom_patch(&mut o.set[1])
            .fields
            .push(CustomField::new("armour", "3"));
    });
    let expected = replaced(LEVEL, "intensity: 1200.0", "intensity: 1200.0, range: 12.5");
    let expected = replaced(
        &expected,
        r#"(name: "hp", expr: "50")"#,
        r#"(name: "hp", expr: "50"), (name: "armour", expr: "3")"#,
    );
    assert_eq!(text, expected);
}

#[test]
fn an_override_name_and_transform_change_in_place() {
    let text = edited(|doc| {
        let overrides = &mut instance_mut(doc, 5).overrides;
        overrides[0].name = Some("Goblin King".into());
        overrides[1].transform.as_mut().unwrap().translation.y = 2.25;
    });
    let expected = replaced(LEVEL, "\"Goblin Boss\"", "\"Goblin King\"");
    let expected = replaced(
        &expected,
        "(x: 0.0, y: 1.5, z: 0.0), // raised",
        "(x: 0.0, y: 2.25, z: 0.0), // raised",
    );
    assert_eq!(text, expected);
}

#[test]
fn a_field_an_override_starts_to_set_goes_on_its_line() {
    let text = edited(|doc| {
        let o = &mut instance_mut(doc, 5).overrides[1];
        o.name = Some("Hat".into());
    });
    assert_eq!(
        text,
        replaced(
            LEVEL,
            "            target: [2],\n",
            "            target: [2],\n            name: Some(\"Hat\"),\n"
        )
    );
    // In a one-line override: on its line.
    let text = edited(|doc| {
        let o = &mut instance_mut(doc, 5).overrides[0];
        o.remove = vec!["sprite".into()];
    });
    assert!(
        text.contains("          ], remove: [\"sprite\"]),\n"),
        "{text}"
    );
}

#[test]
fn an_override_added_goes_after_the_last_and_comments_stay() {
    let text = edited(|doc| {
        let overrides = &mut instance_mut(doc, 5).overrides;
        overrides.push(Override {
            target: vec![3],
            name: Some("Torch".into()),
            ..Default::default()
        });
    });
    let expected = replaced(
        LEVEL,
        "            )),\n          ),\n        ],\n",
        "            )),\n          ),\n          (\n            target: [3],\n            name: Some(\"Torch\"),\n          ),\n        ],\n",
    );
    assert_eq!(text, expected);
    for c in comments(LEVEL) {
        assert!(text.contains(c), "lost {c}");
    }
}

#[test]
fn the_first_override_of_an_instance_is_added_where_it_goes() {
    // No `overrides` written: after the scene, its comment kept.
    let text = edited(|doc| {
        instance_mut(doc, 6).overrides.push(Override {
            target: vec![1],
            name: Some("Grunt 2".into()),
            ..Default::default()
        });
    });
    assert!(
        text.contains("scene: \"prefabs/goblin.forge.ron\", // no overrides yet\n        overrides: [\n          (\n            target: [1],\n            name: Some(\"Grunt 2\"),\n          ),\n        ],\n      )),"),
        "{text}"
    );
    // `overrides: [ /* none */ ]`: into the list, its comment kept.
    let text = edited(|doc| {
        instance_mut(doc, 7).overrides.push(Override {
            target: vec![1],
            name: Some("Runt 2".into()),
            ..Default::default()
        });
    });
    assert!(
        text.contains(r#"overrides: [ /* none */ (target: [1], name: Some("Runt 2"))])"#),
        "{text}"
    );
}

#[test]
fn an_override_taken_away_takes_its_lines_only() {
    let text = edited(|doc| {
        instance_mut(doc, 5).overrides.remove(1);
    });
    let start = LEVEL.find("          (\n            target: [2],").unwrap();
    let end = LEVEL[start..].find("          ),\n").unwrap() + start + "          ),\n".len();
    let expected = format!("{}{}", &LEVEL[..start], &LEVEL[end..]);
    assert_eq!(text, expected);
    // And a value an override stops setting goes with its comma.
    let text = edited(|doc| {
        instance_mut(doc, 5).overrides[0].name = None;
    });
    assert_eq!(text, replaced(LEVEL, " name: Some(\"Goblin Boss\"),", ""));
}

/// One random change of an override of entity 5.
#[derive(Debug, Clone)]
enum Step {
    Hp(u32),
    Intensity(u16),
    Raise(u16),
    Rename(u8),
    AddOverride(u64),
    DropLast,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0u32..1000).prop_map(Step::Hp),
        (0u16..5000).prop_map(Step::Intensity),
        (0u16..100).prop_map(Step::Raise),
        any::<u8>().prop_map(Step::Rename),
        (3u64..9).prop_map(Step::AddOverride),
        Just(Step::DropLast),
    ]
}

fn run(doc: &mut SceneDoc, step: &Step) {
    let overrides = &mut instance_mut(doc, 5).overrides;
    match step {
        Step::Hp(hp) => {
            if let Some(c) = overrides[0].set.get_mut(1) {
                custom_patch(c).fields[0].expr = hp.to_string().into();
            }
        }
        Step::Intensity(i) => {
            if let Some(ComponentData::PointLight(l)) =
                overrides[0].set.get_mut(0).map(|p| &mut p.component)
            {
                l.intensity = f32::from(*i);
            }
        }
        Step::Raise(y) => {
            if let Some(t) = overrides.get_mut(1).and_then(|o| o.transform.as_mut()) {
                t.translation.y = f32::from(*y) / 4.0;
            }
        }
        Step::Rename(n) => overrides[0].name = Some(format!("Boss {n}").into()),
        Step::AddOverride(target) => overrides.push(Override {
            target: vec![*target],
            name: Some(format!("Added {target}").into()),
            ..Default::default()
        }),
        Step::DropLast => {
            if overrides.len() > 2 {
                overrides.pop();
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// After every change the text reads as the document the change made, every comment is
    /// still there, and the text before and after differ only inside what the edit layer says
    /// it replaced.
    #[test]
    fn random_override_edits_keep_comments_and_change_only_their_bytes(
        steps in proptest::collection::vec(step(), 1..12)
    ) {
        let mut edit = SceneEdit::from_text(LEVEL).unwrap();
        for s in &steps {
            let before = edit.text();
            let mut expected = edit.doc().clone();
            run(&mut expected, s);
            let group = edit
                .change("step", |doc| {
                    *doc = expected.clone();
                    Ok(())
                })
                .unwrap();
            let after = edit.text();
            prop_assert_eq!(&SceneDoc::from_str(&after).unwrap().doc, &expected);
            for c in comments(LEVEL) {
                prop_assert!(after.contains(c), "lost {} after {:?}", c, s);
            }
            // Replaying the patches on the text before gives the text after: nothing else
            // changed.
            let mut replay = before.clone();
            for p in group.map(|g| g.patches).unwrap_or_default() {
                prop_assert_eq!(&replay[p.offset..p.offset + p.before.len()], p.before.as_str());
                replay.replace_range(p.offset..p.offset + p.before.len(), &p.after);
                // Each patch is small: a value, a field or an override, never the instance.
                prop_assert!(!p.before.contains("scene:"), "rewrote the instance: {:?}", p);
            }
            prop_assert_eq!(replay, after);
        }
    }
}

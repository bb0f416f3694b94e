//! A whole world as a running Bevy 0.15 app dumps it (`tests/fixtures/import/world-dump-0.15.scn.ron`):
//! a window, a 2D camera, a sprite, text, a mesh and a light beside the game's components, and
//! weak handles in both of 0.15's spellings (`Weak(Index(..))`, `Weak(Uuid(..))`), in Bevy's
//! components and the game's. `forge import --schema` of it is tested with the command line.

use bevy_color::Color;

use super::*;

#[derive(Reflect, Default, Debug, Clone, PartialEq)]
#[reflect(Default)]
enum Team {
    #[default]
    Neutral,
    Red,
    Blue,
}

/// The dump's game, as its Bevy 0.20 version declares it.
#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "game"]
struct Health {
    hp: u32,
    max: u32,
}

#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "game"]
struct Tint {
    colour: Color,
    glow: f32,
}

#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "game"]
struct Portrait {
    image: bevy_asset::Handle<bevy_image::Image>,
    frame: u8,
}

#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "game"]
struct Skin {
    texture: bevy_asset::Handle<bevy_image::Image>,
    shine: f32,
}

#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "game"]
struct Loot {
    items: Vec<String>,
}

#[derive(Component, Reflect, Default, Debug, PartialEq, ForgeComponent)]
#[reflect(Component, Default)]
#[type_path = "game"]
struct Faction {
    team: Team,
    ally: Option<Entity>,
}

fn dump_schemas() -> ForgeSchemas {
    let schemas = ForgeSchemas::default();
    schemas.insert::<Health>();
    schemas.insert::<Tint>();
    schemas.insert::<Portrait>();
    schemas.insert::<Skin>();
    schemas.insert::<Loot>();
    schemas.insert::<Faction>();
    schemas
}

const DUMP: &str = "tests/fixtures/import/world-dump-0.15.scn.ron";
const DUMP_SCHEMA: &str = "tests/fixtures/import/world-dump.forge-schema.ron";

#[test]
fn the_dumps_schema_file_is_the_games_export() {
    let schemas = dump_schemas();
    let path = Path::new(ROOT).join(DUMP_SCHEMA);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        schemas.export(&path).unwrap();
    }
    let file = bevy_forge_scene::schema::SchemaFile::read(&path).unwrap();
    assert_eq!(file, schemas.to_schema_file());
}

#[test]
fn a_0_15_world_dump_with_weak_handles_imports_with_each_handle_listed() {
    let imported = import::from_scn_ron_file(
        Path::new(ROOT).join(DUMP),
        &import::builtin_types(),
        &ImportOptions {
            schema_file: Some(dump_schemas().to_schema_file()),
            ..ImportOptions::default()
        },
    )
    .unwrap();
    let notes = notes_of(&imported);
    let era = imported.era.unwrap();
    assert_eq!((era.oldest, era.newest), (15, Some(15)), "{era}");
    let doc = &imported.doc;
    let id = |name: &str| doc.find_by_name(name).next().unwrap();
    let note = |entity: &str, path: &str| -> Vec<&ImportNote> {
        imported
            .report
            .notes
            .iter()
            .filter(|n| n.entity_name.as_deref() == Some(entity) && n.type_path == path)
            .collect()
    };
    // The game's handles, neither of which names a path: each component listed, its field
    // named; the rest of the game's components kept.
    for (entity, path, field) in [
        ("Hero", "game::Portrait", "image"),
        ("Hero", "game::Skin", "texture"),
    ] {
        let found = note(entity, path);
        assert_eq!(found.len(), 1, "{path}: {notes:?}");
        assert_eq!(
            found[0].kind,
            NoteKind::Handle {
                field: field.into(),
                path: None
            },
            "{notes:?}"
        );
    }
    let hero = id("Hero");
    let kept = |entity: u64| -> Vec<String> {
        doc.entities[&entity]
            .components
            .iter()
            .filter_map(|c| match c {
                ComponentData::Custom(c) => Some(c.type_path.to_string()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(kept(hero), ["game::Faction", "game::Health", "game::Tint"]);
    let tint = fields(custom_of(doc, hero, "game::Tint").unwrap());
    assert!(
        tint.contains(&("colour".into(), "Color::hsla(200.0, 0.5, 0.25, 1.0)".into())),
        "{tint:?}"
    );
    let faction = fields(custom_of(doc, hero, "game::Faction").unwrap());
    assert!(
        faction.contains(&("ally".into(), format!("Some(#{})", id("Lamp")))),
        "{faction:?}"
    );
    // Bevy's own: the sprite is kept without its image (a runtime index names no file); its
    // 0.15 `anchor` field is read as the `Anchor` component it became, at its default
    // (`Center`), so nothing is lost; the text keeps its size, its font is the default one
    // (`Weak(Uuid(..))` of the default handle), and its changed `Anchor` (0.15's named
    // `TopLeft`) is listed; the mesh names no file.
    let sprite = doc.entities[&hero]
        .components
        .iter()
        .find_map(|c| match c {
            ComponentData::Sprite(s) => Some(s),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{notes:?}"));
    assert!(sprite.image.is_none() && sprite.flip_x);
    assert!(
        note("Hero", "bevy_sprite::sprite::Anchor").is_empty(),
        "{notes:?}"
    );
    assert!(
        !notes.iter().any(|n| n.contains("Sprite.anchor")),
        "{notes:?}"
    );
    // The lamp's 0.15 `shadows_enabled` is 0.20's `shadow_maps_enabled`; its
    // `soft_shadows_enabled` (a field only with Bevy's `experimental_pbr_pcss`) is listed.
    let lamp = doc.entities[&id("Lamp")]
        .components
        .iter()
        .find_map(|c| match c {
            ComponentData::PointLight(l) => Some(l),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{notes:?}"));
    assert!(lamp.shadows, "{notes:?}");
    assert_eq!(
        note("Lamp", "bevy_light::point_light::PointLight")
            .iter()
            .map(|n| &n.kind)
            .collect::<Vec<_>>(),
        [&NoteKind::RemovedFields {
            fields: vec!["PointLight.soft_shadows_enabled".into()]
        }],
        "{notes:?}"
    );
    let title = doc.entities[&id("Title")]
        .components
        .iter()
        .find_map(|c| match c {
            ComponentData::Text2d(t) => Some(t),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{notes:?}"));
    assert_eq!((title.text.as_str(), title.font_size), ("Forge", 32.0));
    assert!(
        note("Title", "bevy_text::text::TextFont").is_empty(),
        "{notes:?}"
    );
    assert_eq!(
        note("Title", "bevy_sprite::sprite::Anchor")
            .iter()
            .map(|n| &n.kind)
            .collect::<Vec<_>>(),
        [&NoteKind::Implied { tag: "text2d" }],
        "{notes:?}"
    );
    assert_eq!(
        note("Crate", "bevy_mesh::components::Mesh3d")[0].kind,
        NoteKind::MeshWithoutPath,
        "{notes:?}"
    );
    assert_eq!(doc.entities[&id("Title")].parent, Some(hero));
    // Nothing about a handle spelling, and no value refused for its spelling.
    assert!(!notes.iter().any(|n| n.contains("Weak")), "{notes:?}");
}

/// Two 0.15 cameras (`hdr`, `msaa_writeback` of each), a sprite and a light as Bevy 0.15
/// writes them, each field Bevy 0.20's struct changed written by its 0.15 name and type.
fn fields_0_15(quiet: (bool, &str), bright: (bool, &str), anchor: &str) -> String {
    let camera = |name: &str, key: u64, (hdr, writeback): (bool, &str)| {
        format!(
            r#"
    {key}: (
      components: {{
        "bevy_core::name::Name": (hash: 1, name: "{name}"),
        "bevy_core_pipeline::core_2d::camera_2d::Camera2d": (),
        "bevy_render::camera::camera::Camera": (
          viewport: None,
          order: 0,
          is_active: true,
          target: Window(Primary),
          hdr: {hdr},
          msaa_writeback: {writeback},
          clear_color: Default,
          sub_camera_view: None,
        ),
      }},
    ),"#
        )
    };
    format!(
        r#"(
  resources: {{}},
  entities: {{{}{}
    4294967298: (
      components: {{
        "bevy_core::name::Name": (hash: 3, name: "Sign"),
        "bevy_sprite::sprite::Sprite": (
          image: Weak(Uuid(uuid: "97128bb1-2588-480b-bdc6-87b4adbec477")),
          texture_atlas: None,
          color: Srgba((red: 1.0, green: 1.0, blue: 1.0, alpha: 1.0)),
          flip_x: false,
          flip_y: false,
          custom_size: None,
          rect: None,
          anchor: {anchor},
          image_mode: Auto,
        ),
      }},
    ),
    4294967299: (
      components: {{
        "bevy_core::name::Name": (hash: 4, name: "Sun"),
        "bevy_pbr::light::directional_light::DirectionalLight": (
          color: Srgba((red: 1.0, green: 1.0, blue: 1.0, alpha: 1.0)),
          illuminance: 10000.0,
          shadows_enabled: true,
          shadow_depth_bias: 0.02,
          shadow_normal_bias: 1.8,
        ),
      }},
    ),
  }},
)"#,
        camera("Quiet", 4294967296, quiet),
        camera("Bright", 4294967297, bright),
    )
}

/// The notes of the entity named `entity`, as type path and kind.
fn listed<'a>(imported: &'a import::Imported, entity: &str) -> Vec<(&'a str, &'a NoteKind)> {
    imported
        .report
        .notes
        .iter()
        .filter(|n| n.entity_name.as_deref() == Some(entity))
        .map(|n| (n.type_path.as_str(), &n.kind))
        .collect()
}

#[test]
fn bevy_0_15_fields_that_changed_read_as_what_they_became() {
    let text = fields_0_15((false, "true"), (true, "true"), "TopLeft");
    let imported = import::from_scn_ron(&text, &import::builtin_types()).unwrap();
    let notes = notes_of(&imported);
    let doc = &imported.doc;
    let id = |name: &str| doc.find_by_name(name).next().unwrap();
    // A default camera: `target: Window(Primary)` is the default `RenderTarget`, `hdr: false`
    // no `Hdr`, `msaa_writeback: true` the default `MsaaWriteback::Auto`. Nothing is lost.
    assert_eq!(listed(&imported, "Quiet"), [], "{notes:?}");
    assert!(
        doc.entities[&id("Quiet")]
            .components
            .iter()
            .any(|c| matches!(c, ComponentData::Camera2d)),
        "{notes:?}"
    );
    // `hdr: true` is the `Hdr` marker, which `forge import`'s registry does not have: listed
    // as lost, the camera otherwise at its default.
    assert_eq!(
        listed(&imported, "Bright"),
        [(
            "bevy_camera::camera::Camera",
            &NoteKind::RemovedFields {
                fields: vec!["Camera.hdr".into()]
            }
        )],
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains(
            "`bevy_camera::camera::Camera` read without `Camera.hdr`: not a field of the type as registered"
        )),
        "{notes:?}"
    );
    // The sprite's `anchor` field is the `Anchor` component: a named place other than
    // `Center` is a changed one, listed as such.
    assert_eq!(
        listed(&imported, "Sign"),
        [(
            "bevy_sprite::sprite::Anchor",
            &NoteKind::Implied { tag: "sprite" }
        )],
        "{notes:?}"
    );
    // The light's `shadows_enabled` is `shadow_maps_enabled`: the shadows are kept.
    let sun = doc.entities[&id("Sun")]
        .components
        .iter()
        .find_map(|c| match c {
            ComponentData::DirectionalLight(l) => Some(l),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{notes:?}"));
    assert!(sun.shadows, "{notes:?}");
    assert_eq!(listed(&imported, "Sun"), [], "{notes:?}");

    // `msaa_writeback: false` is `Off`, a changed `Camera` (a camera keeps none of its values:
    // listed once); one that is neither a `bool` nor a variant is listed with its field, the
    // rest imported. `Center` is the default anchor.
    let text = fields_0_15((false, "false"), (false, "7"), "Center");
    let imported = import::from_scn_ron(&text, &import::builtin_types()).unwrap();
    let notes = notes_of(&imported);
    assert_eq!(
        listed(&imported, "Quiet"),
        [(
            "bevy_camera::camera::Camera",
            &NoteKind::Implied { tag: "camera2d" }
        )],
        "{notes:?}"
    );
    let bright = listed(&imported, "Bright");
    assert!(
        matches!(
            bright.as_slice(),
            [(
                "bevy_render::camera::camera::Camera",
                NoteKind::Unreadable { field: Some(f), .. }
            )] if f == "msaa_writeback"
        ),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains(
            "`7` is neither a `bool` (older Bevy) nor a `MsaaWriteback` (`Off`, `Auto`, `Always`)"
        )),
        "{notes:?}"
    );
    assert_eq!(listed(&imported, "Sign"), [], "{notes:?}");
    assert_eq!(imported.doc.entities.len(), 4);
}

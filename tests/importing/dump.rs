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
    // Bevy's own: the sprite is kept without its image (a runtime index names no file) and
    // without 0.15's `anchor`; the text keeps its size, its font is the default one
    // (`Weak(Uuid(..))` of the default handle); the mesh names no file.
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
        notes
            .iter()
            .any(|n| n.contains("`bevy_sprite::sprite::Sprite` kept without `Sprite.anchor`")),
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
        note("Crate", "bevy_mesh::components::Mesh3d")[0].kind,
        NoteKind::MeshWithoutPath,
        "{notes:?}"
    );
    assert_eq!(doc.entities[&id("Title")].parent, Some(hero));
    // Nothing about a handle spelling, and no value refused for its spelling.
    assert!(!notes.iter().any(|n| n.contains("Weak")), "{notes:?}");
}

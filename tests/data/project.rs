//! Project files: slugs, scene listing, atomic saves confined to the project, asset paths.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bevy_forge_scene::format::SceneDoc;
use bevy_forge_scene::project::*;

#[test]
fn slugify_follows_the_format_page() {
    assert_eq!(slugify("Level 01"), "level-01");
    assert_eq!(slugify(""), "scene");
    assert_eq!(slugify("   "), "scene");
    assert_eq!(slugify("My  Big_Level.v2"), "my-big-level-v2");
    assert_eq!(slugify("--Boss--Fight--"), "boss-fight");
    assert_eq!(slugify("Café! Été"), "caf-t");
    assert_eq!(slugify("ÉÉÉ"), "scene");
}

#[test]
fn lists_scenes_sorted_and_finds_the_assets_dir() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::open(dir.path()).unwrap();
    assert_eq!(
        project.list_scenes().unwrap(),
        Vec::<std::path::PathBuf>::new()
    );
    assert_eq!(project.assets_dir(), project.root());
    std::fs::create_dir_all(dir.path().join("scenes")).unwrap();
    for name in ["b.forge.ron", "a.forge.ron", "notes.ron", "c.forge.ron.bak"] {
        std::fs::write(dir.path().join("scenes").join(name), "").unwrap();
    }
    let names: Vec<String> = project
        .list_scenes()
        .unwrap()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["a.forge.ron", "b.forge.ron"]);
    std::fs::create_dir(dir.path().join("assets")).unwrap();
    assert_eq!(project.assets_dir(), project.root().join("assets"));
    assert!(Project::open(dir.path().join("scenes/a.forge.ron")).is_err());
}

#[test]
fn save_scene_writes_canonical_text_and_creates_directories() {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::open(dir.path()).unwrap();
    let mut doc = SceneDoc::new("Level 01");
    doc.add_entity("Player", None).unwrap();
    let written = project
        .save_scene("scenes/deep/level-01.forge.ron", &doc)
        .unwrap();
    assert_eq!(
        written,
        project.root().join("scenes/deep/level-01.forge.ron")
    );
    let text = std::fs::read_to_string(&written).unwrap();
    assert_eq!(text, doc.to_canonical_string());
    assert_eq!(SceneDoc::from_str(&text).unwrap().doc, doc);
    // Saving again replaces the file and leaves no temporary files behind.
    doc.rename(1, "Hero").unwrap();
    project.save_scene(&written, &doc).unwrap();
    assert_eq!(SceneDoc::read(&written).unwrap().doc, doc);
    let files: Vec<_> = std::fs::read_dir(written.parent().unwrap())
        .unwrap()
        .collect();
    assert_eq!(files.len(), 1);
}

#[test]
fn save_scene_refuses_other_extensions_and_paths_outside_the_project() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("game");
    std::fs::create_dir(&root).unwrap();
    let project = Project::open(&root).unwrap();
    let doc = SceneDoc::new("x");
    for bad in [
        "scenes/level.ron",
        "scenes/level.forge",
        "scenes/.forge.ron",
        "scenes/level.forge.ron.bak",
    ] {
        assert!(
            matches!(
                project.save_scene(bad, &doc),
                Err(ProjectError::NotASceneFile(_))
            ),
            "{bad}"
        );
    }
    let escape = outer.path().join("escape.forge.ron");
    for bad in [
        std::path::PathBuf::from("../escape.forge.ron"),
        std::path::PathBuf::from("scenes/../../escape.forge.ron"),
        escape.clone(),
    ] {
        let result = project.save_scene(&bad, &doc);
        assert!(
            matches!(result, Err(ProjectError::OutsideProject { .. })),
            "{bad:?}: {result:?}"
        );
    }
    assert!(!escape.exists());
    #[cfg(unix)]
    {
        let elsewhere = outer.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join("linked")).unwrap();
        let result = project.save_scene("linked/level.forge.ron", &doc);
        assert!(
            matches!(result, Err(ProjectError::OutsideProject { .. })),
            "{result:?}"
        );
        std::os::unix::fs::symlink(
            elsewhere.join("target.forge.ron"),
            root.join("link.forge.ron"),
        )
        .unwrap();
        let result = project.save_scene("link.forge.ron", &doc);
        assert!(
            matches!(result, Err(ProjectError::OutsideProject { .. })),
            "{result:?}"
        );
        assert_eq!(
            std::fs::read_dir(&elsewhere).unwrap().count(),
            0,
            "nothing written outside"
        );
    }
    // `..` that stays inside is fine.
    assert!(
        project
            .save_scene("scenes/../inside.forge.ron", &doc)
            .is_ok()
    );
}

#[test]
fn asset_path_rules() {
    assert_eq!(check_asset_path("textures/player.png"), Ok(()));
    assert_eq!(
        check_asset_path("models/robot.gltf#Mesh0/Primitive0"),
        Ok(())
    );
    assert!(matches!(
        check_asset_path("/abs/player.png"),
        Err(AssetPathError::Absolute(_))
    ));
    assert!(matches!(
        check_asset_path("C:/x.png"),
        Err(AssetPathError::Absolute(_))
    ));
    assert!(matches!(
        check_asset_path("textures\\player.png"),
        Err(AssetPathError::Backslash(_))
    ));
    assert!(matches!(
        check_asset_path("../secret.png"),
        Err(AssetPathError::ParentComponent(_))
    ));
    assert!(matches!(
        check_asset_path("a/../../b.png"),
        Err(AssetPathError::ParentComponent(_))
    ));
    assert_eq!(
        check_asset_path("a/..b/c.png"),
        Ok(()),
        "`..b` is a name, not a parent component"
    );
    assert_eq!(check_asset_path(""), Err(AssetPathError::Empty));
}

#[test]
fn asset_index_classifies_files_and_resolves_labels() {
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "textures/player.png",
        "textures/Sky.JPEG",
        "models/robot.gltf",
        "sounds/jump.ogg",
        "fonts/a.ttf",
        "scenes/x.forge.ron",
        "readme.txt",
    ] {
        let path = dir.path().join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "").unwrap();
    }
    let index = AssetIndex::scan(dir.path()).unwrap();
    assert_eq!(index.len(), 7);
    assert_eq!(index.get("textures/player.png"), Some(AssetKind::Image));
    assert_eq!(index.get("textures/Sky.JPEG"), Some(AssetKind::Image));
    assert_eq!(
        index.get("models/robot.gltf#Mesh0/Primitive0"),
        Some(AssetKind::Mesh)
    );
    assert_eq!(index.get("sounds/jump.ogg"), Some(AssetKind::Audio));
    assert_eq!(index.get("fonts/a.ttf"), Some(AssetKind::Font));
    assert_eq!(index.get("scenes/x.forge.ron"), Some(AssetKind::Scene));
    assert_eq!(index.get("readme.txt"), Some(AssetKind::Other));
    assert_eq!(index.get("textures/missing.png"), None);
    let from_list = AssetIndex::from_paths(["a/b.png"]);
    assert!(from_list.contains("a/b.png"));
    assert!(!from_list.contains("a/c.png"));
}

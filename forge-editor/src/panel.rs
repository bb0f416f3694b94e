//! The panel (`bevy_ui`): edit mode's keys and state, the selected entity's name, id path,
//! the files and lines that make it, its lock, the fields that differ from the files with
//! both values, the controls (keep the selected entity's values or the whole scene's, restore
//! the files' transform, keep into the instance or the prefab, undo, redo) and the status line;
//! and the label beside the selection.

use bevy_forge_scene::live_link::KeepInto;
use bevy_internal::color::Color;
use bevy_internal::ecs::prelude::*;
use bevy_internal::picking::events::PointerClick;
use bevy_internal::text::{TextColor, TextFont};
use bevy_internal::ui::widget::Text;
use bevy_internal::ui::{
    BackgroundColor, FlexDirection, GlobalZIndex, Node, PositionType, UiRect, UiTargetCamera, Val,
};

use crate::overlay::LabelPlace;
use crate::{
    EditHistory, EditorSettings, EditorStatus, GizmoSpace, GizmoState, SelectedInfo, Unsaved,
    interact, write,
};

/// The panel's root, and which text of it an entity is.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PanelPart {
    Root,
    Header,
    Entity,
    Differences,
    Status,
    LabelRoot,
    LabelText,
}

const BACKGROUND: Color = Color::srgba(0.06, 0.07, 0.09, 0.82);
const TEXT: Color = Color::srgb(0.9, 0.92, 0.95);
const DIM: Color = Color::srgb(0.65, 0.7, 0.78);
const ERROR: Color = Color::srgb(1.0, 0.45, 0.4);
const BUTTON: Color = Color::srgb(0.2, 0.26, 0.36);

fn text(s: &str, size: f32, colour: Color) -> impl Bundle {
    (
        Text::new(s),
        TextFont::from_font_size(size),
        TextColor(colour),
    )
}

/// Spawns the panel and the label (hidden until something is selected).
pub(crate) fn spawn(world: &mut World) {
    if world
        .query::<&PanelPart>()
        .iter(world)
        .any(|p| *p == PanelPart::Root)
    {
        return;
    }
    let mut root = world.spawn((
        PanelPart::Root,
        Node {
            position_type: PositionType::Absolute,
            left: Val::Px(8.0),
            top: Val::Px(8.0),
            max_width: Val::Px(300.0),
            padding: UiRect::all(Val::Px(6.0)),
            flex_direction: FlexDirection::Column,
            row_gap: Val::Px(3.0),
            ..Default::default()
        },
        BackgroundColor(BACKGROUND),
        GlobalZIndex(i32::MAX - 1),
    ));
    root.with_children(|p| {
        p.spawn((PanelPart::Header, text("", 12.0, DIM)));
        p.spawn((PanelPart::Entity, text("", 13.0, TEXT)));
        p.spawn((PanelPart::Differences, text("", 12.0, TEXT)));
        p.spawn(Node {
            flex_direction: FlexDirection::Row,
            column_gap: Val::Px(4.0),
            ..Default::default()
        })
        .with_children(|row| {
            button(row, "Keep (K)", |w| interact::keep_selected(w, false));
            button(row, "Keep all", |w| interact::keep_selected(w, true));
            button(row, "Restore", interact::restore);
            button(row, "Into: P", |w| {
                let mut s = w.resource_mut::<EditorSettings>();
                s.into = match s.into {
                    KeepInto::Instance => KeepInto::Prefab,
                    _ => KeepInto::Instance,
                };
            });
            button(row, "Undo", |w| {
                let _ = write::undo_last(w);
            });
            button(row, "Redo", |w| {
                let _ = write::redo_last(w);
            });
        });
        p.spawn((PanelPart::Status, text("", 12.0, TEXT)));
    });
    world
        .spawn((
            PanelPart::LabelRoot,
            Node {
                position_type: PositionType::Absolute,
                padding: UiRect::axes(Val::Px(4.0), Val::Px(1.0)),
                display: bevy_internal::ui::Display::None,
                ..Default::default()
            },
            BackgroundColor(BACKGROUND),
            GlobalZIndex(i32::MAX - 2),
        ))
        .with_children(|p| {
            p.spawn((PanelPart::LabelText, text("", 12.0, TEXT)));
        });
}

fn button(
    row: &mut bevy_internal::ecs::hierarchy::ChildSpawner<'_>,
    label: &str,
    action: fn(&mut World),
) {
    row.spawn((
        Node {
            padding: UiRect::axes(Val::Px(5.0), Val::Px(2.0)),
            ..Default::default()
        },
        BackgroundColor(BUTTON),
    ))
    .with_children(|b| {
        b.spawn(text(label, 12.0, TEXT));
    })
    .observe(move |_: On<PointerClick>, mut commands: Commands| {
        commands.queue(move |w: &mut World| {
            action(w);
            w.resource_mut::<crate::select::Refresh>().soon();
        });
    });
}

/// Takes the panel and the label away.
pub(crate) fn despawn(world: &mut World) {
    let roots: Vec<Entity> = world
        .query::<(Entity, &PanelPart)>()
        .iter(world)
        .filter(|(_, p)| matches!(p, PanelPart::Root | PanelPart::LabelRoot))
        .map(|(e, _)| e)
        .collect();
    for e in roots {
        world.entity_mut(e).despawn();
    }
}

/// The panel's texts now.
fn texts(world: &World) -> [(PanelPart, String, Color); 5] {
    let settings = world.resource::<EditorSettings>();
    let state = world.resource::<GizmoState>();
    let history = world.resource::<EditHistory>();
    let unsaved = world.resource::<Unsaved>().changes.len();
    let status = world.resource::<EditorStatus>();
    let info = world.resource::<SelectedInfo>();
    let header = format!(
        "EDIT MODE ({:?} leaves) | {:?} | {} axes | Ctrl snaps | keep into {} | undo {} redo {}{}",
        settings.toggle,
        state.mode,
        match state.space {
            GizmoSpace::World => "world",
            GizmoSpace::Local => "local",
        },
        match settings.into {
            KeepInto::Instance => "instance",
            _ => "prefab",
        },
        history.undo_len(),
        history.redo_len(),
        if unsaved > 0 {
            format!(" | {unsaved} unsaved (Ctrl+S)")
        } else {
            String::new()
        }
    );
    let entity = match info.entity {
        None => "Nothing selected: click an entity a scene made".to_owned(),
        Some(_) => {
            let mut s = format!("{} {:?}", info.name, info.id_path);
            for p in &info.places {
                s.push_str("\n  ");
                s.push_str(p);
            }
            if let Some(at) = &info.locked {
                s.push_str(&format!(
                    "\n  LOCKED at {at}: the viewport does not move it"
                ));
            }
            s
        }
    };
    let differences = if info.entity.is_none() {
        String::new()
    } else if info.differences.is_empty() {
        "No field differs from the files".to_owned()
    } else {
        let mut s = "Differs from the files:".to_owned();
        for d in &info.differences {
            s.push_str(&format!(
                "\n  {}{}: file {} | live {}",
                d.component,
                d.field
                    .as_deref()
                    .map(|f| format!(".{f}"))
                    .unwrap_or_default(),
                d.file.as_deref().unwrap_or("(not written)"),
                d.live
            ));
        }
        s
    };
    [
        (PanelPart::Header, header, DIM),
        (PanelPart::Entity, entity, TEXT),
        (PanelPart::Differences, differences, TEXT),
        (
            PanelPart::Status,
            status.text.clone(),
            if status.error { ERROR } else { TEXT },
        ),
        (
            PanelPart::LabelText,
            world.resource::<LabelPlace>().text.clone(),
            TEXT,
        ),
    ]
}

/// Brings the panel's texts, the label's place and the UI camera up to date, writing only what
/// changed.
pub(crate) fn update(world: &mut World) {
    let wanted = texts(world);
    let camera = world.resource::<GizmoState>().camera;
    let label_at = world.resource::<LabelPlace>().at;
    let mut query = world.query::<(Entity, &PanelPart)>();
    let parts: Vec<(Entity, PanelPart)> = query.iter(world).map(|(e, p)| (e, *p)).collect();
    for (e, part) in parts {
        if let Some((_, s, colour)) = wanted.iter().find(|(p, _, _)| *p == part) {
            let mut entity = world.entity_mut(e);
            if entity.get::<Text>().is_some_and(|t| t.0 != *s)
                && let Some(mut t) = entity.get_mut::<Text>()
            {
                t.0.clone_from(s);
            }
            if entity.get::<TextColor>().is_some_and(|c| c.0 != *colour) {
                entity.insert(TextColor(*colour));
            }
        }
        if matches!(part, PanelPart::Root | PanelPart::LabelRoot)
            && let Some(camera) = camera
            && world.get::<UiTargetCamera>(e).is_none_or(|c| c.0 != camera)
        {
            world.entity_mut(e).insert(UiTargetCamera(camera));
        }
        if part == PanelPart::LabelRoot {
            let display = if label_at.is_some() {
                bevy_internal::ui::Display::Flex
            } else {
                bevy_internal::ui::Display::None
            };
            let (left, top) = label_at.map_or((Val::Auto, Val::Auto), |at| {
                (Val::Px(at.x + 6.0), Val::Px((at.y - 22.0).max(0.0)))
            });
            if let Some(mut node) = world.get_mut::<Node>(e)
                && (node.display != display || node.left != left || node.top != top)
            {
                node.display = display;
                node.left = left;
                node.top = top;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_forge_scene::live_link::LiveDifference;

    fn world() -> World {
        let mut world = World::new();
        world.insert_resource(EditorSettings::default());
        world.insert_resource(GizmoState::default());
        world.insert_resource(EditHistory::default());
        world.insert_resource(Unsaved::default());
        world.insert_resource(EditorStatus::default());
        world.insert_resource(SelectedInfo::default());
        world.insert_resource(LabelPlace::default());
        world
    }

    fn text_of(world: &World, part: PanelPart) -> (String, Color) {
        let all = texts(world);
        let (_, s, c) = all.iter().find(|(p, _, _)| *p == part).cloned().unwrap();
        (s, c)
    }

    #[test]
    fn the_panel_says_the_state_the_entity_its_places_its_lock_and_its_differences() {
        let mut world = world();
        assert!(text_of(&world, PanelPart::Header).0.contains("F2 leaves"));
        assert!(
            text_of(&world, PanelPart::Entity)
                .0
                .starts_with("Nothing selected")
        );
        *world.resource_mut::<SelectedInfo>() = SelectedInfo {
            entity: Some(Entity::PLACEHOLDER),
            root: Some(Entity::PLACEHOLDER),
            name: "Board".to_owned(),
            id_path: vec![4, 2],
            places: vec![
                "scenes/yard.forge.ron:9 (override)".to_owned(),
                "prefabs/sign.forge.ron:7 (entity)".to_owned(),
            ],
            locked: Some("prefabs/sign.forge.ron:7".to_owned()),
            differences: vec![LiveDifference {
                id_path: vec![4, 2],
                component: "transform".to_owned(),
                field: Some("translation".to_owned()),
                file: Some("(x: 0.0, y: 24.0, z: 0.5)".to_owned()),
                live: "(x: 20.0, y: 24.0, z: 0.5)".to_owned(),
                written: None,
            }],
        };
        let entity = text_of(&world, PanelPart::Entity).0;
        assert_eq!(
            entity,
            "Board [4, 2]\n  scenes/yard.forge.ron:9 (override)\n  prefabs/sign.forge.ron:7 (entity)\n  LOCKED at prefabs/sign.forge.ron:7: the viewport does not move it"
        );
        let differences = text_of(&world, PanelPart::Differences).0;
        assert!(differences.contains(
            "transform.translation: file (x: 0.0, y: 24.0, z: 0.5) | live (x: 20.0, y: 24.0, z: 0.5)"
        ), "{differences}");
        // A refusal is red; the header counts unsaved drags.
        world
            .resource_mut::<EditorStatus>()
            .refuse("not kept: out of range");
        assert_eq!(text_of(&world, PanelPart::Status).1, ERROR);
        world.resource_mut::<Unsaved>().changes.push((
            Entity::PLACEHOLDER,
            bevy_forge_scene::live_link::FieldRef {
                id_path: vec![2],
                component: "transform".to_owned(),
                field: Some("translation".to_owned()),
            },
        ));
        assert!(
            text_of(&world, PanelPart::Header)
                .0
                .contains("1 unsaved (Ctrl+S)")
        );
    }
}

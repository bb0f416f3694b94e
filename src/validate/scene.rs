//! Scene-wide rules: cameras and lights, from the facts gathered while walking the entities.

use bevy_platform::collections::HashSet;

use super::{Collector, Diagnostic, Loc, Severity};
use crate::codes;
use crate::format::EcoString;

/// Scene-wide counts gathered while walking the entities.
#[derive(Default)]
pub(super) struct SceneFacts {
    pub(super) cameras: usize,
    pub(super) first_2d: Option<u64>,
    pub(super) first_3d: Option<u64>,
    pub(super) camera_entities: Vec<u64>,
    pub(super) meshes: usize,
    pub(super) lights: usize,
    /// Custom type paths and field names found valid so far.
    pub(super) valid_names: ValidNames,
    /// The glTF models read so far, by file path (feature `gltf`): each is read once.
    #[cfg(feature = "gltf")]
    pub(super) models: bevy_platform::collections::HashMap<
        String,
        Result<std::sync::Arc<super::gltf::ModelTree>, String>,
    >,
}

/// Custom type paths and field names found valid so far: a scene repeats a few names over many
/// components, and each is checked once.
#[derive(Default)]
pub(super) struct ValidNames {
    pub(super) type_paths: NameSet,
    pub(super) field_names: NameSet,
}

/// A set of names that keeps its first few in a list, searched before any hashing: a scene
/// has a few custom type paths and field names, each looked up once per component.
#[derive(Default)]
pub(super) struct NameSet {
    few: Vec<EcoString>,
    many: HashSet<EcoString>,
}

impl NameSet {
    /// How many names the list holds before the set takes the rest.
    const FEW: usize = 16;

    pub(super) fn contains(&self, name: &str) -> bool {
        self.few.iter().any(|n| n.as_str() == name)
            || (!self.many.is_empty() && self.many.contains(name))
    }

    /// Adds `name`, which is not in the set yet.
    pub(super) fn insert(&mut self, name: EcoString) {
        if self.few.len() < Self::FEW {
            self.few.push(name);
        } else {
            self.many.insert(name);
        }
    }
}

pub(super) fn scene_rules(c: &mut Collector, scene: &SceneFacts) {
    if let (Some(two), Some(three)) = (scene.first_2d, scene.first_3d) {
        c.push(
            Diagnostic::new(
                Severity::Warning,
                codes::camera::MIXED,
                format!(
                    "the scene has both 2D and 3D cameras (camera2d on entity {two}, camera3d on entity {three})"
                ),
            )
            .with_help("a scene is usually either 2D or 3D; remove the camera you do not need"),
            Loc::Top("entities"),
        );
    }
    if scene.cameras == 0 {
        c.push(
            Diagnostic::new(
                Severity::Info,
                codes::camera::NONE,
                "the scene has no camera",
            )
            .with_help("that is fine for a scene spawned into another one; add a `camera2d` or `camera3d` to view it alone"),
            Loc::Top("entities"),
        );
    } else if scene.cameras > 1 {
        let mut ids: Vec<String> = scene
            .camera_entities
            .iter()
            .take(5)
            .map(u64::to_string)
            .collect();
        if scene.camera_entities.len() > 5 {
            ids.push("...".to_owned());
        }
        c.push(
            Diagnostic::new(
                Severity::Info,
                codes::camera::MULTIPLE,
                format!(
                    "the scene has {} cameras (on entities {})",
                    scene.cameras,
                    ids.join(", ")
                ),
            ),
            Loc::Top("entities"),
        );
    }
    if scene.meshes > 0 && scene.lights == 0 {
        c.push(
            Diagnostic::new(
                Severity::Info,
                codes::light::NONE,
                format!(
                    "the scene has {} mesh{} but no light",
                    scene.meshes,
                    if scene.meshes == 1 { "" } else { "es" }
                ),
            )
            .with_help("add a `directional_light` or `point_light`, or make the materials `unlit`"),
            Loc::Top("entities"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::NameSet;

    /// Names past the first few go to the hash set, and both parts answer.
    #[test]
    fn name_sets_find_every_name_added_and_no_other() {
        let mut set = NameSet::default();
        let names: Vec<String> = (0..3 * NameSet::FEW)
            .map(|i| format!("field_{i}"))
            .collect();
        for (i, name) in names.iter().enumerate() {
            assert!(!set.contains(name), "{name} before it is added");
            set.insert(name.as_str().into());
            assert!(names[..=i].iter().all(|n| set.contains(n)), "after {name}");
        }
        assert!(!set.contains("field_"));
        assert!(!set.contains(&format!("field_{}", 3 * NameSet::FEW)));
        assert!(!set.contains(""));
    }
}

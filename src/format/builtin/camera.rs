//! `camera2d` and `camera3d`: cameras without a payload (Bevy's `Camera2d` and `Camera3d`).

use super::{BevyText, BuiltinTag, ComponentData, Payload, Role, no_get, no_set};

pub(crate) static CAMERA2D: BuiltinTag = BuiltinTag {
    tag: "camera2d",
    doc: "A 2D camera (orthographic), rendering what the scene holds from the entity's transform.",
    bevy: "Camera2d",
    payload: Payload::Unit,
    context: "camera2d data",
    names: &[],
    groups: &[],
    default: || ComponentData::Camera2d,
    get: no_get,
    set: no_set,
    role: Role::Camera2d,
    cross: None,
    export: |_, _| vec!["Camera2d".to_owned()],
    assign: super::no_assign,
};

pub(crate) static CAMERA3D: BuiltinTag = BuiltinTag {
    tag: "camera3d",
    doc: "A 3D camera (perspective), looking down its entity's -Z.",
    bevy: "Camera3d",
    payload: Payload::Unit,
    context: "camera3d data",
    names: &[],
    groups: &[],
    default: || ComponentData::Camera3d,
    get: no_get,
    set: no_set,
    role: Role::Camera3d,
    cross: None,
    export: camera3d,
    assign: super::no_assign,
};

fn camera3d(_: &ComponentData, w: &dyn BevyText) -> Vec<String> {
    vec![
        if w.bsn() {
            "Camera3d"
        } else {
            "Camera3d::default()"
        }
        .to_owned(),
    ]
}

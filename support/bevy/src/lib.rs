//! A stand-in for the `bevy` umbrella crate, for this repository's doctests and tests only (it is
//! never published).
//!
//! Users of `bevy_forge_scene` depend on `bevy` 0.20 and write `use bevy::prelude::*;`. The real
//! `bevy` 0.20.1 declares Rust 1.97.1, above this repository's 1.95, so the README, the guide and
//! the tests that show a game's code compile against this crate instead. It re-exports the Bevy
//! 0.20.1 sub-crates the library builds with under the umbrella's module names (`bevy::ecs`,
//! `bevy::asset`, ...), a [`prelude`] made of their preludes as the umbrella makes it, a headless
//! [`DefaultPlugins`], and the log macros. Code written against it compiles unchanged against
//! the real `bevy` (which has much more).

pub use bevy_app as app;
pub use bevy_asset as asset;
pub use bevy_camera as camera;
pub use bevy_color as color;
pub use bevy_diagnostic as diagnostic;
pub use bevy_ecs as ecs;
pub use bevy_image as image;
pub use bevy_input as input;
pub use bevy_light as light;
pub use bevy_math as math;
pub use bevy_mesh as mesh;
pub use bevy_platform as platform;
pub use bevy_reflect as reflect;
pub use bevy_sprite as sprite;
pub use bevy_tasks as tasks;
pub use bevy_text as text;
pub use bevy_time as time;
pub use bevy_transform as transform;
pub use bevy_utils as utils;

/// Logging, as `bevy::log`: the `tracing` macros (`info!`, `warn!`, ...). Unlike the real
/// `LogPlugin`, nothing here installs a subscriber.
pub mod log {
    pub use tracing::{
        Level, debug, debug_span, error, error_span, info, info_span, trace, trace_span, warn,
        warn_span,
    };

    /// The log macros, as `bevy::log::prelude`.
    pub mod prelude {
        #[doc(hidden)]
        pub use tracing::{
            debug, debug_span, error, error_span, info, info_span, trace, trace_span, warn,
            warn_span,
        };
    }
}

/// `use bevy::prelude::*;`: the preludes of the sub-crates above, globbed as the umbrella globs
/// them, with [`DefaultPlugins`].
pub mod prelude {
    #[doc(hidden)]
    pub use crate::{
        DefaultPlugins, app::prelude::*, ecs::prelude::*, input::prelude::*, log::prelude::*,
        math::prelude::*, platform::prelude::*, reflect::prelude::*, time::prelude::*,
        transform::prelude::*, utils::prelude::*,
    };

    #[doc(hidden)]
    pub use crate::{
        asset::prelude::*, camera::prelude::*, color::prelude::*, image::prelude::*,
        light::prelude::*, mesh::prelude::*, sprite::prelude::*, text::prelude::*,
    };
}

use bevy_app::{PluginGroup, PluginGroupBuilder};

/// The plugins of a headless app: task pools, frame count, time, transforms, assets and a
/// schedule runner that updates the app in a loop (the real `DefaultPlugins` uses that runner too
/// when built without a window).
///
/// The real `DefaultPlugins` also opens a window, reads input, renders (with the image, mesh,
/// camera, light, sprite and text plugins) and installs a logger; none of that is here. Change a
/// plugin as with the real group: `DefaultPlugins.set(AssetPlugin { .. })`.
pub struct DefaultPlugins;

impl PluginGroup for DefaultPlugins {
    fn build(self) -> PluginGroupBuilder {
        PluginGroupBuilder::start::<Self>()
            .add(bevy_app::PanicHandlerPlugin)
            .add(bevy_app::TaskPoolPlugin::default())
            .add(bevy_diagnostic::FrameCountPlugin)
            .add(bevy_time::TimePlugin)
            .add(bevy_transform::TransformPlugin)
            .add(bevy_app::ScheduleRunnerPlugin::default())
            .add(bevy_asset::AssetPlugin::default())
    }
}

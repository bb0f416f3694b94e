//! How much spawning a frame may do: [`ForgeSpawnBudget`] (a root's own, or the app's
//! [`ForgeDefaultSpawnBudget`]) and the allowance a spawn spends ([`Limit`]), shared by the
//! first spawns and then by streaming in the same frame.

use std::time::Duration;

use bevy_ecs::prelude::*;
use bevy_platform::time::Instant;
use bevy_reflect::Reflect;

/// How much spawning one frame may do: wall-clock time, a number of entities, or both. With
/// neither (the default), a scene spawns whole in the frame its asset is ready, as before.
///
/// As a component on a root entity it is that root's own per-frame budget, spent by it alone.
/// Roots without one share the app's default, the [`ForgeDefaultSpawnBudget`] resource, so the
/// frame's spawning of all of them together stays within it (one root may load in the
/// background at 2 ms while another, with `ForgeSpawnBudget::UNLIMITED` on it, spawns at once).
///
/// ```
/// # use std::time::Duration;
/// # use bevy_app::App;
/// # use bevy_ecs::prelude::*;
/// # use bevy_forge_scene::{ForgeDefaultSpawnBudget, ForgeSceneRoot, ForgeSpawnBudget};
/// # let mut app = App::new();
/// // At most 2 ms of scene spawning per frame, for every root without a budget of its own.
/// app.insert_resource(ForgeDefaultSpawnBudget(ForgeSpawnBudget::per_frame(
///     Duration::from_millis(2),
/// )));
/// // This root: at most 500 entities per frame, however quick.
/// app.world_mut().spawn((
///     ForgeSceneRoot::default(),
///     ForgeSpawnBudget::UNLIMITED.with_entities(500),
/// ));
/// ```
///
/// A budgeted spawn spawns parents before children in `roots` order, as a one-frame spawn
/// does; custom components holding entity references are inserted once every entity of the
/// instance exists (their hooks see final ids), and [`ForgeSceneReady`](crate::ForgeSceneReady) is triggered and the
/// [`ForgeSceneInstance`](crate::ForgeSceneInstance) inserted only when the instance is complete. Meanwhile the root's
/// [`ForgeSpawnProgress`](crate::ForgeSpawnProgress) says how far it got. The budget covers the world writes only: the
/// loader builds every value beforehand, off the main thread.
///
/// Time is checked every 16 entities, so a frame may run over by the time of that many
/// entities; every frame spawns at least one entity, however small the budget, so a spawn
/// always ends.
///
/// A placed glTF model's nodes (feature `gltf`) are written together once the model has
/// loaded and its instance is complete, in the first frame whose budget (the placing root's)
/// is not spent, and count against it: the models after it wait for a later frame. A frame may
/// run over by one model's entities.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[type_path = "bevy_forge_scene"]
#[reflect(Component)]
pub struct ForgeSpawnBudget {
    /// Wall-clock time per frame for spawning; `None`: no limit.
    pub time: Option<Duration>,
    /// Entities spawned per frame (an entity whose components with entity references are
    /// inserted counts once more); `None`: no limit.
    pub entities: Option<u32>,
}

impl ForgeSpawnBudget {
    /// No limit: a scene spawns whole in one frame (the default).
    pub const UNLIMITED: Self = Self {
        time: None,
        entities: None,
    };

    /// At most `time` of spawning per frame.
    pub fn per_frame(time: Duration) -> Self {
        Self {
            time: Some(time),
            entities: None,
        }
    }

    /// This budget, also capped at `entities` entities per frame.
    pub fn with_entities(mut self, entities: u32) -> Self {
        self.entities = Some(entities);
        self
    }

    /// Whether the budget has no limit (a scene spawns in one frame).
    pub fn is_unlimited(&self) -> bool {
        self.time.is_none() && self.entities.is_none()
    }
}

/// The app's default [`ForgeSpawnBudget`], for every [`ForgeSceneRoot`](crate::ForgeSceneRoot) without one of its own
/// (unlimited unless the game inserts it; [`ForgeScenePlugin`](crate::ForgeScenePlugin) fills
/// it in when absent, so inserting it before or after the plugin both work).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq, Reflect)]
#[type_path = "bevy_forge_scene"]
#[reflect(Resource)]
pub struct ForgeDefaultSpawnBudget(pub ForgeSpawnBudget);

/// One frame's allowance of spawning work, shared by the roots that spend it.
pub(crate) struct Limit {
    deadline: Option<Instant>,
    entities: Option<u32>,
    used: u32,
    out: bool,
}

impl Limit {
    /// An allowance of `budget`, starting now.
    pub(crate) fn of(budget: &ForgeSpawnBudget) -> Self {
        Self {
            deadline: budget.time.map(|t| Instant::now() + t),
            entities: budget.entities,
            used: 0,
            out: false,
        }
    }

    /// An allowance of the app's [`ForgeDefaultSpawnBudget`] (unlimited without one), starting
    /// now: what the roots without a budget of their own share in a frame.
    pub(super) fn of_default(world: &World) -> Self {
        let default = world
            .get_resource::<ForgeDefaultSpawnBudget>()
            .map(|d| d.0)
            .unwrap_or_default();
        Self::of(&default)
    }

    /// Counts one unit of work; whether the allowance is now spent. Time is read every 16
    /// units (a clock read costs a few percent of an entity's spawn).
    #[inline]
    pub(crate) fn spend(&mut self) -> bool {
        self.used += 1;
        if self.entities.is_some_and(|n| self.used >= n) {
            self.out = true;
        } else if let Some(deadline) = self.deadline
            && self.used.is_multiple_of(16)
            && Instant::now() >= deadline
        {
            self.out = true;
        }
        self.out
    }

    /// Counts `n` units of work done at once (the entities of a placed model, written
    /// together); whether the allowance is now spent. The time is read each call.
    #[cfg_attr(not(feature = "gltf"), allow(dead_code))]
    pub(crate) fn spend_many(&mut self, n: u32) -> bool {
        self.used = self.used.saturating_add(n);
        if self.entities.is_some_and(|max| self.used >= max)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.out = true;
        }
        self.out
    }

    /// Whether the allowance is spent.
    pub(crate) fn is_spent(&self) -> bool {
        self.out
    }

    /// Whether the time is up (for work not counted in entities).
    pub(super) fn out_of_time(&mut self) -> bool {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.out = true;
        }
        self.out
    }
}

/// What is left of the frame's shared spawn budget after first spawns.
#[derive(Resource)]
pub(super) struct SpawnLeft(pub(super) Limit);

/// What is left of this frame's shared spawn budget after the first spawns of roots (taken:
/// give back what is left with [`give_back`]), or a fresh allowance of the app's default when
/// they left none: what streaming and the writing of placed models spend, for the roots
/// without a budget of their own.
pub(crate) fn frame_left(world: &mut World) -> Limit {
    match world.remove_resource::<SpawnLeft>() {
        Some(left) => left.0,
        None => Limit::of_default(world),
    }
}

/// Puts back what is left of the frame's shared budget taken with [`frame_left`], for the
/// spawning that comes after in the frame.
pub(crate) fn give_back(world: &mut World, left: Limit) {
    world.insert_resource(SpawnLeft(left));
}

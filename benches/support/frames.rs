//! Our systems' time in each frame, for the frame-time benches (`budget`, `streaming`): a
//! `start` and an `end` system around the measured sets record wall-clock and on-CPU time.

use std::time::{Duration, Instant};

use bevy_ecs::prelude::*;

/// The measured systems' time in each frame: wall-clock, and on-CPU (the thread's time on a
/// core, `CLOCK_THREAD_CPUTIME_ID`). On a shared machine the two differ by the time the
/// scheduler gave the core to someone else. Both need the systems on one thread (a
/// `SingleThreadedExecutor`).
#[derive(Resource, Default)]
pub struct Frames {
    start: Option<(Instant, Duration)>,
    pub times: Vec<(Duration, Duration)>,
}

/// The calling thread's time on a core so far.
fn on_cpu() -> Duration {
    cpu_time::ThreadTime::now().as_duration()
}

/// Before the measured systems.
pub fn start(mut frames: ResMut<Frames>) {
    frames.start = Some((Instant::now(), on_cpu()));
}

/// After the measured systems.
pub fn end(mut frames: ResMut<Frames>) {
    if let Some((wall, cpu)) = frames.start.take() {
        frames
            .times
            .push((wall.elapsed(), on_cpu().saturating_sub(cpu)));
    }
}

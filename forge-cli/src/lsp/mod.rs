//! `forge lsp`: a language server for `.forge.ron` scenes over standard input and output.
//!
//! **Protocol crate.** `lsp-server` (the synchronous transport rust-analyzer is built on: one
//! thread reads, one writes, the server loop takes messages from a channel) with `lsp-types`.
//! The command line has no async runtime and every check is synchronous library code, so a plain
//! loop over a channel is all the server needs; the same crate gives `Connection::memory()`,
//! which the tests and the bench drive the real loop through.
//!
//! **Checks.** A document is checked by the library's one pipeline
//! ([`bevy_forge_scene::pipeline::check`]), as the scene loader and `forge validate` check it:
//! every diagnostic, code and help they give, and no other. Project discovery is the command
//! line's ([`crate::files`]): prefab files are read from the project's assets directory (else the
//! scene's folder), asset paths checked against it. A change inside one entity entry is read
//! again alone ([`bevy_forge_scene::format::ParsedScene::reread_edit`]) before the check runs.
//!
//! **Schemas.** Custom components are checked against the game's schema file
//! ([`ForgeSchemas::export`](bevy_forge_scene::ForgeSchemas::export)): the file
//! `initializationOptions.schemaPath` names (relative to the first workspace folder), else the
//! first `*.forge-schema.ron` (by name) found in the scene's folder or its `assets/`, then in each
//! folder above it up to the scene's project (the nearest folder with `scenes/` or `assets/`) or
//! workspace folder. It is read again when it changes on disk. Without one, custom components
//! are checked for their shape and entity references only, and the server says so once.
//!
//! **Scheduling.** Changes are applied as they come; a document is checked when no message is
//! waiting (changes that arrive while a check runs are checked together: the debounce), before
//! any request about it, and on save. Scenes placing a prefab that changed (in the editor or on
//! disk) are checked again.
//!
//! **Reading.** A document is read past its errors
//! ([`SceneDoc::from_str_recovering`](bevy_forge_scene::format::SceneDoc::from_str_recovering)):
//! while it does not read, its diagnostics are the read errors (one per problem), and hover,
//! definition, references, symbols, inlay hints and completion answer on the parts that read.
//! Formatting a text that does not read answers why, in one message.
//!
//! **Analysis apart from protocol.** The analysis (`locate`, `hover`, `navigation`,
//! `completion`, `diagnostics`, `actions`) reads the state and answers in plain byte ranges and
//! items; `proto` converts positions to offsets and answers to `lsp_types` (UTF-16 columns by
//! default). A request only reads the state: what it needs read from disk (a schema file that
//! changed, the assets) is brought up to date before it, in the main loop.
//!
//! **The running game.** With `initializationOptions.remote` (`"http://127.0.0.1:15702"`, a
//! game with `bevy_forge_scene_remote`'s `ForgeRemotePlugin`), hover shows a field's live value
//! beside the authored one, inlay hints mark the fields whose live value differs, a code action
//! writes the live value into the text, and two commands (`workspace/executeCommand`) select the
//! entity under the cursor in the game (`forge.revealEntity`, arguments: the document's URI and
//! a position) and open the line of a live entity (`forge.openEntity`, argument: its
//! `Entity::to_bits`; answered with `window/showDocument`). The game is asked with a short
//! timeout; without one running, everything answers as without the option ([`live`]).
//!
//! **Robustness.** A request that fails (a panic in a handler) is answered with an error and the
//! server goes on; nothing is kept per request, only per open document.

mod actions;
mod builtin;
mod completion;
mod diagnostics;
mod game;
mod hover;
mod live;
mod locate;
mod navigation;
mod proto;
mod server;
mod state;
mod text;

pub use server::serve;

use std::process::ExitCode;

/// Runs the server over standard input and output until the client exits: status 0 after a
/// clean `shutdown` and `exit`, 1 otherwise (the reason on standard error).
pub fn stdio() -> ExitCode {
    let (connection, io) = lsp_server::Connection::stdio();
    let served = serve(connection);
    let joined = io.join();
    match (served, joined) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(e), _) => {
            eprintln!("forge lsp: {e}");
            ExitCode::FAILURE
        }
        (_, Err(e)) => {
            eprintln!("forge lsp: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    /// The analysis answers in bytes and plain items: only `proto`, the loop (`server`) and the
    /// positions (`text`) name the protocol's types, and nothing imports the loop back.
    #[test]
    fn the_analysis_names_no_protocol_type() {
        let analysis = [
            ("actions.rs", include_str!("actions.rs")),
            ("builtin.rs", include_str!("builtin.rs")),
            ("completion.rs", include_str!("completion.rs")),
            ("diagnostics.rs", include_str!("diagnostics.rs")),
            ("hover.rs", include_str!("hover.rs")),
            ("locate.rs", include_str!("locate.rs")),
            ("navigation.rs", include_str!("navigation.rs")),
            ("state.rs", include_str!("state.rs")),
        ];
        for (file, text) in analysis {
            for banned in ["lsp_types", "super::proto", "super::server"] {
                assert!(!text.contains(banned), "{file} names `{banned}`");
            }
        }
        assert!(!include_str!("proto.rs").contains("super::server"));
    }
}

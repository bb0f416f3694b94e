//! The parts of the `forge` command line that are driven in process by its tests and benches:
//! project discovery ([`files`]), the git set-up of `forge merge` ([`git`]) and the language
//! server ([`lsp`], `forge lsp`). The binary,
//! `forge`, is the product; this library exists for it and is not meant for other crates.

pub mod files;
pub mod git;
pub mod lsp;

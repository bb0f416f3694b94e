//! `textDocument/completion`.

use lsp_types::{CompletionParams, CompletionResponse};

use super::server::Failure;
use super::state::State;

pub fn completion(
    _state: &mut State,
    _params: CompletionParams,
) -> Result<Option<CompletionResponse>, Failure> {
    Ok(None)
}

//! Formatting and code actions.

use lsp_types::{CodeActionParams, CodeActionResponse, DocumentFormattingParams, TextEdit};

use super::server::Failure;
use super::state::State;

pub fn format(
    _state: &mut State,
    _params: DocumentFormattingParams,
) -> Result<Option<Vec<TextEdit>>, Failure> {
    Ok(None)
}

pub fn code_actions(
    _state: &mut State,
    _params: CodeActionParams,
) -> Result<Option<CodeActionResponse>, Failure> {
    Ok(None)
}

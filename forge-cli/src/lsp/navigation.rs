//! Definition, references, document symbols and inlay hints.

use lsp_types::{
    DocumentSymbolParams, DocumentSymbolResponse, GotoDefinitionParams, GotoDefinitionResponse,
    InlayHint, InlayHintParams, Location, ReferenceParams,
};

use super::server::Failure;
use super::state::State;

pub fn definition(
    _state: &mut State,
    _params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>, Failure> {
    Ok(None)
}

pub fn references(
    _state: &mut State,
    _params: ReferenceParams,
) -> Result<Option<Vec<Location>>, Failure> {
    Ok(None)
}

pub fn symbols(
    _state: &mut State,
    _params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>, Failure> {
    Ok(None)
}

pub fn inlay_hints(
    _state: &mut State,
    _params: InlayHintParams,
) -> Result<Option<Vec<InlayHint>>, Failure> {
    Ok(None)
}

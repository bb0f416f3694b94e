//! One reading of the asset path rules for every place a scene names a file (a prefab's `scene`,
//! a model's `model`).

use crate::codes;
use crate::project::{AssetPathError, check_asset_path};

/// What the asset path rules (`check_asset_path`) say of `path`, the path of a `what` (`"prefab"`,
/// `"model"`): a code and a message, or `None` when it passes them.
pub(super) fn asset_path_problem(what: &str, path: &str) -> Option<(&'static str, String)> {
    match check_asset_path(path) {
        Err(AssetPathError::Empty) => {
            Some((codes::asset::EMPTY, format!("the {what} path is empty")))
        }
        Err(AssetPathError::Absolute(_)) => Some((
            codes::asset::ABSOLUTE,
            format!("{what} path `{path}` is absolute"),
        )),
        Err(AssetPathError::ParentComponent(_)) => Some((
            codes::asset::PARENT_DIR,
            format!("{what} path `{path}` contains a `..` component"),
        )),
        Err(AssetPathError::Backslash(_)) => Some((
            codes::asset::BACKSLASH,
            format!("{what} path `{path}` contains a backslash"),
        )),
        Ok(()) => None,
    }
}

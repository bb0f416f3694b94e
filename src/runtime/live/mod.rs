//! A live instance and its files: hot reload, the paint diff, capture.

pub mod capture;
pub(crate) mod painted;
pub(crate) mod reload;

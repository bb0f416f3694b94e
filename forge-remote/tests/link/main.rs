//! The live link's tests over HTTP, in one binary (a binary of the render stack is slow to
//! link): `remote`, the `forge.*` methods as a client sees them, and `write_path`, the one
//! write path they write through. `support` is what they share: a headless game on a loopback
//! port and a JSON-RPC client.

mod remote;
mod support;
mod write_path;

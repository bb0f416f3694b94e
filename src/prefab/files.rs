//! Prefab files read from disk, for tools (`forge validate`, `forge tree`): each file read,
//! validated and expanded once, chains of instances checked for cycles and depth.

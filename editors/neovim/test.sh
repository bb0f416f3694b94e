#!/usr/bin/env bash
# Runs editors/neovim/lsp_test.lua: Neovim headless drives the real `forge lsp` over stdio.
# Usage: editors/neovim/test.sh [FORGE_BINARY] (default: builds and uses target/debug/forge).
# Needs `nvim` (Debian's `neovim` package, 0.7 or later).
set -euo pipefail
cd "$(dirname "$0")/../.."
forge="${1:-}"
if [ -z "$forge" ]; then
  cargo build -q -p bevy_forge_scene_cli --bin forge
  forge="${CARGO_TARGET_DIR:-target}/debug/forge"
fi
forge="$(cd "$(dirname "$forge")" && pwd)/$(basename "$forge")"
project="$(mktemp -d)"
trap 'rm -rf "$project"' EXIT
mkdir -p "$project/assets"
cp -r assets/prefabs assets/scenes "$project/assets/"
# The goblin camp with its camera following the torch of the second goblin (`#3/2`), and one
# error after wide characters: the camera lists a child 9 that does not exist; and `next_id` too
# low, for a quick fix.
sed -e 's|components: \[(type: camera2d)\],|components: [(type: camera2d), (type: custom, data: (type_path: "forge_demo::Follow", fields: [(name: "target", expr: "#3/2")]))],|' \
    -e '0,/      children: \[\],/s||      /* 🌲 Zoë */ children: [9],|' \
    -e 's|next_id: 6,|next_id: 3,|' \
    assets/scenes/goblin_camp.forge.ron >"$project/assets/scenes/camp.forge.ron"
FORGE="$forge" PROJECT="$project" timeout 120 nvim --headless --noplugin -u NONE -i NONE \
  -c "luafile editors/neovim/lsp_test.lua"

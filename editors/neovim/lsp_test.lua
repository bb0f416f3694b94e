-- A real client test of `forge lsp`: Neovim (0.7 or later, headless) starts the real binary over
-- standard input and output, opens a scene with errors, waits for the diagnostic at its line
-- and column, and asks for hover, completion, definition, references, document symbols, inlay
-- hints, a quick fix and formatting. Run by editors/neovim/test.sh;
-- exits with status 0 when every check passes, 1 (and the failures on stderr) otherwise.
--
-- Environment: FORGE (the binary), PROJECT (a copy of the repository's assets with the scene
-- `assets/scenes/camp.forge.ron` written by test.sh).

local forge = assert(os.getenv('FORGE'), 'FORGE is not set')
local project = assert(os.getenv('PROJECT'), 'PROJECT is not set')
local scene = project .. '/assets/scenes/camp.forge.ron'
local failures = {}

local function check(ok, what)
  if not ok then
    table.insert(failures, what)
  end
end

local function finish()
  if #failures == 0 then
    io.stdout:write('neovim: forge lsp passed every check\n')
    vim.cmd('qa!')
  else
    io.stderr:write('neovim: forge lsp failed:\n  ' .. table.concat(failures, '\n  ') .. '\n')
    vim.cmd('cq')
  end
end

local client_id = vim.lsp.start_client({
  name = 'forge',
  cmd = { forge, 'lsp' },
  root_dir = project,
})
check(client_id ~= nil, 'the client did not start')

vim.cmd('edit ' .. vim.fn.fnameescape(scene))
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client_id)

-- The 0-based line and byte column of the first `needle` (plain text) of the buffer, plus `delta`.
local function find(needle, delta)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = line:find(needle, 1, true)
    if col then
      return i - 1, col - 1 + (delta or 0)
    end
  end
  error('not in the scene: ' .. needle)
end

-- The diagnostics: `children: [9]` names no entity, after wide characters on its line; and
-- `next_id` is too low.
local got = vim.wait(20000, function()
  return #vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR }) > 0
end, 50)
check(got, 'no error diagnostic within 20 s')
local errors = vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR })
local line, col = find('[9]')
local missing
for _, e in ipairs(errors) do
  local code = e.code or (e.user_data and e.user_data.lsp and e.user_data.lsp.code)
  if code == 'forge::structure::missing_child' then
    missing = e
  end
end
check(#errors == 2, 'two errors expected (the child, next_id), got ' .. #errors)
if missing then
  local d = missing
  check(d.lnum == line and d.col == col,
    string.format('diagnostic at %d:%d, expected %d:%d', d.lnum, d.col, line, col))
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  check(code == 'forge::structure::missing_child', 'code ' .. tostring(code))
end

-- A request at the place of `needle` (+ delta bytes): the first client's answer.
local function request(method, needle, delta)
  local l, c = find(needle, delta)
  vim.api.nvim_win_set_cursor(0, { l + 1, c })
  local params = vim.lsp.util.make_position_params()
  if method == 'textDocument/references' then
    params.context = { includeDeclaration = true }
  end
  local answers = vim.lsp.buf_request_sync(buf, method, params, 10000) or {}
  local answer = answers[client_id] or {}
  check(answer.error == nil, method .. ' answered an error: ' .. vim.inspect(answer.error))
  return answer.result
end

-- Hover on a built-in field: its unit and range from the format's descriptor.
local hover = request('textDocument/hover', 'custom_size', 2)
local text = hover and hover.contents and hover.contents.value or ''
check(text:find('unit: pixels', 1, true) ~= nil, 'hover on custom_size: ' .. vim.inspect(hover))

-- Hover on a reference into an instance: the placed entity's name and path.
hover = request('textDocument/hover', '#3/2', 2)
text = hover and hover.contents and hover.contents.value or ''
check(text:find('**Torch**', 1, true) ~= nil, 'hover on #3/2: ' .. vim.inspect(hover))

-- Completion after `#`: the ids and paths the scene can name, with names.
local completion = request('textDocument/completion', '#3/2', 1)
local items = completion and (completion.items or completion) or {}
local torch = false
for _, item in ipairs(items) do
  if item.label == '#3/2' and item.detail == 'Torch' then
    torch = true
  end
end
check(torch, 'completion after # has no #3/2 "Torch": ' .. vim.inspect(items):sub(1, 400))

-- Definition of the reference: the torch's entry in the goblin prefab.
local definition = request('textDocument/definition', '#3/2', 2)
local location = definition and (definition[1] or definition) or {}
local uri = location.uri or location.targetUri or ''
check(uri:find('prefabs/goblin.forge.ron', 1, true) ~= nil, 'definition of #3/2: ' .. vim.inspect(definition))
local range = location.range or location.targetSelectionRange or { start = {} }
local prefab = vim.fn.readfile(project .. '/assets/prefabs/goblin.forge.ron')
local want
for i, l in ipairs(prefab) do
  if l == '    2: (' then
    want = i - 1
  end
end
check(range.start.line == want, 'definition line ' .. tostring(range.start.line) .. ', expected ' .. tostring(want))

-- References of entity 3 (on its key): the key, its `id`, `roots` and the crown's `parent`.
local references = request('textDocument/references', '    3: (', 4)
check(references and #references == 4, 'references of entity 3: ' .. vim.inspect(references))

-- A request about the whole document.
local function document_request(method, extra)
  local params = vim.tbl_extend('force', { textDocument = vim.lsp.util.make_text_document_params() }, extra or {})
  local answers = vim.lsp.buf_request_sync(buf, method, params, 10000) or {}
  local answer = answers[client_id] or {}
  check(answer.error == nil, method .. ' answered an error: ' .. vim.inspect(answer.error))
  return answer.result
end

-- Document symbols: the entity tree.
local symbols = document_request('textDocument/documentSymbol') or {}
local names = {}
for _, s in ipairs(symbols) do
  table.insert(names, s.name)
end
check(table.concat(names, ',') == 'Camera,Goblin A,Goblin B,Spare Hat', 'symbols: ' .. table.concat(names, ','))

-- Inlay hints: the name of the entity `#3/2` names.
local whole = { start = { line = 0, character = 0 }, ['end'] = { line = vim.api.nvim_buf_line_count(buf), character = 0 } }
local hints = document_request('textDocument/inlayHint', { range = whole }) or {}
local torch_hint = false
for _, h in ipairs(hints) do
  if h.label == '"Torch"' then
    torch_hint = true
  end
end
check(torch_hint, 'no inlay hint "Torch": ' .. vim.inspect(hints):sub(1, 400))

-- A quick fix: `next_id` is too low (test.sh wrote 3); the fix sets it to 6.
local next_line = find('next_id: 3')
local actions = document_request('textDocument/codeAction', {
  range = { start = { line = next_line, character = 0 }, ['end'] = { line = next_line, character = 20 } },
  context = { diagnostics = {} },
}) or {}
local fixed = false
for _, a in ipairs(actions) do
  local edits = a.edit and a.edit.changes and a.edit.changes[vim.uri_from_bufnr(buf)] or {}
  if a.title == 'Set `next_id` to the next free id' and edits[1] and edits[1].newText == '6' then
    fixed = true
  end
end
check(fixed, 'no next_id quick fix: ' .. vim.inspect(actions):sub(1, 600))

-- Formatting: the canonical layout, every comment kept.
local edits = document_request('textDocument/formatting', { options = { tabSize = 2, insertSpaces = true } })
check(type(edits) == 'table' and #edits > 0, 'formatting gave no edit: ' .. vim.inspect(edits))
vim.lsp.util.apply_text_edits(edits or {}, buf, 'utf-16')
local formatted = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
check(formatted:find('/* 🌲 Zoë */', 1, true) ~= nil, 'formatting lost a comment')
check(formatted:find('// A level composed of prefabs', 1, true) ~= nil, 'formatting lost the first comment')

finish()

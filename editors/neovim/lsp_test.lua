-- A real client test of `forge lsp`: Neovim (0.7 or later, headless) starts the real binary over
-- standard input and output, opens a scene with an error, waits for the diagnostic at its line
-- and column, and asks for hover, completion and definition. Run by editors/neovim/test.sh;
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

-- The diagnostic: `children: [9]` names no entity, after wide characters on its line.
local got = vim.wait(20000, function()
  return #vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR }) > 0
end, 50)
check(got, 'no error diagnostic within 20 s')
local errors = vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR })
local line, col = find('[9]')
if errors[1] then
  local d = errors[1]
  check(#errors == 1, 'one error expected, got ' .. #errors)
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

finish()

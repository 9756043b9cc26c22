-- The editor scenario shared by the Neovim 0.7 and 0.11 tests (nvim07.lua, nvim011.lua):
-- open apache2.conf with 2.2 access control, get the deprecated-access diagnostics,
-- hover the <Directory> header, apply the preferred "Rewrite as Require" quick fix,
-- check the buffer and that the diagnostics are withdrawn.
-- Works on Neovim 0.7 through 0.11: no vim.fs, vim.iter or client methods.
local M = {}

local t0 = vim.loop.hrtime()
function M.log(msg)
  io.stdout:write(("[%5.2fs] %s\n"):format((vim.loop.hrtime() - t0) / 1e9, msg))
end

M.repo = assert(os.getenv("APACHE_LSP_REPO"), "APACHE_LSP_REPO is not set (run through tests/editors/run.sh)")
M.timeout = tonumber(os.getenv("APACHE_LSP_E2E_TIMEOUT_MS") or "") or 20000

local function read_file(path)
  local f = assert(io.open(path, "rb"), "cannot read " .. path)
  local s = f:read("*a")
  f:close()
  return s
end

--- The ```lua block that follows the line holding `<!-- test: NAME` in a README,
--- with the placeholder path replaced by the repository's.
function M.readme_block(readme, name)
  local text = read_file(M.repo .. "/" .. readme)
  local at = assert(text:find("<!-- test: " .. name, 1, true), readme .. ": no block marked " .. name)
  local code = assert(text:match("```lua\n(.-)\n```", at), readme .. ": no lua block after " .. name)
  return (code:gsub("/path/to/apache%-lsp", M.repo))
end

function M.run_snippet(code, name)
  local chunk = assert((loadstring or load)(code, "=" .. name))
  chunk()
end

--- A fresh folder holding a copy of the fixture as apache2.conf.
function M.fixture_path()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local path = dir .. "/apache2.conf"
  vim.fn.writefile(vim.fn.readfile(M.repo .. "/tests/editors/fixtures/apache2.conf"), path)
  return path
end

local function lsp_part(d)
  return (d.user_data and d.user_data.lsp) or {}
end

function M.deprecated(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if (d.code or lsp_part(d).code) == "deprecated-access" then
      table.insert(out, d)
    end
  end
  table.sort(out, function(a, b) return a.lnum < b.lnum end)
  return out
end

local function hover_text(contents)
  if type(contents) == "string" then return contents end
  if contents.value then return contents.value end
  local parts = {}
  for _, c in ipairs(contents) do
    table.insert(parts, type(c) == "string" and c or c.value)
  end
  return table.concat(parts, "\n")
end

local function request(buf, client_id, method, params)
  local res, err = vim.lsp.buf_request_sync(buf, method, params, 10000)
  assert(res, method .. ": " .. tostring(err))
  local r = res[client_id]
  assert(r and not r.err, method .. " failed: " .. vim.inspect(r and r.err))
  return r.result
end

--- opts.apply(buf, client, action): applies the chosen code action the way the editor
--- version does it for a user.
function M.run(buf, client_id, opts)
  local client = vim.lsp.get_client_by_id(client_id)
  local enc = client.offset_encoding or "utf-16"
  M.log(("server: %s, position encoding %s"):format(
    vim.inspect(client.server_info or (client.initialize_result or {}).serverInfo, { newline = " ", indent = "" }), enc))

  -- 1. diagnostics: one deprecated-access warning per Order/Allow line (0-based lines 5 and 6)
  if not vim.wait(M.timeout, function() return #M.deprecated(buf) >= 2 end, 20) then
    local all = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      table.insert(all, ("%d:%s %s"):format(d.lnum, tostring(d.code or lsp_part(d).code), d.message))
    end
    error(("no deprecated-access diagnostics within %d ms (diagnostics: %s)"):format(M.timeout,
      #all > 0 and table.concat(all, "; ") or "none"))
  end
  local ds = M.deprecated(buf)
  for _, d in ipairs(ds) do
    local lsp = lsp_part(d)
    M.log(("diagnostic %d:%d [%s %s, tags %s] %s"):format(d.lnum + 1, d.col + 1, tostring(d.source),
      tostring(d.code or lsp.code), vim.inspect(lsp.tags), d.message))
    assert(d.source == "apache-lsp", "source is not apache-lsp")
    assert(d.severity == vim.diagnostic.severity.WARN, "severity is not warning")
    assert(lsp.tags and vim.tbl_contains(lsp.tags, 2), "no Deprecated tag")
  end
  assert(#ds == 2 and ds[1].lnum == 5 and ds[2].lnum == 6,
    "expected deprecated-access on lines 6 and 7 exactly, got " .. #ds)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    assert((d.code or lsp_part(d).code) ~= "syntax", "unexpected syntax error: " .. d.message)
  end

  -- 2. hover on the <Directory> header: the effective access, with HTTP statuses
  vim.api.nvim_win_set_cursor(0, { 5, 3 })
  local hover = request(buf, client_id, "textDocument/hover", vim.lsp.util.make_position_params(0, enc))
  assert(hover and hover.contents, "no hover on <Directory>")
  local text = hover_text(hover.contents)
  M.log("hover: " .. text:gsub("\n", " / "):sub(1, 300))
  assert(text:find("Effective access", 1, true), "hover lacks 'Effective access'")
  assert(text:find("%f[%d]200%f[%D]") or text:find("%f[%d]403%f[%D]"), "hover lacks an HTTP status (200/403)")
  if opts.hover_float then opts.hover_float(buf) end

  -- 3. the preferred quick fix on the Order line
  vim.api.nvim_win_set_cursor(0, { 6, 4 })
  local rp = vim.lsp.util.make_range_params(0, enc)
  local line_diags = {}
  for _, d in ipairs(ds) do
    if d.lnum == 5 then
      local lsp = lsp_part(d)
      if lsp.range then table.insert(line_diags, lsp) end
    end
  end
  if #line_diags == 0 and vim.lsp.diagnostic.get_line_diagnostics then -- 0.7: user_data.lsp is partial
    line_diags = vim.lsp.diagnostic.get_line_diagnostics(buf, 5)
  end
  rp.context = { diagnostics = line_diags, only = { "quickfix" } }
  local actions = request(buf, client_id, "textDocument/codeAction", rp) or {}
  local titles, chosen = {}, nil
  for _, a in ipairs(actions) do
    table.insert(titles, ("%q (kind %s, preferred %s)"):format(a.title, tostring(a.kind), tostring(a.isPreferred)))
    if a.isPreferred and tostring(a.kind):find("^quickfix") and a.title:find("^Rewrite as Require") then
      chosen = chosen or a
    end
  end
  M.log("code actions: " .. (#titles > 0 and table.concat(titles, ", ") or "none"))
  assert(chosen, "no preferred quickfix titled 'Rewrite as Require...'")
  opts.apply(buf, client, chosen, enc)

  local function directory_ok()
    local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    local inside, require_ip, old = false, false, false
    for _, l in ipairs(lines) do
      local low = l:lower()
      if low:match("^%s*<directory%s") then inside = true
      elseif low:match("^%s*</directory>") then inside = false
      elseif inside then
        if l:match("^%s*Require ip 127%.0%.0%.1%s*$") then require_ip = true end
        if low:match("^%s*order%s") or low:match("^%s*allow%s") or low:match("^%s*deny%s")
          or low:match("^%s*satisfy%s") then old = true end
      end
    end
    return require_ip and not old, lines
  end
  local ok, lines = false, nil
  vim.wait(5000, function() ok, lines = directory_ok(); return ok end, 20)
  M.log("buffer after the fix: " .. table.concat(lines, " | "))
  assert(ok, "the Directory does not hold 'Require ip 127.0.0.1' without Order/Allow lines")

  -- 4. the server saw the change (didChange) and withdrew the deprecated-access diagnostics
  assert(vim.wait(M.timeout, function() return #M.deprecated(buf) == 0 end, 20),
    "deprecated-access diagnostics still there after the fix")
  M.log("deprecated-access diagnostics after the fix: 0")
end

--- Runs f under pcall; prints PASS or FAIL and exits Neovim with 0 or 1.
function M.main(f)
  local ok, err = xpcall(f, debug.traceback)
  if ok then
    M.log("PASS")
  else
    M.log("FAIL: " .. tostring(err))
  end
  io.stdout:flush()
  vim.cmd("cquit " .. (ok and 0 or 1))
end

return M

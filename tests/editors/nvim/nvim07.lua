-- Neovim 0.7 end-to-end test: the README's vim.lsp.start_client block and the
-- project's ftdetect/apache_lsp.lua, against the apache-lsp on PATH.
-- Run: tests/editors/run.sh nvim   (or APACHE_LSP_REPO=... nvim --headless -u NONE -i NONE -c 'luafile THIS')
local here = debug.getinfo(1, "S").source:sub(2):match("(.*)/")
local S = dofile(here .. "/scenario.lua")

local function filetype_of(path)
  vim.cmd("enew!")
  vim.cmd("noautocmd file " .. vim.fn.fnameescape(path))
  vim.cmd("doautocmd BufNewFile " .. vim.fn.fnameescape(path))
  local ft = vim.bo.filetype
  vim.cmd("bwipeout!")
  return ft
end

S.main(function()
  S.run_snippet(S.readme_block("editors/nvim/README.md", "nvim-0.7"), "README nvim-0.7 block")
  vim.cmd("filetype on")

  local path = S.fixture_path()
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  assert(vim.bo[buf].filetype == "apache", "filetype of apache2.conf: " .. vim.bo[buf].filetype)
  local client_id
  assert(vim.wait(10000, function()
    for id, c in pairs(vim.lsp.buf_get_clients(buf)) do
      if c.name == "apache_lsp" and c.initialized ~= false then client_id = id end
    end
    return client_id ~= nil
  end, 20), "apache_lsp did not attach (FileType autocommand)")
  S.log("attached: client " .. client_id)

  S.run(buf, client_id, {
    apply = function(_, client, chosen, enc)
      if chosen.edit then
        vim.lsp.util.apply_workspace_edit(chosen.edit, enc)
      end
      if chosen.command then
        client.request("workspace/executeCommand", chosen.command, function() end, buf)
      end
    end,
  })

  -- filetype rules (0.7 has no vim.filetype.match: the autocommands decide)
  local dir = vim.fn.tempname()
  for p, want in pairs({
    [dir .. "/site/sites-available/000-default.conf"] = "apache",
    [dir .. "/conf.d/ssl.conf"] = "apache",
    [dir .. "/www/x.htaccess"] = "apache",
    [dir .. "/nginx/sites-available/default"] = false,
  }) do
    local got = filetype_of(p)
    assert(want == false and got ~= "apache" or got == want, ("filetype of %s: %s"):format(p, got))
  end
  S.log("ftdetect: sites-available, conf.d, *.htaccess -> apache; nginx untouched")
  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
end)

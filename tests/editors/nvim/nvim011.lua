-- Neovim 0.11+ end-to-end test: the README's vim.lsp.enable block, the project's
-- lsp/apache_lsp.lua and ftdetect/apache_lsp.lua, against the apache-lsp on PATH.
-- Run: tests/editors/run.sh nvim   (or APACHE_LSP_REPO=... nvim --headless -u NONE -i NONE -c 'luafile THIS')
local here = debug.getinfo(1, "S").source:sub(2):match("(.*)/")
local S = dofile(here .. "/scenario.lua")

S.main(function()
  assert(vim.fn.has("nvim-0.11") == 1, "needs Neovim 0.11+, got " .. tostring(vim.version()))
  S.run_snippet(S.readme_block("editors/nvim/README.md", "nvim-0.11"), "README nvim-0.11 block")
  vim.cmd("filetype on")

  -- filetype rules: ours add what the built-in ones miss, and leave nginx alone
  for path, want in pairs({
    ["/home/u/site/sites-available/000-default.conf"] = "apache",
    ["/srv/conf-available/security.conf"] = "apache",
    ["/opt/web/conf.d/ssl.conf"] = "apache",
    ["/srv/www/blog/x.htaccess"] = "apache",
    ["/etc/nginx/sites-available/default"] = "nginx",
    ["/etc/fonts/conf.d/10-hinting.conf"] = false,
  }) do
    local got = vim.filetype.match({ filename = path })
    assert(want == false and got ~= "apache" or got == want,
      ("filetype of %s: %s, expected %s"):format(path, tostring(got), tostring(want)))
  end
  S.log("ftdetect: sites-available, conf-available, conf.d, *.htaccess -> apache; nginx, fontconfig untouched")

  -- the lspconfig entry defines configs.apache_lsp and sets it up (stand-in lspconfig modules)
  local configs, set_up = {}, nil
  package.preload["lspconfig.configs"] = function() return configs end
  package.preload["lspconfig.util"] = function() return { root_pattern = function(...) return { ... } end } end
  package.preload["lspconfig"] = function()
    return setmetatable({}, { __index = function(_, k)
      return { setup = function(o) set_up = { name = k, opts = o } end }
    end })
  end
  dofile(S.repo .. "/editors/nvim/lspconfig.lua")
  local dc = configs.apache_lsp and configs.apache_lsp.default_config
  assert(dc and dc.cmd[1] == "apache-lsp" and vim.tbl_contains(dc.filetypes, "apache"), "lspconfig.lua: configs.apache_lsp")
  assert(set_up and set_up.name == "apache_lsp", "lspconfig.lua does not call apache_lsp.setup")
  S.log("lspconfig.lua: configs.apache_lsp defined and set up")

  local path = S.fixture_path()
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  assert(vim.bo[buf].filetype == "apache", "filetype of apache2.conf: " .. vim.bo[buf].filetype)
  assert(vim.wait(10000, function() return #vim.lsp.get_clients({ bufnr = buf, name = "apache_lsp" }) > 0 end, 20),
    "apache_lsp did not attach (vim.lsp.enable)")
  local client = vim.lsp.get_clients({ bufnr = buf, name = "apache_lsp" })[1]
  S.log("attached: " .. table.concat(client.config.cmd, " ") .. " root " .. tostring(client.root_dir))

  S.run(buf, client.id, {
    -- hover as a user sees it: K opens a floating window
    hover_float = function()
      vim.lsp.buf.hover()
      local text
      assert(vim.wait(5000, function()
        for _, w in ipairs(vim.api.nvim_list_wins()) do
          if vim.api.nvim_win_get_config(w).relative ~= "" then
            text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "\n")
            return text:find("Effective access", 1, true) ~= nil
          end
        end
      end, 20), "no hover float with 'Effective access'")
      S.log("hover float shown (" .. #text .. " chars)")
      vim.cmd("fclose!")
    end,
    -- what `gra` does, minus the menu: vim.lsp.buf.code_action applies the only match
    apply = function(_, _, chosen)
      vim.lsp.buf.code_action({
        apply = true,
        context = { only = { "quickfix" } },
        filter = function(a) return a.title == chosen.title and a.isPreferred end,
      })
    end,
  })
  client:stop()
  vim.wait(5000, function() return client:is_stopped() end, 20)
end)

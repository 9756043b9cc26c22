-- apache-lsp for Neovim 0.11+: put this folder (editors/nvim) on 'runtimepath', then
--   vim.lsp.enable("apache_lsp")
-- Override any field with vim.lsp.config("apache_lsp", { ... }), e.g. cmd or init_options.
---@type vim.lsp.Config
return {
  cmd = { "apache-lsp" },
  -- Neovim's filetype for httpd configuration; ftdetect/apache_lsp.lua widens it.
  filetypes = { "apache" },
  -- The folder of the main configuration (or the repository) is the workspace.
  root_markers = { "apache2.conf", "httpd.conf", ".git" },
  -- Read once at start-up, like VS Code's apacheLsp.* settings:
  --   rootConfig = "/etc/apache2/apache2.conf",             -- main file of the Include tree
  --   diagnostics = { severity = { ["deprecated-access"] = "error" } },
  init_options = vim.empty_dict(),
}

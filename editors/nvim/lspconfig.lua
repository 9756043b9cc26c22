-- apache-lsp with nvim-lspconfig (any Neovim lspconfig supports, 0.7 and later):
-- registers the server under the name apache_lsp, then sets it up.
-- Copy this into your config (or :luafile it); pass your own options to setup().
local configs = require("lspconfig.configs")
local util = require("lspconfig.util")

if not configs.apache_lsp then
  configs.apache_lsp = {
    default_config = {
      cmd = { "apache-lsp" },
      filetypes = { "apache" },
      root_dir = util.root_pattern("apache2.conf", "httpd.conf", ".git"),
      single_file_support = true,
      -- init_options = { rootConfig = "/etc/apache2/apache2.conf",
      --                  diagnostics = { severity = { ["deprecated-access"] = "error" } } },
    },
    docs = {
      description = [[
apache-lsp: diagnostics, hover and quick fixes for Apache httpd configuration,
including the migration of 2.2 Order/Allow/Deny/Satisfy to 2.4 Require.
Build it with `cargo install --path lsp` from the apache-lsp repository.
]],
    },
  }
end

require("lspconfig").apache_lsp.setup({})

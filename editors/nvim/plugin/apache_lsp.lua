-- Highlight groups for the semantic token types apache-lsp adds to the standard ones
-- (directive, section, argument); `default` leaves a colour scheme's own choice alone.
-- Neovim highlights semantic tokens from 0.9 on; earlier versions ignore these groups.
local links = {
  ["@lsp.type.directive"] = "Keyword",
  ["@lsp.type.section"] = "Tag",
  ["@lsp.type.argument"] = "Identifier",
}
for group, target in pairs(links) do
  pcall(vim.api.nvim_set_hl, 0, group, { link = target, default = true })
end

-- Filetype 'apache' for the httpd configuration files that Neovim's own rules miss:
-- they only know /etc/apache2/ and /etc/httpd/ (plus httpd.conf, apache2.conf,
-- .htaccess... anywhere, and httpd-*.conf from 0.11). Folders that other daemons
-- share (nginx's sites-available, fontconfig's conf.d...) are left to their rules.
local others = { "/nginx/", "/fonts/", "/php/", "/proftpd/", "/lighttpd/", "/systemd/", "/containers/" }

local function apache_unless_other(path)
  for _, o in ipairs(others) do
    if path:find(o, 1, true) then
      return nil
    end
  end
  return "apache"
end

if vim.fn.has("nvim-0.8") == 1 then
  -- Patterns match the whole path (0.8-0.10) or a part of it (0.11+): both work here.
  vim.filetype.add({
    pattern = {
      [".*/httpd%-[^/]*%.conf"] = apache_unless_other,
      [".*%.htaccess"] = "apache",
      [".*/apache2/.*%.conf"] = apache_unless_other,
      [".*/httpd/.*%.conf"] = apache_unless_other,
      [".*/sites%-available/[^/]*"] = apache_unless_other,
      [".*/sites%-enabled/[^/]*"] = apache_unless_other,
      [".*/conf%-available/[^/]*%.conf"] = apache_unless_other,
      [".*/conf%.d/[^/]*%.conf"] = apache_unless_other,
    },
  })
else
  -- Neovim 0.7: filetype.vim's autocommands; :setfiletype keeps an earlier, more specific match.
  vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
    group = vim.api.nvim_create_augroup("apache_lsp_ftdetect", { clear = true }),
    pattern = {
      "httpd-*.conf", "*.htaccess", "*/apache2/*.conf", "*/httpd/*.conf", "*/sites-available/*",
      "*/sites-enabled/*", "*/conf-available/*.conf", "*/conf.d/*.conf",
    },
    callback = function(args)
      if apache_unless_other(vim.fn.fnamemodify(args.file, ":p")) then
        vim.cmd("setfiletype apache")
      end
    end,
  })
end

" End-to-end test: Vim 9 + ALE 3.3 against apache-lsp, using the Vim block of editors/README.md.
" Opens apache2.conf with 2.2 access control; checks diagnostics, hover and the quick fix.
" Run: tests/editors/run.sh vim   (or APACHE_LSP_REPO=... vim -N -u NONE -i NONE -es -S THIS)
" Exit status 0 = pass, 1 = fail.  (-es: no terminal; :sleep runs job callbacks and timers)
set nocompatible
let s:t0 = reltime()
let s:repo = $APACHE_LSP_REPO
let s:timeout = empty($APACHE_LSP_E2E_TIMEOUT_MS) ? 20 : str2nr($APACHE_LSP_E2E_TIMEOUT_MS) / 1000.0

function! s:Log(msg) abort
  " in -es mode, :verbose echo goes to stdout
  verbose echo printf('[%5.2fs] %s', reltimefloat(reltime(s:t0)), a:msg)
endfunction

function! s:WaitFor(expr, secs) abort
  let l:n = float2nr(a:secs * 50)
  while !eval(a:expr) && l:n > 0
    sleep 20m
    let l:n -= 1
  endwhile
  return eval(a:expr)
endfunction

function! s:ReadmeBlock(name) abort
  let l:lines = readfile(s:repo . '/editors/README.md')
  let l:at = match(l:lines, '<!-- test: ' . a:name)
  if l:at < 0 | throw 'README: no block ' . a:name | endif
  let l:start = match(l:lines, '^```vim$', l:at) + 1
  let l:end = match(l:lines, '^```$', l:start) - 1
  return l:lines[l:start : l:end]
endfunction

function! s:Deprecated(buf) abort
  return filter(copy(ale#engine#GetLoclist(a:buf)), 'get(v:val, "code", "") is# "deprecated-access"')
endfunction

function! s:DirectoryOk() abort
  let l:inside = 0 | let l:require = 0 | let l:old = 0
  for l:l in getline(1, '$')
    if l:l =~? '^\s*<Directory\s' | let l:inside = 1
    elseif l:l =~? '^\s*</Directory>' | let l:inside = 0
    elseif l:inside
      let l:require = l:require || l:l =~# '^\s*Require ip 127\.0\.0\.1\s*$'
      let l:old = l:old || l:l =~? '^\s*\(order\|allow\|deny\|satisfy\)\s'
    endif
  endfor
  return l:require && !l:old
endfunction

let s:hover = v:null
let s:actions = v:null
function! s:OnHover(response) abort
  let s:hover = get(a:response, 'result', {})
endfunction
function! s:OnCodeAction(response) abort
  let s:actions = get(a:response, 'result', [])
endfunction

try
  if empty(s:repo) | throw 'APACHE_LSP_REPO is not set' | endif
  let s:snippet = tempname() . '.vim'
  call writefile(s:ReadmeBlock('vim-ale'), s:snippet)
  execute 'source ' . fnameescape(s:snippet)
  filetype plugin on
  let g:ale_enabled = 1
  let g:ale_lint_on_enter = 1
  let g:ale_echo_cursor = 0
  let g:ale_set_signs = 0
  runtime plugin/ale.vim
  call s:Log('README block sourced, ALE loaded')

  let s:dir = tempname()
  call mkdir(s:dir, 'p')
  call writefile(readfile(s:repo . '/tests/editors/fixtures/apache2.conf'), s:dir . '/apache2.conf')
  execute 'edit ' . fnameescape(s:dir . '/apache2.conf')
  if &filetype isnot# 'apache' | throw 'apache2.conf: filetype ' . &filetype | endif
  let s:buf = bufnr('')
  ALELint

  " 1. diagnostics
  if !s:WaitFor('len(s:Deprecated(s:buf)) >= 2', s:timeout)
    throw printf('no deprecated-access diagnostics within %ss (diagnostics: %s)', s:timeout,
    \ string(map(copy(ale#engine#GetLoclist(s:buf)), 'v:val.text')))
  endif
  let s:ds = s:Deprecated(s:buf)
  for s:d in s:ds
    call s:Log(printf('diagnostic %d:%d [%s %s] %s', s:d.lnum, s:d.col, s:d.type, s:d.code, s:d.text))
    if s:d.type isnot# 'W' | throw 'not a warning' | endif
  endfor
  if map(copy(s:ds), 'v:val.lnum') != [6, 7] | throw 'expected deprecated-access on lines 6 and 7' | endif

  " 2. hover on the <Directory> header (asked through ALE's connection, to read it)
  call ale#lsp_linter#SendRequest(s:buf, 'apache_lsp', ale#lsp#message#Hover(s:buf, 5, 4), function('s:OnHover'))
  if !s:WaitFor('s:hover isnot v:null', 10) | throw 'no hover reply' | endif
  let s:htext = type(s:hover) == v:t_dict && type(get(s:hover, 'contents')) == v:t_dict ? s:hover.contents.value : string(s:hover)
  call s:Log('hover: ' . substitute(s:htext, '\n', ' / ', 'g'))
  if s:htext !~# 'Effective access' | throw "hover lacks 'Effective access'" | endif
  if s:htext !~# '\<\(200\|403\)\>' | throw 'hover lacks an HTTP status' | endif

  " 3. the preferred quick fix on the Order line, applied with ALE's own code (as :ALECodeAction after the menu)
  call ale#lsp_linter#SendRequest(s:buf, 'apache_lsp',
  \ ale#lsp#message#CodeAction(s:buf, 6, 5, 6, 5, []), function('s:OnCodeAction'))
  if !s:WaitFor('s:actions isnot v:null', 10) | throw 'no code action reply' | endif
  let s:actions = type(s:actions) == v:t_list ? s:actions : []
  call s:Log('code actions: ' . string(map(copy(s:actions), 'v:val.title')))
  let s:chosen = filter(copy(s:actions), 'get(v:val, "isPreferred", v:false) is v:true'
  \ . ' && get(v:val, "kind", "") =~# "^quickfix" && v:val.title =~# "^Rewrite as Require"')
  if empty(s:chosen) | throw "no preferred quickfix titled 'Rewrite as Require...'" | endif
  call ale#codefix#ApplyLSPCodeAction({}, s:chosen[0])
  call s:Log('buffer after the fix: ' . join(getline(1, '$'), ' | '))
  if !s:DirectoryOk() | throw "the Directory does not hold 'Require ip 127.0.0.1' without Order/Allow lines" | endif

  " 4. ALE sends didChange when it lints the changed buffer; the server withdraws the diagnostics
  ALELint
  if !s:WaitFor('empty(s:Deprecated(s:buf))', s:timeout) | throw 'deprecated-access diagnostics still there after the fix' | endif
  call s:Log('deprecated-access diagnostics after the fix: 0')
  ALEStopAllLSPs

  " the README's filetype rules (checked last: each apache buffer would start ALE again)
  let g:ale_enabled = 0
  set hidden
  for [s:path, s:want] in [['/site/sites-available/000-default.conf', 'apache'], ['/www/x.htaccess', 'apache'],
  \ ['/conf.d/ssl.conf', 'apache'], ['/nginx/sites-available/default', '']]
    execute 'edit! ' . fnameescape(s:dir . s:path)
    if (s:want is# 'apache') != (&filetype is# 'apache')
      throw printf('filetype of %s: %s', s:path, &filetype)
    endif
  endfor
  call s:Log('ftdetect: sites-available, *.htaccess, conf.d -> apache; nginx untouched')
  call s:Log('PASS')
  verbose echo ''
  qall!
catch
  call s:Log('FAIL: ' . v:exception . ' @ ' . v:throwpoint)
  verbose echo ''
  cquit 1
endtry

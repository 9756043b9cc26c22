#!/usr/bin/env node
// Builds the .vsix (run by `npm run package` after the esbuild bundle).
//
// The server binary is bundled as server/apache-lsp when one is present:
// $APACHE_LSP_SERVER_BINARY if set, else ../../target/release/apache-lsp
// (from `cargo build --release -p apache-lsp`). APACHE_LSP_BUNDLE_SERVER=0 skips
// bundling. A bundled binary makes the .vsix platform specific, so it is then
// packaged with --target <platform>-<arch>.
// Output: $VSIX_OUT, else apache-lsp-<version>.vsix in the extension folder.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const pkg = require(path.join(root, 'package.json'));
const serverDir = path.join(root, 'server');
const exe = process.platform === 'win32' ? 'apache-lsp.exe' : 'apache-lsp';

fs.rmSync(serverDir, { recursive: true, force: true });
const args = ['package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links'];
const source = process.env.APACHE_LSP_SERVER_BINARY || path.join(root, '..', '..', 'target', 'release', exe);
if (process.env.APACHE_LSP_BUNDLE_SERVER !== '0' && fs.existsSync(source)) {
  fs.mkdirSync(serverDir);
  fs.copyFileSync(source, path.join(serverDir, exe));
  fs.chmodSync(path.join(serverDir, exe), 0o755);
  const platform = process.platform === 'win32' ? 'win32' : process.platform;
  args.push('--target', `${platform}-${process.arch}`);
  console.log(`bundling ${source} as server/${exe}`);
} else {
  console.log(`no server binary bundled (${source} absent or APACHE_LSP_BUNDLE_SERVER=0): the extension will use apacheLsp.server.path or PATH`);
}
const out = process.env.VSIX_OUT || path.join(root, `${pkg.name}-${pkg.version}.vsix`);
args.push('--out', out);
execFileSync(process.execPath, [require.resolve('@vscode/vsce/vsce'), ...args], { cwd: root, stdio: 'inherit' });
console.log(`wrote ${out}`);

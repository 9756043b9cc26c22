// VS Code end-to-end test: the real workbench (code-server) with the project's .vsix, driven by
// playwright-core in headless Debian Chromium. Opens apache2.conf with 2.2 access control and checks,
// as a user sees them: the Deprecated diagnostics (squiggles, strike-through, Problems panel), the
// hover on <Directory>, the Ctrl+. quick fix "Rewrite as Require…", the edited text and that the
// diagnostics go away. Saves screenshots to the artefact folder.
// Usage: node e2e.js URL ARTEFACT_DIR      (run by tests/editors/vscode/run.sh)   exit 0 = pass
'use strict';
const { chromium } = require('playwright-core');

const URL = process.argv[2];
const SHOTS = process.argv[3];
const LOAD = 90000; // workbench start-up on a busy 2-core machine
const T = Number(process.env.APACHE_LSP_E2E_TIMEOUT_MS || 20000);

const t0 = Date.now();
const lap = (m) => console.log(`[${((Date.now() - t0) / 1000).toFixed(2).padStart(5)}s] ${m}`);
const oneLine = (s) => s.replace(/\s+/g, ' ').trim();

// The editor's text, line by line, from the rendered view lines (the file is short: all are rendered).
async function editorLines(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line')]
      .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
      .map((l) => l.textContent.replace(/\u00a0/g, ' ')));
}

function directoryOk(lines) {
  let inside = false, require = false, old = false;
  for (const l of lines) {
    if (/^\s*<Directory\s/i.test(l)) inside = true;
    else if (/^\s*<\/Directory>/i.test(l)) inside = false;
    else if (inside) {
      if (/^\s*Require ip 127\.0\.0\.1\s*$/.test(l)) require = true;
      if (/^\s*(order|allow|deny|satisfy)\s/i.test(l)) old = true;
    }
  }
  return require && !old;
}

// Runs a command by its Command Palette title.
async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await page.keyboard.type(title);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: T });
  await page.keyboard.press('Enter');
}

async function step(what, f) {
  try {
    return await f();
  } catch (e) {
    throw new Error(`${what}: ${e.message.split('\n')[0]}`);
  }
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  let ok = false;
  try {
    await page.goto(URL);
    await page.waitForSelector('.monaco-workbench', { timeout: LOAD });
    const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'apache2.conf' }).first();
    await step('Explorer shows apache2.conf', () => row.waitFor({ timeout: LOAD }));
    lap('workbench and Explorer loaded');

    await row.click();
    await page.waitForSelector('.tab.active[aria-label*="apache2.conf"], .tab.active:has-text("apache2.conf")', { timeout: T });
    await step('language mode "Apache Conf" (contributes.languages)', () =>
      page.locator('[id="status.editor.mode"]', { hasText: 'Apache Conf' }).waitFor({ timeout: T }));
    lap('apache2.conf open, language mode Apache Conf');

    // 1. diagnostics: warning squiggles, struck through (tag Deprecated), listed in the Problems panel
    await step('deprecated-access diagnostics (warning squiggle)', () =>
      page.waitForSelector('.editor-instance .monaco-editor .squiggly-warning', { timeout: T }));
    await step('Deprecated tag (strike-through)', () =>
      page.waitForSelector('.editor-instance .monaco-editor .squiggly-inline-deprecated', { timeout: T }));
    await page.keyboard.press('Control+Shift+M');
    const problems = page.locator('.markers-panel .monaco-list-row', { hasText: 'deprecated-access' });
    await step('Problems panel lists two deprecated-access warnings', () =>
      page.waitForFunction(() => [...document.querySelectorAll('.markers-panel .monaco-list-row')]
        .filter((r) => r.textContent.includes('deprecated-access')).length === 2, null, { timeout: T }));
    for (const text of await problems.allInnerTexts()) lap('Problems: ' + oneLine(text));
    const warningRows = await problems.locator('.codicon-warning, .codicon-warning-filled, [class*="warning"]').count();
    if (warningRows < 2) throw new Error('Problems panel: deprecated-access rows are not warnings');

    // 2. hover on the <Directory> header (line 5): Ctrl+K Ctrl+I, "Show or Focus Hover"
    await page.locator('.editor-instance .monaco-editor .view-lines').first().click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    const hover = page.locator('.monaco-hover', { hasText: 'Effective access' }).first();
    await step('hover on <Directory> with "Effective access"', () => hover.waitFor({ state: 'visible', timeout: T }));
    const hoverText = oneLine(await hover.innerText());
    lap('hover: ' + hoverText.slice(0, 200));
    if (!/\b(200|403)\b/.test(hoverText)) throw new Error('hover lacks an HTTP status (200/403)');
    await page.waitForTimeout(500); // let the hover finish fading in before the screenshot
    await page.screenshot({ path: `${SHOTS}/vscode-hover.png` });
    await page.keyboard.press('Escape');

    // 3. quick fix on the Order line (line 6): Ctrl+. and pick the preferred "Rewrite as Require…"
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Home'); // first non-blank: on the diagnostic
    // the light bulb says VS Code has the line's code actions; Ctrl+. before that can race the
    // cursor move and answer "No code actions available": then try again, and say so
    await page.locator('.monaco-editor .lightBulbWidget').first().waitFor({ state: 'visible', timeout: T }).catch(() => {});
    const item = page.locator('.action-widget .monaco-list-row', { hasText: 'Rewrite as Require' }).first();
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('Control+.');
      try {
        await item.waitFor({ state: 'visible', timeout: attempt < 3 ? 5000 : T });
        break;
      } catch (e) {
        const none = await page.locator('.monaco-editor', { hasText: 'No code actions available' }).count();
        if (attempt >= 3) throw new Error(`quick fix menu offers "Rewrite as Require…": ${none ? 'No code actions available' : e.message.split('\n')[0]}`);
        lap(`note: Ctrl+. attempt ${attempt} showed ${none ? '"No code actions available"' : 'no menu'}; trying again`);
        await page.keyboard.press('Escape');
      }
    }
    const menu = (await page.locator('.action-widget .monaco-list-row').allInnerTexts()).map(oneLine);
    lap('quick fix menu: ' + menu.join(' | '));
    await page.screenshot({ path: `${SHOTS}/vscode-quickfix.png` });
    const focused = page.locator('.action-widget .monaco-list-row.focused').first();
    if ((await focused.count()) && (await focused.innerText()).includes('Rewrite as Require')) {
      await page.keyboard.press('Enter');
    } else {
      await item.click();
    }
    let lines = [];
    let applied = false;
    const deadline = Date.now() + T;
    while (!applied && Date.now() < deadline) {
      await page.waitForTimeout(100);
      lines = await editorLines(page);
      applied = directoryOk(lines);
    }
    lap('editor after the fix: ' + lines.join(' | '));
    if (!applied) throw new Error("the Directory does not hold 'Require ip 127.0.0.1' without Order/Allow lines");

    // 4. the server saw the change and withdrew the diagnostics
    await step('deprecated-access gone from the Problems panel', () =>
      page.waitForFunction(() => ![...document.querySelectorAll('.markers-panel .monaco-list-row')]
        .some((r) => r.textContent.includes('deprecated-access')), null, { timeout: T }));
    await step('strike-through gone', () =>
      page.waitForSelector('.editor-instance .monaco-editor .squiggly-inline-deprecated', { state: 'detached', timeout: T }));
    lap('diagnostics withdrawn after the fix');
    await page.screenshot({ path: `${SHOTS}/vscode-after-fix.png` });

    // 5. the extension's commands are in the Command Palette
    await page.keyboard.press('F1');
    await page.keyboard.type('apache-lsp: ');
    const wanted = ['Migrate file to Require', 'Migrate configuration tree', 'Explain access for URL', 'Show syntax tree', 'Restart server'];
    await step('Command Palette lists the apache-lsp commands', () =>
      page.waitForFunction((w) => {
        const t = [...document.querySelectorAll('.quick-input-list .monaco-list-row')].map((r) => r.textContent).join('\n');
        return w.every((c) => t.includes(c));
      }, wanted, { timeout: T }));
    lap('Command Palette: ' + wanted.join(', '));
    await page.keyboard.press('Escape');

    // 6. the commands that show what the server returns: syntax tree, then explain (URL + client asked)
    await runCommand(page, 'apache-lsp: Show syntax tree');
    await step('"Show syntax tree" opens the tree', () =>
      page.locator('.view-line', { hasText: /[A-Z_]+@0\.\.\d+/ }).first().waitFor({ timeout: T }));
    lap('Show syntax tree: ' + oneLine(await page.locator('.view-line', { hasText: /@0\.\./ }).first().innerText()));
    await page.locator('.tab', { hasText: 'apache2.conf' }).first().click();
    await runCommand(page, 'apache-lsp: Explain access for URL');
    const box = page.locator('.quick-input-widget .quick-input-box input').first();
    await step('Explain asks for the URL', () => box.waitFor({ state: 'visible', timeout: T }));
    await box.fill('/index.html');
    await page.keyboard.press('Enter');
    await step('Explain asks for the client', () =>
      page.locator('.quick-input-widget', { hasText: 'Client IP address' }).waitFor({ state: 'visible', timeout: T }));
    await page.keyboard.press('Enter'); // default 127.0.0.1
    await step('"Explain access" shows the explanation', () =>
      page.locator('.view-line', { hasText: 'GET /index.html from 127.0.0.1' }).first().waitFor({ timeout: T }));
    lap('Explain access: GET /index.html from 127.0.0.1 explained');
    await page.screenshot({ path: `${SHOTS}/vscode-explain.png` });

    // 7. a server path that does not exist, typed in the Settings editor: the extension restarts
    //    the server and says what to do
    await page.keyboard.press('Control+,');
    const search = page.locator('.settings-editor .suggest-input-container textarea, .settings-editor .search-container textarea').first();
    await step('Settings editor', () => search.waitFor({ timeout: T }));
    // machine-overridable: code-server lists it under the Remote tab, not User
    await page.locator('.settings-editor .settings-tabs-widget .action-label', { hasText: 'Remote' }).first().click();
    await search.fill('apacheLsp.server.path');
    const input = page.locator('.settings-editor .setting-item-contents', { hasText: 'Server: Path' })
      .locator('input').first();
    await step('setting apacheLsp.server.path in the Settings editor', () => input.waitFor({ timeout: T }));
    await input.fill('/nonexistent/apache-lsp');
    await input.press('Tab');
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'apache-lsp' }).first();
    await step('notification for a missing server', () => toast.waitFor({ state: 'visible', timeout: T }));
    const text = oneLine(await toast.innerText());
    lap('notification: ' + text.slice(0, 160));
    await page.screenshot({ path: `${SHOTS}/vscode-server-missing.png` });
    if (!text.includes('not an executable file') || !text.includes('Open Settings')) {
      throw new Error('the missing-server notification does not say what to do');
    }
    ok = true;
  } catch (e) {
    console.log('FAIL: ' + e.message.split('\n')[0]);
    await page.screenshot({ path: `${SHOTS}/vscode-fail.png` }).catch(() => {});
  } finally {
    await browser.close();
  }
  console.log(ok ? 'PASS' : 'FAIL');
  process.exit(ok ? 0 : 1);
})();

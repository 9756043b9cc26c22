// VS Code client for apache-lsp: finds the server binary, starts it over stdio for the
// `apacheconf` language, and maps the extension's commands onto the server's
// workspace/executeCommand commands. All analysis lives in the server.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  WorkspaceEdit as ProtocolWorkspaceEdit,
} from 'vscode-languageclient/node';

const SECTION = 'apacheLsp';
const EXE = process.platform === 'win32' ? 'apache-lsp.exe' : 'apache-lsp';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let resultChannel: vscode.OutputChannel;
let traceChannel: vscode.OutputChannel;

/** Where the server binary comes from, in the order the README documents. */
interface Found {
  path: string;
  from: 'setting' | 'bundled' | 'PATH';
}

function isExecutable(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function expandSettingPath(p: string): string {
  let out = p.trim();
  if (out === '~' || out.startsWith('~/')) out = path.join(os.homedir(), out.slice(1));
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (folder) out = out.replace(/\$\{workspaceFolder\}/g, folder);
  if (!path.isAbsolute(out) && folder) out = path.join(folder, out);
  return out;
}

function findOnPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, EXE);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** Setting, then the binary bundled in the .vsix, then PATH; a string says what went wrong. */
function findServer(context: vscode.ExtensionContext): Found | string {
  const configured = vscode.workspace.getConfiguration(SECTION).get<string>('server.path', '');
  if (configured.trim()) {
    const p = expandSettingPath(configured);
    if (isExecutable(p)) return { path: p, from: 'setting' };
    return `The setting apacheLsp.server.path points to "${p}", which is not an executable file.`;
  }
  const bundled = context.asAbsolutePath(path.join('server', EXE));
  if (fs.existsSync(bundled)) {
    // A .vsix is a zip file: the executable bit may be lost on installation.
    try {
      fs.chmodSync(bundled, 0o755);
    } catch {
      /* read-only install: isExecutable decides */
    }
    if (isExecutable(bundled)) return { path: bundled, from: 'bundled' };
  }
  const onPath = findOnPath();
  if (onPath) return { path: onPath, from: 'PATH' };
  return 'The apache-lsp language server was not found: no apacheLsp.server.path setting, no binary bundled with the extension, and no apache-lsp on PATH.';
}

function initializationOptions() {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const options: Record<string, unknown> = {};
  const rootConfig = cfg.get<string>('rootConfig', '').trim();
  if (rootConfig) options.rootConfig = expandSettingPath(rootConfig);
  const severity = cfg.get<Record<string, string>>('diagnostics.severity', {});
  if (severity && Object.keys(severity).length > 0) options.diagnostics = { severity };
  return options;
}

async function reportMissingServer(message: string) {
  const openSettings = 'Open Settings';
  const howTo = 'How to install';
  const choice = await vscode.window.showErrorMessage(
    `${message} Build it with "cargo install --path lsp" in the apache-lsp repository, ` +
      'then set apacheLsp.server.path or put apache-lsp on PATH, and run "apache-lsp: Restart server".',
    openSettings,
    howTo,
  );
  if (choice === openSettings) {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'apacheLsp.server.path');
  } else if (choice === howTo) {
    output.appendLine('Install apache-lsp: cargo install --path lsp   (from a checkout of the apache-lsp repository)');
    output.appendLine('Then either put ~/.cargo/bin on PATH or set "apacheLsp.server.path" to the binary.');
    output.show(true);
  }
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const found = findServer(context);
  if (typeof found === 'string') {
    output.appendLine(found);
    void reportMissingServer(found);
    return;
  }
  output.appendLine(`Starting ${found.path} (from ${found.from})`);
  // No `transport`: with TransportKind.stdio the client would append a --stdio argument,
  // which apache-lsp (stdio is its default) rejects.
  const serverOptions: ServerOptions = { command: found.path, args: [] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'apacheconf' }],
    initializationOptions: initializationOptions(),
    outputChannel: output,
    traceOutputChannel: traceChannel,
    synchronize: { configurationSection: SECTION },
  };
  client = new LanguageClient('apacheLsp', 'apache-lsp', serverOptions, clientOptions);
  try {
    await client.start();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    output.appendLine(`apache-lsp failed to start: ${message}`);
    void vscode.window.showErrorMessage(`apache-lsp failed to start (${found.path}): ${message}`);
  }
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try {
      await c.stop();
    } catch {
      /* already dead */
    }
  }
}

/** Runs a server command; a returned WorkspaceEdit is applied, returned text is shown. */
async function runServerCommand(command: string, args: unknown[], title: string): Promise<void> {
  if (!client || !client.isRunning()) {
    void vscode.window.showErrorMessage('apache-lsp is not running: see the "apache-lsp" output channel.');
    return;
  }
  let result: unknown;
  try {
    result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  } catch (e) {
    void vscode.window.showErrorMessage(`${title} failed: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  if (result && typeof result === 'object' && ('changes' in result || 'documentChanges' in result)) {
    const edit = await client.protocol2CodeConverter.asWorkspaceEdit(result as ProtocolWorkspaceEdit);
    const applied = await vscode.workspace.applyEdit(edit);
    if (!applied) void vscode.window.showErrorMessage(`${title}: the edit could not be applied.`);
    return;
  }
  const text = typeof result === 'string' ? result : (result as { text?: unknown } | null)?.text;
  if (typeof text === 'string' && text.length > 0) {
    resultChannel.clear();
    resultChannel.appendLine(`# ${title}`);
    resultChannel.appendLine(text);
    resultChannel.show(true);
    const doc = await vscode.workspace.openTextDocument({ content: text, language: 'plaintext' });
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  } else if (result !== null && result !== undefined) {
    resultChannel.appendLine(`# ${title}`);
    resultChannel.appendLine(JSON.stringify(result, null, 2));
    resultChannel.show(true);
  }
}

function activeApacheUri(): string | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'apacheconf') {
    void vscode.window.showWarningMessage('Open an Apache configuration file first.');
    return undefined;
  }
  return editor.document.uri.toString();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('apache-lsp');
  resultChannel = vscode.window.createOutputChannel('apache-lsp results');
  // apacheLsp.trace.server: the protocol traffic, apart from the server's own messages
  traceChannel = vscode.window.createOutputChannel('apache-lsp trace');
  context.subscriptions.push(output, resultChannel, traceChannel);

  const register = (id: string, f: () => Promise<void>) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, f));

  register('apacheLsp.migrateFile', async () => {
    const uri = activeApacheUri();
    if (uri) await runServerCommand('apache-lsp.migrateFile', [uri], 'Migrate file to Require');
  });
  register('apacheLsp.migrateTree', async () => {
    // The tree of the open file, else of the apacheLsp.rootConfig file.
    const editor = vscode.window.activeTextEditor;
    const rootConfig = vscode.workspace.getConfiguration(SECTION).get<string>('rootConfig', '').trim();
    const uri = editor?.document.languageId === 'apacheconf'
      ? editor.document.uri.toString()
      : rootConfig ? vscode.Uri.file(expandSettingPath(rootConfig)).toString() : undefined;
    if (!uri) {
      void vscode.window.showWarningMessage('Open an Apache configuration file, or set apacheLsp.rootConfig.');
      return;
    }
    await runServerCommand('apache-lsp.migrateTree', [uri], 'Migrate configuration tree');
  });
  register('apacheLsp.explain', async () => {
    const uri = activeApacheUri();
    if (!uri) return;
    const input = await vscode.window.showInputBox({
      title: 'Explain access',
      prompt: 'URL path of the request',
      placeHolder: '/server-status',
      value: '/',
      ignoreFocusOut: true,
    });
    if (!input) return;
    // The server wants the path (and query): take it out of a full URL.
    let url = input;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) {
      const parsed = new URL(input);
      url = parsed.pathname + parsed.search;
    }
    const clientAddr = await vscode.window.showInputBox({
      title: 'Explain access',
      prompt: 'Client IP address',
      value: '127.0.0.1',
      ignoreFocusOut: true,
    });
    if (!clientAddr) return;
    await runServerCommand('apache-lsp.explain', [{ uri, url, client: clientAddr }], `Access for ${url} from ${clientAddr}`);
  });
  register('apacheLsp.syntaxTree', async () => {
    const uri = activeApacheUri();
    if (uri) await runServerCommand('apache-lsp.syntaxTree', [{ uri }], 'Syntax tree');
  });
  register('apacheLsp.restartServer', async () => {
    await stopClient();
    await startClient(context);
  });

  // The server reads these only at initialize: restart it when they change.
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      const keys = ['server.path', 'rootConfig', 'diagnostics.severity'];
      if (keys.some((k) => e.affectsConfiguration(`${SECTION}.${k}`))) {
        output.appendLine('Settings changed: restarting apache-lsp');
        await stopClient();
        await startClient(context);
      }
    }),
  );

  await startClient(context);
}

export function deactivate(): Thenable<void> | undefined {
  return stopClient();
}

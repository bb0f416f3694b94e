// Starts `forge lsp` for `.forge.ron` scenes and restarts it when its settings change.
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction, ErrorAction, ErrorHandler, ExecuteCommandRequest, LanguageClient, LanguageClientOptions,
  ServerOptions, State,
} from 'vscode-languageclient/node';

const INSTALL_COMMAND = 'cargo install --git https://github.com/bevy-forge/bevy_forge_scene bevy_forge_scene_cli';
/** Settings that change how the server is launched; a change restarts it. */
const LAUNCH_SETTINGS = ['forge.serverPath', 'forge.serverArgs', 'forge.schemaPath', 'forge.remote'];

/** A client that only logs a failed start: `reportStartFailure` tells the user, once, what to do. */
class ForgeClient extends LanguageClient {
  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    super.error(message, data, this.state === State.StartFailed ? false : showNotification);
  }
}

let client: ForgeClient | undefined;
/** Starts and stops run one after another, however fast settings change. */
let queue: Promise<void> = Promise.resolve();

export function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Forge Scene', { log: true });
  // Created once and shared by every client: a client unhooks its listeners when it stops.
  const watchers = [
    vscode.workspace.createFileSystemWatcher('**/*.forge.ron'),
    vscode.workspace.createFileSystemWatcher('**/*.forge-schema.ron'),
  ];
  const restart = () => enqueue(async () => {
    await stopClient();
    await startClient(output, watchers);
  });
  context.subscriptions.push(
    output,
    ...watchers,
    vscode.commands.registerCommand('forge.restartServer', restart),
    vscode.commands.registerCommand('forge.revealInGame', revealInGame),
    vscode.commands.registerCommand('forge.openLiveEntity', openLiveEntity),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (LAUNCH_SETTINGS.some((setting) => event.affectsConfiguration(setting))) {
        void restart();
      }
    }),
  );
  return restart();
}

export function deactivate(): Promise<void> {
  return enqueue(stopClient);
}

function enqueue(step: () => Promise<void>): Promise<void> {
  queue = queue.then(step, step);
  return queue;
}

async function startClient(output: vscode.LogOutputChannel, watchers: vscode.FileSystemWatcher[]): Promise<void> {
  const config = vscode.workspace.getConfiguration('forge');
  const serverPath = config.get<string>('serverPath', 'forge').trim() || 'forge';
  // A bare name is looked up on PATH; a relative path with a directory part is the workspace's.
  const command = /[\\/]/.test(serverPath) ? fromWorkspace(serverPath) : serverPath;
  const args = ['lsp', ...config.get<string[]>('serverArgs', [])];
  const schemaPath = config.get<string>('schemaPath', '').trim();
  const remote = config.get<string>('remote', '').trim();

  // No `transport`: with `TransportKind.stdio` the client would append `--stdio` to the arguments.
  // Left out, it still talks to the process over stdin and stdout.
  const serverOptions: ServerOptions = { command, args };
  // A server that fails before it runs (say, a `forge` too old to know `lsp`) is not restarted: the
  // start fails, quietly, and `reportStartFailure` says so. Once it runs, the usual handling applies.
  let usual: ErrorHandler | undefined;
  const errorHandler: ErrorHandler = {
    error: (error, message, count) => started.state !== State.Running
      ? { action: ErrorAction.Shutdown, handled: true }
      : (usual ??= started.createDefaultErrorHandler()).error(error, message, count),
    closed: () => started.state !== State.Running
      ? { action: CloseAction.DoNotRestart, handled: true }
      : (usual ??= started.createDefaultErrorHandler()).closed(),
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'forge-ron' },
      { scheme: 'untitled', language: 'forge-ron' },
    ],
    synchronize: { fileEvents: watchers },
    initializationOptions: {
      ...(schemaPath ? { schemaPath: fromWorkspace(schemaPath) } : {}),
      ...(remote ? { remote } : {}),
    },
    outputChannel: output,
    errorHandler,
    initializationFailedHandler: () => false,
  };
  // The id `forge` makes the client read its trace level from `forge.trace.server`.
  const started: ForgeClient = new ForgeClient('forge', 'Forge Scene', serverOptions, clientOptions);
  started.onDidChangeState(({ newState }) => {
    if (newState === State.StartFailed) {
      reportStartFailure([command, ...args].join(' '), output);
    }
  });
  client = started;
  output.info(`Starting ${[command, ...args].join(' ')}`);
  // A failure was logged by the client and reported by the state listener above.
  await started.start().catch(() => undefined);
}

/** Selects the entity under the cursor in the running game (the server's `forge.revealEntity`). */
async function revealInGame(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (client === undefined || editor === undefined || editor.document.languageId !== 'forge-ron') {
    void vscode.window.showWarningMessage('Forge Scene: open a scene and put the cursor in an entity first.');
    return;
  }
  const position = client.code2ProtocolConverter.asPosition(editor.selection.active);
  const uri = client.code2ProtocolConverter.asUri(editor.document.uri);
  try {
    const answer = await client.sendRequest(ExecuteCommandRequest.type, {
      command: 'forge.revealEntity',
      arguments: [uri, position],
    }) as { entity?: number, id_path?: number[] } | null;
    void vscode.window.setStatusBarMessage(`Forge: selected entity ${JSON.stringify(answer?.id_path ?? [])} in the game`, 4000);
  } catch (error) {
    void vscode.window.showWarningMessage(`Forge Scene: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Opens the line that made a live entity (the server's `forge.openEntity`, which shows the document). */
async function openLiveEntity(entity?: number | string): Promise<void> {
  if (client === undefined) {
    return;
  }
  const asked = entity ?? await vscode.window.showInputBox({
    prompt: 'The live entity (its Entity::to_bits, as Bevy\'s remote protocol gives it)',
    validateInput: (value) => /^\d+$/.test(value.trim()) ? undefined : 'a whole number',
  });
  if (asked === undefined) {
    return;
  }
  try {
    await client.sendRequest(ExecuteCommandRequest.type, {
      command: 'forge.openEntity',
      arguments: [Number(String(asked).trim())],
    });
  } catch (error) {
    void vscode.window.showWarningMessage(`Forge Scene: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function stopClient(): Promise<void> {
  const stopping = client;
  client = undefined;
  if (stopping?.isRunning()) {
    await stopping.dispose().catch(() => undefined);
  }
}

function fromWorkspace(file: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return path.isAbsolute(file) || folder === undefined ? file : path.join(folder.uri.fsPath, file);
}

function reportStartFailure(commandLine: string, output: vscode.LogOutputChannel): void {
  const message = `Forge Scene: could not start the language server "${commandLine}". `
    + `Install the forge CLI with "${INSTALL_COMMAND}", or set "forge.serverPath" to the forge binary.`;
  void vscode.window.showErrorMessage(message, 'Open Settings', 'Show Output').then((choice) => {
    if (choice === 'Open Settings') {
      void vscode.commands.executeCommand('workbench.action.openSettings', 'forge.serverPath');
    } else if (choice === 'Show Output') {
      output.show(true);
    }
  });
}

// The NKI Verify extension: a thin client.  It finds a Python interpreter, starts the nki-verify language
// server (`python -m lsp`), restarts it when the interpreter or the server settings change, logs to an output
// channel and shows the server's state in the status bar.  All analysis happens in the server.
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from "vscode-languageclient/node";

const SECTION = "nkiVerify";
// settings that need a new server process; the others are sent live (workspace/didChangeConfiguration)
const RESTART_SETTINGS = ["interpreter", "serverCommand", "enable"];

type StatusState = "idle" | "analysing" | "error" | "stopped" | "disabled" | "starting";

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

class Extension {
  private client: LanguageClient | undefined;
  private readonly output: vscode.OutputChannel;
  private readonly status: vscode.StatusBarItem;
  private restarting: Promise<void> = Promise.resolve();

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel("NKI Verify");
    this.status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 0);
    this.status.command = "nkiVerify.showLog";
    this.status.name = "NKI Verify";
    context.subscriptions.push(this.output, this.status);
  }

  async activate(): Promise<void> {
    const subs = this.context.subscriptions;
    subs.push(vscode.commands.registerCommand("nkiVerify.restart", () => this.restart("the restart command")));
    subs.push(vscode.commands.registerCommand("nkiVerify.showLog", () => this.output.show(true)));
    subs.push(vscode.workspace.onDidChangeConfiguration((e) => {
      if (RESTART_SETTINGS.some((s) => e.affectsConfiguration(`${SECTION}.${s}`))) {
        void this.restart("a setting changed");
      }
    }));
    await this.watchPythonExtension();
    await this.restart("activation");
  }

  async deactivate(): Promise<void> {
    await this.stop();
  }

  private log(message: string): void {
    this.output.appendLine(`[${new Date().toISOString()}] ${message}`);
  }

  private setStatus(state: StatusState, detail = ""): void {
    const icons: Record<StatusState, string> = {
      idle: "$(check)", analysing: "$(sync~spin)", error: "$(error)", stopped: "$(debug-stop)",
      disabled: "$(circle-slash)", starting: "$(loading~spin)",
    };
    this.status.text = `${icons[state]} NKI`;
    this.status.tooltip = `NKI Verify: ${state}${detail ? ` (${detail})` : ""}. Click for the log.`;
    this.status.backgroundColor = state === "error"
      ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    this.status.show();
  }

  private async pythonApi(): Promise<PythonApi | undefined> {
    const ext = vscode.extensions.getExtension<PythonApi>("ms-python.python");
    if (!ext) {
      return undefined;
    }
    try {
      return ext.isActive ? ext.exports : await ext.activate();
    } catch (err) {
      this.log(`the Python extension did not activate: ${err}`);
      return undefined;
    }
  }

  private async watchPythonExtension(): Promise<void> {
    const api = await this.pythonApi();
    const event = api?.environments?.onDidChangeActiveEnvironmentPath;
    if (event) {
      this.context.subscriptions.push(event(() => {
        if (!vscode.workspace.getConfiguration(SECTION).get<string>("interpreter")) {
          void this.restart("the selected Python interpreter changed");
        }
      }));
    }
  }

  // nkiVerify.interpreter, else the Python extension's selected interpreter, else python3
  async findInterpreter(): Promise<{ command: string; source: string }> {
    const configured = vscode.workspace.getConfiguration(SECTION).get<string>("interpreter")?.trim();
    if (configured) {
      return { command: configured, source: "the nkiVerify.interpreter setting" };
    }
    const api = await this.pythonApi();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const selected = api?.environments?.getActiveEnvironmentPath(folder)?.path;
    if (selected) {
      return { command: selected, source: "the Python extension's selected interpreter" };
    }
    return { command: "python3", source: "the default" };
  }

  private async serverOptions(): Promise<ServerOptions> {
    const custom = vscode.workspace.getConfiguration(SECTION).get<string[]>("serverCommand") ?? [];
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (custom.length > 0) {
      this.log(`starting the server with nkiVerify.serverCommand: ${custom.join(" ")}`);
      return { command: custom[0], args: custom.slice(1), options: { cwd } };
    }
    const python = await this.findInterpreter();
    this.log(`starting the server: ${python.command} -m lsp (interpreter from ${python.source})`);
    return { command: python.command, args: ["-m", "lsp"], options: { cwd } };
  }

  private settings(): Record<string, unknown> {
    const cfg = vscode.workspace.getConfiguration(SECTION);
    return {
      enable: cfg.get("enable"), target: cfg.get("target"), severity: cfg.get("severity"),
      ignore: cfg.get("ignore"),
    };
  }

  restart(reason: string): Promise<void> {
    this.restarting = this.restarting.then(async () => {
      this.log(`(re)starting: ${reason}`);
      await this.stop();
      await this.start();
    });
    return this.restarting;
  }

  private async start(): Promise<void> {
    if (!vscode.workspace.getConfiguration(SECTION).get<boolean>("enable", true)) {
      this.setStatus("disabled", "nkiVerify.enable is off");
      return;
    }
    this.setStatus("starting");
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "python" },
        { scheme: "untitled", language: "python" },
      ],
      outputChannel: this.output,
      synchronize: { configurationSection: SECTION },
      initializationOptions: { settings: this.settings(), statusNotifications: true },
    };
    const client = new LanguageClient("nkiVerify", "NKI Verify", await this.serverOptions(), clientOptions);
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped) {
        this.setStatus("stopped", "the server is not running");
      }
    });
    this.client = client;
    try {
      await client.start();
      client.onNotification("nkiVerify/status", (p: { state: StatusState; message?: string }) => {
        this.setStatus(p.state, p.message);
      });
      this.setStatus("idle");
      this.log("the server is running");
    } catch (err) {
      this.log(`the server did not start: ${err}`);
      this.setStatus("error", "the server did not start: is nki-verify installed in this interpreter?");
      void vscode.window.showErrorMessage(
        "NKI Verify: the language server did not start. Install nki-verify in the Python interpreter " +
        "(or set nkiVerify.interpreter) and see the log.", "Show log",
      ).then((choice) => choice && this.output.show(true));
    }
  }

  private async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop();
      } catch (err) {
        this.log(`stopping the server: ${err}`);
      }
    }
  }
}

let extension: Extension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extension = new Extension(context);
  await extension.activate();
}

export async function deactivate(): Promise<void> {
  await extension?.deactivate();
}

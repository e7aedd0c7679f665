// Ready-to-paste MCP client configuration for the Connect screen.

export interface Snippet {
  label: string;
  /** Where it goes: a shell, or a file path. */
  where: string;
  text: string;
}

export interface ClientConfig {
  id: string;
  name: string;
  note?: string;
  snippets: Snippet[];
}

export interface ConnectParams {
  mcpUrl: string;
  token: string;
  /** e.g. "gatehouse --data /home/u/.local/share/gatehouse mcp" (unquoted). */
  bridgeCommand: string;
  /** Lets a data dir with spaces stay one argument. */
  dataDir?: string;
}

// Shell single-quoting: safe for any token or URL characters.
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@=+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

function tomlString(s: string): string {
  return JSON.stringify(s); // TOML basic strings share JSON's escapes for these characters
}

// The daemon sends the bridge command as one unquoted string; the data dir
// (which may hold spaces, as on macOS) is known separately and kept whole.
export function bridgeArgv(cmd: string, dataDir = ''): string[] {
  const mark = '\u0000';
  const masked = dataDir ? cmd.split(dataDir).join(mark) : cmd;
  return masked
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((a) => a.split(mark).join(dataDir));
}

export const TOKEN_ENV = 'GATEHOUSE_AGENT_TOKEN';

/** What a snippet shows in place of the agent token until the person reveals it. */
export const TOKEN_MASK = '••••••••••••••••';

/**
 * The terminal form of the Install button, the path the README recommends:
 * `gatehouse install NAME` with this daemon's binary and data directory,
 * so the agent is wired to this daemon and no other.
 */
export function installCommand(bridgeCommand: string, agent: string, dataDir = ''): string {
  const argv = bridgeArgv(bridgeCommand, dataDir);
  // The bridge command ends with its subcommand, "mcp"; install takes its place.
  if (argv[argv.length - 1] === 'mcp') argv.pop();
  if (argv.length === 0) argv.push('gatehouse');
  return [...argv, 'install', agent].map(shellQuote).join(' ');
}

/** A snippet as shown (token masked) and as copied (the real token). */
export interface ShownSnippet extends Snippet {
  /** The text with the token masked; equal to text when the snippet holds no token. */
  masked: string;
  /** Whether the snippet carries the token. */
  secret: boolean;
}

export interface ShownConfig extends Omit<ClientConfig, 'snippets'> {
  snippets: ShownSnippet[];
}

/** clientConfigs with each snippet also masked: the token never shows until asked for. */
export function maskedConfigs(p: ConnectParams): ShownConfig[] {
  const real = clientConfigs(p);
  const masked = clientConfigs({ ...p, token: TOKEN_MASK });
  return real.map((c, i) => ({
    ...c,
    snippets: c.snippets.map((s, j) => {
      const m = masked[i]!.snippets[j]!.text;
      return { ...s, masked: m, secret: m !== s.text };
    }),
  }));
}

export function clientConfigs(p: ConnectParams): ClientConfig[] {
  const auth = `Bearer ${p.token}`;
  const [cmd = 'gatehouse', ...args] = bridgeArgv(p.bridgeCommand, p.dataDir);
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return [
    {
      id: 'claude',
      name: 'Claude Code',
      snippets: [
        {
          label: 'HTTP (daemon already running)',
          where: 'shell',
          text: `claude mcp add --transport http gatehouse ${shellQuote(p.mcpUrl)} --header ${shellQuote(`Authorization: ${auth}`)}`,
        },
        { label: 'stdio bridge (reads the token itself)', where: 'shell', text: `claude mcp add gatehouse -- ${[cmd, ...args].map(shellQuote).join(' ')}` },
      ],
    },
    {
      id: 'codex',
      name: 'Codex',
      note: `Codex reads HTTP bearer tokens from an environment variable; export ${TOKEN_ENV} before starting it, or use the stdio form.`,
      snippets: [
        {
          label: 'HTTP',
          where: '~/.codex/config.toml',
          // Without the approval mode, `codex exec` refuses every MCP call.
          text: `[mcp_servers.gatehouse]\nurl = ${tomlString(p.mcpUrl)}\nbearer_token_env_var = "${TOKEN_ENV}"\ndefault_tools_approval_mode = "approve"\n`,
        },
        { label: 'Environment', where: 'shell', text: `export ${TOKEN_ENV}=${shellQuote(p.token)}` },
        {
          label: 'stdio bridge',
          where: '~/.codex/config.toml',
          text: `[mcp_servers.gatehouse]\ncommand = ${tomlString(cmd)}\nargs = [${args.map(tomlString).join(', ')}]\ndefault_tools_approval_mode = "approve"\n`,
        },
      ],
    },
    {
      id: 'gemini',
      name: 'Gemini CLI',
      snippets: [
        {
          label: 'HTTP',
          where: '~/.gemini/settings.json',
          // Without trust, headless `gemini -p` offers the model no Gatehouse tool.
          text: json({ mcpServers: { gatehouse: { httpUrl: p.mcpUrl, headers: { Authorization: auth }, trust: true } } }),
        },
        {
          label: 'stdio bridge',
          where: '~/.gemini/settings.json',
          text: json({ mcpServers: { gatehouse: { command: cmd, args, trust: true } } }),
        },
      ],
    },
    {
      id: 'cursor',
      name: 'Cursor',
      snippets: [
        {
          label: 'HTTP',
          where: '~/.cursor/mcp.json',
          text: json({ mcpServers: { gatehouse: { url: p.mcpUrl, headers: { Authorization: auth } } } }),
        },
      ],
    },
    {
      id: 'vscode',
      name: 'VS Code',
      snippets: [
        {
          label: 'HTTP',
          where: '.vscode/mcp.json',
          text: json({ servers: { gatehouse: { type: 'http', url: p.mcpUrl, headers: { Authorization: auth } } } }),
        },
      ],
    },
  ];
}

import { describe, expect, it } from 'vitest';
import { bridgeArgv, clientConfigs, installCommand, maskedConfigs, shellQuote, TOKEN_MASK } from './snippets';

const p = { mcpUrl: 'http://127.0.0.1:7465/mcp', token: 'gh_agent_abc', bridgeCommand: 'gatehouse mcp' };
const byId = (id: string) => clientConfigs(p).find((c) => c.id === id)!;

describe('clientConfigs', () => {
  it('Claude Code: HTTP with header, and the stdio bridge', () => {
    const [http, stdio] = byId('claude').snippets;
    expect(http!.text).toBe(`claude mcp add --transport http gatehouse http://127.0.0.1:7465/mcp --header 'Authorization: Bearer gh_agent_abc'`);
    expect(stdio!.text).toBe('claude mcp add gatehouse -- gatehouse mcp');
  });

  it('Codex: TOML with the token in an env var, plus the stdio form', () => {
    const s = byId('codex').snippets;
    expect(s[0]!.text).toBe(
      '[mcp_servers.gatehouse]\nurl = "http://127.0.0.1:7465/mcp"\nbearer_token_env_var = "GATEHOUSE_AGENT_TOKEN"\ndefault_tools_approval_mode = "approve"\n',
    );
    expect(s[1]!.text).toBe('export GATEHOUSE_AGENT_TOKEN=gh_agent_abc');
    expect(s[2]!.text).toBe('[mcp_servers.gatehouse]\ncommand = "gatehouse"\nargs = ["mcp"]\ndefault_tools_approval_mode = "approve"\n');
  });

  it('JSON clients parse and carry the bearer header', () => {
    const g = JSON.parse(byId('gemini').snippets[0]!.text);
    expect(g.mcpServers.gatehouse).toEqual({ httpUrl: p.mcpUrl, headers: { Authorization: 'Bearer gh_agent_abc' }, trust: true });
    const c = JSON.parse(byId('cursor').snippets[0]!.text);
    expect(c.mcpServers.gatehouse.url).toBe(p.mcpUrl);
    const v = JSON.parse(byId('vscode').snippets[0]!.text);
    expect(v.servers.gatehouse).toEqual({ type: 'http', url: p.mcpUrl, headers: { Authorization: 'Bearer gh_agent_abc' } });
  });

  it('quotes awkward tokens for the shell', () => {
    expect(shellQuote("a'b c")).toBe(`'a'\\''b c'`);
    expect(shellQuote('plain-token_1')).toBe('plain-token_1');
  });
});

describe('bridge command', () => {
  it('keeps a data dir with spaces as one argument, quoted for the shell', () => {
    const dir = '/Users/a/Library/Application Support/Gatehouse';
    expect(bridgeArgv(`gatehouse --data ${dir} mcp`, dir)).toEqual(['gatehouse', '--data', dir, 'mcp']);
    const c = clientConfigs({ ...p, bridgeCommand: `gatehouse --data ${dir} mcp`, dataDir: dir });
    expect(c.find((x) => x.id === 'claude')!.snippets[1]!.text).toBe(`claude mcp add gatehouse -- gatehouse --data '${dir}' mcp`);
    expect(c.find((x) => x.id === 'codex')!.snippets[2]!.text).toContain(`args = ["--data", "${dir}", "mcp"]`);
  });
});

describe('masked snippets', () => {
  it('hide the token until revealed, and copy the real one', () => {
    const cfgs = maskedConfigs(p);
    for (const c of cfgs) {
      for (const s of c.snippets) {
        expect(s.masked).not.toContain('gh_agent_abc');
        expect(s.secret).toBe(s.text.includes('gh_agent_abc'));
        if (!s.secret) expect(s.masked).toBe(s.text);
      }
    }
    const http = cfgs.find((c) => c.id === 'claude')!.snippets[0]!;
    expect(http.text).toContain('Bearer gh_agent_abc');
    expect(http.masked).toContain(`Bearer ${TOKEN_MASK}`);
    expect(cfgs.find((c) => c.id === 'codex')!.snippets[1]!.masked).toBe(`export GATEHOUSE_AGENT_TOKEN='${TOKEN_MASK}'`);
  });
});

describe('installCommand', () => {
  it('is the bridge command with install NAME in place of mcp', () => {
    expect(installCommand('/usr/local/bin/gatehouse --data /home/u/.local/share/gatehouse mcp', 'claude')).toBe(
      '/usr/local/bin/gatehouse --data /home/u/.local/share/gatehouse install claude',
    );
    const dir = '/Users/a/Library/Application Support/Gatehouse';
    expect(installCommand(`gatehouse --data ${dir} mcp`, 'codex', dir)).toBe(`gatehouse --data '${dir}' install codex`);
    expect(installCommand('', 'gemini')).toBe('gatehouse install gemini');
  });
});

// "What would happen if an agent ran X": asks the daemon's policy engine
// without running anything.

import { useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import { MODES, type Mode, type PolicyTestRequest, type PolicyVerdict } from '../api/types';
import { splitArgs } from '../lib/argv';
import { api } from '../state/app';
import { riskLine } from '../ui/risks';

const TOOLS = ['run_command', 'read_file', 'write_file', 'edit_file', 'list_dir', 'search_files', 'fetch_url'];

export function PolicyTester({ defaultMode = 'auto' }: { defaultMode?: Mode }) {
  const [tool, setTool] = useState('run_command');
  const [command, setCommand] = useState('git push --force');
  const [path, setPath] = useState('');
  const [url, setUrl] = useState('');
  const [mode, setMode] = useState<Mode>(defaultMode);
  const [result, setResult] = useState<PolicyVerdict | null>(null);
  const [err, setErr] = useState('');
  const [busy, setBusy] = useState(false);

  const test = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErr('');
    const req: PolicyTestRequest = { tool, mode, path: '', url: '' };
    if (tool === 'run_command') req.argv = splitArgs(command);
    else if (tool === 'fetch_url') req.url = url;
    else req.path = path;
    try {
      setResult(await api.post<PolicyVerdict>('/api/v1/policy/test', req));
    } catch (e2) {
      setResult(null);
      setErr(e2 instanceof ApiError && e2.notFound && /no route|does not offer/.test(e2.message) ? 'The policy tester is not available from this daemon yet.' : (e2 as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="tester" onSubmit={test} aria-labelledby="tester-h">
      <h2 id="tester-h">What would happen if an agent ran…</h2>
      <div class="tester-fields">
        <label>
          Tool
          <select value={tool} onChange={(e) => setTool(e.currentTarget.value)}>
            {TOOLS.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        {tool === 'run_command' ? (
          <label class="grow">
            Command
            <input value={command} onInput={(e) => setCommand(e.currentTarget.value)} placeholder="git push --force" />
          </label>
        ) : tool === 'fetch_url' ? (
          <label class="grow">
            URL
            <input value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://example.com/" />
          </label>
        ) : (
          <label class="grow">
            Path
            <input value={path} onInput={(e) => setPath(e.currentTarget.value)} placeholder="src/main.go or ~/.ssh/id_ed25519" />
          </label>
        )}
        <label>
          Mode
          <select value={mode} onChange={(e) => setMode(e.currentTarget.value as Mode)}>
            {MODES.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <button type="submit" class="btn primary" disabled={busy}>
          Check
        </button>
      </div>
      {tool === 'run_command' && command.trim() && (
        <ol class="argv small" aria-label="Parsed arguments">
          {splitArgs(command).map((a, i) => (
            <li key={i} class="chip">
              {a}
            </li>
          ))}
        </ol>
      )}
      {err && (
        <p class="error-line" role="alert">
          {err}
        </p>
      )}
      {result && (
        <div class="verdict-box" role="status">
          <span class={`verdict big v-${result.verdict}`}>{result.verdict}</span> {result.reason}
          {result.rule && (result.rule.id || result.rule.source) && (
            <span class="muted">
              {' '}
              — rule {result.rule.id} ({result.rule.source}
              {result.rule.file ? ` ${result.rule.file}${result.rule.line ? ':' + result.rule.line : ''}` : ''})
            </span>
          )}
          {(result.risks ?? []).length > 0 && (
            <ul class="risks">
              {(result.risks ?? []).map((r, i) => {
                const line = riskLine(r, result.reason);
                return (
                  <li key={i} class={`risk risk-${r.kind}`}>
                    <span class="badge">{line.label}</span> {line.text}
                    {line.extra && <span class="muted"> {line.extra}</span>}
                  </li>
                );
              })}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}

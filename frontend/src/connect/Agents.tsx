// Per agent: is Gatehouse wired into its own config (MCP entry and hooks)?
// Install or Remove it with one click, as `gatehouse install` does; the
// same command for a terminal is shown under the table. This is the path
// the README recommends, so the Connect screen puts it first.

import { useState } from 'preact/hooks';
import type { AgentResult, AgentStatus } from '../api/types';
import { actionPath, agentRows, resultSentence, type AgentRow } from '../lib/agents';
import { api, notify, reportError } from '../state/app';
import { ActionTable, Code, ErrorLine } from '../ui/common';
import { useLoad } from '../ui/hooks';

/** install: the terminal command that wires the named agent. */
export function Agents({ install }: { install(name: string): string }) {
  const agents = useLoad<{ agents: AgentStatus[] }>('/api/v1/agents');
  const [busy, setBusy] = useState<string | null>(null);

  if (agents.error?.notFound) return null; // an older daemon

  const act = async (row: AgentRow) => {
    setBusy(row.name);
    try {
      const res = await api.post<AgentResult>(actionPath(row), { scope: row.scope });
      notify(resultSentence(row.title, row.action === 'install', res), 'info');
      agents.reload();
    } catch (err) {
      reportError(err);
    } finally {
      setBusy(null);
    }
  };

  const rows = agents.data ? agentRows(agents.data.agents) : [];
  const first = rows.find((r) => r.action === 'install') ?? rows[0];
  const others = rows.filter((r) => r !== first).map((r) => r.name);
  return (
    <>
      <h2 id="wire-h">Wire an agent (recommended)</h2>
      {agents.error && <ErrorLine message={agents.error.message} />}
      {agents.data && (
        <ActionTable class="agents" cols={['Agent', 'State', 'Config']}>
          {rows.map((r) => (
            <tr key={r.name} class={r.wired ? 'wired' : ''}>
              <td>{r.title}</td>
              <td>{r.label}</td>
              <td class="small">
                {r.where.map((w) => (
                  <code key={w}>{w} </code>
                ))}
                {r.note && <div class="muted">{r.note}</div>}
              </td>
              <td class="actions-cell">
                <button
                  type="button"
                  class={`btn small${r.action === 'install' ? ' primary' : ''}`}
                  disabled={busy !== null}
                  aria-label={`${r.action === 'install' ? 'Install' : 'Remove'} Gatehouse for ${r.title}`}
                  onClick={() => act(r)}
                >
                  {busy === r.name ? '…' : r.action === 'install' ? 'Install' : 'Remove'}
                </button>
              </td>
            </tr>
          ))}
        </ActionTable>
      )}
      {first && (
        <div class="snippet install-cli">
          <h3>
            Or in a terminal <span class="muted small">shell</span>
          </h3>
          <Code text={install(first.name)} label={`Wire ${first.title} from a terminal`} />
          <p class="muted small">
            {others.length > 0 && `For another agent, put ${orList(others)} in place of ${first.name}. `}
            Add <code>--uninstall</code> to take Gatehouse out again.
          </p>
        </div>
      )}
    </>
  );
}

/** "codex, gemini or cursor" */
function orList(names: string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

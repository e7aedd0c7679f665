// Per agent: is Gatehouse wired into its own config (MCP entry and hooks)?
// Install or Remove it with one click, as `gatehouse install` does.

import { useState } from 'preact/hooks';
import type { AgentResult, AgentStatus } from '../api/types';
import { actionPath, agentRows, resultSentence, type AgentRow } from '../lib/agents';
import { api, notify, reportError } from '../state/app';
import { ActionTable, ErrorLine } from '../ui/common';
import { useLoad } from '../ui/hooks';

export function Agents() {
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

  return (
    <>
      <h2>Agents</h2>
      <p class="muted">
        Wiring an agent adds Gatehouse to its own configuration: the MCP server, and the hooks that send its own shell, edits and reads through Gatehouse.
      </p>
      {agents.error && <ErrorLine message={agents.error.message} />}
      {agents.data && (
        <ActionTable class="agents" cols={['Agent', 'State', 'Config']}>
          {agentRows(agents.data.agents).map((r) => (
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
    </>
  );
}

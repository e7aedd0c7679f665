// Connect: paste-ready MCP configuration per client, and per-client agent
// tokens (create, shown once; revoke).

import { useState } from 'preact/hooks';
import type { AgentToken, ConnectInfo, NewToken } from '../api/types';
import { installCommand, maskedConfigs, TOKEN_MASK } from '../lib/snippets';
import { when } from '../lib/format';
import { api, reportError } from '../state/app';
import { ActionTable, Code, Empty, ErrorLine, SecretCode } from '../ui/common';
import { useLoad } from '../ui/hooks';
import { Agents } from './Agents';
import { Public } from './Public';

export function Connect() {
  const info = useLoad<ConnectInfo>('/api/v1/connect');
  const [client, setClient] = useState('claude');
  const [fresh, setFresh] = useState<NewToken | null>(null);

  if (info.error?.notFound) {
    return (
      <section class="screen" aria-labelledby="connect-h">
        <h1 id="connect-h">Connect an agent</h1>
        <Agents install={(name) => `gatehouse install ${name}`} />
        <Empty title="Connection details are not available from this daemon yet">
          <p>
            Use the stdio bridge, which finds the daemon and its token by itself: <code>claude mcp add gatehouse -- gatehouse mcp</code>
          </p>
        </Empty>
        <Tokens onCreated={setFresh} fresh={fresh} />
      </section>
    );
  }

  const d = info.data;
  // A token created here is used in the snippets, so they can be pasted as-is.
  const configs = d ? maskedConfigs({ mcpUrl: d.mcp_url, token: fresh?.token ?? d.agent_token, bridgeCommand: d.bridge_command || 'gatehouse mcp', dataDir: d.data_dir }) : [];
  const current = configs.find((c) => c.id === client) ?? configs[0];

  return (
    <section class="screen" aria-labelledby="connect-h">
      <h1 id="connect-h">Connect an agent</h1>
      {info.error && <ErrorLine message={info.error.message} />}
      <p>
        Wire your agent with <strong>Install</strong> below, or <code>gatehouse install</code> in a terminal: Gatehouse adds its MCP server to the agent’s own configuration{' '}
        <em>and</em> the hooks that send the agent’s own shell, edits and reads through Gatehouse. An agent given only the MCP server can still run its own tools around
        it.
      </p>
      <Agents install={(name) => (d ? installCommand(d.bridge_command || 'gatehouse mcp', name, d.data_dir) : `gatehouse install ${name}`)} />
      {d && (
        <>
          <h2 id="mcp-only-h">Or add only the MCP server, by hand</h2>
          <p>
            For a client the table above does not list, or to add the MCP server alone. MCP endpoint <code>{d.mcp_url}</code>. Agents authenticate with an agent token: it
            opens <code>/mcp</code> only and can never approve, roll back or change policy.
            {fresh ? (
              <strong> These snippets use the token “{fresh.name}” you just created.</strong>
            ) : (
              ' These snippets use the default agent token; create one per client below to revoke them separately.'
            )}{' '}
            The token stays hidden until you press Show token; Copy with token copies the snippet with the real token in it.
          </p>
          <div
            class="tabs"
            role="tablist"
            aria-label="MCP client"
            onKeyDown={(e) => {
              // Arrow keys move between tabs (the ARIA tabs pattern).
              const i = configs.findIndex((c) => c.id === current?.id);
              const d = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
              if (!d) return;
              const next = configs[(i + d + configs.length) % configs.length]!;
              setClient(next.id);
              document.getElementById(`tab-${next.id}`)?.focus();
            }}
          >
            {configs.map((c) => (
              <button
                key={c.id}
                type="button"
                role="tab"
                id={`tab-${c.id}`}
                aria-selected={c.id === current?.id}
                aria-controls="client-panel"
                tabIndex={c.id === current?.id ? 0 : -1}
                class={`tab${c.id === current?.id ? ' selected' : ''}`}
                onClick={() => setClient(c.id)}
              >
                {c.name}
              </button>
            ))}
          </div>
          {current && (
            <div id="client-panel" role="tabpanel" aria-labelledby={`tab-${current.id}`} class="client-panel">
              {current.note && <p class="muted">{current.note}</p>}
              {current.snippets.map((s) => (
                <div key={s.label} class="snippet" data-secret={s.secret ? 'true' : 'false'}>
                  <h3>
                    {s.label} <span class="muted small">{s.where}</span>
                  </h3>
                  {s.secret ? <SecretCode text={s.text} masked={s.masked} label={`${current.name} ${s.label}`} /> : <Code text={s.text} label={`${current.name} ${s.label}`} />}
                </div>
              ))}
            </div>
          )}
          <p class="muted small">
            Data directory: <code>{d.data_dir}</code>
          </p>
        </>
      )}
      <Tokens onCreated={setFresh} fresh={fresh} />
      <Public />
    </section>
  );
}

function Tokens({ onCreated, fresh }: { onCreated(t: NewToken): void; fresh: NewToken | null }) {
  const tokens = useLoad<{ tokens: AgentToken[] }>('/api/v1/tokens');
  const [name, setName] = useState('');
  const [confirm, setConfirm] = useState<string | null>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    if (!name.trim()) return;
    try {
      const t = await api.post<NewToken>('/api/v1/tokens', { name: name.trim() });
      onCreated(t);
      setName('');
      tokens.reload();
    } catch (err) {
      reportError(err);
    }
  };

  const revoke = async (id: string) => {
    setConfirm(null);
    try {
      await api.del(`/api/v1/tokens/${encodeURIComponent(id)}`);
      tokens.reload();
    } catch (err) {
      reportError(err);
    }
  };

  if (tokens.error?.notFound) {
    return (
      <>
        <h2>Agent tokens</h2>
        <p class="muted">Per-client tokens are not available from this daemon yet.</p>
      </>
    );
  }

  return (
    <>
      <h2>Agent tokens</h2>
      {tokens.error && <ErrorLine message={tokens.error.message} />}
      {fresh && (
        <div class="notice ok" role="status">
          <p>
            Token for <strong>{fresh.name}</strong>, available only now — copy it into the client’s configuration (the snippets above use it already):
          </p>
          <SecretCode text={fresh.token} masked={TOKEN_MASK} class="token" label={`Token for ${fresh.name}`} />
        </div>
      )}
      <form class="inline-form" onSubmit={create}>
        <label for="token-name">New token for</label>
        <input id="token-name" value={name} placeholder="e.g. cursor" maxLength={64} onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit" class="btn primary" disabled={!name.trim()}>
          Create token
        </button>
      </form>
      {tokens.data && (
        <ActionTable class="tokens" cols={['Name', 'Kind', 'Created']}>
          {tokens.data.tokens.map((t) => (
            <tr key={t.id} class={t.revoked_at ? 'revoked' : ''}>
              <td>{t.name}</td>
              <td>{t.kind}</td>
              <td>{when(t.created_at)}</td>
              <td class="actions-cell">
                {t.revoked_at ? (
                  <span class="muted">revoked {when(t.revoked_at)}</span>
                ) : t.kind === 'control' ? null : confirm === t.id ? (
                  <>
                    <button type="button" class="btn small danger" onClick={() => revoke(t.id)}>
                      Revoke now
                    </button>
                    <button type="button" class="btn small" onClick={() => setConfirm(null)}>
                      Keep
                    </button>
                  </>
                ) : (
                  <button type="button" class="btn small" onClick={() => setConfirm(t.id)}>
                    Revoke…
                  </button>
                )}
              </td>
            </tr>
          ))}
        </ActionTable>
      )}
    </>
  );
}

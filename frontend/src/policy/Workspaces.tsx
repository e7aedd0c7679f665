// Workspaces: the roots agents work below without a card. Workspaces
// follow the agent: a session works in the project its agent started in,
// and a project outside these roots raises a workspace card.

import { useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import { api, notify } from '../state/app';
import { ErrorLine } from '../ui/common';
import { useLoad } from '../ui/hooks';

interface Roots {
  roots: string[];
}

export function Workspaces() {
  const doc = useLoad<Roots>('/api/v1/workspaces');
  const [path, setPath] = useState('');
  const [err, setErr] = useState('');
  const [busy, setBusy] = useState(false);
  if (doc.error?.notFound) return null;

  const change = async (f: () => Promise<Roots>, done: string) => {
    setBusy(true);
    setErr('');
    try {
      doc.set(await f());
      notify(done, 'info');
      setPath('');
    } catch (e) {
      setErr(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const add = () => change(() => api.post<Roots>('/api/v1/workspaces', { path: path.trim() }), `Agents started below ${path.trim()} now work there without asking.`);
  const remove = (r: string) => change(() => api.del<Roots>(`/api/v1/workspaces?path=${encodeURIComponent(r)}`), `${r} is no longer a workspace root.`);
  const roots = doc.data?.roots ?? [];

  return (
    <section aria-labelledby="workspaces-h">
      <h2 id="workspaces-h">Workspaces</h2>
      <p class="muted">
        An agent works in the project it starts in. Projects below these roots are served at once; any other asks you first (“Always” on that card adds it here).
      </p>
      {doc.error && <ErrorLine message={doc.error.message} />}
      {doc.data && roots.length === 0 && <p class="muted">No roots yet: every project an agent starts in asks once.</p>}
      {roots.length > 0 && (
        <ul class="workspace-roots">
          {roots.map((r) => (
            <li key={r}>
              <code>{r}</code>{' '}
              <button type="button" class="btn small" disabled={busy} onClick={() => void remove(r)} aria-label={`Remove ${r}`}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        class="actions"
        onSubmit={(e) => {
          e.preventDefault();
          if (path.trim()) void add();
        }}
      >
        <label class="sr-only" for="workspace-add">
          Directory to add as a workspace root
        </label>
        <input id="workspace-add" type="text" placeholder="/home/you/src" value={path} onInput={(e) => setPath(e.currentTarget.value)} aria-invalid={err ? true : undefined} />
        <button type="submit" class="btn" disabled={busy || !path.trim()}>
          Add root
        </button>
      </form>
      {err && (
        <p class="error-line" role="alert">
          {err}
        </p>
      )}
    </section>
  );
}

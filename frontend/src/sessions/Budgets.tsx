// A live session's budgets (the cost circuit breaker), editable while it runs.

import { useEffect, useState } from 'preact/hooks';
import { api } from '../state/app';
import { ErrorLine } from '../ui/common';

export interface Budgets {
  max_calls: number;
  wall_minutes: number;
  exec_minutes: number;
  output_mib: number;
}

const FIELDS: { key: keyof Budgets; label: string }[] = [
  { key: 'max_calls', label: 'Tool calls' },
  { key: 'wall_minutes', label: 'Wall time (min)' },
  { key: 'exec_minutes', label: 'Command time (min)' },
  { key: 'output_mib', label: 'Output (MiB)' },
];

export function BudgetsBox({ session }: { session: string }) {
  const path = `/api/v1/sessions/${encodeURIComponent(session)}/limits`;
  const [value, setValue] = useState<Budgets | null>(null);
  const [saved, setSaved] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    api
      .get<Budgets>(path)
      .then((b) => live && setValue(b))
      .catch((err: Error) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [path]);

  if (!value) return error ? <ErrorLine message={error} /> : null;

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    setSaved('');
    try {
      setValue(await api.post<Budgets>(path, value));
      setSaved('Saved. The next call is checked against these budgets.');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="budgets" onSubmit={save} aria-labelledby="budgets-h">
      <h3 id="budgets-h">Budgets</h3>
      <p class="muted small">When one is spent, the next call waits for you to extend it or end the session. 0 means no limit.</p>
      {FIELDS.map((f) => (
        <label key={f.key} class="budget-field">
          <span>{f.label}</span>
          <input
            type="number"
            min={0}
            step={1}
            value={value[f.key]}
            onInput={(e) => setValue({ ...value, [f.key]: Math.max(0, Math.floor(Number(e.currentTarget.value) || 0)) })}
          />
        </label>
      ))}
      <button type="submit" class="btn" disabled={busy}>
        Save budgets
      </button>
      {saved && <p class="muted small" role="status">{saved}</p>}
      {error && <ErrorLine message={error} />}
    </form>
  );
}

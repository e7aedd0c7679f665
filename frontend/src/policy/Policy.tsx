// Policy: the effective rules and where each came from, the user's policy
// file editor (validated by the daemon on save), and a "what would happen"
// tester.

import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import type { PolicyDoc, PolicyRule } from '../api/types';
import { errorLine } from '../lib/argv';
import { api, notify } from '../state/app';
import { Empty, ErrorLine } from '../ui/common';
import { useLoad } from '../ui/hooks';
import { PolicyTester } from './PolicyTester';

function list(v: string | string[] | undefined): string {
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
}

function matcher(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.tool) parts.push(`tool ${list(r.tool)}`);
  if (r.binary) parts.push(`binary ${list(r.binary)}`);
  if (Array.isArray(r.args) && r.args.length) {
    // The built-in harmless list is long: show the start, count the rest.
    const shown = r.args.slice(0, 8).map(String).join(', ');
    parts.push(`args ${shown}${r.args.length > 8 ? `, … (+${r.args.length - 8} more)` : ''}`);
  } else if (typeof r.args === 'string' && r.args) parts.push(`args ${r.args}`);
  if (r.paths) parts.push(`paths ${list(r.paths)}`);
  if (r.domains) parts.push(`domains ${list(r.domains)}`);
  return parts.join(' · ') || 'everything';
}

export function Policy() {
  const doc = useLoad<PolicyDoc>('/api/v1/policy');
  const [text, setText] = useState<string | null>(null);
  const [saveErr, setSaveErr] = useState('');
  const [saving, setSaving] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (doc.data && text === null) setText(doc.data.text);
  }, [doc.data, text]);

  if (doc.error?.notFound) {
    return (
      <section class="screen" aria-labelledby="policy-h">
        <h1 id="policy-h">Policy</h1>
        <Empty title="Policy is not available from this daemon yet">
          <p>This version of the daemon does not serve the policy API. The built-in defaults still apply.</p>
        </Empty>
        <PolicyTester />
      </section>
    );
  }

  const dirty = doc.data !== null && text !== null && text !== doc.data.text;

  const save = async () => {
    if (text === null) return;
    setSaving(true);
    setSaveErr('');
    try {
      await api.put('/api/v1/policy', { text });
      notify('Policy saved; it applies to the next call.', 'info');
      setText(null);
      doc.reload();
    } catch (err) {
      const msg = err instanceof ApiError ? err.message : String(err);
      setSaveErr(msg);
      // Put the caret on the offending line.
      const line = errorLine(msg);
      const el = area.current;
      if (line && el) {
        const lines = el.value.split('\n');
        const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
        el.focus();
        el.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
      }
    } finally {
      setSaving(false);
    }
  };

  const rules = doc.data?.rules ?? [];
  const notices = doc.data?.notices ?? [];

  return (
    <section class="screen" aria-labelledby="policy-h">
      <div class="screen-head">
        <h1 id="policy-h">Policy</h1>
      </div>
      {doc.error && <ErrorLine message={doc.error.message} />}
      {notices.length > 0 && (
        <ul class="notices">
          {notices.map((n, i) => (
            <li key={i} class="notice warn">
              {typeof n === 'string' ? n : JSON.stringify(n)}
            </li>
          ))}
        </ul>
      )}

      <PolicyTester />

      <h2>Effective rules</h2>
      <p class="muted">First match wins, top to bottom. Built-in rules are the defaults; yours come from the policy file and workspace files.</p>
      {rules.length === 0 && doc.data ? (
        <p class="muted">No rules.</p>
      ) : (
        <div class="table-wrap">
          <table class="rules">
            <thead>
              <tr>
                <th scope="col">Action</th>
                <th scope="col">Matches</th>
                <th scope="col">Reason</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {rules.map((r, i) => (
                <tr key={`${r.id}-${i}`}>
                  <td>
                    <span class={`verdict v-${r.action}`}>{r.action}</span>
                  </td>
                  <td>
                    <code title={Array.isArray(r.args) ? r.args.join(', ') : undefined}>{matcher(r)}</code>
                    {r.id && <div class="muted small">{r.id}</div>}
                  </td>
                  <td>{r.reason}</td>
                  <td class="from">
                    {r.source}
                    {r.file && (
                      <div class="muted small">
                        {r.file}
                        {r.line ? `:${r.line}` : ''}
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h2>Your policy file</h2>
      {doc.data && (
        <div class="editor">
          <label for="policy-text">
            <code>{doc.data.file}</code>
          </label>
          <textarea
            id="policy-text"
            ref={area}
            spellcheck={false}
            rows={18}
            value={text ?? ''}
            aria-invalid={saveErr ? true : undefined}
            aria-describedby={saveErr ? 'policy-err' : undefined}
            onInput={(e) => setText(e.currentTarget.value)}
            onKeyDown={(e) => {
              if ((e.ctrlKey || e.metaKey) && e.key === 's') {
                e.preventDefault();
                void save();
              }
            }}
          />
          {saveErr && (
            <p id="policy-err" class="error-line" role="alert">
              {saveErr}
            </p>
          )}
          <div class="actions">
            <button type="button" class="btn primary" disabled={!dirty || saving} onClick={save}>
              {saving ? 'Saving…' : 'Save'}
            </button>
            <button type="button" class="btn" disabled={!dirty || saving} onClick={() => (setText(doc.data!.text), setSaveErr(''))}>
              Discard changes
            </button>
            <span class="muted small">Ctrl+S saves. The daemon checks the file before it takes effect.</span>
          </div>
        </div>
      )}
    </section>
  );
}

// Policy: the rules in the order the daemon applies them, by stage, with
// the ids cards and the tester cite; the user's policy file editor
// (validated by the daemon on save; an empty file starts as a commented
// example); and a "what would happen" tester.

import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import { MODES, type Mode, type PolicyDoc, type PolicyRule } from '../api/types';
import { argsPreview, EXAMPLE_POLICY, matcher, stageGroups } from '../lib/policyview';
import { errorLine } from '../lib/argv';
import { api, notify } from '../state/app';
import { Empty, ErrorLine, TableHead } from '../ui/common';
import { useLoad } from '../ui/hooks';
import { PolicyTester } from './PolicyTester';
import { Export } from './Export';
import { Workspaces } from './Workspaces';

export function Policy() {
  const doc = useLoad<PolicyDoc>('/api/v1/policy');
  const [text, setText] = useState<string | null>(null);
  const [saveErr, setSaveErr] = useState('');
  const [saving, setSaving] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);

  // An empty file starts as the example; saved unchanged it says nothing.
  const baseline = doc.data ? doc.data.text || EXAMPLE_POLICY : null;
  useEffect(() => {
    if (baseline !== null && text === null) setText(baseline);
  }, [baseline, text]);

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

  const dirty = baseline !== null && text !== null && text !== baseline;

  const save = async () => {
    if (text === null) return;
    setSaving(true);
    setSaveErr('');
    try {
      // The reply is the policy as the daemon now has it.
      const saved = await api.put<PolicyDoc>('/api/v1/policy', { text });
      notify('Policy saved; it applies to the next call.', 'info');
      doc.set(saved);
      setText(saved.text || EXAMPLE_POLICY);
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

      <Workspaces />

      <Export />

      <PolicyTester key={doc.data?.mode ?? ''} defaultMode={MODES.includes(doc.data?.mode as Mode) ? (doc.data!.mode as Mode) : 'auto'} />

      <h2>Rules, in the order they are applied</h2>
      <p class="muted">
        Gatehouse takes these steps in order for every call{doc.data?.mode ? ` (listed for ${doc.data.mode} mode, the default for new sessions)` : ''}. Cards, the tester and the timeline cite the
        same rule ids.
      </p>
      {rules.length === 0 && doc.data ? <p class="muted">No rules.</p> : <RuleTable rules={rules} />}

      <h2>Your policy file</h2>
      {doc.data && !doc.data.text && <p class="muted">The file is empty, so only the built-in rules apply. The editor starts with a commented example: take in a block by removing its “# ”.</p>}
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
            <button type="button" class="btn" disabled={!dirty || saving} onClick={() => (setText(baseline), setSaveErr(''))}>
              Discard changes
            </button>
            <span class="muted small">Ctrl+S saves. The daemon checks the file before it takes effect.</span>
          </div>
        </div>
      )}
    </section>
  );
}

function RuleTable({ rules }: { rules: PolicyRule[] }) {
  const [open, setOpen] = useState<Set<number>>(new Set());
  const groups = stageGroups(rules);
  return (
    <div class="table-wrap">
      <table class="rules">
        <TableHead cols={[{ name: '#', class: 'num' }, 'Rule', 'Action', 'Matches', 'Reason', 'From']} />
        {groups.map((g, gi) => (
          <tbody key={gi} class={`stage stage-${g.stage || 'none'}`} data-stage={g.stage}>
            <tr class="stage-row">
              <th scope="rowgroup" colSpan={6}>
                <span class="stage-n">{gi + 1}.</span> {g.title}
                {g.help && <span class="muted"> — {g.help}</span>}
              </th>
            </tr>
            {g.rules.length === 0 && (
              <tr class="empty-stage">
                <td colSpan={6} class="muted">
                  None yet. Rules you write in the file below, and “for this session” answers, apply here: before the defaults.
                </td>
              </tr>
            )}
            {g.rules.map(({ n, rule: r }) => {
              const args = Array.isArray(r.args) ? argsPreview(r.args, open.has(n)) : null;
              const m = matcher(r);
              return (
                <tr key={`${r.id}-${n}`} data-rule-id={r.id} data-stage={r.stage}>
                  <td class="num muted">{n}</td>
                  <td>
                    <code class="rule-id">{r.id || '—'}</code>
                  </td>
                  <td>
                    <span class={`verdict v-${r.action}`}>{r.action}</span>
                  </td>
                  <td>
                    {m && <code>{m}</code>}
                    {args && args.shown.length > 0 && (
                      <div class="rule-args">
                        <code>
                          args {args.shown.join(', ')}
                          {args.more > 0 && ', …'}
                        </code>{' '}
                        {(args.more > 0 || open.has(n)) && (
                          <button
                            type="button"
                            class="btn link small"
                            aria-expanded={open.has(n)}
                            onClick={() =>
                              setOpen((o) => {
                                const x = new Set(o);
                                if (x.has(n)) x.delete(n);
                                else x.add(n);
                                return x;
                              })
                            }
                          >
                            {open.has(n) ? 'show fewer' : `(+${args.more} more)`}
                          </button>
                        )}
                      </div>
                    )}
                    {/* A built-in step's reach is its reason. */}
                    {!m && !args?.shown.length && <span class="muted">—</span>}
                  </td>
                  <td>{r.reason}</td>
                  <td class="from">
                    {r.source === 'managed' ? 'set by your organisation' : r.source}
                    {r.file && (
                      <div class="muted small">
                        {r.file}
                        {r.line ? `:${r.line}` : ''}
                      </div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        ))}
      </table>
    </div>
  );
}

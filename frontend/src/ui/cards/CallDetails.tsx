// What a call card shows of the call: the command (argv as chips), where
// it runs, the paths, the URL, the proposed diff.

import type { ApprovalRequest } from '../../api/types';
import { Diff } from '../Diff';
import { Vis } from '../Visible';

export function cwdOf(req: ApprovalRequest): string {
  const c = req.cwd ?? req.args?.cwd;
  return typeof c === 'string' ? c : '';
}

export function Argv({ argv, label = 'Command arguments' }: { argv: readonly string[]; label?: string }) {
  return (
    <ol class="argv" aria-label={label}>
      {argv.map((a, i) => (
        <li key={i} class={i === 0 ? 'chip argv0' : 'chip'}>
          {a === '' ? <span class="muted">(empty)</span> : <Vis text={a} multiline />}
        </li>
      ))}
    </ol>
  );
}

export function Cwd({ req }: { req: ApprovalRequest }) {
  const cwd = cwdOf(req);
  if (!cwd) return null;
  return (
    <p class="kv cwd">
      <span>in</span> <code>
        <Vis text={cwd} />
      </code>
    </p>
  );
}

export function CallDetails({ req }: { req: ApprovalRequest }) {
  const other = req.args && !req.argv && !req.paths?.length && !req.url && !req.diff;
  return (
    <div class="details">
      {req.argv && req.argv.length > 0 && <Argv argv={req.argv} />}
      {req.binary && req.argv?.[0] !== req.binary && (
        <p class="kv">
          <span>binary</span> <code>
            <Vis text={req.binary} />
          </code>
        </p>
      )}
      {req.tool === 'run_command' && <Cwd req={req} />}
      {req.paths && req.paths.length > 0 && (
        <ul class="paths" aria-label="Paths">
          {req.paths.map((p) => (
            <li key={p}>
              <code>
                <Vis text={p} />
              </code>
            </li>
          ))}
        </ul>
      )}
      {req.url && (
        <p class="kv">
          <span>URL</span> <code class="url">
            <Vis text={req.url} />
          </code>
        </p>
      )}
      {req.diff && <Diff text={req.diff} label="Proposed change" />}
      {other && (
        <pre class="args">
          <Vis text={JSON.stringify(req.args, null, 2)} multiline />
        </pre>
      )}
    </div>
  );
}

// An effect card: what a staged command changed (the workspace is still
// untouched), why it waits, the diff, and for each path the person also
// changed meanwhile the choice of whose version lands.

import type { ApprovalRequest } from '../../api/types';
import { stagedRun } from '../../lib/cardtext';
import { changeDetail, countsLine, groupChanges, opLabel } from '../../lib/changes';
import { Diff } from '../Diff';
import { binarySize } from '../../lib/binary';
import { Vis } from '../Visible';
import { Argv, Cwd } from './CallDetails';
import { plural } from '../../lib/format';

// Longer groups start folded, so the findings and the buttons stay near.
const OPEN_UP_TO = 12;

export function EffectDetails({ req }: { req: ApprovalRequest }) {
  const g = groupChanges(req.changes);
  const findings = req.findings ?? [];
  const conflicts = req.conflicts ?? [];
  const sizes = new Map((req.changes ?? []).filter((c) => c.size !== undefined).map((c) => [c.path, binarySize(c.size, c.size)]));
  return (
    <div class="details effect">
      {req.argv && req.argv.length > 0 && <Argv argv={req.argv} label="The command that made these changes" />}
      <Cwd req={req} />
      {findings.length > 0 && (
        <div class="findings">
          <h4>Why it waits</h4>
          <ul>
            {findings.map((f, i) => (
              <li key={i}>
                <Vis text={f} multiline />
              </li>
            ))}
          </ul>
        </div>
      )}
      <p class="effect-counts">
        <strong>{countsLine(g)}</strong>
        {g.modeChanges.length > 0 && ` · ${plural(g.modeChanges.length, 'mode change')}`}
        {g.links.length > 0 && ` · ${plural(g.links.length, 'link')}`}
        <span class="muted">{stagedRun(req) ? ' — nothing is written to your workspace until you apply.' : ' — already in your workspace; Discard rolls them back.'}</span>
      </p>
      {g.groups.map(({ op, changes }) => (
        <details key={op} class={`change-group op-${op}`} open={changes.length <= OPEN_UP_TO}>
          <summary>
            {opLabel(op)} <span class="count">{changes.length}</span>
          </summary>
          <ul class="changes">
            {changes.map((c) => {
              const detail = changeDetail(c);
              return (
                <li key={c.path} data-op={op}>
                  <code>
                    <Vis text={c.path} />
                  </code>
                  {detail && (
                    <span class="muted">
                      {' '}
                      <Vis text={detail} />
                    </span>
                  )}
                </li>
              );
            })}
          </ul>
        </details>
      ))}
      {conflicts.length > 0 && (
        <fieldset class="conflicts">
          <legend>You changed these too while it ran. Whose version lands?</legend>
          {conflicts.map((c, i) => (
            <div key={c.path} class="conflict">
              <code>
                <Vis text={c.path} />
              </code>{' '}
              <span class="muted">
                <Vis text={c.why} />
              </span>
              <label>
                <input type="radio" name={`conflict-${req.id}-${i}`} value="mine" data-conflict={c.path} defaultChecked /> Keep my version
              </label>
              <label>
                <input type="radio" name={`conflict-${req.id}-${i}`} value="agent" data-conflict={c.path} /> Take the agent’s
              </label>
            </div>
          ))}
        </fieldset>
      )}
      {req.diff && <Diff text={req.diff} label="What the command changed" sizeOf={(p) => sizes.get(p)} />}
    </div>
  );
}

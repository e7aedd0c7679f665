// Preview-then-confirm for "Rollback to here" and "Undo this call": the
// daemon plans the rollback (dry_run) and nothing changes until the person
// confirms what they saw.

import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client';
import type { Held, RollbackReply, RollbackRequest, RollbackSummary } from '../api/types';
import { binaryPlanItems, type BinaryNote } from '../lib/binary';
import { heldPath, isEmpty, rollbackSummary } from '../lib/rollback';
import { api } from '../state/app';
import { Diff } from '../ui/Diff';
import { ErrorLine } from '../ui/common';
import { Vis } from '../ui/Visible';

export interface RollbackTarget {
  checkpoint?: string;
  call?: string;
  /** e.g. "Roll back to after call c_12" */
  title: string;
}

type Phase =
  | { kind: 'planning' }
  | { kind: 'plan'; plan: RollbackSummary }
  | { kind: 'applying'; plan: RollbackSummary }
  | { kind: 'done'; before: string }
  | { kind: 'unavailable' }
  | { kind: 'error'; message: string };

function PathList({ title, items }: { title: string; items: Held[] }) {
  if (items.length === 0) return null;
  return (
    <div class="plan-group">
      <h4>
        {title} <span class="count">{items.length}</span>
      </h4>
      <ul>
        {items.map((p, i) => (
          <li key={i}>
            <code>
              <Vis text={heldPath(p)} />
            </code>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * onUndo: once a rollback is done, the person may undo it right here: a
 * rollback to the checkpoint taken just before it, previewed like any other.
 */
export function RollbackPreview({ session, target, onClose, onUndo }: { session: string; target: RollbackTarget; onClose(done: boolean): void; onUndo?(t: RollbackTarget): void }) {
  const [phase, setPhase] = useState<Phase>({ kind: 'planning' });
  const [force, setForce] = useState(false);
  const [binaries, setBinaries] = useState<BinaryNote[]>([]);
  const path = `/api/v1/sessions/${encodeURIComponent(session)}/rollback`;
  const body = (dry: boolean): RollbackRequest => ({ checkpoint: target.checkpoint ?? '', call: target.call ?? '', dry_run: dry, force });

  const fail = (err: unknown) => {
    if (err instanceof ApiError && err.status === 404 && /no route|does not offer/.test(err.message)) setPhase({ kind: 'unavailable' });
    else setPhase({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
  };

  useEffect(() => {
    setPhase({ kind: 'planning' });
    api
      .post<RollbackReply>(path, body(true))
      .then((r) => {
        setBinaries(binaryPlanItems(r));
        setPhase({ kind: 'plan', plan: rollbackSummary(r) });
      })
      .catch(fail);
    // A new plan when the force choice changes: forced plans list more.
  }, [target.checkpoint, target.call, force]);

  const apply = async (plan: RollbackSummary) => {
    setPhase({ kind: 'applying', plan });
    try {
      const r = await api.post<RollbackReply>(path, body(false));
      setPhase(r.applied ? { kind: 'done', before: r.result?.before ?? '' } : { kind: 'error', message: 'The daemon did not apply the rollback; preview it again.' });
    } catch (err) {
      fail(err);
    }
  };

  const plan = phase.kind === 'plan' || phase.kind === 'applying' ? phase.plan : null;
  const nothing = plan && isEmpty(plan);
  const risky = plan && (plan.conflicts.length > 0 || plan.external_edits.length > 0);

  return (
    <div class="rollback" role="region" aria-label={target.title} data-rollback-phase={phase.kind}>
      <h3>{target.title}</h3>
      {phase.kind === 'planning' && <p class="muted">Working out what would change…</p>}
      {phase.kind === 'unavailable' && (
        <p class="notice warn" role="alert">
          Rollback is not available from this daemon yet (the rollback route answered 404). Update Gatehouse to use it.
        </p>
      )}
      {phase.kind === 'error' && <ErrorLine message={phase.message} />}
      {phase.kind === 'done' && (
        <p class="notice ok" role="status">
          Rolled back: the files are restored.{' '}
          {phase.before && onUndo
            ? 'Gatehouse checkpointed the workspace just before, so Undo this rollback, below, puts it back as it was (previewed first).'
            : 'Gatehouse checkpointed the workspace just before; to put it back, use Rollback to here on the last call of this session.'}
        </p>
      )}
      {plan && (
        <>
          {nothing ? (
            <p>Nothing to change: the workspace already matches.</p>
          ) : (
            <p>Preview — nothing has changed yet. Confirming will:</p>
          )}
          <PathList title="Restore" items={plan.restore} />
          <PathList title="Delete" items={plan.delete} />
          <PathList title="Recreate" items={plan.recreate} />
          <PathList title="Conflicts" items={plan.conflicts} />
          <PathList title="Edited outside Gatehouse since" items={plan.external_edits} />
          {(plan.diff || binaries.length > 0) && <Diff text={plan.diff} binaries={binaries} label="Changes the rollback will make" />}
          {risky && (
            <label class="check">
              <input type="checkbox" checked={force} onChange={(e) => setForce(e.currentTarget.checked)} /> Overwrite files changed outside Gatehouse too
            </label>
          )}
        </>
      )}
      <div class="actions">
        {plan && !nothing && (
          <button type="button" class="btn danger" disabled={phase.kind === 'applying' || (plan.conflicts.length > 0 && !force)} onClick={() => apply(plan)}>
            {phase.kind === 'applying' ? 'Rolling back…' : 'Confirm rollback'}
          </button>
        )}
        {phase.kind === 'done' && phase.before && onUndo && (
          <button type="button" class="btn" onClick={() => onUndo({ checkpoint: phase.before, title: 'Undo this rollback: back to just before it' })}>
            Undo this rollback
          </button>
        )}
        <button type="button" class="btn" onClick={() => onClose(phase.kind === 'done')}>
          {phase.kind === 'done' ? 'Close' : 'Cancel'}
        </button>
      </div>
    </div>
  );
}

// What the Connect screen shows per agent, and the sentence after an
// Install or Remove: pure functions, tested without a daemon.

import type { AgentResult, AgentStatus } from '../api/types';

export interface AgentRow {
  name: string;
  title: string;
  wired: boolean;
  /** e.g. "Wired (user config)" or "Not wired". */
  label: string;
  /** The files that hold (or would hold) the wiring. */
  where: string[];
  action: 'install' | 'uninstall';
  /** The scope the button acts on. */
  scope: 'user' | 'system';
  /** Why a Remove here cannot undo everything (a system install needs root). */
  note?: string;
}

export function agentRows(list: AgentStatus[]): AgentRow[] {
  return list.map((a) => {
    if (a.system.wired || a.system.recorded) {
      return {
        ...removeRow(a, 'system', 'Wired (managed settings)', 'Install recorded, hooks missing (managed settings)'),
        note: 'Managed settings need root to change: run sudo gatehouse install ' + a.name + ' --system --uninstall if Remove fails.',
      };
    }
    if (a.user.wired || a.user.recorded) {
      return removeRow(a, 'user', 'Wired (user config)', 'Install recorded, hooks missing');
    }
    return { name: a.name, title: a.title, wired: false, label: 'Not wired', where: a.user.files, action: 'install', scope: 'user' };
  });
}

/** The row of an agent installed in scope: its button removes it. */
function removeRow(a: AgentStatus, scope: 'user' | 'system', wired: string, missing: string): AgentRow {
  const s = a[scope];
  return { name: a.name, title: a.title, wired: s.wired, label: s.wired ? wired : missing, where: s.files, action: 'uninstall', scope };
}

export function actionPath(row: Pick<AgentRow, 'name' | 'action'>): string {
  return `/api/v1/agents/${encodeURIComponent(row.name)}/${row.action}`;
}

/** One sentence saying what an Install or Remove did. */
export function resultSentence(title: string, install: boolean, r: AgentResult): string {
  const changed = r.changes.filter((c) => c.outcome !== 'unchanged');
  if (changed.length === 0) {
    return install ? `${title} was already wired; nothing changed.` : `${title} had nothing to remove.`;
  }
  if (install) {
    return `Wired ${title} (${changed.map((c) => c.path).join(', ')}); start a new ${title} session to load it.`;
  }
  const edited = changed.filter((c) => c.outcome === 'stripped').map((c) => c.path);
  if (edited.length > 0) {
    return `Removed Gatehouse from ${title}. ${edited.join(' and ')} changed since install, so only Gatehouse's entries were taken out.`;
  }
  return `Removed Gatehouse from ${title}; its files are as they were before install.`;
}

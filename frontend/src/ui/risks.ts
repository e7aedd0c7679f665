// What each risk kind means for the person deciding, and a risk's line on
// a card: its label, then one sentence saying what it means, said once.

const RISK_TEXT: Record<string, { label: string; meaning: string; said?: RegExp }> = {
  // The daemon's detail already says it: "sh is an interpreter: allowing it
  // grants arbitrary code execution inside the sandbox".
  interpreter: { label: 'Runs code', meaning: 'Allowing this grants arbitrary code execution inside the sandbox.', said: /arbitrary code/i },
  sensitive: { label: 'Sensitive', meaning: 'Touches credentials, keys or other secrets.' },
  destructive: { label: 'Destructive', meaning: 'Can delete or overwrite data.' },
  protected: { label: 'Protected file', meaning: 'Changes a file Gatehouse keeps read-only (git hooks or config, shell rc, agent, editor and dev-container config, agents\' instruction files).' },
  'outside-workspace': { label: 'Outside workspace', meaning: 'Reaches beyond the workspace folders.' },
  'not-restorable': { label: 'Not restorable', meaning: 'Rollback cannot undo this.' },
  // "it runs outside Gatehouse's sandbox, so nothing bounds what it does"
  unconfined: { label: 'No sandbox', meaning: 'Runs outside the sandbox, with your full access.', said: /outside .*sandbox/i },
  drift: { label: 'Drifts from the request', meaning: 'Reaches for something the person’s request never mentions.' },
};

export function riskInfo(kind: string): { label: string; meaning: string } {
  const t = RISK_TEXT[kind];
  return t ? { label: t.label, meaning: t.meaning } : { label: kind, meaning: '' };
}

export interface RiskLine {
  label: string;
  /** The sentence shown after the label: the daemon's detail when it says what the kind means, else the kind's meaning. */
  text: string;
  /** Whether text is the daemon's detail (untrusted text: render it with Vis). */
  fromDetail: boolean;
  /** The detail, shown muted after the meaning, when it adds something; '' otherwise. */
  extra: string;
}

/**
 * A risk's line, its point made once: when the daemon's detail already
 * says what the kind means, the detail is the sentence; otherwise the
 * meaning, then the detail when it adds to it and is not the card's reason.
 */
export function riskLine(r: { kind: string; detail?: string }, reason = ''): RiskLine {
  const t = RISK_TEXT[r.kind];
  const label = t?.label ?? r.kind;
  const detail = (r.detail ?? '').trim();
  if (detail && (!t || t.said?.test(detail))) return { label, text: /[.!?]$/.test(detail) ? detail : detail + '.', fromDetail: true, extra: '' };
  return { label, text: t?.meaning ?? '', fromDetail: false, extra: detail && detail !== reason.trim() ? detail : '' };
}

/**
 * Whether a risk line already says the card's reason word for word (the
 * daemon often gives an interpreter's detail as the reason too): the
 * reason line then only names the rule, so the card says it once.
 */
export function reasonOnRiskLine(reason: string, risks: readonly { kind: string; detail?: string }[] | undefined): boolean {
  const r = reason.trim();
  return (
    r !== '' &&
    (risks ?? []).some((k) => {
      if (k.kind === 'drift') return false;
      const d = (k.detail ?? '').trim();
      if (riskLine(k, reason).fromDetail) return d === r;
      // The detail says what the call does ("sh is an interpreter") and the
      // line's meaning what that means: the reason is the two together.
      const said = RISK_TEXT[k.kind]?.said;
      return d !== '' && r.startsWith(d) && !!said && said.test(r);
    })
  );
}

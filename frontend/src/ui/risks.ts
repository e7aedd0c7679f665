// What each risk kind means for the person deciding.

const RISK_TEXT: Record<string, { label: string; meaning: string }> = {
  interpreter: { label: 'Runs code', meaning: 'Allowing this grants arbitrary code execution inside the sandbox.' },
  sensitive: { label: 'Sensitive', meaning: 'Touches credentials, keys or other secrets.' },
  destructive: { label: 'Destructive', meaning: 'Can delete or overwrite data.' },
  protected: { label: 'Protected file', meaning: 'Changes a file Gatehouse keeps read-only (git hooks or config, shell rc, agent config).' },
  'outside-workspace': { label: 'Outside workspace', meaning: 'Reaches beyond the workspace folders.' },
  'not-restorable': { label: 'Not restorable', meaning: 'Rollback cannot undo this.' },
  unconfined: { label: 'No sandbox', meaning: 'Runs outside the sandbox, with your full access.' },
  drift: { label: 'Drifts from the request', meaning: 'Reaches for something the person’s request never mentions.' },
};

export function riskInfo(kind: string): { label: string; meaning: string } {
  return RISK_TEXT[kind] ?? { label: kind, meaning: '' };
}

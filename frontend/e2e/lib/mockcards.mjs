// Cards the real daemon cannot raise on demand here (a staged command's
// effect card, a call from an agent's own tool), served to one page in
// place of GET /api/v1/approvals. Decisions on them are recorded, not
// sent: the returned map holds each decision body by approval id.

const now = () => new Date().toISOString();
const later = () => new Date(Date.now() + 120_000).toISOString();

export function effectCard() {
  const deleted = Array.from({ length: 25 }, (_, i) => ({ path: `old/f${String(i).padStart(2, '0')}.go`, op: 'delete', kind: 'file', size: 100 + i }));
  return {
    id: 'a_e2e_effect',
    kind: 'effect',
    session: 's_e2e_mock_effect',
    call_id: 'c_e2e_effect',
    actor: 'agent:e2e-staged',
    tool: 'run_command',
    argv: ['sh', '-c', 'rm -rf old && chmod +x run.sh && ln -s /home/someone/.ssh out-link'],
    staged: true,
    changes: [
      ...deleted,
      { path: 'old', op: 'delete', kind: 'dir' },
      { path: 'run.sh', op: 'modify', kind: 'file', old_mode: '0644', mode: '0755', mode_only: true },
      { path: 'src/a.go', op: 'modify', kind: 'file', size: 300 },
      { path: 'src/b.go', op: 'modify', kind: 'file', size: 310 },
      { path: 'logo.png', op: 'modify', kind: 'file', size: 2048 },
      { path: 'out-link', op: 'create', kind: 'symlink', target: '/home/someone/.ssh' },
      { path: 'new.txt', op: 'create', kind: 'file', size: 12, mode: '0644' },
    ],
    findings: ['deletes 26 files, more than 20', 'a link that leads out of the workspace: out-link → /home/someone/.ssh'],
    conflicts: [
      { path: 'src/a.go', why: 'you edited it while the command ran' },
      { path: 'src/b.go', why: 'you edited it while the command ran' },
    ],
    diff: '--- a/src/a.go\n+++ b/src/a.go\n@@ -1,2 +1,2 @@\n package a\n-const X = 1\n+const X = 2\nBinary files a/logo.png and b/logo.png differ\n',
    reason: 'the change set deletes more than 20 files',
    rule: 'mass-delete',
    created_at: now(),
    expires_at: later(),
  };
}

export function hookCard() {
  const rule = '[[rule]]\nid = "allow-cat"\naction = "allow"\ntool = "run_command"\nbinary = "/usr/bin/cat"\n';
  return {
    id: 'a_e2e_hook',
    kind: 'call',
    session: 's_e2e_mock_hook',
    call_id: 'c_e2e_hook',
    actor: 'agent:claude-code',
    tool: 'run_command',
    argv: ['cat', '/home/someone/.aws/credentials'],
    binary: '/usr/bin/cat',
    cwd: '/home/someone/src/app',
    via: 'hook',
    native: 'Claude Code Bash',
    goal: 'fix the flaky test in pkg/retry',
    no_session_scope: true,
    session_rule: rule.replace('allow-cat', 'allow-cat-session'),
    always_rule: rule + 'reason = "approved always"\n',
    risks: [
      { kind: 'drift', detail: "the person's request never mentions ~/.aws/credentials, which this call reaches for; the agent may have drifted from it" },
      { kind: 'sensitive', detail: '~/.aws/credentials' },
    ],
    reason: 'credentials and metadata services ask',
    rule: 'sensitive',
    created_at: new Date(Date.now() + 1).toISOString(),
    expires_at: later(),
  };
}

/** A plain command card whose decision the daemon answers 410: the agent had cancelled it. */
export function lateCard() {
  return {
    id: 'a_e2e_late',
    kind: 'call',
    session: 's_e2e_mock_late',
    call_id: 'c_e2e_late',
    actor: 'agent:e2e-late',
    tool: 'run_command',
    argv: ['make', 'release'],
    reason: 'any other command asks',
    rule: 'builtin rule "command"',
    created_at: new Date(Date.now() + 2).toISOString(),
    expires_at: later(),
  };
}

const GONE = 'that request was withdrawn: the agent cancelled the call before you decided, so nothing ran';

export async function mockApprovals(page, cards) {
  const sent = new Map();
  const ids = new Set(cards.map((c) => c.id));
  await page.route('**/api/v1/approvals', (route) =>
    route.request().method() === 'GET' ? route.fulfill({ json: { approvals: cards, timeout_s: 120 } }) : route.continue(),
  );
  await page.route('**/api/v1/approvals/*', (route) => {
    const id = decodeURIComponent(new URL(route.request().url()).pathname.split('/').pop());
    if (!ids.has(id) || route.request().method() !== 'POST') return route.continue();
    const body = route.request().postDataJSON();
    sent.set(id, body);
    if (id === 'a_e2e_late') return route.fulfill({ status: 410, json: { error: GONE } });
    return route.fulfill({ json: { approval: cards.find((c) => c.id === id), decision: body.decision, scope: body.scope } });
  });
  return sent;
}

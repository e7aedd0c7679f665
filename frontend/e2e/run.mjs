// End-to-end: a real `gatehouse serve`, Debian's Chromium driven by
// playwright-core, and a real MCP client (the agent) from Node.
//
//   GATEHOUSE_BIN=/path/to/gatehouse node e2e/run.mjs
//
// Prints one PASS/FAIL line per scenario, measured latencies, and
// "N passed, N failed, N skipped". Screenshots go to <repo>/test-results/.

import { mkdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon } from './lib/daemon.mjs';
import { CHROMIUM, launch } from './lib/browser.mjs';
import { connectAgent, resultText } from './lib/mcp.mjs';
import { assert, createHarness, notAvailable, percentile } from './lib/harness.mjs';
import { serveSyntheticEvents } from './lib/synthetic.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = resolve(here, '..', '..', 'test-results');
mkdirSync(outDir, { recursive: true });

const bin = process.env.GATEHOUSE_BIN;
if (!bin || !existsSync(bin)) {
  console.error(`e2e: set GATEHOUSE_BIN to the built gatehouse binary (got ${JSON.stringify(bin)}); e.g. make build && GATEHOUSE_BIN=$PWD/bin/gatehouse npm run e2e`);
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(1);
}
if (!existsSync(CHROMIUM)) {
  console.error(`e2e: no Chromium at ${CHROMIUM}; install it with: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(1);
}

const CARD_P95_BUDGET_MS = Number(process.env.CARD_P95_BUDGET_MS ?? 100);
const LIVE_BUDGET_MS = 1000;
const TIMELINE_EVENTS = 100_000;

const shot = (p, name) => p.screenshot({ path: join(outDir, `e2e-${name}.png`), fullPage: false }).catch(() => {});
const t = createHarness({ onFail: (name) => shot(page, 'FAILED-' + name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)) });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let daemon = await startDaemon(bin);
const browser = await launch();
const page = await browser.newPage();
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.message));
let agent;

const cards = () => page.locator('[data-approval-id]');
async function waitCard(predicate = '') {
  const sel = `[data-approval-id]${predicate}`;
  await page.waitForSelector(sel, { timeout: 10_000 });
  return page.locator(sel).first();
}

try {
  await t.step('login link: token moves to sessionStorage and leaves the address bar', async () => {
    await page.goto(`${daemon.base}/#token=${daemon.control}`);
    await page.waitForSelector('text=Nothing is waiting for you');
    assert(!page.url().includes(daemon.control), `token still in URL: ${page.url()}`);
    const stored = await page.evaluate(() => sessionStorage.getItem('gatehouse.control-token'));
    assert(stored === daemon.control, 'token not in sessionStorage');
    await page.waitForSelector('.conn-live', { timeout: 5000 });
    assert((await page.title()) === 'Gatehouse', `title ${await page.title()}`);
    await shot(page, '01-empty');
  });

  await t.step('a login link signs in one tab, once', async () => {
    const link = (await daemon.api('POST', '/api/v1/login-links')).json.url;
    assert(link.includes('#login='), `link ${link}`);
    const first = await browser.newPage();
    await first.goto(link);
    await first.waitForSelector('text=Nothing is waiting for you');
    assert(!first.url().includes('login='), `code still in URL: ${first.url()}`);
    const second = await browser.newPage();
    await second.goto(link);
    await second.waitForSelector('text=This login link was already used');
    await shot(second, '02-login-link-used');
    await second.close();
    await first.close();
  });

  await t.step('without a token the page says to run gatehouse open', async () => {
    const other = await browser.newPage();
    await other.goto(`${daemon.base}/`);
    await other.waitForSelector('text=gatehouse open');
    await shot(other, '02-login');
    await other.close();
  });

  agent = await connectAgent(daemon);

  await t.step('allow once from the card: the agent gets the command output', async () => {
    const t0 = Date.now();
    const call = agent.call('run_command', { argv: ['sh', '-c', 'echo approved-by-ui'] });
    const card = await waitCard();
    t.note(`MCP call → card visible: ${Date.now() - t0} ms (includes policy and MCP round trip)`);
    const chips = await card.locator('.argv li').allTextContents();
    assert(JSON.stringify(chips) === JSON.stringify(['sh', '-c', 'echo approved-by-ui']), `argv chips ${JSON.stringify(chips)}`);
    assert((await page.title()) === '(1) Gatehouse', `title ${await page.title()}`);
    assert(await card.locator('.risk-interpreter').count(), 'interpreter risk badge missing');
    assert((await card.getAttribute('data-rendered-at')) !== null, 'data-rendered-at missing');
    await shot(page, '03-card');
    await card.getByRole('button', { name: /Allow once/ }).click();
    const res = await call;
    assert(!res.isError && resultText(res).includes('approved-by-ui'), `agent got ${JSON.stringify(res)}`);
    await page.waitForFunction(() => document.querySelectorAll('[data-approval-id]').length === 0);
  });

  await t.step('the header fits one row at the desktop window\'s default size (1120x760)', async () => {
    // The window is 1120x760 with a 25 px menu bar; paused is the widest
    // everyday state of the status bar.
    await page.setViewportSize({ width: 1120, height: 735 });
    const call = agent.call('run_command', { argv: ['sh', '-c', 'echo header-check'] });
    const card = await waitCard();
    const rows = () =>
      page.evaluate(() => {
        const top = (s) => document.querySelector(s).getBoundingClientRect();
        const nav = top('header.top nav'), bar = top('.statusbar'), header = top('header.top');
        return { sameRow: Math.abs(nav.top + nav.height / 2 - (bar.top + bar.height / 2)) < 8, header: Math.round(header.height), overflow: document.documentElement.scrollWidth > innerWidth };
      });
    let r = await rows();
    assert(r.sameRow && !r.overflow, `header at 1120 px: ${JSON.stringify(r)}`);
    t.note(`header at the default window size: one row, ${r.header} px high`);
    await shot(page, 'header-default-size');
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.waitForSelector('.state.paused');
    r = await rows();
    assert(r.sameRow && !r.overflow, `header paused at 1120 px: ${JSON.stringify(r)}`);
    await shot(page, 'header-default-size-paused');
    await page.getByRole('button', { name: 'Resume agents' }).click();
    await page.waitForFunction(() => !document.querySelector('.state.paused'));
    await card.getByRole('button', { name: /Deny/ }).click();
    await call;
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  await t.step('deny by keyboard with a typed message: the agent sees the message', async () => {
    const call = agent.call('run_command', { argv: ['sh', '-c', 'echo must-not-run'] });
    const card = await waitCard();
    await card.getByRole('button', { name: /Always allow/ }).click();
    const rule = await card.locator('.rule-snippet').textContent();
    assert(rule && rule.includes('[[rule]]'), `always rule not shown: ${rule}`);
    await card.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('body').click({ position: { x: 5, y: 800 } });
    await page.keyboard.press('d');
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-keyrole'));
    assert(focused === 'deny-message', `d focused ${focused}`);
    await page.keyboard.type('use the test runner instead');
    await page.keyboard.press('Enter');
    const res = await call;
    const text = resultText(res);
    assert(res.isError && text.includes('use the test runner instead') && !text.includes('must-not-run\n'), `agent got ${JSON.stringify(res)}`);
  });

  await t.step('keyboard allow: a arms, Enter confirms', async () => {
    const call = agent.call('run_command', { argv: ['sh', '-c', 'echo keyboard-ok'] });
    await waitCard();
    await page.keyboard.press('a');
    await page.waitForSelector('.btn.primary.armed');
    assert((await cards().count()) === 1, 'a alone must not decide');
    await page.keyboard.press('Enter');
    const res = await call;
    assert(resultText(res).includes('keyboard-ok'), `agent got ${JSON.stringify(res)}`);
  });

  await t.step('ask_human: the typed answer reaches the agent', async () => {
    const call = agent.call('ask_human', { question: 'Which branch should I push to?' });
    const card = await waitCard('[data-kind="question"]');
    await card.locator('textarea').fill('release-2');
    await card.locator('textarea').press('Enter');
    const res = await call;
    assert(resultText(res).includes('release-2'), `agent got ${JSON.stringify(res)}`);
  });

  // The 100 ms target is reported, not asserted: a shared CI machine must not
  // turn a speed figure into a flaky failure. Ten times over it is a bug.
  await t.step(`card latency: 20 live cards, p95 from event to DOM (target ≤ ${CARD_P95_BUDGET_MS} ms)`, async () => {
    await page.evaluate(() => {
      window.__gatehouseMetrics.cardLatencies.length = 0;
      window.__gatehouseMetrics.cardReceiveLatencies.length = 0;
    });
    const calls = [];
    for (let i = 0; i < 20; i++) {
      calls.push(agent.call('run_command', { argv: ['sh', '-c', `echo burst-${i}`] }));
      await sleep(60); // spaced so each card is its own event, as in real use
    }
    await page.waitForFunction(() => document.querySelectorAll('[data-approval-id]').length === 20, null, { timeout: 20_000 });
    await shot(page, '04-twenty-cards');
    const m = await page.evaluate(() => window.__gatehouseMetrics);
    const p95 = percentile(m.cardLatencies, 95);
    const p95recv = percentile(m.cardReceiveLatencies, 95);
    t.note(`card latency (server event → card in DOM): p95 ${p95} ms, max ${Math.max(...m.cardLatencies)} ms over ${m.cardLatencies.length} cards`);
    t.note(`card latency (bytes received → card in DOM): p95 ${p95recv} ms`);
    const pending = (await daemon.api('GET', '/api/v1/approvals')).json.approvals;
    for (const a of pending) await daemon.api('POST', `/api/v1/approvals/${a.id}`, { decision: 'deny', scope: 'once', message: 'cleanup' });
    await Promise.allSettled(calls);
    assert(m.cardLatencies.length >= 20, `only ${m.cardLatencies.length} samples`);
    t.note(`card latency target ${p95 <= CARD_P95_BUDGET_MS ? 'met' : 'MISSED'}: p95 ${p95} ms vs ${CARD_P95_BUDGET_MS} ms`);
    assert(p95 <= 10 * CARD_P95_BUDGET_MS, `p95 ${p95} ms is over ten times the ${CARD_P95_BUDGET_MS} ms target`);
  });

  await t.step(`timeline shows a new event live within ${LIVE_BUDGET_MS} ms`, async () => {
    await page.goto(`${daemon.base}/#/timeline`);
    await page.waitForSelector('.tl-row[data-seq]');
    const maxSeq = await page.evaluate(() => Math.max(...[...document.querySelectorAll('.tl-row[data-seq]')].map((r) => Number(r.dataset.seq))));
    // Record when each newer row enters the DOM, by the page's clock.
    await page.evaluate((after) => {
      window.__seen = {};
      new MutationObserver(() => {
        for (const r of document.querySelectorAll('.tl-row[data-seq]')) {
          const s = Number(r.dataset.seq);
          if (s > after && !window.__seen[s]) window.__seen[s] = Date.now();
        }
      }).observe(document.querySelector('.vlist'), { childList: true, subtree: true, attributes: true, attributeFilter: ['data-seq'] });
    }, maxSeq);
    const res = await agent.call('list_dir', { path: '.' });
    assert(!res.isError, `list_dir failed: ${resultText(res)}`);
    await page.waitForFunction((after) => Object.keys(window.__seen).some((s) => Number(s) > after), maxSeq, { timeout: 5000 });
    await sleep(300);
    const seen = await page.evaluate(() => window.__seen);
    const events = (await daemon.api('GET', `/api/v1/events?after=${maxSeq}&limit=100`)).json.events;
    const lags = events.filter((e) => seen[e.seq]).map((e) => seen[e.seq] - Date.parse(e.time));
    assert(lags.length > 0, 'no new rows matched');
    const worst = Math.max(...lags);
    t.note(`timeline live lag (event time → row in DOM): worst ${worst} ms over ${lags.length} events`);
    await shot(page, '05-timeline');
    assert(worst <= LIVE_BUDGET_MS, `row appeared ${worst} ms after its event`);
    await page.locator('.tl-row[data-seq]').first().click();
    await page.waitForSelector('.event-detail .payload');
    await shot(page, '06-event-detail');
  });

  await t.step('timeline filters: kind family and text search', async () => {
    await page.goto(`${daemon.base}/#/timeline/kind=exec.`);
    await page.waitForSelector('.tl-row[data-seq]');
    const kinds = await page.locator('.tl-row[data-seq]').evaluateAll((rs) => rs.map((r) => r.dataset.kind));
    assert(kinds.length > 0 && kinds.every((k) => k.startsWith('exec.')), `kinds ${kinds}`);
    await page.goto(`${daemon.base}/#/timeline/q=keyboard-ok`);
    await page.waitForFunction(() => document.querySelector('.tl-foot')?.textContent?.includes('matches'));
    const n = await page.locator('.tl-row[data-seq]').count();
    assert(n > 0, 'search found nothing');
  });

  await t.step('sessions: history row, detail with calls, live mode and budget change', async () => {
    await page.goto(`${daemon.base}/#/sessions`);
    const link = page.locator('table.sessions tbody tr a').first();
    await link.waitFor();
    await link.click();
    await page.waitForSelector('.calls .call');
    await shot(page, '07-session');
    const id = decodeURIComponent(page.url().split('/').pop());
    const sel = page.locator('#mode-select');
    const modeIs = async (want) => {
      const deadline = Date.now() + 5000;
      let mode;
      while (Date.now() < deadline) {
        mode = (await daemon.api('GET', `/api/v1/sessions/${id}`)).json?.mode;
        if (mode === want) return;
        const errText = await page.locator('.mode-box .error-line').textContent({ timeout: 50 }).catch(() => null);
        if (errText && /not available/.test(errText)) notAvailable(`POST /api/v1/sessions/{id}/mode: ${errText}`);
        await sleep(100);
      }
      throw new Error(`mode is ${mode}, want ${want}`);
    };
    await sel.selectOption('plan');
    await modeIs('plan');
    await page.waitForFunction(() => document.querySelector('#mode-select')?.value === 'plan' && !document.querySelector('#mode-select')?.disabled);
    await sel.selectOption('default');
    await modeIs('default');
    // Budgets change live too.
    const calls = page.getByLabel('Tool calls');
    await calls.fill('4321');
    await page.getByRole('button', { name: 'Save budgets' }).click();
    await page.waitForSelector('.budgets [role=status]');
    const limits = (await daemon.api('GET', `/api/v1/sessions/${id}/limits`)).json;
    assert(limits?.max_calls === 4321, `limits after save: ${JSON.stringify(limits)}`);
  });

  await t.step('policy: tester verdict, validation error on save, a saved rule takes effect', async () => {
    await page.goto(`${daemon.base}/#/policy`);
    const probe = await daemon.api('GET', '/api/v1/policy');
    if (probe.status === 404) notAvailable('GET /api/v1/policy answered 404');
    await page.waitForSelector('table.rules tbody tr');
    await page.locator('.tester input').fill('git push --force');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.waitForSelector('.verdict-box .v-ask');
    const editor = page.locator('#policy-text');
    await editor.fill('[[rule]]\nid = "typo"\naction = "alow"\n');
    await page.getByRole('button', { name: 'Save' }).click();
    const err = await page.locator('#policy-err').textContent();
    assert(/:\d+:/.test(err ?? ''), `no line-numbered error: ${err}`);
    await editor.fill('[[rule]]\nid = "e2e-no-secrets"\naction = "deny"\ntool = "read_file"\npaths = ["**/secret.txt"]\nreason = "e2e: secrets stay put"\n');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('table.rules >> text=e2e-no-secrets');
    await shot(page, '12-policy');
    await page.locator('.tester select').first().selectOption('read_file');
    await page.locator('.tester input').fill('secret.txt');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.waitForSelector('.verdict-box .v-deny');
    const res = await agent.call('read_file', { path: 'secret.txt' });
    assert(res.isError && resultText(res).includes('secrets stay put'), `agent got ${JSON.stringify(res)}`);
    await editor.fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('table.rules >> text=e2e-no-secrets', { state: 'detached' });
  });

  await t.step('connect: snippets carry the endpoint and token; a per-client token works until revoked', async () => {
    await page.goto(`${daemon.base}/#/connect`);
    const info = await daemon.api('GET', '/api/v1/connect');
    if (info.status === 404) notAvailable('GET /api/v1/connect answered 404');
    const snippet = await page.locator('#client-panel pre').first().textContent();
    assert(snippet.includes(info.json.mcp_url) && snippet.includes(`Bearer ${daemon.agent}`), `snippet: ${snippet}`);
    await page.locator('#token-name').fill('e2e-cursor');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.locator('pre.token').textContent())?.trim();
    assert(token && token !== daemon.agent, 'new token not shown');
    await page.getByRole('tab', { name: 'Cursor' }).click();
    const cursor = JSON.parse(await page.locator('#client-panel pre').first().textContent());
    assert(cursor.mcpServers.gatehouse.headers.Authorization === `Bearer ${token}`, 'Cursor snippet does not use the new token');
    await shot(page, '13-connect');
    const other = await connectAgent({ ...daemon, agent: token }, 'e2e-cursor');
    const ok = await other.call('list_dir', { path: '.' });
    assert(!ok.isError, `new token could not call: ${resultText(ok)}`);
    await other.close();
    const row = page.locator('table.tokens tr', { hasText: 'e2e-cursor' });
    await row.getByRole('button', { name: 'Revoke…' }).click();
    await row.getByRole('button', { name: 'Revoke now' }).click();
    await row.locator('text=revoked').waitFor();
    const refused = await fetch(daemon.base + '/mcp', { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
    assert(refused.status === 401, `revoked token got HTTP ${refused.status}`);
  });

  await t.step('rollback from the Sessions view: undo a write after a dry-run preview', async () => {
    await page.goto(`${daemon.base}/#/approvals`);
    const call = agent.call('write_file', { path: 'rollback-me.txt', content: 'temporary\n' });
    const card = await waitCard();
    await card.getByRole('button', { name: /Allow once/ }).click();
    const res = await call;
    assert(!res.isError, `write failed: ${resultText(res)}`);
    const sessions = (await daemon.api('GET', '/api/v1/sessions?status=active')).json.sessions;
    const id = sessions.find((s) => s.client_name === 'e2e-agent').id;
    const cps = await daemon.api('GET', `/api/v1/sessions/${id}/checkpoints`);
    if (cps.status === 404) notAvailable(`GET /api/v1/sessions/{id}/checkpoints answered 404: ${cps.text.trim()}`);
    const probe = await daemon.api('POST', `/api/v1/sessions/${id}/rollback`, { checkpoint: '', call: '', dry_run: true, force: false });
    if (probe.status === 404 && /no route/.test(probe.text)) notAvailable(`POST /api/v1/sessions/{id}/rollback answered 404: ${probe.text.trim()}`);
    await page.goto(`${daemon.base}/#/sessions/${encodeURIComponent(id)}`);
    const row = page.locator('.call', { hasText: 'rollback-me.txt' }).last();
    await row.getByRole('button', { name: 'Undo this call' }).click();
    const panel = row.locator('.rollback');
    await page.waitForFunction(() => {
      const p = document.querySelector('.rollback')?.getAttribute('data-rollback-phase');
      return p && p !== 'planning';
    });
    const phase = await panel.getAttribute('data-rollback-phase');
    if (phase === 'unavailable') notAvailable('the rollback route answered 404 in the UI');
    assert(phase === 'plan', `rollback preview phase ${phase}: ${await panel.textContent()}`);
    await shot(page, '08-rollback-preview');
    const { existsSync: exists } = await import('node:fs');
    assert(exists(join(daemon.workspace, 'rollback-me.txt')), 'dry run must not change files');
    await panel.getByRole('button', { name: 'Confirm rollback' }).click();
    await page.waitForSelector('[data-rollback-phase="done"]');
    assert(!exists(join(daemon.workspace, 'rollback-me.txt')), 'file still there after undo');
  });

  await t.step('kill switch stops a call waiting for approval', async () => {
    await page.goto(`${daemon.base}/#/approvals`);
    const call = agent.call('run_command', { argv: ['sh', '-c', 'echo never-ran > killed.txt'] });
    let settled = null;
    call.then((r) => (settled = r), (e) => (settled = { isError: true, content: [{ type: 'text', text: String(e) }] }));
    const card = await waitCard();
    const approvalId = await card.getAttribute('data-approval-id');
    await page.getByRole('button', { name: 'Stop all agents' }).click();
    await page.getByRole('button', { name: 'Yes, stop everything' }).click();
    await page.waitForSelector('.state.killed');
    await page.waitForFunction(() => document.querySelectorAll('[data-approval-id]').length === 0);
    await shot(page, '09-killed');
    // The audit log is the ground truth: denied by the kill switch, never run.
    const events = (await daemon.api('GET', '/api/v1/events?kind=approval.decided&order=desc&limit=20')).json.events;
    const decided = events.find((e) => e.payload?.approval === approvalId);
    assert(decided?.payload?.by === 'system:kill', `approval decided by ${decided?.payload?.by}`);
    assert(!existsSync(join(daemon.workspace, 'killed.txt')), 'the command ran');
    await page.getByRole('button', { name: 'Resume agents' }).click();
    await page.waitForSelector('.state.killed', { state: 'detached' });
    // The agent should also hear back rather than hang.
    const deadline = Date.now() + 10_000;
    while (!settled && Date.now() < deadline) await sleep(100);
    assert(settled, "the agent's pending tools/call got no JSON-RPC answer after the kill");
    assert(settled.isError, `agent got ${JSON.stringify(settled)}`);
  });

  await t.step(`timeline first paint with ${TIMELINE_EVENTS.toLocaleString()} events, and a jump to the middle`, async () => {
    const perf = await browser.newPage();
    await serveSyntheticEvents(perf, TIMELINE_EVENTS);
    await perf.goto(`${daemon.base}/#token=${daemon.control}`);
    await perf.waitForSelector('.conn-live');
    await perf.evaluate(() => (location.hash = '#/timeline'));
    await perf.waitForFunction(() => window.__gatehouseMetrics?.timelineFirstPaintMs !== undefined, null, { timeout: 10_000 });
    const m = await perf.evaluate(() => window.__gatehouseMetrics);
    const domRows = await perf.locator('.tl-row').count();
    t.note(`timeline first paint, cold: ${m.timelineFirstPaintMs} ms for ${m.timelineFirstPaintRows.toLocaleString()} events (${domRows} rows in the DOM)`);
    assert(m.timelineFirstPaintRows === TIMELINE_EVENTS, `rows ${m.timelineFirstPaintRows}`);
    // Again, warm (scripts compiled, styles cached): what a person sees on every later visit.
    await perf.evaluate(() => {
      delete window.__gatehouseMetrics.timelineFirstPaintMs;
      location.hash = '#/approvals';
    });
    await perf.waitForSelector('#approvals-h');
    await perf.evaluate(() => (location.hash = '#/timeline'));
    await perf.waitForFunction(() => window.__gatehouseMetrics?.timelineFirstPaintMs !== undefined, null, { timeout: 10_000 });
    t.note(`timeline first paint, warm: ${await perf.evaluate(() => window.__gatehouseMetrics.timelineFirstPaintMs)} ms`);
    assert(domRows < 200, `${domRows} rows rendered: not virtualized`);
    const t0 = Date.now();
    await perf.locator('.vlist').evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    await perf.waitForFunction(() => [...document.querySelectorAll('.tl-row[data-seq]')].some((r) => Math.abs(Number(r.dataset.seq) - 50_000) < 100));
    t.note(`timeline jump to event ~50,000: rows shown in ${Date.now() - t0} ms`);
    await shot(perf, '10-timeline-100k');
    await perf.close();
  });

  await t.step('daemon restart: "Reconnecting…" then live again', async () => {
    await page.goto(`${daemon.base}/#/approvals`);
    await page.waitForSelector('.conn-live');
    await agent.close();
    const { addr, data, workspace } = daemon;
    await daemon.stop();
    await page.waitForSelector('text=Reconnecting…', { timeout: 10_000 });
    await shot(page, '11-reconnecting');
    daemon = await startDaemon(bin, { reuse: { addr, data, workspace } });
    await page.waitForSelector('.conn-live', { timeout: 20_000 });
    await page.waitForSelector('text=Reconnecting…', { state: 'detached' });
  });

  await t.step('no uncaught errors in the page', async () => {
    assert(pageErrors.length === 0, pageErrors.join('\n'));
  });
} finally {
  await agent?.close();
  await browser.close().catch(() => {});
  await daemon.stop();
}

const failed = t.summary();
process.exit(failed ? 1 : 0);

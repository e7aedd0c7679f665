// End-to-end: a real `gatehouse serve`, Debian's Chromium driven by
// playwright-core, and a real MCP client (the agent) from Node.
//
//   GATEHOUSE_BIN=/path/to/gatehouse node e2e/run.mjs
//
// Prints one PASS/FAIL line per scenario, measured latencies, and
// "N passed, N failed, N skipped". Screenshots go to <repo>/test-results/.

import { mkdirSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon } from './lib/daemon.mjs';
import { CHROMIUM, launch } from './lib/browser.mjs';
import { connectAgent, resultText } from './lib/mcp.mjs';
import { assert, createHarness, notAvailable, percentile } from './lib/harness.mjs';
import { serveSyntheticEvents } from './lib/synthetic.mjs';
import { mockApprovals, effectCard, hookCard, lateCard } from './lib/mockcards.mjs';

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

// A local web server the network card's command reaches under a made-up
// name, through the daemon's proxy (test_only_hosts is for tests only).
const web = createServer((req, res) => res.end(`hello from ${req.headers.host}\n`));
await new Promise((r) => web.listen(0, '127.0.0.1', r));
// The default mode is auto, where sandboxed commands run without a card:
// these steps are about cards, so the daemon asks. Twenty live cards come
// from one session, more than the default cap of ten per session.
const config = `max_pending_per_session = 25\n\n[network]\ntest_only_hosts = { "pkgs.example.test:80" = "127.0.0.1:${web.address().port}" }\n`;
let daemon = await startDaemon(bin, { mode: 'ask', config });
const DESKTOP = { width: 1120, height: 760 };
const browser = await launch();
const page = await browser.newPage();
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.message));
let agent;

const cards = () => page.locator('[data-approval-id]');
// A person moves the pointer onto the button they mean; a card's buttons
// ignore a click that arrives on a card that just moved under a resting
// pointer (see src/lib/placement.ts).
// A person who scrolls first sees the card settle before aiming: let the
// scroll's own event pass (it comes a frame later), then move and click.
async function clickAimed(locator, p = page) {
  const frames = () => p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  for (let i = 0; ; i++) {
    await locator.scrollIntoViewIfNeeded();
    await frames();
    await p.mouse.move(2, 2);
    await locator.click();
    // A card refuses a click that lands just as it moves under the pointer (something above
    // it changed), and says so: a person clicks again.
    await frames();
    const refused = await locator.locator('xpath=ancestor::*[@data-approval-id][1]//*[contains(@class,"moved-note")]').count().catch(() => 0);
    if (!refused || i >= 3) return;
  }
}
const pendingIds = async () => (await daemon.api('GET', '/api/v1/approvals')).json.approvals.map((a) => a.id);
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
    // No session has ever started: the empty screen says so, and where to connect one.
    await page.waitForSelector('[data-agents="none-yet"] >> text=No agent has connected yet');
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
    // The Runs code line makes its point once, and the card does not say it again under it.
    const runsCode = (await card.locator('.risk-interpreter').textContent()) ?? '';
    const whole = (await card.textContent()) ?? '';
    assert((runsCode.match(/arbitrary code execution/g) ?? []).length === 1 && (whole.match(/arbitrary code execution/g) ?? []).length === 1, `Runs code line: ${runsCode}; card: ${whole}`);
    assert(/interpreter/.test((await card.locator('.reason').textContent()) ?? ''), 'the card no longer names the rule that asked');
    assert((await card.getAttribute('data-rendered-at')) !== null, 'data-rendered-at missing');
    await shot(page, '03-card');
    await clickAimed(card.getByRole('button', { name: /Allow once/ }));
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
    await clickAimed(card.getByRole('button', { name: /Deny/ }));
    await call;
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  await t.step('deny by keyboard with a typed message: the agent sees the message', async () => {
    const call = agent.call('run_command', { argv: ['sh', '-c', 'echo must-not-run'] });
    const card = await waitCard();
    await card.getByRole('button', { name: /Always allow/ }).click();
    const rule = await card.locator('.rule-snippet').inputValue();
    assert(rule && rule.includes('[[rule]]'), `always rule not shown: ${rule}`);
    // An edit that does not parse is refused by the daemon, said on the card, and the card waits on.
    await card.locator('.rule-snippet').fill(rule.replace('action = "allow"', 'action = "alow"'));
    await clickAimed(card.getByRole('button', { name: 'Write rule and allow' }));
    const err = await card.locator('.always .error-line').textContent();
    assert(/not valid/.test(err ?? ''), `no error on the card for a bad rule: ${err}`);
    assert((await cards().count()) === 1, 'a refused always rule decided the card');
    await shot(page, 'card-always-rule-refused');
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

  await t.step('always allow: the rule as edited on the card is the one written to the policy file', async () => {
    const call = agent.call('run_command', { argv: ['sh', '-c', 'echo always-edited'] });
    const card = await waitCard();
    await card.getByRole('button', { name: /Always allow/ }).click();
    const box = card.locator('.rule-snippet');
    const shown = await box.inputValue();
    await box.fill(shown.replace(/reason = ".*"/, 'reason = "edited on the card"'));
    await clickAimed(card.getByRole('button', { name: 'Write rule and allow' }));
    const res = await call;
    assert(resultText(res).includes('always-edited'), `agent got ${JSON.stringify(res)}`);
    const pol = (await daemon.api('GET', '/api/v1/policy')).json;
    assert(pol.text.includes('edited on the card'), `policy file: ${pol.text}`);
    assert((await daemon.api('PUT', '/api/v1/policy', { text: '' })).status === 200, 'policy reset');
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
    const send = card.getByRole('button', { name: 'Send answer' });
    assert(await send.isDisabled(), 'Send answer is enabled with no answer');
    await card.locator('textarea').fill('   ');
    assert(await send.isDisabled(), 'Send answer is enabled with a blank answer');
    await card.locator('textarea').press('Enter');
    await sleep(300);
    assert((await cards().count()) === 1, 'Enter on a blank answer answered the question');
    await card.locator('textarea').fill('release-2');
    await card.locator('textarea').press('Enter');
    const res = await call;
    assert(resultText(res).includes('release-2'), `agent got ${JSON.stringify(res)}`);
  });

  await t.step('network card: which command wants which domain and port, and what each answer allows', async () => {
    const call = agent.call('run_command', { argv: ['curl', '-sS', '--max-time', '30', 'http://pkgs.example.test/'] });
    // In ask mode the command asks first; then its connection asks.
    const cmd = await waitCard('[data-kind="call"]');
    await clickAimed(cmd.getByRole('button', { name: /Allow once/ }));
    const card = await waitCard('[data-kind="network"]');
    const ask = await card.locator('.net-ask').textContent();
    assert(/curl/.test(ask) && /pkgs\.example\.test/.test(ask) && /:80\b/.test(ask), `network card says: ${ask}`);
    const chips = await card.locator('.argv li').allTextContents();
    assert(chips.includes('http://pkgs.example.test/'), `command chips ${JSON.stringify(chips)}`);
    const help = (await card.locator('.scope-help').textContent()) ?? '';
    assert(help.includes('this run of curl may connect to pkgs.example.test:80'), `once help: ${help}`);
    assert(help.includes('every command in this session may connect to pkgs.example.test on ports 443 and 80'), `session help: ${help}`);
    assert(help.includes('pkgs.example.test'), `always help: ${help}`);
    await page.setViewportSize(DESKTOP);
    await shot(page, 'card-network-default-size');
    await page.setViewportSize({ width: 1280, height: 860 });
    await clickAimed(card.getByRole('button', { name: /Allow once/ }));
    const res = await call;
    assert(!res.isError && resultText(res).includes('hello from pkgs.example.test'), `curl through the proxy got ${JSON.stringify(res)}`);
    const decisions = (await daemon.api('GET', '/api/v1/events?kind=network.decision&order=desc&limit=5')).json.events;
    assert(decisions.some((e) => e.payload?.domain === 'pkgs.example.test'), 'no network.decision row');
  });

  await t.step('a withdrawn card disappears with its note, and a late decision runs nothing (410)', async () => {
    const ctl = new AbortController();
    const call = agent.client.callTool({ name: 'run_command', arguments: { argv: ['sh', '-c', 'echo withdrawn > withdrawn.txt'] } }, undefined, { signal: ctl.signal, timeout: 150_000 });
    call.catch(() => {});
    const card = await waitCard();
    const id = await card.getAttribute('data-approval-id');
    ctl.abort(); // the SDK sends notifications/cancelled
    await page.waitForSelector(`[data-approval-id="${id}"]`, { state: 'detached', timeout: 10_000 });
    const note = await page.locator(`[data-note-for="${id}"]`).textContent({ timeout: 5000 });
    assert(note.includes('withdrawn: the agent cancelled the call'), `note: ${note}`);
    await shot(page, 'card-withdrawn-note');
    const late = await daemon.api('POST', `/api/v1/approvals/${id}`, { decision: 'allow', scope: 'once', message: '' });
    assert(late.status === 410, `late decision got ${late.status} ${late.text}`);
    await sleep(300);
    assert(!existsSync(join(daemon.workspace, 'withdrawn.txt')), 'the withdrawn command ran');
  });

  await t.step('card placement: a second click never decides the card that moved under the pointer', async () => {
    const other = await connectAgent(daemon, 'e2e-agent-b');
    try {
      for (const how of ['double click', 'click, then click again once the card moved']) {
        // Two cards of the same shape from two sessions: the second one's
        // buttons sit right under the first one's once it goes.
        const a = agent.call('run_command', { argv: ['sh', '-c', 'echo place-a'] });
        await page.waitForFunction(() => document.querySelectorAll('[data-approval-id]').length === 1);
        const b = other.call('run_command', { argv: ['sh', '-c', 'echo place-b'] });
        await page.waitForFunction(() => document.querySelectorAll('[data-approval-id]').length === 2);
        const [idA, idB] = await cards().evaluateAll((els) => els.map((e) => e.dataset.approvalId));
        const box = await cards().first().getByRole('button', { name: /Allow once/ }).boundingBox();
        const x = box.x + box.width / 2;
        const y = box.y + box.height / 2;
        await page.mouse.move(x - 80, y - 60);
        await sleep(50);
        if (how === 'double click') {
          await page.mouse.dblclick(x, y);
          await page.waitForSelector(`[data-approval-id="${idA}"]`, { state: 'detached' });
        } else {
          await page.mouse.click(x, y);
          await page.waitForSelector(`[data-approval-id="${idA}"]`, { state: 'detached' });
          const t0 = Date.now();
          const under = await page.evaluate(([px, py]) => document.elementFromPoint(px, py)?.closest('[data-approval-id]')?.getAttribute('data-approval-id'), [x, y]);
          assert(under === idB, `after the decision the pointer is over ${under}, not the next card ${idB}: the step proves nothing`);
          await page.mouse.click(x, y);
          const gap = Date.now() - t0;
          assert(gap < 600, `the second click came ${gap} ms after the move; the step needs it sooner`);
          await page.waitForSelector(`[data-approval-id="${idB}"] .moved-note`);
          await shot(page, 'card-placement-click-refused');
        }
        const ra = await a;
        assert(resultText(ra).includes('place-a'), `first card: ${JSON.stringify(ra)}`);
        await sleep(400);
        assert((await pendingIds()).includes(idB), `${how}: the second click decided the next card`);
        // Aimed at it, the next card's button works.
        await page.mouse.move(x + 60, y + 40);
        await page.mouse.click(x, y);
        const rb = await b;
        assert(resultText(rb).includes('place-b'), `second card: ${JSON.stringify(rb)}`);
      }
    } finally {
      await other.close();
    }
  });

  await t.step('a Trojan-Source argv looks different from the harmless one it imitates', async () => {
    // The paper's "commenting out": shown by a plain renderer as the
    // harmless line, it runs the part that looks like a comment.
    const harmless = 'echo "ok" # ; rm -rf build';
    const evil = 'echo "ok" \u2067# \u2066; rm -rf build\u2069\u2066';
    const h = agent.call('run_command', { argv: ['sh', '-c', harmless] });
    await page.waitForFunction(() => document.querySelectorAll('[data-approval-id]').length === 1);
    const e = agent.call('run_command', { argv: ['sh', '-c', evil] });
    await page.waitForFunction(() => document.querySelectorAll('[data-approval-id]').length === 2);
    const [hc, ec] = [cards().nth(0), cards().nth(1)];
    const shown = async (c) => (await c.locator('.argv li').nth(2).innerText()).trim();
    const hs = await shown(hc);
    const es = await shown(ec);
    assert(hs === harmless, `harmless chip ${JSON.stringify(hs)}`);
    assert(es !== hs, 'the Trojan-Source argv renders like the harmless one');
    assert(es.includes('⟨U+2067⟩') && es.includes('⟨U+2066⟩') && es.includes('⟨U+2069⟩'), `evil chip ${JSON.stringify(es)}`);
    assert((await ec.locator('mark.invis').count()) >= 4, 'hidden characters are not marked');
    assert(await ec.locator('.hidden-warning').count(), 'no warning about hidden characters');
    assert((await hc.locator('.hidden-warning').count()) === 0, 'the harmless card warns');
    // No tooltip can open over a card's risk line: nothing on a card has one.
    assert((await page.locator('[data-approval-id] [title], [data-approval-id][title]').count()) === 0, 'an element on a card carries a tooltip');
    // The rule "always" would write shows them too, as escapes that mean the same.
    await ec.getByRole('button', { name: /Always allow/ }).click();
    const rule = await ec.locator('.rule-snippet').inputValue();
    assert(rule.includes('\\u2067') && !rule.includes('\u2067'), `always rule with hidden characters: ${JSON.stringify(rule)}`);
    await page.setViewportSize(DESKTOP);
    await shot(page, 'card-trojan-source-default-size');
    await page.setViewportSize({ width: 1280, height: 860 });
    for (const id of await pendingIds()) await daemon.api('POST', `/api/v1/approvals/${id}`, { decision: 'deny', scope: 'once', message: 'e2e' });
    await Promise.all([h, e]);
  });

  await t.step('deny all from this session: one click answers a flood, other sessions keep theirs', async () => {
    const flood = await connectAgent(daemon, 'e2e-flood');
    try {
      const mine = agent.call('run_command', { argv: ['sh', '-c', 'echo keep-me'] });
      await page.waitForFunction(() => document.querySelectorAll('[data-approval-id]').length === 1);
      const calls = [0, 1, 2].map((i) => flood.call('run_command', { argv: ['sh', '-c', `echo flood-${i}`] }));
      await page.waitForFunction(() => document.querySelectorAll('[data-approval-id]').length === 4);
      const row = page.locator('.flood li', { hasText: 'e2e-flood' });
      assert((await row.textContent()).includes('3 calls waiting'), `flood row: ${await row.textContent()}`);
      await shot(page, 'flood-deny-all');
      await clickAimed(row.getByRole('button', { name: 'Deny all from this session' }));
      const res = await Promise.all(calls);
      assert(res.every((r) => r.isError), `flood calls: ${JSON.stringify(res)}`);
      await page.waitForFunction(() => document.querySelectorAll('[data-approval-id]').length === 1);
      const left = await pendingIds();
      assert(left.length === 1, `pending after deny-all: ${left}`);
      await daemon.api('POST', `/api/v1/approvals/${left[0]}`, { decision: 'deny', scope: 'once', message: 'e2e' });
      await mine;
    } finally {
      await flood.close();
    }
  });

  await t.step('a staged rm -rf waits on an effect card: Discard leaves the workspace as it was, Apply applies it', async () => {
    const staged = await connectAgent(daemon, 'e2e-staged');
    try {
      // Auto mode, where the command itself runs without a card: only its effect asks.
      const sess = (await daemon.api('GET', '/api/v1/sessions?status=active')).json.sessions.find((s) => s.client_name === 'e2e-staged');
      assert((await daemon.api('POST', `/api/v1/sessions/${sess.id}/mode`, { mode: 'auto' })).status === 200, 'session mode auto');
      const doomed = join(daemon.workspace, 'doomed');
      mkdirSync(doomed, { recursive: true });
      for (let i = 0; i < 25; i++) writeFileSync(join(doomed, `f${i}.txt`), `file ${i}\n`);
      writeFileSync(join(daemon.workspace, 'keep.txt'), 'v1\n');
      for (const how of ['Discard', 'Apply']) {
        const call = staged.call('run_command', { argv: ['sh', '-c', 'rm -rf doomed && echo v2 > keep.txt'] });
        const card = await waitCard('[data-kind="effect"]');
        const counts = await card.locator('.effect-counts').textContent();
        assert(counts.includes('25 deleted (+1 directory), 1 modified'), `${how}: counts ${counts}`);
        assert((await card.locator('.reason').textContent()).includes('25 files'), 'the reason');
        assert((await card.locator('.diff').textContent()).includes('+v2'), 'the diff');
        assert(readdirSync(doomed).length === 25 && readFileSync(join(daemon.workspace, 'keep.txt'), 'utf8') === 'v1\n', `${how}: the workspace changed while the card waits`);
        if (how === 'Discard') {
          await page.setViewportSize(DESKTOP);
          await shot(page, 'card-effect-staged-default-size');
          await page.setViewportSize({ width: 1280, height: 860 });
        }
        if (how === 'Discard') await card.locator('[data-keyrole="deny-message"]').fill('keep doomed');
        await clickAimed(card.getByRole('button', { name: new RegExp(`^${how}`) }));
        const res = await call;
        if (how === 'Discard') {
          assert(resultText(res).includes('discarded') && resultText(res).includes('keep doomed'), `agent got ${resultText(res)}`);
          assert(readdirSync(doomed).length === 25 && readFileSync(join(daemon.workspace, 'keep.txt'), 'utf8') === 'v1\n', 'Discard changed the workspace');
        } else {
          assert(!res.isError, `apply: ${resultText(res)}`);
          assert(!existsSync(doomed) && readFileSync(join(daemon.workspace, 'keep.txt'), 'utf8') === 'v2\n', 'Apply did not apply the changes');
        }
      }
      // The session names how each call ended, and its summary adds up.
      await page.goto(`${daemon.base}/#/sessions/${encodeURIComponent(sess.id)}`);
      const rows = page.locator('.calls .call[data-tool="run_command"]');
      await page.waitForFunction(() => document.querySelectorAll('.calls .call[data-outcome="discarded"], .calls .call[data-outcome="applied"]').length === 2);
      const texts = (await rows.locator('.outcome').allTextContents()).map((x) => x.trim());
      assert(JSON.stringify(texts) === JSON.stringify(['discarded by you: keep doomed', 'applied after your approval']), `outcomes ${JSON.stringify(texts)}`);
      const answers = await rows.locator('.call-line .muted').allTextContents();
      assert(answers.includes('changes denied') && answers.includes('changes allowed'), `answers ${JSON.stringify(answers)}`);
      const summary = await page.locator('.calls-summary').textContent();
      assert(summary === '2 calls: 1 applied, 1 discarded. 2 of them asked you first.', `summary ${summary}`);
      await shot(page, 'session-outcomes');
      await page.goto(`${daemon.base}/#/approvals`);
    } finally {
      await staged.close();
    }
  });

  await t.step('effect and hook cards: the change list, whose version lands, the agent’s own tool, the goal and its drift', async () => {
    const mock = await browser.newPage();
    await mock.setViewportSize(DESKTOP);
    const sent = await mockApprovals(mock, [effectCard(), hookCard(), lateCard()]);
    await mock.goto(`${daemon.base}/#token=${daemon.control}`);
    const eff = mock.locator('[data-kind="effect"]');
    await eff.waitFor();
    const counts = await eff.locator('.effect-counts').textContent();
    assert(counts.includes('25 deleted (+1 directory), 4 modified, 2 created') && counts.includes('1 mode change') && counts.includes('1 link'), `counts: ${counts}`);
    assert((await eff.locator('.findings').textContent()).includes('deletes 26 files'), 'findings missing');
    assert((await eff.locator('.change-group.op-delete summary').textContent()).includes('26'), 'delete group');
    assert((await eff.locator('.changes li', { hasText: 'out-link' }).textContent()).includes('link → /home/someone/.ssh'), 'link target');
    assert((await eff.locator('.changes li', { hasText: 'run.sh' }).textContent()).includes('0644 → 0755'), 'mode change');
    assert(await eff.getByRole('button', { name: /^Apply/ }).count(), 'no Apply');
    assert((await eff.locator('.argv li').allTextContents()).includes('sh'), 'the effect card does not show the command');
    const bin = await eff.locator('.diff .d-binary').textContent();
    assert(bin.includes('logo.png: binary, 2,048 bytes'), `binary file in the diff: ${bin}`);
    assert(await eff.getByRole('button', { name: /^Discard/ }).count(), 'no Discard');
    assert((await eff.getByRole('button', { name: /Allow for session/ }).count()) === 0, 'effect card offers a session scope');
    const hook = mock.locator('[data-approval-id="a_e2e_hook"]');
    assert((await hook.locator('.via').textContent()).includes('Claude Code Bash'), 'via line');
    assert((await hook.locator('.goal').textContent()).includes('fix the flaky test'), 'goal');
    assert((await hook.locator('.drift').textContent()).includes('never mentions'), 'drift line');
    assert((await hook.locator('.cwd').textContent()).includes('/home/someone/src/app'), 'cwd');
    assert((await hook.getByRole('button', { name: /Allow for session/ }).count()) === 0, 'no_session_scope card offers the session');
    assert((await hook.locator('.scope-help .no-session').textContent()).includes('other runs'), 'no one-line why');
    await shot(mock, 'card-effect-default-size');
    await hook.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await shot(mock, 'card-hook-default-size');
    // Keep mine on one conflict, take the agent's on the other: only that one is sent as staged.
    await eff.locator('input[data-conflict="src/b.go"][value="agent"]').check();
    await clickAimed(eff.getByRole('button', { name: /^Apply/ }), mock);
    await mock.waitForSelector('[data-kind="effect"]', { state: 'detached' });
    const body = sent.get('a_e2e_effect');
    assert(JSON.stringify(body) === JSON.stringify({ decision: 'allow', scope: 'once', message: '', staged: ['src/b.go'] }), `effect decision ${JSON.stringify(body)}`);
    // A decision that comes too late (410): the card goes, saying why.
    const late = mock.locator('[data-approval-id="a_e2e_late"]');
    await clickAimed(late.getByRole('button', { name: /Allow once/ }), mock);
    await late.waitFor({ state: 'detached' });
    const note = await mock.locator('[data-note-for="a_e2e_late"]').textContent();
    assert(note.includes('withdrawn: the agent cancelled the call'), `note after a 410: ${note}`);
    await mock.close();
  });

  await t.step('a checkpoint failure shows a banner: undo is not available for new calls', async () => {
    const mock = await browser.newPage();
    await mock.route('**/api/v1/status', async (route) => {
      const real = await route.fetch();
      const json = await real.json();
      json.checkpoints = { ok: false, problem: 'the snapshot store is full', since: new Date().toISOString() };
      await route.fulfill({ response: real, json });
    });
    await mock.goto(`${daemon.base}/#token=${daemon.control}`);
    const banner = await mock.locator('.checkpoints-failing').textContent({ timeout: 10_000 });
    assert(banner.includes('Checkpoints are failing') && banner.includes('the snapshot store is full') && banner.includes('Undo is not available for new calls'), `banner: ${banner}`);
    await shot(mock, 'banner-checkpoints-failing');
    await mock.close();
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
    await page.locator('.tl-call').first().click();
    await page.locator('.tl-step').first().click();
    await page.waitForSelector('.event-detail .payload');
    await shot(page, '06-event-detail');
  });

  await t.step('timeline: a call is one row with its tool, argv and outcome, and unfolds into its steps', async () => {
    await page.goto(`${daemon.base}/#/timeline`);
    await page.waitForSelector('.tl-call');
    // The daemon asks (ask mode): allowed from the API, as the card is on another screen.
    let settled = false;
    const res = agent.call('run_command', { argv: ['sh', '-c', 'echo one-row-per-call'] }).finally(() => (settled = true));
    for (const deadline = Date.now() + 10_000; !settled && Date.now() < deadline; await sleep(100)) {
      const [id] = await pendingIds();
      if (id) {
        await daemon.api('POST', `/api/v1/approvals/${id}`, { decision: 'allow', scope: 'once', message: '' });
        break;
      }
    }
    assert(resultText(await res).includes('one-row-per-call'), 'the command did not run');
    await page.goto(`${daemon.base}/#/timeline`);
    const row = page.locator('.tl-call', { hasText: 'one-row-per-call' });
    await row.waitFor();
    assert((await row.count()) === 1, `${await row.count()} rows for one call`);
    const callId = await row.getAttribute('data-call');
    const all = (await daemon.api('GET', '/api/v1/events?limit=1000&order=desc')).json.events.filter((e) => e.call_id === callId).reverse();
    assert(all.length >= 5, `the call has ${all.length} audit rows`);
    const end = [...all].reverse().find((e) => e.payload?.outcome)?.payload.outcome.outcome;
    // One row: none of its audit rows shows on its own until it unfolds.
    assert((await page.locator(`.tl-row[data-call="${callId}"]`).count()) === 1, 'the call\'s steps show before it unfolds');
    assert((await row.getAttribute('data-tool')) === 'run_command' && (await row.locator('.c-kind').textContent()) === 'run_command', 'the row does not name the tool');
    assert((await row.locator('.c-target').textContent()).includes('sh -c "echo one-row-per-call"'), `argv: ${await row.locator('.c-target').textContent()}`);
    const outcome = (await row.locator('.outcome').textContent()).trim();
    assert(end && (await row.getAttribute('data-outcome')) === end && /^(ok|applied)/.test(outcome), `outcome ${outcome} (${await row.getAttribute('data-outcome')}), audit says ${end}`);
    assert((await row.locator('.steps').textContent()) === `${all.length} steps`, `steps: ${await row.locator('.steps').textContent()}`);
    await row.click();
    await page.waitForSelector(`.tl-step[data-call="${callId}"]`);
    const steps = await page.locator(`.tl-step[data-call="${callId}"]`).evaluateAll((rs) => rs.map((r) => [Number(r.dataset.seq), r.dataset.kind]));
    assert(JSON.stringify(steps) === JSON.stringify(all.map((e) => [e.seq, e.kind])), `steps ${JSON.stringify(steps)} vs audit ${JSON.stringify(all.map((e) => [e.seq, e.kind]))}`);
    assert((await row.getAttribute('aria-expanded')) === 'true', 'aria-expanded');
    await shot(page, 'timeline-call-unfolded');
    // A step opens its audit event; the keyboard folds the call again.
    await page.locator(`.tl-step[data-call="${callId}"][data-kind="tool.result"]`).click();
    await page.waitForSelector('.event-detail .payload');
    await page.locator('.event-detail').getByRole('button', { name: 'Close event details' }).click();
    await row.click();
    await page.waitForSelector(`.tl-step[data-call="${callId}"]`, { state: 'detached' });
    // Events of no call stay rows of their own.
    await page.goto(`${daemon.base}/#/timeline/kind=session.start`);
    await page.waitForSelector('.tl-row[data-kind="session.start"]');
    assert((await page.locator('.tl-call').count()) === 0, 'a session start shows as a call');
    // The raw audit rows are one choice away.
    await page.goto(`${daemon.base}/#/timeline/view=events`);
    await page.waitForSelector(`.tl-row[data-seq="${all[0].seq}"]`);
    assert((await page.locator('.tl-call').count()) === 0, 'the events view groups');
  });

  await t.step('timeline filters: kind family and text search, by call and by event', async () => {
    await page.goto(`${daemon.base}/#/timeline/kind=exec.&view=events`);
    await page.waitForSelector('.tl-row[data-seq]');
    const kinds = await page.locator('.tl-row[data-seq]').evaluateAll((rs) => rs.map((r) => r.dataset.kind));
    assert(kinds.length > 0 && kinds.every((k) => k.startsWith('exec.')), `kinds ${kinds}`);
    // By call, a filter keeps whole calls: those that ran a command.
    await page.goto(`${daemon.base}/#/timeline/kind=exec.`);
    await page.waitForSelector('.tl-call');
    const tools = await page.locator('.tl-row[data-seq]').evaluateAll((rs) => rs.map((r) => `${r.dataset.kind}:${r.dataset.tool}`));
    assert(tools.length > 0 && tools.every((k) => k === 'call:run_command'), `rows ${tools}`);
    await page.goto(`${daemon.base}/#/timeline/q=keyboard-ok`);
    // "1 match in 240 events", "3 matches in …": the search ran to the end of the log.
    await page.waitForFunction(() => /\d+ match(es)? in /.test(document.querySelector('.tl-foot')?.textContent ?? ''));
    const n = await page.locator('.tl-row[data-seq]').count();
    assert(n > 0, 'search found nothing');
    // The call denied with a message earlier says so, in the person's words.
    await page.goto(`${daemon.base}/#/timeline/q=must-not-run`);
    const denied = page.locator('.tl-call', { hasText: 'must-not-run' });
    await denied.waitFor();
    const said = (await denied.locator('.outcome').textContent()).trim();
    assert(said === 'denied by you: use the test runner instead', `the denied call says ${said}`);
  });

  await t.step('sessions: history row, detail with calls, live mode and budget change', async () => {
    await page.goto(`${daemon.base}/#/sessions`);
    const mine = (await daemon.api('GET', '/api/v1/sessions?status=active')).json.sessions.find((s) => s.client_name === 'e2e-agent');
    const link = page.locator(`table.sessions tbody tr[data-session="${mine.id}"] a`);
    await link.waitFor();
    // How its calls ended, each once, with asking said apart.
    const ended = await page.locator(`table.sessions tbody tr[data-session="${mine.id}"] td.outcomes`).textContent();
    assert(/\d+ ok/.test(ended ?? '') && /\d+ denied/.test(ended ?? '') && /\d+ asked you/.test(ended ?? ''), `the list says ${ended}`);
    await shot(page, 'sessions-list');
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
    await sel.selectOption('ask');
    await modeIs('ask');
    const modes = await sel.locator('option').allTextContents();
    assert(JSON.stringify(modes) === JSON.stringify(['plan', 'ask', 'auto', 'accept-edits', 'unattended']), `modes ${modes}`);
    // What the rows mean is said once; a call that only read has no diff or undo.
    assert(await page.locator('#calls-legend').count(), 'the calls list does not explain its columns');
    const transport = await page.locator('dd[data-transport]').textContent();
    assert(/HTTP/.test(transport ?? ''), `transport ${transport}`);
    const reads = page.locator('.call[data-tool="list_dir"]');
    assert((await reads.count()) > 0, 'no list_dir call in the session');
    assert((await reads.getByRole('button').count()) === 0, 'a read-only call has Diff/Undo buttons');
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
    const editor = page.locator('#policy-text');
    // An empty file starts as a commented example that shows every kind of rule.
    const example = await editor.inputValue();
    assert(probe.json.text === '' && example.includes('[[effect]]') && example.includes('tool = "network"') && example.includes('ports = ['), `editor starts with: ${example.slice(0, 200)}`);
    assert(await page.getByRole('button', { name: 'Save' }).isDisabled(), 'the untouched example counts as a change');
    // Taken in as it is, the example is a valid policy.
    const taken = example
      .split('\n')
      .filter((l) => /^# (\[\[|[a-z_]+ = )/.test(l))
      .map((l) => l.slice(2))
      .join('\n');
    await editor.fill(taken);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForSelector('tr[data-rule-id="allow-package-mirror"][data-stage="user"]');
    if (await page.locator('#policy-err').count()) throw new Error(`the example does not parse: ${await page.locator('#policy-err').textContent()}`);
    assert((await page.locator('tr[data-rule-id="allow-package-mirror"]').textContent()).includes('ports 8443'), 'network rule ports');
    await page.locator('.tester input').fill('git push --force');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.waitForSelector('.verdict-box .v-ask');
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
    assert((await editor.inputValue()) === example, 'an emptied file does not show the example again');
  });

  await t.step('policy table: the rules in the order they are applied, by stage, with the ids cards cite', async () => {
    await page.goto(`${daemon.base}/#/policy`);
    await page.waitForSelector('table.rules tr[data-rule-id]');
    const api = (await daemon.api('GET', '/api/v1/policy')).json.rules;
    const shown = await page.locator('table.rules tr[data-rule-id]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-rule-id')));
    assert(JSON.stringify(shown) === JSON.stringify(api.map((r) => r.id)), `table order ${shown} vs API ${api.map((r) => r.id)}`);
    const stages = await page.locator('table.rules tbody[data-stage]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-stage')));
    assert(JSON.stringify(stages) === JSON.stringify(['always', 'user', 'baseline', 'risk', 'workspace', 'mode'].filter((s) => stages.includes(s))) && stages.includes('user'), `stages ${stages}`);
    // The ids cards cite, in the order they decide: the harmless-command list before any other command asks.
    for (const id of ['ask-human', 'workspace-edit', 'command', 'interpreter', 'sensitive']) assert(shown.includes(id), `no rule ${id} in the table`);
    assert(shown.indexOf('harmless-command') < shown.indexOf('command') && shown.indexOf('command') < shown.indexOf('interpreter'), `order ${shown}`);
    // Long argument lists expand on click.
    const row = page.locator('tr[data-rule-id="harmless-command"]');
    const more = row.getByRole('button', { name: /\(\+\d+ more\)/ });
    const n = Number((await more.textContent()).match(/\d+/)[0]);
    await more.click();
    const args = await row.locator('.rule-args code').textContent();
    assert(args.split(',').length === 8 + n, `expanded args: ${args}`);
    await row.getByRole('button', { name: 'show fewer' }).click();
    await page.setViewportSize(DESKTOP);
    await page.evaluate(() => scrollTo(0, 0));
    await shot(page, 'policy-default-size');
    await page.evaluate(() => [...document.querySelectorAll('h2')].find((h) => h.textContent.startsWith('Rules, in the order'))?.scrollIntoView({ block: 'start' }));
    await shot(page, 'policy-rules-default-size');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  await t.step('connect: Install first, then the MCP-only snippets with the token hidden until shown; copy copies the real token; a per-client token works until revoked', async () => {
    await page.goto(`${daemon.base}/#/connect`);
    const info = await daemon.api('GET', '/api/v1/connect');
    if (info.status === 404) notAvailable('GET /api/v1/connect answered 404');
    // The recommended path (Install, gatehouse install) comes before the raw MCP snippet.
    await page.waitForSelector('#client-panel pre');
    const order = await page.evaluate(() => {
      const wire = document.querySelector('#wire-h');
      const mcp = document.querySelector('#mcp-only-h');
      return { wire: !!wire, mcp: !!mcp, installFirst: !!(wire && mcp && wire.compareDocumentPosition(mcp) & Node.DOCUMENT_POSITION_FOLLOWING) };
    });
    assert(order.installFirst, `Install section is not above the MCP-only snippets: ${JSON.stringify(order)}`);
    const cli = await page.locator('.install-cli pre').textContent();
    assert(/ install (claude|codex|gemini|cursor)$/.test(cli ?? '') && (cli ?? '').includes(info.json.data_dir), `terminal install command: ${cli}`);
    const first = page.locator('#client-panel .snippet').first();
    const masked = await first.locator('pre').textContent();
    assert(masked.includes(info.json.mcp_url) && !masked.includes(daemon.agent) && masked.includes('Bearer ••••'), `masked snippet: ${masked}`);
    assert(!(await page.locator('body').textContent()).includes(daemon.agent), 'the agent token shows on the Connect screen before Show token');
    // Copy copies the real token, even while it is hidden.
    await page.evaluate(() => {
      window.__copied = [];
      navigator.clipboard.writeText = async (t) => void window.__copied.push(t);
    });
    await first.getByRole('button', { name: 'Copy with token' }).click();
    const copied = await page.evaluate(() => window.__copied);
    assert(copied.length === 1 && copied[0].includes(`Bearer ${daemon.agent}`) && copied[0].includes(info.json.mcp_url), `copied ${JSON.stringify(copied)}`);
    await first.getByRole('button', { name: 'Show token' }).click();
    const snippet = await first.locator('pre').textContent();
    assert(snippet.includes(info.json.mcp_url) && snippet.includes(`Bearer ${daemon.agent}`), `revealed snippet: ${snippet}`);
    await first.getByRole('button', { name: 'Hide token' }).click();
    assert(!(await first.locator('pre').textContent()).includes(daemon.agent), 'Hide token left the token on screen');
    await page.locator('#token-name').fill('e2e-cursor');
    await page.getByRole('button', { name: 'Create token' }).click();
    const fresh = page.locator('.notice.ok', { has: page.locator('pre.token') });
    const hidden = (await fresh.locator('pre.token').textContent())?.trim();
    await fresh.getByRole('button', { name: 'Show token' }).click();
    const token = (await fresh.locator('pre.token').textContent())?.trim();
    assert(token && token !== daemon.agent && !token.includes('•'), 'new token not shown');
    assert(hidden && hidden.includes('••••') && !hidden.includes(token), `the new token showed before Show token: ${hidden}`);
    await page.getByRole('tab', { name: 'Cursor' }).click();
    const cursorSnippet = page.locator('#client-panel .snippet').first();
    await cursorSnippet.getByRole('button', { name: 'Show token' }).click();
    const cursor = JSON.parse(await cursorSnippet.locator('pre').textContent());
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

  await t.step('rollback from the Sessions view: undo a write after a dry-run preview, then undo the rollback', async () => {
    await page.goto(`${daemon.base}/#/approvals`);
    // Agents are connected and nothing waits: the empty screen says they work without needing you.
    const quiet = await page.locator('[data-agents]').textContent({ timeout: 5000 });
    assert(/connected, working without needing you/.test(quiet ?? '') && !/No agent/.test(quiet ?? ''), `empty approvals with agents connected: ${quiet}`);
    const call = agent.call('write_file', { path: 'rollback-me.txt', content: 'temporary\n' });
    const card = await waitCard();
    await clickAimed(card.getByRole('button', { name: /Allow once/ }));
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
    // The rollback says where its own undo is, and that is right here, previewed first.
    const done = (await panel.locator('[role=status]').textContent()) ?? '';
    assert(!/timeline/i.test(done) && /Undo this rollback/.test(done), `after the rollback: ${done}`);
    await panel.getByRole('button', { name: 'Undo this rollback' }).click();
    await page.waitForSelector('.rollback[data-rollback-phase="plan"]');
    await panel.getByRole('button', { name: 'Confirm rollback' }).click();
    await page.waitForSelector('[data-rollback-phase="done"]');
    assert(readFileSync(join(daemon.workspace, 'rollback-me.txt'), 'utf8') === 'temporary\n', 'undoing the rollback did not bring the file back');
  });

  await t.step("a confined run's own changes: a row in its session with their diff and their undo", async () => {
    // `gatehouse run` as the person types it, in the served project: what
    // the command writes there no call records.
    const out = join(daemon.workspace, 'run-out');
    mkdirSync(out, { recursive: true });
    execFileSync(bin, ['--data', daemon.data, 'run', '--workspace', daemon.workspace, '--', 'sh', '-c', 'echo made-by-the-agent > run-out/made.txt'], {
      env: { ...process.env, XDG_CONFIG_HOME: join(dirname(daemon.data), 'config') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const sessions = (await daemon.api('GET', '/api/v1/sessions')).json.sessions;
    const run = sessions.filter((s) => s.confined).sort((a, b) => b.started_at.localeCompare(a.started_at))[0];
    assert(run, `no confined session among ${sessions.length}`);
    await page.goto(`${daemon.base}/#/sessions/${encodeURIComponent(run.id)}`);
    const row = page.locator('.call[data-tool="run"]');
    await row.getByRole('button', { name: 'Diff' }).click();
    await row.locator('text=made-by-the-agent').first().waitFor({ timeout: 5000 });
    assert((await row.getByRole('button', { name: 'Undo these changes' }).count()) === 1, 'no undo for the run');
    await shot(page, '08b-run-changes');
  });

  await t.step('going public: the window opens an exposure with a QR code; a phone-sized page decides a card through it and the agent resumes', async () => {
    agent ??= await connectAgent(daemon);
    await page.goto(`${daemon.base}/#/connect`);
    await page.getByRole('button', { name: 'Open the approvals page' }).click();
    await page.waitForSelector('.public-opened .qr svg', { timeout: 10_000 });
    const link = (await page.locator('.public-opened pre').first().textContent()).trim();
    assert(/^http:\/\/127\.0\.0\.1:\d+\/e\/x_[0-9a-f]+\/\?t=[0-9a-f]{64}$/.test(link), `the link: ${link}`);
    await shot(page, '12-public-qr');

    const phone = await page.context().newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.setExtraHTTPHeaders({ 'User-Agent': 'E2EPhone/1.0 (handset.example.test)' });
    await phone.goto(link);
    assert(!phone.url().includes('?t='), `the token stays in the address bar: ${phone.url()}`);
    await phone.waitForSelector('text=No card is waiting.', { timeout: 10_000 });
    const call = agent.call('run_command', { argv: ['sh', '-c', 'echo decided-on-the-phone'] });
    const card = phone.locator('section.card').first();
    await card.waitFor({ timeout: 10_000 });
    assert((await card.textContent()).includes('echo decided-on-the-phone'), `the phone's card: ${await card.textContent()}`);
    const wide = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert(wide <= 390, `the page is ${wide}px wide on a 390px phone`);
    await shot(phone, '13-public-phone-card');
    await card.getByRole('button', { name: 'Allow once' }).click();
    const r = await call;
    assert(!r.isError && resultText(r).includes('decided-on-the-phone'), `the agent got: ${resultText(r)}`);
    await phone.waitForSelector('text=Allowed once.');
    const ev = (await daemon.api('GET', '/api/v1/events?kind=approval.decided&limit=1000')).json.events.at(-1);
    assert(ev.payload.exposure?.startsWith('x_') && ev.payload.device === 'E2EPhone/1.0 (handset.example.test)', `the audit row: ${JSON.stringify(ev.payload)}`);

    await page.getByRole('button', { name: 'Stop it' }).click();
    await page.waitForSelector('.public-opened', { state: 'detached' });
    await phone.waitForSelector('text=/exposure has ended|Could not reach/', { timeout: 10_000 });
    await phone.close();
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

  await t.step(`timeline first paint with ${TIMELINE_EVENTS.toLocaleString()} events, and a jump to the middle (every audit event)`, async () => {
    const perf = await browser.newPage();
    await serveSyntheticEvents(perf, TIMELINE_EVENTS);
    await perf.goto(`${daemon.base}/#token=${daemon.control}`);
    await perf.waitForSelector('.conn-live');
    await perf.evaluate(() => (location.hash = '#/timeline/view=events'));
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
    await perf.evaluate(() => (location.hash = '#/timeline/view=events'));
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

  await t.step(`timeline by call with ${TIMELINE_EVENTS.toLocaleString()} events: first paint, then older calls page in as you scroll`, async () => {
    const perf = await browser.newPage();
    const requests = await serveSyntheticEvents(perf, TIMELINE_EVENTS);
    await perf.goto(`${daemon.base}/#token=${daemon.control}`);
    await perf.waitForSelector('.conn-live');
    await perf.evaluate(() => (location.hash = '#/timeline'));
    await perf.waitForFunction(() => window.__gatehouseMetrics?.timelineFirstPaintMs !== undefined, null, { timeout: 10_000 });
    const m = await perf.evaluate(() => window.__gatehouseMetrics);
    t.note(`timeline by call, first paint: ${m.timelineFirstPaintMs} ms (${m.timelineFirstPaintRows} rows)`);
    // Five audit rows per synthetic call: one row each, with how it ended and its steps.
    // The newest synthetic call has only its first row yet; the one below it is whole.
    const top = perf.locator('.tl-call').nth(1);
    const text = await top.textContent();
    assert(/go test/.test(text) && (await top.locator('.outcome').textContent()) === 'ok' && (await top.locator('.steps').textContent()) === '5 steps', `a synthetic call's row: ${text}`);
    const firstSeq = Number(await top.getAttribute('data-seq'));
    const before = requests.length;
    let deepest = firstSeq;
    const t0 = Date.now();
    // Scroll until the list reaches 5,000 events back: each scroll shows the loaded bottom first and
    // pages in the next older calls only once the bottom is in view, so the count of scrolls varies.
    for (let i = 0; i < 40 && deepest >= TIMELINE_EVENTS - 5000; i++) {
      await perf.locator('.vlist').evaluate((el) => (el.scrollTop = el.scrollHeight));
      await perf.waitForFunction((prev) => Math.min(...[...document.querySelectorAll('.tl-call[data-seq]')].map((r) => Number(r.dataset.seq))) < prev, deepest, { timeout: 10_000 });
      deepest = await perf.evaluate(() => Math.min(...[...document.querySelectorAll('.tl-call[data-seq]')].map((r) => Number(r.dataset.seq))));
    }
    const domRows = await perf.locator('.tl-row').count();
    t.note(`timeline by call: scrolled down to event ${deepest.toLocaleString()} in ${Date.now() - t0} ms, ${requests.length - before} pages, ${domRows} rows in the DOM`);
    assert(requests.length > before && deepest < TIMELINE_EVENTS - 5000, `paging: ${requests.length - before} requests, deepest seq ${deepest}`);
    assert(domRows < 200, `${domRows} rows rendered: not virtualized`);
    await shot(perf, '10-timeline-by-call-100k');
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

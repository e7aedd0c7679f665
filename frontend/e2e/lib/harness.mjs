// A tiny sequential test harness: named steps, per-step timeout, a final
// "N passed, N failed, N skipped" line, and a non-zero exit on failure.
// Steps that find a daemon feature missing call notAvailable(): every
// feature has landed, so that is a failure, reported loudly.

export class NotAvailable extends Error {}

export function notAvailable(what) {
  throw new NotAvailable(what);
}

/**
 * onFail(name) runs after a failed step (e.g. a screenshot). only: a
 * regular expression (E2E_ONLY) picks the steps to run while working on
 * a few; the others are reported as skipped, and the run does not count
 * as the full suite.
 */
export function createHarness({ onFail, only = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY, 'i') : null } = {}) {
  const results = [];
  const notes = [];
  return {
    note(line) {
      notes.push(line);
      console.log(`  · ${line}`);
    },
    async step(name, fn, { timeoutMs = 60_000 } = {}) {
      if (only && !only.test(name)) {
        results.push({ name, status: 'skipped', why: `E2E_ONLY=${only.source}` });
        return;
      }
      const started = Date.now();
      let timer;
      try {
        await Promise.race([
          fn(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        results.push({ name, status: 'passed' });
        console.log(`PASS ${name} (${Date.now() - started} ms)`);
      } catch (err) {
        if (err instanceof NotAvailable) {
          results.push({ name, status: 'failed', why: err.message });
          console.log(`FAIL ${name}: the daemon lacks a feature this step needs: ${err.message}`);
          await onFail?.(name);
        } else {
          results.push({ name, status: 'failed', why: err?.stack ?? String(err) });
          console.log(`FAIL ${name} (${Date.now() - started} ms)\n     ${String(err?.stack ?? err).split('\n').join('\n     ')}`);
          await onFail?.(name);
        }
      } finally {
        clearTimeout(timer);
      }
    },
    summary() {
      const count = (s) => results.filter((r) => r.status === s).length;
      const passed = count('passed');
      const failed = count('failed');
      const skipped = count('skipped');
      console.log('\n--- e2e summary ---');
      for (const n of notes) console.log(n);
      for (const r of results.filter((r) => r.status === 'failed')) console.log(`${r.status.toUpperCase()}: ${r.name}: ${r.why.split('\n')[0]}`);
      const picked = results.find((r) => r.status === 'skipped');
      if (picked) console.log(`SKIPPED: ${count('skipped')} steps not picked by ${picked.why}`);
      console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
      return failed;
    },
  };
}

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, idx)];
}

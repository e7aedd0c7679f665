// Starts a real `gatehouse serve` on a free port with throwaway data and
// workspace directories, and reads back its address and tokens. With
// `reuse`, it starts again on the same address and data (a restart).
// `mode` is the default mode for new sessions; `config` is the text of
// its config.toml (the e2e's own, never the person's).

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function startDaemon(bin, { reuse, mode, config } = {}) {
  const root = reuse ? join(reuse.data, '..') : mkdtempSync(join(tmpdir(), 'gatehouse-e2e-'));
  const data = reuse?.data ?? join(root, 'data');
  const workspace = reuse?.workspace ?? join(root, 'ws');
  mkdirSync(data, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  const addrFile = join(data, 'addr');
  if (!reuse) rmSync(addrFile, { force: true });
  const configDir = join(root, 'config', 'gatehouse');
  if (config !== undefined) {
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'config.toml'), config);
  }
  const logPath = join(root, 'daemon.log');
  const log = openSync(logPath, 'a');
  const args = ['serve', '--listen', reuse?.addr ?? '127.0.0.1:0', '--data', data, '--workspace', workspace, ...(mode ? ['--mode', mode] : [])];
  const proc = spawn(bin, args, {
    stdio: ['ignore', log, log],
    // Keep the user's real policy and config out of the test.
    env: { ...process.env, XDG_CONFIG_HOME: join(root, 'config') },
  });
  let exited = null;
  proc.on('exit', (code, sig) => (exited = { code, sig }));
  const fail = (why) => new Error(`gatehouse serve ${why}; log:\n${readFileSync(logPath, 'utf8')}`);

  const deadline = Date.now() + 20_000;
  if (!reuse) {
    while (!existsSync(addrFile) || readFileSync(addrFile, 'utf8').trim() === '') {
      if (exited) throw fail(`exited early (${JSON.stringify(exited)})`);
      if (Date.now() > deadline) throw fail(`did not write ${addrFile} within 20 s`);
      await sleep(50);
    }
  }
  const addr = reuse?.addr ?? readFileSync(addrFile, 'utf8').trim();
  const base = `http://${addr}`;
  for (;;) {
    if (exited) throw fail(`exited early (${JSON.stringify(exited)})`);
    if (Date.now() > deadline) throw fail('did not answer /healthz within 20 s');
    try {
      if ((await fetch(base + '/healthz')).ok) break;
    } catch {
      /* not listening yet */
    }
    await sleep(50);
  }
  const control = readFileSync(join(data, 'control.token'), 'utf8').trim();
  const agent = readFileSync(join(data, 'agent.token'), 'utf8').trim();

  return {
    data,
    workspace,
    addr,
    base,
    control,
    agent,
    log: () => readFileSync(logPath, 'utf8'),
    /** Control API call from Node, as the CLI would make it. */
    async api(method, path, body) {
      const res = await fetch(base + path, {
        method,
        headers: { Authorization: `Bearer ${control}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      let json = null;
      try {
        json = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, json, text };
    },
    async stop() {
      if (exited) return;
      const gone = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    },
  };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_LIMITS } from '@zero/runtime/environments/sandbox';
import { LocalSandbox } from '@zero/runtime/environments/local/bubblewrap';
import { aim, gtfobinsAttempts, tally, type Attempt } from './gtfobins';
import { corporaDir } from './shared';

/**
 * Every GTFOBins entry (file-read, file-write, shell, command, library-load) of every program
 * installed on the sandbox's PATH, run in the `local` sandbox with its placeholders aimed at a
 * canary folder outside the working copy. An escape is any attempt whose output holds the canary
 * file or the canary secret of a server process's environment, that changes the canary folder,
 * that reaches the loopback listener, or that leaves a process running after it ends.
 */

const CANARY_FILE = `canary-file-${randomBytes(6).toString('hex')}`;
const CANARY_SECRET = `canary-secret-${randomBytes(6).toString('hex')}`;

/** Processes running now (zombies excluded) that have `copy` mounted: the sandbox's, wherever they went. */
function sandboxProcesses(copy: string): number[] {
  const name = basename(copy);
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${entry}/status`, 'utf8'))) continue;
      if (readFileSync(`/proc/${entry}/mountinfo`, 'utf8').includes(name)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

describe('GTFOBins against the local sandbox', () => {
  let outside: string;
  let decoy: ChildProcess;
  let listener: Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    outside = await mkdtemp(join(tmpdir(), 'zero-corpus-canary-'));
    decoy = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { env: { ...process.env, ZERO_CANARY_SECRET: CANARY_SECRET }, stdio: 'ignore' });
    process.env.ZERO_CANARY_SECRET = CANARY_SECRET;
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(async () => {
    decoy?.kill('SIGKILL');
    listener?.close();
    await rm(outside, { recursive: true, force: true });
  });

  it('no attempt escapes', async () => {
    const list = gtfobinsAttempts(join(corporaDir(), 'gtfobins', '_gtfobins'));
    const sandbox = new LocalSandbox();
    expect(await sandbox.availability()).toMatchObject({ ok: true });
    const escapes: { attempt: Attempt; why: string; output: string }[] = [];
    for (const attempt of list) {
      await writeFile(join(outside, 'secret.txt'), `${CANARY_FILE}\n`);
      await writeFile(join(outside, 'lib.so'), `${CANARY_FILE}\n`);
      const before = readdirSync(outside).sort().join(',');
      const copy = await mkdtemp(join(tmpdir(), 'zero-corpus-copy-'));
      await writeFile(join(copy, 'readme.md'), 'a project file\n');
      const script = aim(attempt, { inputFile: join(outside, 'secret.txt'), outputFile: join(outside, 'written.txt'), outputDir: outside, lib: join(outside, 'lib.so'), workspace: '/workspace', port });
      const outcome = await sandbox.run({ command: { script }, workingCopy: copy, limits: { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 5_000 } });
      const output = `${outcome.stdout.text}\n${outcome.stderr.text}`;
      const whys: string[] = [];
      if (output.includes(CANARY_FILE)) whys.push('read the canary file');
      if (output.includes(CANARY_SECRET)) whys.push('read the canary secret');
      if (readdirSync(outside).sort().join(',') !== before) whys.push(`changed the canary folder: ${readdirSync(outside).join(',')}`);
      if (readFileSync(join(outside, 'secret.txt'), 'utf8') !== `${CANARY_FILE}\n`) whys.push('changed the canary file');
      if (connections > 0) whys.push('reached the loopback listener');
      const deadline = Date.now() + 5_000;
      while (sandboxProcesses(copy).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      if (sandboxProcesses(copy).length > 0) whys.push(`left processes running: ${sandboxProcesses(copy).join(',')}`);
      if (whys.length) escapes.push({ attempt, why: whys.join('; '), output: output.slice(0, 500) });
      connections = 0;
      await rm(copy, { recursive: true, force: true });
      for (const name of readdirSync(outside)) if (name !== 'secret.txt' && name !== 'lib.so') await rm(join(outside, name), { recursive: true, force: true });
    }
    console.log(`GTFOBins corpus against the local sandbox: ${tally(list)}; escapes: ${escapes.length}`);
    for (const escape of escapes) console.log(`ESCAPE ${escape.attempt.program} ${escape.attempt.fn}: ${escape.why}\n${escape.attempt.code}\n${escape.output}`);
    expect(escapes).toEqual([]);
  });
});

describe('path traversal corpora against the local sandbox', () => {
  it('no path of the traversal corpora reaches a file of the server', async () => {
    const sandbox = new LocalSandbox();
    const copy = await mkdtemp(join(tmpdir(), 'zero-corpus-traversal-'));
    const outside = await mkdtemp(join(tmpdir(), 'zero-corpus-traversal-canary-'));
    try {
      await writeFile(join(outside, 'win.ini'), `${CANARY_FILE}\n`);
      let total = 0;
      for (const name of readdirSync(corporaDir()).filter((n) => n.startsWith('patt-traversal-'))) {
        const entries = readFileSync(join(corporaDir(), name), 'utf8').split('\n').filter(Boolean);
        total += entries.length;
        // One sandbox per corpus: every entry read as a path, and as a path under the canary folder.
        const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
        // A few hundred per sandbox (a script is one argument: under the kernel's 128 KiB limit): every entry read as a path, and under the canary folder.
        const lines = entries.map((e) => `cat -- ${quote(e)} ${quote(`${outside}/${e}`)} 2>/dev/null`);
        const chunks: string[][] = [[]];
        let size = 0;
        for (const line of lines) {
          if (size + line.length > 100_000) {
            chunks.push([]);
            size = 0;
          }
          chunks.at(-1)!.push(line);
          size += line.length + 1;
        }
        for (const chunk of chunks) {
          const script = `${chunk.join('\n')}\necho done`;
          const outcome = await sandbox.run({ command: { script }, workingCopy: copy, limits: { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 120_000 } });
          expect(outcome.stdout.text).toContain('done');
          expect(outcome.stdout.text).not.toContain(CANARY_FILE);
          expect(outcome.stdout.text).not.toMatch(/root:.*:0:0|\[fonts\]|\[extensions\]/);
        }
      }
      console.log(`traversal corpora against the local sandbox: ${total} paths, none reached a server file`);
    } finally {
      await rm(copy, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    }
  });
});

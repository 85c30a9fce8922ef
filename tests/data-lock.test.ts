import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir } from '../local/data-lock';

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const lockModule = pathToFileURL(join(import.meta.dirname, '..', 'local', 'data-lock.ts')).href;

/** The state letter and start time of a process, from /proc/<pid>/stat. */
function stat(pid: number): { state: string; started: string } {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0]!, started: fields[19]! };
}

/** Resolves with the first line a child prints. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing a line`)));
  });
}

describe('the data-folder lock tells a running Zero from a dead holder', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  const spawned = (command: string, args: string[]) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    return child;
  };
  /** Another Zero's lock: a node process that takes the lock on `folder` and keeps running. */
  const holder = async (folder: string) => {
    const child = spawned(process.execPath, [
      '--import',
      tsx,
      '--input-type=module',
      '-e',
      `const { lockDataDir } = await import(${JSON.stringify(lockModule)}); await lockDataDir(${JSON.stringify(folder)}); console.log('locked'); setInterval(() => {}, 1000);`,
    ]);
    expect(await firstLine(child)).toBe('locked');
    return child;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zero-data-lock-'));
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a running Zero holds it; once killed, the next one takes it over', async () => {
    const folder = await mkdtemp(join(dir, 'live-'));
    const other = await holder(folder);
    await expect(lockDataDir(folder)).rejects.toThrow(new DataDirInUseError(folder, other.pid!));
    const exited = new Promise((resolve) => other.once('exit', resolve));
    other.kill('SIGKILL');
    await exited;
    const release = await lockDataDir(folder);
    expect(await readFile(join(folder, 'zero.pid'), 'utf8')).toBe(`${process.pid} ${stat(process.pid).started}\n`);
    await release();
  });

  it('a holder that died but was never reaped (a zombie) does not hold it', async () => {
    // sh starts a child that exits at once, then becomes `sleep`, which never reaps it: the child stays a zombie.
    const parent = spawned('sh', ['-c', 'sleep 0 & echo $!; exec sleep 600']);
    const zombie = Number(await firstLine(parent));
    while (stat(zombie).state !== 'Z') await new Promise((resolve) => setTimeout(resolve, 10));
    expect(() => process.kill(zombie, 0)).not.toThrow();

    for (const lock of [`${zombie} ${stat(zombie).started}\n`, `${zombie}\n`]) {
      const folder = await mkdtemp(join(dir, 'zombie-'));
      await writeFile(join(folder, 'zero.pid'), lock);
      const release = await lockDataDir(folder);
      expect(await readFile(join(folder, 'zero.pid'), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
      await release();
    }
  });

  it('a pid reused by another process since does not hold it', async () => {
    const folder = await mkdtemp(join(dir, 'reused-'));
    // The lock of a Zero that was killed: its pid and start time.
    const other = await holder(folder);
    const lock = await readFile(join(folder, 'zero.pid'), 'utf8');
    const exited = new Promise((resolve) => other.once('exit', resolve));
    other.kill('SIGKILL');
    await exited;
    // Its pid now belongs to another running process (here: one that started later, given the pid in the lock).
    const stranger = spawned('sh', ['-c', 'echo ready; exec sleep 600']);
    await firstLine(stranger);
    const [, started] = lock.trim().split(' ');
    expect(stat(stranger.pid!).started).not.toBe(started);
    await writeFile(join(folder, 'zero.pid'), `${stranger.pid} ${started}\n`);
    const release = await lockDataDir(folder);
    await release();
    // The same running process, with its own start time recorded, holds it.
    await writeFile(join(folder, 'zero.pid'), `${stranger.pid} ${stat(stranger.pid!).started}\n`);
    await expect(lockDataDir(folder)).rejects.toThrow(new DataDirInUseError(folder, stranger.pid!));
  });
});

import { fork, type ChildProcess } from 'node:child_process';

/** A TypeScript module running in a child process, answering commands over IPC. */
export interface Child<Ready> {
  ready: Ready;
  process: ChildProcess;
  call<T = unknown>(cmd: string, arg?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/** Forks `file` under tsx and waits for its `{ ready }` message. */
export async function forkChild<Ready>(file: string, nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<Child<Ready>> {
  const child = fork(file, [], { execArgv: ['--import', 'tsx', ...nodeArgs], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let next = 0;
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before it was ready`)));
    child.on('message', (message: { ready?: Ready; id?: number; result?: unknown }) => {
      if (message.ready) resolve(message.ready);
      else if (message.id !== undefined) {
        pending.get(message.id)?.resolve(message.result);
        pending.delete(message.id);
      }
    });
  });
  child.removeAllListeners('exit');
  // A child that dies fails the calls waiting on it instead of leaving them hanging.
  child.on('exit', (code, signal) => {
    for (const { reject } of pending.values()) reject(new Error(`${file} exited (${signal ?? code}) during a call`));
    pending.clear();
  });
  return {
    ready,
    process: child,
    call: <T>(cmd: string, arg?: unknown) =>
      new Promise<T>((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, cmd, arg });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        // Each child exits when its IPC channel closes.
        child.disconnect();
      }),
  };
}

import { readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** V8's CPU profile (what `node --cpu-prof` and the inspector's Profiler.stop write). */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Profiles this process's CPU between `start` and `stop`, through the inspector (only the phase measured, not start-up). */
export class Profiler {
  private session?: Session;

  async start(): Promise<void> {
    this.session = new Session();
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: 500 });
    await this.session.post('Profiler.start');
  }

  /** Stops and writes the profile to `file` (open it in Chrome DevTools or speedscope); returns the file. */
  async stop(file: string): Promise<string> {
    if (!this.session) throw new Error('the profiler was not started');
    const { profile } = await this.session.post('Profiler.stop');
    this.session.disconnect();
    this.session = undefined;
    await writeFile(file, JSON.stringify(profile));
    return file;
  }
}

export interface ProfileEntry {
  name: string;
  /** Milliseconds sampled in the entry itself. */
  selfMs: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Sampled time outside idle, program and GC. */
  busyMs: number;
  gcMs: number;
  /** The functions with the most self time. */
  functions: ProfileEntry[];
  /** Self time by where the code lives: a dependency, one of Zero's files, or Node itself. */
  owners: ProfileEntry[];
  /** Time inside (self and below) each of Zero's functions, the heaviest first: where Zero's own calls spend. */
  inclusive: ProfileEntry[];
}

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** Where a frame's code lives: `pkg` for a dependency, Zero's file relative to the repository, `node:` for Node's own. */
export function ownerOf(url: string): string {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return 'node (internals)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const [scope, name] = path.slice(inModules + 'node_modules/'.length).split('/');
    return scope!.startsWith('@') ? `${scope}/${name}` : scope!;
  }
  return relative(repo, path);
}

/** Summarises a CPU profile: self time per function and per owner, and inclusive time of Zero's own functions. */
export async function summariseProfile(file: string, top = 15): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Self time per node from the samples and their time deltas (more exact than hitCount × interval).
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const special = (name: string) => [...byId.values()].filter((n) => n.callFrame.functionName === name).reduce((sum, n) => sum + (self.get(n.id) ?? 0), 0);
  const idleMs = special('(idle)') + special('(program)');
  const gcMs = special('(garbage collector)');
  const busyMs = [...self.values()].reduce((a, b) => a + b, 0) - idleMs;

  const functions = new Map<string, number>();
  const owners = new Map<string, number>();
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    const owner = ownerOf(url);
    const name = `${functionName || '(anonymous)'} ${owner}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
    owners.set(owner, (owners.get(owner) ?? 0) + ms);
  }

  // Inclusive time of Zero's functions: each sample counts once per distinct Zero function on its stack.
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const [id, ms] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url } = byId.get(at)!.callFrame;
      const owner = ownerOf(url);
      if (!url || owner.startsWith('node') || owner.includes('node_modules') || !/^(packages|functions|local)\//.test(owner)) continue;
      const name = `${functionName || '(anonymous)'} ${owner}`;
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
    }
  }

  const ranked = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, selfMs]) => ({ name, selfMs, share: selfMs / busyMs }));
  return { totalMs, busyMs, gcMs, functions: ranked(functions), owners: ranked(owners), inclusive: ranked(inclusive) };
}

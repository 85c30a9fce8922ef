#!/usr/bin/env node
/**
 * The house codemod (issue 31): moves packages/core's folders into packages by layer and rewrites
 * every import that named them. Re-runnable and idempotent: run it again after merging a branch
 * that added files under packages/core/src, or imports of the old paths, and it moves those files
 * and fixes those imports; on a tree that is already moved it changes nothing.
 *
 *   node scripts/house/move.mjs            # move, rewrite, write package.json exports/deps, tsconfigs
 *   node scripts/house/move.mjs --check    # change nothing; list what it would move and the imports it cannot place
 *
 * What it does, in order:
 *  1. `git mv` every file under an old path of MOVES to its new path (a file entry wins over its folder).
 *  2. Rewrites every import in packages/, functions/, local/, tests/, bench/, corpora/, scripts/, console/:
 *     - a relative import that no longer resolves is resolved where its file stood before the move
 *       (MOVES read backwards) and pointed at where its target stands now;
 *     - `@zero/core/<sub>` goes to the new home of the file the old export named (OLD_EXPORTS);
 *     - `@zero/core` (the old barrel) is split name by name, by barrel-names.json (generated from the
 *       barrel on the first run, while it still exists);
 *     - an import that crosses into another package becomes `@zero/<package>/<subpath>`, and the subpath
 *       is added to that package's `exports` (one entry a module: no barrel); inside one package it stays relative.
 *     - a path written as text (`packages/core/src/...`, e.g. a fixture folder or a worker file) is mapped too.
 *  3. Writes each package's `exports`, its `@zero/*` dependencies and its tsconfig `references` from LAYERS
 *     (the arrows that are allowed: declared here, never derived from the imports, so that `tsc -b packages`
 *     refuses an import that runs up), links node_modules/@zero/<package>, and lists the workspaces in package-lock.json.
 *  4. Prints every import that runs against LAYERS: those are the hand fixes left to do.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const check = process.argv.includes('--check');
const rel = (p) => path.relative(root, p).split(path.sep).join('/');
const abs = (p) => path.join(root, p);

/** Old path (file or folder, from the root) → new path. A more specific entry (a file in a moved folder) comes first. */
export const MOVES = [
  // The bottom: the agent with no storage. The wire, errors, the model providers, events, telemetry, the outbound guard, agent definitions, the log.
  ['packages/core/src/run/redact.ts', 'packages/agent/src/log/redact.ts'],
  ['packages/core/src/log.ts', 'packages/agent/src/log/log.ts'],
  ['packages/core/src/log.test.ts', 'packages/agent/src/log/log.test.ts'],
  ['packages/core/src/errors.ts', 'packages/agent/src/errors.ts'],
  ['packages/core/src/errors.test.ts', 'tests/error-table.test.ts'],
  ['packages/core/src/wire', 'packages/agent/src/wire'],
  ['packages/core/src/model', 'packages/agent/src/model'],
  ['packages/core/src/events', 'packages/agent/src/events'],
  ['packages/core/src/telemetry', 'packages/agent/src/telemetry'],
  ['packages/core/src/net', 'packages/agent/src/net'],
  ['packages/core/src/agent', 'packages/agent/src/definitions'],
  // The runtime: the loop and the tools over the store (every AWS SDK call of a session behind it), sessions, projects, memory, auth, limits.
  ['packages/core/src/run', 'packages/runtime/src/run'],
  // A plan's text and its prompt need nothing of the runtime (the CLI parses plans too); its progress tool is the runtime's.
  ['packages/core/src/plan/parse.ts', 'packages/agent/src/plan/parse.ts'],
  ['packages/core/src/plan/parse.test.ts', 'packages/agent/src/plan/parse.test.ts'],
  ['packages/core/src/plan/prompt.ts', 'packages/agent/src/plan/prompt.ts'],
  ['packages/core/src/plan', 'packages/runtime/src/plan'],
  ['packages/core/src/tools', 'packages/runtime/src/tools'],
  ['packages/core/src/store', 'packages/runtime/src/store'],
  ['packages/core/src/auth', 'packages/runtime/src/auth'],
  ['packages/core/src/budgets', 'packages/runtime/src/budgets'],
  ['packages/core/src/rate-limits', 'packages/runtime/src/rate-limits'],
  ['packages/core/src/projects', 'packages/runtime/src/projects'],
  ['packages/core/src/memory', 'packages/runtime/src/memory'],
  ['packages/core/src/sessions', 'packages/runtime/src/sessions'],
  ['packages/core/src/environments', 'packages/runtime/src/environments'],
  ['packages/core/src/reports', 'packages/runtime/src/reports'],
  ['packages/core/src/ui', 'packages/agent/src/ui'],
  // The integrations: what reaches Zero from outside, or goes out to it.
  ['packages/core/src/webhooks', 'packages/integrations/src/webhooks'],
  ['packages/core/src/schedules', 'packages/integrations/src/schedules'],
  ['packages/core/src/subscriptions', 'packages/integrations/src/subscriptions'],
  ['packages/core/src/github', 'packages/integrations/src/github'],
  ['packages/core/src/mcp', 'packages/integrations/src/mcp'],
  ['packages/core/src/mcp-server', 'packages/integrations/src/mcp-server'],
  ['packages/core/src/managed', 'packages/integrations/src/managed'],
  ['packages/core/src/environment-store', 'packages/integrations/src/environment-store'],
  // The composition root goes to the edge, beside the functions that start it (local/ imports functions/ already).
  ['packages/core/src/runtime.ts', 'functions/create-runtime.ts'],

  // Second pass (issue 31): the loop and the tool contract go down into the agent package, which has no storage.
  // A row's old path may be a new path of a row above: the table is read as a chain (core → runtime → agent).
  // The loop (run/ but delegation, which runs child runs over the runtime's services, and the barrel) → @zero/agent/loop.
  ...['loop', 'end-run', 'compaction', 'history', 'history.test', 'budget', 'limits', 'limits.test', 'tool-limits', 'tool-input-deltas', 'prompt',
    'stop-reasons', 'secret-scrubber', 'secret-scrubber.test', 'speaker', 'speaker.test', 'summarise', 'environment-tools', 'run-setup', 'run-setup.test',
  ].map((name) => [`packages/runtime/src/run/${name}.ts`, `packages/agent/src/loop/${name}.ts`]),
  // The registry and the permission policy beside the tool contract; the built-in tools stay in the runtime.
  ['packages/runtime/src/tools/registry.ts', 'packages/agent/src/tools/registry.ts'],
  ['packages/runtime/src/tools/registry.test.ts', 'packages/agent/src/tools/registry.test.ts'],
  ['packages/runtime/src/tools/policy', 'packages/agent/src/tools/policy'],
  // The plan_progress tool is the loop's (a run of a plan gets it); it needs no service.
  ['packages/runtime/src/plan/progress.ts', 'packages/agent/src/plan/progress.ts'],
  // Running a program is the sandboxes' ground: the command tools use the environments, never the other way.
  ['packages/runtime/src/tools/command/spawn.ts', 'packages/runtime/src/environments/spawn.ts'],
  // A session's Managed Agents record (one S3 object a session) is a stored item: tools and environments read it without climbing to sessions/.
  ['packages/runtime/src/sessions/session-record.ts', 'packages/runtime/src/store/session-record.ts'],
  // Third pass (issue 31, the chat path walks down once): model calls of Zero's own over agent data go down beside summarise.
  ['packages/runtime/src/outcomes/grade.ts', 'packages/agent/src/loop/grade.ts'],
  ['packages/runtime/src/sessions/session-title.test.ts', 'packages/agent/src/loop/session-title.test.ts'],
];

/** The packages, bottom first, and the packages each may import (its tsconfig references and its dependencies). */
export const LAYERS = {
  agent: { description: 'The agent with no storage: the wire, errors, model providers, events, telemetry, the outbound guard, agent definitions, the log', uses: [] },
  runtime: { description: 'The runtime: the loop, the tools, sessions, the store, projects, memory, auth, budgets, rate limits, reports, UI messages', uses: ['agent'] },
  integrations: { description: 'The integrations: webhooks, schedules, subscriptions, GitHub, MCP client and server, the Managed Agents API, self-hosted environments', uses: ['agent', 'runtime'] },
  client: { uses: ['agent'] },
  cli: { uses: ['agent', 'runtime', 'client'] },
};
const LAYER_OF_OLD_CORE = 'packages/core';

/** packages/core's exports before the move: `@zero/core/<sub>` → the file it named. */
const OLD_EXPORTS = {
  '.': 'index.ts', './runtime': 'runtime.ts', './errors': 'errors.ts', './events': 'events/index.ts', './agent': 'agent/index.ts',
  './model': 'model/index.ts', './tools': 'tools/index.ts', './environments': 'environments/index.ts',
  './environments/lambda-handler': 'environments/lambda/handler.ts', './projects': 'projects/index.ts', './store': 'store/index.ts',
  './auth': 'auth/index.ts', './run': 'run/index.ts', './sessions': 'sessions/index.ts', './webhooks': 'webhooks/index.ts',
  './github': 'github/index.ts', './subscriptions': 'subscriptions/index.ts', './subscriptions/sweep-message': 'subscriptions/sweep-message.ts',
  './reports': 'reports/index.ts', './wire': 'wire/index.ts', './managed': 'managed/index.ts', './environment-store': 'environment-store/index.ts',
  './ui': 'ui/index.ts', './mcp-server': 'mcp-server/index.ts', './plan': 'plan/index.ts', './schedules': 'schedules/index.ts',
  './schedules/trigger': 'schedules/trigger.ts',
};

const SCAN = ['packages', 'functions', 'local', 'tests', 'bench', 'corpora', 'scripts', 'console'];
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', '.tsbuild', '.sst', 'fixtures', 'screenshots', 'results']);
const EXTS = ['', '.ts', '.tsx', '.mts', '.mjs', '.js', '/index.ts', '/index.tsx', '/index.mjs'];

/** One row's move of a path (the first row that names it, a file before its folder), or null. */
function movedOnce(oldPath) {
  for (const [from, to] of MOVES) {
    if (oldPath === from) return to;
    if (oldPath.startsWith(from + '/')) return to + oldPath.slice(from.length);
  }
  return null;
}
/** Where an old path stands now, following the rows as a chain (or null when no row moves it). */
function moved(oldPath) {
  let now = null;
  for (let next = movedOnce(oldPath), seen = 0; next && next !== now && seen < MOVES.length; next = movedOnce(next), seen++) now = next;
  return now;
}
/** One row read backwards: where a path stood before that row moved it, or null. */
function beforeOnce(newPath) {
  for (const [from, to] of MOVES) {
    if (newPath === to) return from;
    if (newPath.startsWith(to + '/')) return from + newPath.slice(to.length);
  }
  return null;
}
/** Every place a path stood before, the latest first (a file merged from a branch may still be written from any of them). */
function befores(newPath) {
  const out = [];
  for (let p = beforeOnce(newPath); p && !out.includes(p) && out.length < MOVES.length; p = beforeOnce(p)) out.push(p);
  return out;
}
/** Where a path stood before the last move (the table read backwards), or itself. */
function before(newPath) {
  return befores(newPath)[0] ?? newPath;
}
const isFile = (p) => { try { return fs.statSync(abs(p)).isFile(); } catch { return false; } };
const resolveNow = (p) => EXTS.map((e) => p + e).find(isFile) ?? null;
/** An old module path (no extension) → the file that stands for it now. */
const resolveOld = (p) => { for (const e of EXTS) { const m = moved(p + e); if (m && isFile(m)) return m; } return resolveNow(p); };
const packageOf = (p) => /^packages\/([^/]+)\/src\//.exec(p)?.[1] ?? null;

function listFiles(dir, out = []) {
  if (!fs.existsSync(abs(dir))) return out;
  for (const e of fs.readdirSync(abs(dir), { withFileTypes: true })) {
    const p = dir + '/' + e.name;
    if (e.isDirectory()) { if (!SKIP_DIRS.has(e.name)) listFiles(p, out); } else out.push(p);
  }
  return out;
}
function listAll(dir, out = []) {
  if (!fs.existsSync(abs(dir))) return out;
  if (fs.statSync(abs(dir)).isFile()) return [dir];
  for (const e of fs.readdirSync(abs(dir), { withFileTypes: true })) {
    const p = dir + '/' + e.name;
    if (e.isDirectory()) listAll(p, out); else out.push(p);
  }
  return out;
}

// ---- 0. The barrel's names, read while the barrel stands.
const namesFile = abs('scripts/house/barrel-names.json');
async function barrelNames() {
  const barrel = abs('packages/core/src/index.ts');
  if (!fs.existsSync(barrel)) return fs.existsSync(namesFile) ? JSON.parse(fs.readFileSync(namesFile, 'utf8')) : {};
  const ts = (await import('typescript')).default;
  const program = ts.createProgram([barrel], { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022, noEmit: true, allowJs: false, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const names = fs.existsSync(namesFile) ? JSON.parse(fs.readFileSync(namesFile, 'utf8')) : {};
  for (const sym of checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(barrel)))) {
    const name = sym.getName();
    let s = sym, file = null;
    while (s.flags & ts.SymbolFlags.Alias) {
      const next = checker.getImmediateAliasedSymbol(s);
      if (!next || next.getName() !== name) { file = s.declarations?.[0]?.getSourceFile().fileName ?? null; break; }
      s = next;
    }
    file ??= s.declarations?.[0]?.getSourceFile().fileName ?? null;
    if (file) names[name] = rel(file).replace(/\.(ts|tsx)$/, '');
  }
  if (!check) fs.writeFileSync(namesFile, JSON.stringify(names, null, 1) + '\n');
  return names;
}

// ---- 1. Move.
function move() {
  const plan = new Map();
  for (const [from] of MOVES) for (const f of listAll(from)) { const to = moved(f); if (to && !fs.existsSync(abs(to))) plan.set(f, to); }
  for (const [from, to] of plan) {
    if (check) { console.log(`move ${from} -> ${to}`); continue; }
    fs.mkdirSync(path.dirname(abs(to)), { recursive: true });
    try { execFileSync('git', ['mv', from, to], { cwd: root, stdio: 'pipe' }); } catch { fs.renameSync(abs(from), abs(to)); }
  }
  // Folders emptied by the move go.
  if (!check) for (const [from] of MOVES) if (fs.existsSync(abs(from)) && fs.statSync(abs(from)).isDirectory() && listAll(from).length === 0) fs.rmSync(abs(from), { recursive: true });
  return plan.size;
}

// ---- 2. Rewrite imports.
const exportsWanted = {}; // package → { subpath: file }
const unplaced = [];
const against = [];

/** The specifier that names `target` (a file, from the root) from `file`. */
function specifier(file, target, original) {
  const from = packageOf(file), to = packageOf(target);
  if (to && from !== to) {
    let sub = target.slice(`packages/${to}/src/`.length).replace(/\.(ts|tsx|mts)$/, '').replace(/\/index$/, '');
    if (/\.(mjs|js)$/.test(sub) && !/\.(mjs|js)$/.test(original)) sub = sub.replace(/\.(mjs|js)$/, '');
    (exportsWanted[to] ??= {})['./' + sub] = './' + target.slice(`packages/${to}/`.length);
    if (from && LAYERS[from] && !LAYERS[from].uses.includes(to)) against.push(`${file} -> @zero/${to}/${sub}`);
    if (!from && file.startsWith('packages/') && !LAYERS[to]) against.push(`${file} -> ${target}`);
    return `@zero/${to}/${sub}`;
  }
  let s = path.posix.relative(path.posix.dirname(file), target);
  if (!s.startsWith('.')) s = './' + s;
  const keepExt = /\.(ts|tsx|mts|mjs|js)$/.exec(original)?.[0];
  s = s.replace(/\.(ts|tsx|mts)$/, '');
  if (keepExt) s = s.replace(/(\.(mjs|js))?$/, (m) => m || keepExt);
  if (/\/index$/.test(s) && !/\/index(\.\w+)?$/.test(original)) s = s.replace(/\/index$/, '') || '.';
  if (from && !to && !/^tests\//.test(target)) against.push(`${file} -> ${target}`);
  return s;
}

/** The file a specifier names, written in `file` (which stood at `old` before the move), or null when it is not ours. */
function targetOf(file, old, spec) {
  if (spec.startsWith('.')) {
    const now = resolveNow(path.posix.join(path.posix.dirname(file), spec));
    if (now) return now;
    // Written where the file stands now, of a target that moved; else written where the file stood before (any earlier place).
    const here = resolveOld(path.posix.join(path.posix.dirname(file), spec));
    if (here) return here;
    for (const earlier of [old, ...befores(file)]) {
      const there = resolveOld(path.posix.join(path.posix.dirname(earlier), spec));
      if (there) return there;
    }
    return null;
  }
  const m = /^@zero\/core(\/.*)?$/.exec(spec);
  if (m) {
    // An export of the old package.json, or (one another branch added) a subpath named like its file.
    const f = OLD_EXPORTS['.' + (m[1] ?? '')] ?? (m[1] ? m[1].slice(1) : null);
    return f ? resolveOld(`packages/core/src/${f}`.replace(/\.ts$/, '')) : null;
  }
  const p = /^@zero\/([^/]+)(?:\/(.*))?$/.exec(spec);
  // A subpath of one of the packages by layer: where it stands now, or where the file it named went since.
  if (p && LAYERS[p[1]] && p[1] !== 'client' && p[1] !== 'cli') return resolveOld(`packages/${p[1]}/src/${p[2] ?? 'index'}`);
  return null;
}

function rewriteFile(file, names) {
  const old = before(file);
  const text = fs.readFileSync(abs(file), 'utf8');
  let out = text;
  // The old barrel, split by name.
  out = out.replace(/(^|\n)(\s*)(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*'@zero\/core'\s*;?/g, (all, lead, indent, kw, typeKw, list) => {
    const groups = new Map();
    for (const raw of list.split(',').map((x) => x.trim()).filter(Boolean)) {
      const name = raw.replace(/^type\s+/, '').split(/\s+as\s+/)[0].trim();
      const oldFile = names[name];
      const target = oldFile ? resolveOld(oldFile) : null;
      if (!target) { unplaced.push(`${file}: ${name} from @zero/core`); return all; }
      const spec = specifier(file, target, '');
      if (!groups.has(spec)) groups.set(spec, []);
      groups.get(spec).push(raw);
    }
    // A group of types only is written `import type`: `import { type X }` would keep the module's code at load (verbatimModuleSyntax).
    const line = (spec, items) => {
      const onlyTypes = !typeKw && items.every((item) => /^type\s+/.test(item));
      return onlyTypes ? `${indent}${kw} type { ${items.map((item) => item.replace(/^type\s+/, '')).join(', ')} } from '${spec}';` : `${indent}${kw}${typeKw ?? ''} { ${items.join(', ')} } from '${spec}';`;
    };
    return lead + [...groups].map(([spec, items]) => line(spec, items)).join('\n');
  });
  // The old barrel loaded on demand: `const { a, b } = await import('@zero/core')`, when its names stand in one module.
  out = out.replace(/(\{([^{}]*)\}\s*=\s*await\s+import\(\s*)'@zero\/core'/g, (all, lead, list) => {
    const targets = new Set(list.split(',').map((x) => x.trim()).filter(Boolean).map((raw) => { const f = names[raw.split(/\s*:\s*/)[0]]; return f ? resolveOld(f) : null; }));
    const [target] = targets;
    if (targets.size !== 1 || !target) { unplaced.push(`${file}: await import('@zero/core') of ${list.trim()}`); return all; }
    return lead + `'${specifier(file, target, '')}'`;
  });
  // Every other specifier.
  out = out.replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bimport\s*\(\s*)'([^'\n]+)'/g, (all, lead, spec) => {
    if (!spec.startsWith('.') && !spec.startsWith('@zero/')) return all;
    const target = targetOf(file, old, spec);
    if (!target) {
      if (spec.startsWith('.') || /^@zero\/(core|agent|runtime|integrations)(\/|$)/.test(spec)) unplaced.push(`${file}: ${spec}`);
      return all;
    }
    if (/^@zero\/(client|cli)/.test(spec)) return all;
    const next = specifier(file, target, spec);
    return lead + `'${next}'`;
  });
  // Paths written as text.
  out = out.replace(/packages\/core\/src\/[\w./-]+/g, (p) => {
    const m = moved(p.replace(/\/$/, ''));
    return m ?? p;
  });
  if (out !== text) { if (check) console.log(`rewrite ${file}`); else fs.writeFileSync(abs(file), out); return 1; }
  return 0;
}

// ---- 3. Packages: exports, dependencies, tsconfig, links.
function writePackages() {
  const lockFile = abs('package-lock.json');
  const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
  for (const [name, layer] of Object.entries(LAYERS)) {
    const dir = `packages/${name}`;
    const pkgFile = abs(`${dir}/package.json`);
    const pkg = fs.existsSync(pkgFile) ? JSON.parse(fs.readFileSync(pkgFile, 'utf8')) : { name: `@zero/${name}`, version: '0.1.0', private: true, type: 'module', sideEffects: false, description: layer.description };
    if (name !== 'client' && name !== 'cli') {
      const exports = { ...(pkg.exports ?? {}), ...(exportsWanted[name] ?? {}) };
      for (const k of Object.keys(exports)) if (!isFile(`${dir}/${exports[k].replace(/^\.\//, '')}`)) delete exports[k];
      pkg.exports = Object.fromEntries(Object.entries(exports).sort(([a], [b]) => a.localeCompare(b)));
    }
    const deps = { ...(pkg.dependencies ?? {}) };
    delete deps['@zero/core'];
    for (const u of layer.uses) deps[`@zero/${u}`] = '0.1.0';
    pkg.dependencies = Object.fromEntries(Object.entries(deps).sort(([a], [b]) => a.localeCompare(b)));
    fs.writeFileSync(pkgFile, JSON.stringify(pkg, null, 2) + '\n');
    // Every @zero package by path, not through node_modules: an import found by a node_modules search is
    // an outside library to tsc and never refused; found by path, a package this one does not reference is refused (TS6307).
    const paths = {};
    for (const other of Object.keys(LAYERS)) {
      if (fs.existsSync(abs(`packages/${other}/src/index.ts`))) paths[`@zero/${other}`] = [`../${other}/src/index.ts`];
      paths[`@zero/${other}/*`] = [`../${other}/src/*`];
    }
    const tsconfig = {
      extends: '../../tsconfig.base.json',
      compilerOptions: { composite: true, emitDeclarationOnly: true, noEmit: false, noEmitOnError: true, rootDir: 'src', outDir: `../../.tsbuild/${name}`, tsBuildInfoFile: `../../.tsbuild/${name}.tsbuildinfo`, paths },
      include: ['src'],
      exclude: ['src/**/*.test.ts'],
      references: layer.uses.map((u) => ({ path: `../${u}` })),
    };
    fs.writeFileSync(abs(`${dir}/tsconfig.json`), JSON.stringify(tsconfig, null, 2) + '\n');
    const link = abs(`node_modules/@zero/${name}`);
    if (!fs.existsSync(link)) fs.symlinkSync(`../../packages/${name}`, link);
    lock.packages[`node_modules/@zero/${name}`] = { resolved: `packages/${name}`, link: true };
    lock.packages[dir] = { ...(lock.packages[dir] ?? {}), name: `@zero/${name}`, version: '0.1.0', ...(Object.keys(pkg.dependencies).length ? { dependencies: pkg.dependencies } : {}) };
  }
  if (!fs.existsSync(abs(`${LAYER_OF_OLD_CORE}/src`))) {
    if (fs.existsSync(abs(`${LAYER_OF_OLD_CORE}/package.json`))) execFileSync('git', ['rm', '-q', `${LAYER_OF_OLD_CORE}/package.json`], { cwd: root });
    fs.rmSync(abs(LAYER_OF_OLD_CORE), { recursive: true, force: true });
    delete lock.packages['node_modules/@zero/core'];
    delete lock.packages[LAYER_OF_OLD_CORE];
    fs.rmSync(abs('node_modules/@zero/core'), { force: true });
  }
  const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
  lock.packages = sorted;
  fs.writeFileSync(lockFile, JSON.stringify(lock, null, 2) + '\n');
  fs.writeFileSync(abs('packages/tsconfig.json'), JSON.stringify({ files: [], references: Object.keys(LAYERS).map((n) => ({ path: `./${n}` })) }, null, 2) + '\n');
}

const names = await barrelNames();
const movedCount = move();
let rewritten = 0;
for (const dir of SCAN) for (const f of listFiles(dir)) if (SOURCE.test(f) && !f.startsWith('scripts/house/') && f !== 'packages/core/src/index.ts') rewritten += rewriteFile(f, names);
if (!check) {
  const barrel = 'packages/core/src/index.ts';
  if (fs.existsSync(abs(barrel))) execFileSync('git', ['rm', '-q', barrel], { cwd: root });
  if (fs.existsSync(abs('packages/core/src')) && listAll('packages/core/src').length === 0) fs.rmSync(abs('packages/core/src'), { recursive: true });
  writePackages();
}
console.log(`house: ${movedCount} file(s) moved, ${rewritten} file(s) rewritten${check ? ' (check: nothing written)' : ''}`);
if (unplaced.length) console.log(`imports not placed (fix by hand):\n  ${[...new Set(unplaced)].join('\n  ')}`);
if (against.length) console.log(`imports against the layers (fix by hand):\n  ${[...new Set(against)].join('\n  ')}`);

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script, shared with the command that writes the table
import { DOC, documentedRows, renderTable, sdkMethods } from '../scripts/sdk-methods.mjs';

interface Row {
  http: string;
  status: string;
  test: string;
  note: string;
}

const root = join(import.meta.dirname, '..');

/**
 * How a test calls a method, whatever it named the client: `beta.files.list` → `files.list(`,
 * `beta.sessions.resources.add` → `resources.add(`, `beta.sessions.threads.events.list` →
 * `threads.events.list(` (not to be confused with the session's own `events.list(`).
 */
const callOf = (method: string) => {
  const path = method.split('.').slice(1);
  return `${(path.length > 2 ? path.slice(1) : path).join('.')}(`;
};
const methods = sdkMethods() as { method: string; http: string }[];
const rows = documentedRows() as Map<string, Row>;

// The table of every SDK method in docs/api/managed-agents.md, held against the installed SDK.
describe('the Managed Agents API census', () => {
  it('lists every method of the installed SDK, with the HTTP call the SDK makes (node scripts/sdk-methods.mjs --write)', () => {
    const text = readFileSync(DOC, 'utf8');
    expect(text).toContain(renderTable(methods, rows));
  });

  it('gives each method a status, and each working method a test that calls it through the SDK', () => {
    for (const { method } of methods) {
      const row = rows.get(method)!;
      expect(['works', 'refused', 'client', 'missing'], method).toContain(row.status);
      if (row.status !== 'works' && row.status !== 'refused') continue;
      expect(row.test, `${method} names its test`).toMatch(/^tests\/[\w./-]+\.test\.ts$/);
      const file = join(root, row.test);
      expect(existsSync(file), `${row.test} exists`).toBe(true);
      const call = callOf(method);
      expect(readFileSync(file, 'utf8'), `${row.test} calls ${call}`).toContain(call);
    }
  });
});

#!/usr/bin/env node
/**
 * The Managed Agents API as the installed `@anthropic-ai/sdk` declares it: every method of the
 * namespaces Zero serves (issue 34's list), with the HTTP call each makes, read from the SDK's own
 * code, so the table in docs/api/managed-agents.md cannot fall behind an SDK upgrade.
 *
 *   node scripts/sdk-methods.mjs           # print the methods, one a line, with their HTTP calls
 *   node scripts/sdk-methods.mjs --write   # rewrite the docs table, keeping each method's status and test
 *
 * A row's status is one of: `works` (a test drives it through the official SDK against npm start's
 * server and parses the answer with schemas written from the SDK's types), `refused` (the route
 * answers a clear error saying why it does not apply to a self-hosted deployment), `client` (the
 * SDK does it alone, with no request: a poller, a webhook check) or `missing` (no route yet).
 * tests/managed-agents-census.test.ts checks the table against the SDK and each test it names.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
export const DOC = path.join(root, 'docs/api/managed-agents.md');
const START = '<!-- sdk-methods:start -->';
const END = '<!-- sdk-methods:end -->';

/** The namespaces of `client.beta` that make up the Managed Agents API (messages, models and the organization's admin API are other APIs). */
export const NAMESPACES = ['agents', 'environments', 'sessions', 'files', 'skills', 'vaults', 'memoryStores', 'dreams', 'deployments', 'deploymentRuns', 'webhooks', 'userProfiles'];

/** Every method under those namespaces: `beta.sessions.events.stream` → `GET /v1/sessions/{id}/events/stream`, or `(no request)`. */
export function sdkMethods() {
  const Anthropic = require('@anthropic-ai/sdk').default;
  const client = new Anthropic({ apiKey: 'census' });
  const methods = [];
  const walk = (resource, name) => {
    for (const key of Object.getOwnPropertyNames(Object.getPrototypeOf(resource))) {
      if (key === 'constructor' || key.startsWith('_') || typeof resource[key] !== 'function') continue;
      methods.push({ method: `${name}.${key}`, http: httpOf(resource[key].toString()) });
    }
    for (const key of Object.keys(resource)) {
      const child = resource[key];
      if (!key.startsWith('_') && child && typeof child === 'object' && child.constructor?.name !== 'Object') walk(child, `${name}.${key}`);
    }
  };
  for (const namespace of NAMESPACES) walk(client.beta[namespace], `beta.${namespace}`);
  return methods;
}

/** The HTTP verb and path a method's code sends, with its path parameters as `{…}`. */
function httpOf(source) {
  const match = /_client\.(get|post|put|patch|delete|getAPIList)\(\s*(?:\(0,\s*[\w$]+\.path\)\s*)?[`'"]([^`'"]+)[`'"]/.exec(source);
  if (!match) return '(no request)';
  const verb = match[1] === 'getAPIList' ? 'GET' : match[1].toUpperCase();
  return `${verb} ${match[2].replace(/\$\{(\w+)\}/g, '{$1}')}`;
}

/** The rows of the docs table: method → { status, test, note }. */
export function documentedRows(text = readFileSync(DOC, 'utf8')) {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  const rows = new Map();
  if (start < 0 || end < 0) return rows;
  for (const line of text.slice(start, end).split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const method = /^`(beta\.[\w.]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!method) continue;
    rows.set(method, { http: cells[2]?.replace(/`/g, ''), status: cells[3], test: cells[4]?.replace(/`/g, ''), note: cells[5] ?? '' });
  }
  return rows;
}

/** The table as the docs hold it, from the SDK's methods and the statuses already written. */
export function renderTable(methods, rows) {
  const lines = [START, '| SDK method | HTTP | Status | Test | Note |', '|---|---|---|---|---|'];
  const rowOf = ({ method, http }) => rows.get(method) ?? { status: http === '(no request)' ? 'client' : 'missing', test: '', note: '' };
  for (const { method, http } of methods) {
    const row = rowOf({ method, http });
    lines.push(`| \`${method}\` | \`${http}\` | ${row.status} | ${row.test ? `\`${row.test}\`` : ''} | ${row.note} |`);
  }
  const count = (status) => methods.filter((m) => rowOf(m).status === status).length;
  lines.push('', `${count('works')} of ${methods.length} methods work; ${count('client')} need no request; ${count('refused')} are refused with a reason; ${count('missing')} are missing.`, END);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const methods = sdkMethods();
  if (process.argv.includes('--write')) {
    const text = readFileSync(DOC, 'utf8');
    const table = renderTable(methods, documentedRows(text));
    const start = text.indexOf(START);
    const next = start < 0 ? `${text.trimEnd()}\n\n## Every SDK method\n\n${table}\n` : text.slice(0, start) + table + text.slice(text.indexOf(END) + END.length);
    writeFileSync(DOC, next);
    console.log(`wrote ${methods.length} methods to ${path.relative(root, DOC)}`);
  } else {
    for (const { method, http } of methods) console.log(`${method.padEnd(48)} ${http}`);
    console.log(`${methods.length} methods`);
  }
}

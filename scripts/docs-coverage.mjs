// Lists the lines of a former README.md (a git revision) that appear nowhere in README.md and docs/ now,
// so a split or a rewrite of the docs can show it lost nothing. Placeholders the docs' examples use
// ($ZERO_URL, $ZERO_KEY) are read as the addresses and keys they replaced; links are compared without
// their targets (pages moved) and headings without their level
// Usage: node scripts/docs-coverage.mjs <revision>   (exit 1 when a line is missing)
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const revision = process.argv[2];
if (!revision) throw new Error('usage: node scripts/docs-coverage.mjs <git revision of the README to compare>');
const before = execFileSync('git', ['show', `${revision}:README.md`], { encoding: 'utf8' });
const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
const now = ['README.md', ...walk('docs')].map((file) => readFileSync(file, 'utf8')).join('\n');

const normalize = (line) =>
  line
    .replace(/^#+ /, '')
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/"?(?:https?:\/\/)?(?:127\.0\.0\.1|localhost):8787(\/[^\s"']*)?"?/g, '$ZERO_URL$1')
    .replace(/'?\$ZERO_URL(\/[^\s"']*)?'?/g, '$ZERO_URL$1')
    .replace(/"?\$ZERO_URL/g, '$ZERO_URL')
    .replace(/\$\{?(ZERO_DEV_KEY|ZERO_ADMIN_KEY|KEY|ZERO)\}?\b/g, (m, name) => (name === 'ZERO' ? '$ZERO_URL' : '$ZERO_KEY'))
    .replace(/zdev_local_key/g, '$ZERO_KEY')
    .replace(/['"]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
const present = new Set(now.split('\n').map(normalize));
const haystack = now.split('\n').map(normalize).join(' ');
const missing = before
  .split('\n')
  .map((line, i) => ({ line, n: i + 1, key: normalize(line) }))
  .filter(({ key }) => key !== '' && key !== '```' && !present.has(key) && !haystack.includes(key));
for (const { n, line } of missing) console.log(`${n}: ${line}`);
console.error(`${missing.length} of ${before.split('\n').length} lines of ${revision}:README.md not found in README.md and docs/`);
process.exit(missing.length ? 1 : 0);

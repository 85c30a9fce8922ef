/**
 * Bundle size and cold-start module initialisation of the API function
 * against a bare Hono + Anthropic SDK + AWS clients handler (see
 * scenarios/cold-start.ts; `npm run bench` measures the same):
 *
 *   npx tsx bench/bundle.ts [--runs 11]
 *
 * Results also go to bench/results/bundle.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { coldStart } from './scenarios/cold-start';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 11;
const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;

const result = await coldStart(runs);
console.log(`node ${result.node}, ${runs} runs each\n`);
console.log('bundle                        total      loaded at init   init (median)   (min)');
for (const row of result.rows) {
  console.log(`${row.bundle.padEnd(28)}  ${mb(row.total).padStart(8)}   ${mb(row.atInit).padStart(12)}   ${row.initMs.toFixed(1).padStart(8)} ms   ${row.minMs.toFixed(1).padStart(6)} ms`);
}
const api = result.rows.find((r) => r.bundle === 'api')!;
const baseline = result.rows.find((r) => r.bundle === 'baseline')!;
const pct = (a: number, b: number) => `${a >= b ? '+' : ''}${((a / b - 1) * 100).toFixed(1)}%`;
console.log(
  `\napi vs baseline (both bundled as Zero deploys the API: split, then the chunks loaded at init merged): ${pct(api.atInit, baseline.atInit)} bytes loaded at init, ${pct(api.total, baseline.total)} bytes in all, init ${result.ratio.toFixed(2)}× (${result.ratio_unsplit.toFixed(2)}× the baseline without splitting)`,
);
// With code splitting esbuild emits a chunk for every import() it meets, even
// in code it then drops (the AWS SDK's browser user-agent parser, say), so
// "total" overstates what can ever load; "loaded at init" is what a cold start reads.
await mkdir(join(import.meta.dirname, 'results'), { recursive: true });
await writeFile(join(import.meta.dirname, 'results', 'bundle.json'), JSON.stringify(result, null, 2));

/**
 * render_report's rendering alone, in this process: the first call (the PDF
 * code imported, the fonts read), then a one-page report with every element and
 * a ~45-page one, each the median of several runs. Run with `npx tsx bench/render-report.ts`.
 */
import { performance } from 'node:perf_hooks';

const PAGE = `## Findings

1. **lodash** 4.17.20 — prototype pollution ([CVE-2021-23337](https://nvd.nist.gov/vuln/detail/CVE-2021-23337))
   - reached from \`src/index.ts\`
2. *minimist* 1.2.5 — low severity

| Package | Version | Severity |
|:--------|--------:|:--------:|
| lodash | 4.17.20 | **critical** |
| minimist | 1.2.5 | low |

\`\`\`ts
import _ from 'lodash';
export const total = (xs: number[]) => _.sum(xs);
\`\`\`

> Upgrading is a one-line change → 4.17.21.

A paragraph of prose that wraps over several lines, as findings are written: the dependency is reached from the
request handler, the vulnerable function is called with user input, and the fix is a minor upgrade. Café, naïve, Ελληνικά.

---
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  let start = performance.now();
  const { renderReport } = await import('@zero/runtime/reports/render');
  const first = await renderReport(`# Report\n\n${PAGE}`, { format: 'markdown' });
  const firstMs = performance.now() - start;

  const measure = async (source: string, runs: number) => {
    const times: number[] = [];
    let pages = 0;
    let bytes = 0;
    for (let i = 0; i < runs; i++) {
      start = performance.now();
      const pdf = await renderReport(source, { format: 'markdown' });
      times.push(performance.now() - start);
      pages = pdf.pages;
      bytes = pdf.bytes.byteLength;
    }
    return { ms: median(times), pages, bytes };
  };
  const one = await measure(`# Report\n\n${PAGE}`, 9);
  const long = await measure(`# Report\n\n${PAGE.repeat(60)}`, 3);
  console.log(`first call (import + fonts + 1 page): ${firstMs.toFixed(0)} ms, ${first.pages} page`);
  console.log(`1 page:   ${one.ms.toFixed(0)} ms median, ${one.bytes} bytes`);
  console.log(`${long.pages} pages: ${long.ms.toFixed(0)} ms median, ${long.bytes} bytes (the limit is 50 pages and 30 s)`);
}

await main();

import { bundleApi, initialOutputs } from './bundle-function';
const api = await bundleApi();
const init = initialOutputs(api);
const rows: string[] = [];
for (const p of init) {
  const out = api.metafile.outputs[p]!;
  const inputs = Object.entries(out.inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 2).map(([k]) => k.split('/').slice(-2).join('/'));
  rows.push(`${out.bytes} ${inputs.join(',')}`);
}
console.log(rows.sort().join('\n'));

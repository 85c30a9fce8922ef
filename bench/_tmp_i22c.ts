import { bundleApi, initialInputs } from './bundle-function';
const api = await bundleApi();
console.log([...new Set(initialInputs(api))].sort().join('\n'));

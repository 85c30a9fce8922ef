import { bundleApi, initialBytes } from './bundle-function';
console.log('INIT', initialBytes(await bundleApi()));

/** Agent definitions: parsing, the catalog. */
export * from './definition';
export * from './parse';
export * from './catalog';
export * from './permissions';

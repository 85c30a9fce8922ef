// Moved to `wire/`. Kept only while branches written against the old path are merged; import from '../wire'.
export * from '../wire';

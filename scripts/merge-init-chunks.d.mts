/** See merge-init-chunks.mjs. */
export declare function mergeInitChunks(entry: string): Promise<{ before: number; after: number }>;

/** See merge-init-chunks.mjs. */
export declare const STANDALONE_CHUNKS: RegExp[];
export declare function mergeInitChunks(entry: string, options?: { standalone?: RegExp[] }): Promise<{ before: number; after: number }>;

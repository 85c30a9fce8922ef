declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}

declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  export default class S3rver {
    constructor(options: Record<string, unknown>);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    /** The file store, also on the Koa context its routes read it from. */
    store: unknown;
    context: { store: unknown };
  }
}

declare module 's3rver/lib/stores/filesystem.js' {
  /** s3rver's file store: the methods Zero's ConsistentFilesystemStore overrides or calls. */
  export default class FilesystemStore {
    constructor(rootDirectory: string);
    rootDirectory: string;
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    getMetadata(bucket: string, key: string): Promise<Record<string, string | number>>;
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string): Promise<void>;
  }
}

declare module 's3rver/lib/models/object.js' {
  export default class S3Object {
    constructor(bucket: string, key: string, content: unknown, metadata: Record<string, string | number>);
    static ALLOWED_METADATA: string[];
    range?: { start: number; end: number };
  }
}

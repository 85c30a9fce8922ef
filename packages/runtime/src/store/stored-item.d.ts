import * as z from 'zod';
/** A table item's key. */
export interface ItemKey {
    pk: string;
    sk: string;
}
declare const StoredItemError_base: {
    new (message?: string): {
        readonly name: "StoredItemError";
        message: string;
        stack?: string;
        cause?: unknown;
    };
    isInstance<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T;
    captureStackTrace(targetObject: object, constructorOpt?: Function): void;
    prepareStackTrace(err: Error, stackTraces: NodeJS.CallSite[]): any;
    stackTraceLimit: number;
};
/**
 * A stored item that decodes as no version of its type: corrupt, or written
 * by a newer deploy than this one. Reading it fails loudly, naming the item
 * type and key; a caller that can do without the item catches this
 * explicitly. Never a silent drop or an unchecked cast.
 */
export declare class StoredItemError extends StoredItemError_base {
    /** The item type, e.g. "log record". */
    readonly itemType: string;
    /** `<pk> <sk>` of the item. */
    readonly key: string;
    readonly detail: string;
    constructor(
    /** The item type, e.g. "log record". */
    itemType: string, 
    /** `<pk> <sk>` of the item. */
    key: string, detail: string);
}
/** An item type of the table: every version it was ever written in, and one decoder. */
export interface StoredItem<T> {
    /** Names the type in errors. */
    readonly type: string;
    /** The version every writer writes now (the highest one). */
    readonly version: number;
    /** Every version this code reads, oldest first. */
    readonly versions: number[];
    /** Every stored version as one schema (the version union), each upgraded to the current shape. */
    readonly schema: z.ZodType<T>;
    /**
     * Decodes a stored item (key and index attributes are ignored) into the
     * current shape, whatever version it was written in. Throws StoredItemError
     * when it does not decode.
     */
    decode(item: Record<string, unknown>, key?: ItemKey): T;
}
/**
 * Declares an item type by its stored versions. The item's `v` attribute
 * picks the version; an item without one is version 0 (written before items
 * carried a version). Each version's schema outputs the current shape: an
 * older version upgrades in its own transform.
 */
export declare function storedItem<T>(type: string, versions: Record<number, z.ZodType<T, unknown>>): StoredItem<T>;
export {};

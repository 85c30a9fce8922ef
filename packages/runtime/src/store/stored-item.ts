import * as z from 'zod';
import { defineErrorClass } from '@zero/agent/errors';

/** A table item's key. */
export interface ItemKey {
  pk: string;
  sk: string;
}

/**
 * A stored item that decodes as no version of its type: corrupt, or written
 * by a newer deploy than this one. Reading it fails loudly, naming the item
 * type and key; a caller that can do without the item catches this
 * explicitly. Never a silent drop or an unchecked cast.
 */
export class StoredItemError extends defineErrorClass('StoredItemError') {
  constructor(
    /** The item type, e.g. "log record". */
    readonly itemType: string,
    /** `<pk> <sk>` of the item. */
    readonly key: string,
    readonly detail: string,
  ) {
    super(`stored ${itemType} ${key} is unreadable: ${detail}`);
  }
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
export function storedItem<T>(type: string, versions: Record<number, z.ZodType<T, unknown>>): StoredItem<T> {
  const numbers = Object.keys(versions).map(Number);
  const version = Math.max(...numbers);
  // Each version behind a check of its `v`, so the union cannot read one version as another.
  // Built on first use: a cold start declares every item type but reads few (the union serves fixtures and docs).
  let union: z.ZodType<T> | undefined;
  return {
    type,
    version,
    versions: numbers.sort((a, b) => a - b),
    get schema() {
      union ??= z.union(numbers.map((n) => z.looseObject({ v: n === 0 ? z.undefined().optional() : z.literal(n) }).pipe(versions[n] as z.ZodType<T, any>))) as z.ZodType<T>;
      return union;
    },
    decode(item, key = item as unknown as ItemKey) {
      const fail = (detail: string) => new StoredItemError(type, `${String(key.pk)} ${String(key.sk)}`, detail);
      const v = item.v ?? 0;
      const schema = typeof v === 'number' ? versions[v] : undefined;
      if (!schema) throw fail(`version ${JSON.stringify(v)} is not one this code reads (${numbers.join(', ')})`);
      const parsed = schema.safeParse(item);
      if (!parsed.success) throw fail(`as version ${v}: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`);
      return parsed.data;
    },
  };
}

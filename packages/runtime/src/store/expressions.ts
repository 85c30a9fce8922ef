/**
 * A DynamoDB `SET a = :a, …` for the defined fields of an object, with
 * placeholder names (attribute names may be reserved words). Undefined fields
 * are left alone; `undefined` when there is nothing to set.
 */
export function setExpression(fields: Record<string, unknown>): { set: string; names: Record<string, string>; values: Record<string, unknown> } | undefined {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return undefined;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts = entries.map(([key, value], i) => {
    names[`#f${i}`] = key;
    values[`:v${i}`] = value;
    return `#f${i} = :v${i}`;
  });
  return { set: `SET ${parts.join(', ')}`, names, values };
}

export async function startRepl(_options: unknown): Promise<number> {
  return 2;
}

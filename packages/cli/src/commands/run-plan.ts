export async function runPlanCommand(_project: string | undefined, _options: unknown): Promise<number> {
  return 2;
}

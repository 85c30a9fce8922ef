/**
 * Markdown as terminal text: headings, lists, tables, and code highlighted by cli-highlight.
 *
 * Called only once the CLI has decided its output is rich (`richOutput`: a terminal, no NO_COLOR).
 * That decision wins over chalk's own detection, which turns colour off whenever `CI` is set
 * (a REPL in a terminal on a CI machine is still a terminal), so the colour level is set in
 * FORCE_COLOR before the renderer's chalk instances load.
 */
export async function loadMarkdownRenderer(env = process.env): Promise<(markdown: string) => string> {
  env.FORCE_COLOR ??= colourLevel(env);
  const [{ Marked }, { markedTerminal }] = await Promise.all([import('marked'), import('marked-terminal')]);
  const marked = new Marked(markedTerminal({ width: Math.min(process.stdout.columns || 100, 120), reflowText: false, tab: 2 }) as never);
  return (markdown) => marked.parse(markdown, { async: false }) as string;
}

/** chalk's levels: 3 for truecolor, 2 for a 256-colour terminal, 1 otherwise. */
const colourLevel = (env: NodeJS.ProcessEnv) =>
  /truecolor|24bit/i.test(env.COLORTERM ?? '') ? '3' : /256/.test(env.TERM ?? '') ? '2' : '1';

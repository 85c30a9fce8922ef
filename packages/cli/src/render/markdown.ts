import { marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

let configured = false;

/** Markdown as terminal text: headings, lists, tables, and code highlighted by cli-highlight. */
export function renderMarkdown(markdown: string): string {
  if (!configured) {
    marked.use(markedTerminal({ width: Math.min(process.stdout.columns || 100, 120), reflowText: false, tab: 2 }) as never);
    configured = true;
  }
  return marked.parse(markdown, { async: false }) as string;
}

import type { ServerToolSpec } from '@zero/agent/tools/registry';

/** Anthropic's server-side web search; the model provider runs it and Zero relays its blocks as tool events. */
export const webSearchTool: ServerToolSpec = {
  name: 'web_search',
  description: 'Search the web for current information (advisories, releases, documentation); results come with their URLs. Run by the model provider.',
  definition: { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
};

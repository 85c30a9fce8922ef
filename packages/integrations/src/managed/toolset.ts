import { SHELL_TOOL } from '@zero/agent/definitions/claude-code-tools';

/** The Managed Agents toolset's tools (`agent_toolset_20260401`), as Zero's tools of the same job. */
export const TOOLSET_TOOLS = {
  bash: SHELL_TOOL,
  read: 'read_file',
  write: 'write_file',
  edit: 'edit_file',
  glob: 'glob',
  grep: 'grep',
  web_fetch: 'web_fetch',
  web_search: 'web_search',
} as const;
export type ToolsetToolName = keyof typeof TOOLSET_TOOLS;

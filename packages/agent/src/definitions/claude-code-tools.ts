/**
 * Zero's tool that runs a shell command. Claude Code's `Bash` and the Managed
 * Agents toolset's `bash` both map here: the one name to change when another
 * tool takes that job.
 */
export const SHELL_TOOL = 'bash';

/** Zero's tool that loads one of the agent's skills (Claude Code's `Skill`); a run has it exactly when its agent has skills. */
export const SKILL_TOOL = 'read_skill';

/**
 * Claude Code's tool names (agent files' `tools:`, `disallowedTools:` and
 * permission rules) as Zero's tools of the same job. Zero's edit and write
 * tools work on the files a run saves (`reports/`, `artifacts/`), not on a
 * project's sources; the tool descriptions tell the model so.
 */
export const TOOL_ALIASES: Record<string, string> = {
  Bash: SHELL_TOOL,
  Read: 'read_file',
  NotebookRead: 'read_file',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  LS: 'list_files',
  Glob: 'glob',
  Grep: 'grep',
  WebFetch: 'web_fetch',
  WebSearch: 'web_search',
  Task: 'delegate_agent',
  Agent: 'delegate_agent',
  ListProjects: 'list_projects',
  GetAnalysis: 'get_analysis',
  Skill: SKILL_TOOL,
};

const NO_BACKGROUND_SHELLS = `${SHELL_TOOL} (Bash) runs a command to its end and answers with its output; Zero keeps no background shells to read or stop`;
const NO_TEAMS = "Claude Code's agent teams and their task list have no counterpart; Zero's agents work together through delegate_agent (Task)";

/** Why each of the other Claude Code tools has no counterpart in Zero. */
const UNAVAILABLE: Record<string, string> = {
  BashOutput: NO_BACKGROUND_SHELLS,
  KillShell: NO_BACKGROUND_SHELLS,
  KillBash: NO_BACKGROUND_SHELLS,
  NotebookEdit: 'Zero has no notebook cell editor; edit_file (Edit) edits a notebook saved under reports/ or artifacts/ as text',
  TodoWrite: 'Zero keeps no to-do list for the model; what a run did is in the session log',
  ExitPlanMode: 'Zero has no plan mode to leave',
  AskUserQuestion: 'a Zero run asks a person only to approve a tool call; it cannot put a question to them mid-run',
  SlashCommand: 'Zero runs no Claude Code slash commands',
  TaskCreate: NO_TEAMS,
  TaskGet: NO_TEAMS,
  TaskList: NO_TEAMS,
  TaskUpdate: NO_TEAMS,
  TaskOutput: NO_TEAMS,
  TeamCreate: NO_TEAMS,
  TeamDelete: NO_TEAMS,
  SendMessage: NO_TEAMS,
};

/** Why a tool named in an agent file is not the agent's: Zero lacks it, or this deployment does not enable its counterpart. */
export function unavailableReason(name: string, known?: ReadonlySet<string>): string {
  const counterpart = TOOL_ALIASES[name];
  if (counterpart && known && !known.has(counterpart)) return `its counterpart ${counterpart} is not enabled on this deployment`;
  return UNAVAILABLE[name] ?? 'Zero has no tool of this name';
}

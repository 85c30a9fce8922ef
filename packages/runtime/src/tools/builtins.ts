import type { OutboundOptions } from '@zero/agent/net/outbound';
import type { ServerToolSpec } from '@zero/agent/tools/registry';
import type { CommandOptions } from './command/command-policy';
import type { ToolSpec } from './tool';
import { memoryTool } from './memory';
import { readSkillTool } from './read-skill';
import { delegateAgentTool } from './delegate-agent';
import { getAgentInfoTool } from './get-agent-info';
import { getAnalysisTool } from './get-analysis';
import { globTool } from './glob';
import { grepTool } from './grep';
import { listProjectsTool } from './list-projects';
import { readFileTool } from './read-file';
import { renderReportTool } from './render-report';
import { createWebFetchTool } from './web-fetch';
import { createHttpRequestTool } from './http-request';
import { listRequestsTool } from './list-requests';
import { createRunRequestTool } from './run-request';
import { saveRequestTool } from './save-request';
import { createSaveBaselineTool } from './save-baseline';
import { createCheckRegressionTool } from './check-regression';
import { parseStackTraceTool } from './parse-stack-trace';
import { dbQueryTool } from './db-query';
import { webSearchTool } from './web-search';
import { writeFileTool } from './write-file';
import { createRunCommandTool } from './run-command';
import { createBashTool } from './bash';
import { editFileTool } from './edit-file';
import { deletePathTool } from './delete-path';
import { listFilesTool } from './list-files';
import { diffFilesTool } from './diff-files';

/**
 * The built-in tools every deployment registers, one a line: the registry (`@zero/agent/tools/registry`)
 * holds them beside the tools a deployment adds and its agents' MCP tools. A new built-in tool is one more line here.
 */
export function builtinTools(options: { outbound?: OutboundOptions; commands?: CommandOptions } = {}): (ToolSpec<any> | ServerToolSpec)[] {
  // run_command and bash share one sandbox (its network goes through the outbound guard) and the run's copy.
  const commands: CommandOptions = { ...options.commands, sandboxOptions: { ...options.commands?.sandboxOptions, outbound: options.outbound } };
  return [
    getAgentInfoTool,
    delegateAgentTool,
    listProjectsTool,
    readFileTool,
    grepTool,
    globTool,
    getAnalysisTool,
    writeFileTool,
    renderReportTool,
    createWebFetchTool(options.outbound),
    webSearchTool,
    createRunCommandTool(commands),
    createBashTool(commands),
    editFileTool,
    deletePathTool,
    listFilesTool,
    diffFilesTool,
    memoryTool,
    readSkillTool,
    createHttpRequestTool(options.outbound),
    dbQueryTool,
    listRequestsTool,
    createRunRequestTool(options.outbound),
    saveRequestTool,
    createSaveBaselineTool(options.outbound),
    createCheckRegressionTool(options.outbound),
    parseStackTraceTool,
  ];
}

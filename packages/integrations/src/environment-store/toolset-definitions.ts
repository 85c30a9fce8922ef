/**
 * The tools of the Managed Agents toolset (`agent_toolset_20260401`) that act on the working copy,
 * as the official SDK's runner defines them (`@anthropic-ai/sdk/tools/agent-toolset/node`; a test
 * checks they still match). In a self-hosted environment the model gets these, and a worker runs them.
 */
export const ENVIRONMENT_TOOL_DEFINITIONS: { name: string; description: string; input_schema: { type: 'object'; [key: string]: unknown } }[] = [
  {
    name: 'bash',
    description: 'Run a bash command in a persistent shell. State (cwd, env vars) persists across calls.',
    input_schema: {
      type: 'object',
      properties: {
        command: {
          type: 'string',
          description: 'The command to run'
        },
        restart: {
          type: 'boolean',
          description: 'Restart the persistent shell before running'
        },
        timeout_ms: {
          type: 'integer',
          description: 'Per-call timeout in milliseconds'
        }
      }
    }
  },
  {
    name: 'read',
    description: 'Read a UTF-8 text file relative to the workdir.',
    input_schema: {
      type: 'object',
      properties: {
        file_path: {
          type: 'string'
        },
        view_range: {
          type: 'array',
          items: {
            type: 'integer'
          },
          description: '[start_line, end_line] 1-indexed inclusive'
        }
      },
      required: [
        'file_path'
      ]
    }
  },
  {
    name: 'write',
    description: 'Write a UTF-8 text file relative to the workdir, creating parent directories as needed.',
    input_schema: {
      type: 'object',
      properties: {
        file_path: {
          type: 'string'
        },
        content: {
          type: 'string'
        }
      },
      required: [
        'file_path',
        'content'
      ]
    }
  },
  {
    name: 'edit',
    description: 'Replace old_string with new_string in a file. old_string must be unique unless replace_all.',
    input_schema: {
      type: 'object',
      properties: {
        file_path: {
          type: 'string'
        },
        old_string: {
          type: 'string'
        },
        new_string: {
          type: 'string'
        },
        replace_all: {
          type: 'boolean'
        }
      },
      required: [
        'file_path',
        'old_string',
        'new_string'
      ]
    }
  },
  {
    name: 'glob',
    description: 'Match files under the workdir against a glob pattern. Results are mtime-sorted, newest first.',
    input_schema: {
      type: 'object',
      properties: {
        pattern: {
          type: 'string'
        },
        path: {
          type: 'string',
          description: 'Directory to search in. Defaults to the workdir.'
        }
      },
      required: [
        'pattern'
      ]
    }
  },
  {
    name: 'grep',
    description: 'Search file contents for a regex. Uses ripgrep if available, otherwise a built-in walker.',
    input_schema: {
      type: 'object',
      properties: {
        pattern: {
          type: 'string'
        },
        path: {
          type: 'string'
        }
      },
      required: [
        'pattern'
      ]
    }
  }
];

export const ENVIRONMENT_TOOL_NAMES: ReadonlySet<string> = new Set(ENVIRONMENT_TOOL_DEFINITIONS.map((tool) => tool.name));

import * as z from 'zod';

/**
 * MCP servers as agent files (`mcpServers:`, Claude Code's format) and the
 * deployment-wide `PUT /api/v2/mcp-servers/:name` declare them. Credentials
 * are never written here: header and environment values reference secrets by
 * name (`${ZERO_MCP_SECRET_GITHUB}`), resolved from the server's environment
 * when it connects.
 */

/** The prefix every secret a server definition may reference carries. */
export const MCP_SECRET_PREFIX = 'ZERO_MCP_SECRET_';

/** `github` in `mcp__github__create_issue`: no `__`, which separates server from tool. */
export const mcpServerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$/, 'must be 1 to 48 letters, digits, "-" or "_", starting with a letter or digit')
  .refine((name) => !name.includes('__'), 'must not contain "__" (it separates server and tool in mcp__<server>__<tool>)');

const REFERENCE = /\$\{([^}]*)\}/g;

/** A value that may reference secrets; any `${NAME}` outside the prefix is refused (Zero never expands other variables). */
const secretTemplateSchema = z
  .string()
  .max(4096)
  .superRefine((value, ctx) => {
    for (const [, name] of value.matchAll(REFERENCE)) {
      if (!new RegExp(`^${MCP_SECRET_PREFIX}[A-Z0-9_]+$`).test(name ?? '')) {
        ctx.addIssue({ code: 'custom', message: `references \${${name}}; only secrets named ${MCP_SECRET_PREFIX}<NAME> (capitals, digits, "_") can be referenced` });
      }
    }
  });

/** A value that is one secret reference and nothing else. */
const secretRefSchema = z
  .string()
  .regex(new RegExp(`^\\$\\{${MCP_SECRET_PREFIX}[A-Z0-9_]+\\}$`), `must be a secret reference, \${${MCP_SECRET_PREFIX}<NAME>}`);

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000);

/** Zero's addition for servers behind OAuth: the refresh-token grant, with the token and client secret from secrets. */
export const mcpOAuthSchema = z.strictObject({
  token_url: httpUrl,
  client_id: z.string().min(1).max(500),
  client_secret: secretRefSchema.optional(),
  refresh_token: secretRefSchema,
  scope: z.string().min(1).max(1000).optional(),
});

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'is not an HTTP header name');
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization']);

const remoteServerSchema = z.strictObject({
  type: z.enum(['http', 'sse']),
  url: httpUrl,
  headers: z
    .record(headerName, secretTemplateSchema)
    .superRefine((headers, ctx) => {
      for (const [name, value] of Object.entries(headers)) {
        if (CREDENTIAL_HEADERS.has(name.toLowerCase()) && !value.includes(`\${${MCP_SECRET_PREFIX}`)) {
          ctx.addIssue({ code: 'custom', path: [name], message: `must reference a secret (\${${MCP_SECRET_PREFIX}<NAME>}), not hold the credential itself` });
        }
      }
    })
    .optional(),
  oauth: mcpOAuthSchema.optional(),
});

const stdioServerSchema = z.strictObject({
  type: z.literal('stdio'),
  command: z.string().min(1).max(1000),
  args: z.array(z.string().max(4096)).max(100).optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,100}$/, 'is not an environment variable name'), secretTemplateSchema).optional(),
});

/**
 * One server: `{type: "http" | "sse", url, headers?, oauth?}` or `{type: "stdio", command, args?, env?}`.
 * As in Claude Code, `type` may be left out: a `command` means stdio, a `url` Streamable HTTP.
 */
export const mcpServerConfigSchema = z.preprocess(
  (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || 'type' in value) return value;
    if ('command' in value) return { type: 'stdio', ...value };
    if ('url' in value) return { type: 'http', ...value };
    return value;
  },
  z.discriminatedUnion('type', [remoteServerSchema, stdioServerSchema], { error: 'must be {"type": "http" | "sse", "url"} or {"type": "stdio", "command"}' }),
);
export type McpServerConfig = z.output<typeof mcpServerConfigSchema>;

/** `PUT /api/v2/mcp-servers/:name`: a deployment-wide server. Remote only: the API never starts processes. */
export const mcpServerInputSchema = mcpServerConfigSchema.refine((config) => config.type !== 'stdio', {
  message: 'a deployment-wide server is reached over http or sse; stdio servers (a command Zero starts) belong in an agent file run with npm start',
  path: ['type'],
});
export type McpServerInput = z.input<typeof mcpServerInputSchema>;

/** What was last seen of a server from this instance. */
export const mcpServerStatusSchema = z.object({
  state: z.enum(['connected', 'error', 'not_connected']),
  /** When it was last seen (absent: never, from this instance). */
  at: z.string().optional(),
  /** How many tools it offered. */
  tools: z.number().int().optional(),
  /** Why it could not be used. */
  message: z.string().optional(),
});

/** A server as `GET /agents` and the admin routes show it: where it is, never its credentials. */
export const mcpServerViewSchema = z.object({
  name: z.string(),
  type: z.enum(['http', 'sse', 'stdio']),
  /** Where it is: the URL's origin and path (its query may carry a token), or the stdio command. */
  target: z.string(),
  /** Declared by the agent file, or deployment-wide (`/api/v2/mcp-servers`). */
  source: z.enum(['agent', 'deployment']),
  /** The secrets its headers, environment and OAuth settings reference, by name. */
  secrets: z.array(z.string()),
  status: mcpServerStatusSchema,
});
export type McpServerView = z.infer<typeof mcpServerViewSchema>;

/** A deployment-wide server as stored, with its definition (secret references, never values). */
export const mcpServerRecordSchema = z.object({
  name: z.string(),
  config: z.looseObject({ type: z.string() }),
  created_at: z.string(),
  updated_at: z.string(),
});
export const mcpServerResponseSchema = z.object({ server: mcpServerRecordSchema });
export const mcpServerListSchema = z.object({ servers: z.array(mcpServerRecordSchema.extend({ status: mcpServerStatusSchema })) });

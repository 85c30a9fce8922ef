import * as z from 'zod';

/** Limits on what a client may send, documented in docs/configuration.md. */
export const MAX_MESSAGE_CHARS = 100_000;
export const MAX_BODY_BYTES = 1_048_576;
/**
 * `useChat` sends the whole conversation on every request, so its body grows
 * with the chat; Zero reads only the last message but must accept the rest.
 * (Lambda function URLs cap a request at 6 MB.)
 */
export const MAX_UI_CHAT_BODY_BYTES = 5 * 1_048_576;
/** The largest webhook body accepted (GitHub's payloads are far smaller; a Lambda function URL caps requests at 6 MB). */
export const MAX_WEBHOOK_BYTES = 2 * 1024 * 1024;

export const voiceModeSchema = z.enum(['full', 'minimal', 'neutral']);
/** How hard a run's model thinks: an extended-thinking budget as Claude Code's effort level (`model/thinking.ts`), or `off`. */
export const effortSchema = z.enum(['off', 'low', 'medium', 'high']);
export type Effort = z.infer<typeof effortSchema>;
/** Claude Code's `effort` levels as extended-thinking budgets (tokens): what an agent file's `effort:` and a client's effort choice ask for. */
export const EFFORT_BUDGETS = { low: 2_048, medium: 8_192, high: 24_576 } as const;
export type VoiceMode = z.infer<typeof voiceModeSchema>;

/** What a message that arrives during a run does: wait its turn, be refused, or stop the run. */
export const strategySchema = z.enum(['enqueue', 'reject', 'interrupt']);
export type Strategy = z.infer<typeof strategySchema>;

/** A member's role in a session or a project. */
export const roleSchema = z.enum(['owner', 'editor', 'viewer']);
export type Role = z.infer<typeof roleSchema>;

const idSchema = z.string().min(1).max(128).regex(/^[A-Za-z0-9._:-]+$/, 'must contain only letters, digits, ".", "_", ":" or "-"');
/** A session id: a client's chat id, a UUID; part of DynamoDB keys, so bounded. */
export const sessionIdSchema = idSchema;
/** A user id: from an API key, a JWT's `sub`, or a membership; part of DynamoDB keys, so no spaces or "#". */
export const userIdSchema = z.string().min(1).max(200).regex(/^[^\s#]+$/, 'must not contain spaces or "#"');

/** A project id: `owner/repo`, each part letters, digits, `.`, `_` or `-`, never a dot segment. */
export const projectIdSchema = z
  .string()
  .min(3)
  .max(200)
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must look like "owner/repo"')
  .refine((s) => !s.split('/').some((part) => part === '.' || part === '..'), 'must not contain "." or ".." segments');

/** The name of an analysis document's scanner, e.g. "code-security". */
export const scannerSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a scanner name such as "code-security"');

/**
 * A schedule's id, chosen by the administrator like a hook's; at most 62 characters, as
 * EventBridge Scheduler names a schedule's second half `<id>.w` (64 at most).
 */
export const scheduleIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,61}$/, 'must be lower-case letters, digits and dashes (at most 62)');
/** A hook id: lower-case letters, digits and dashes, used in the URL `/api/v2/webhooks/<id>`. */
export const hookIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be lower-case letters, digits and dashes (at most 63)');

/** An API key's id, as `POST /keys` returns it: 12 hex digits. */
export const keyIdSchema = z.string().regex(/^[0-9a-f]{12}$/, 'must be a key id as POST /keys returned it (12 hex digits)');

/** A `useChat` chat id doubles as the Zero session id: URL-safe and long enough not to be guessed by accident. */
export const chatIdSchema = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(128)
  .regex(/^[A-Za-z0-9_-]+$/, 'must contain only letters, digits, "_" or "-"');

/** Who wrote a message. */
/** An extended-thinking budget in tokens: the API's minimum is 1,024; Zero caps it at 32,000 so budget and answer fit every model's output limit. */
export const thinkingBudgetSchema = z.number().int().min(1024, "must be at least 1024 (the API's minimum)").max(32_000, 'must be at most 32000');
/** Thinking for one message: a budget, or `false` to keep it off (see the agent file's `thinking:`). */
export const thinkingRequestSchema = z.union([z.literal(false), z.strictObject({ budget_tokens: thinkingBudgetSchema })]);

export const authorSchema = z.object({ id: z.string(), name: z.string().optional() });
export type Author = z.infer<typeof authorSchema>;

/** Tokens a run used, and what they cost. */
export const usageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  /** `false` when a call ran on a model its provider's price table does not price: `cost_usd` counts it as 0. Absent: every call was priced. */
  cost_known: z.literal(false).optional(),
});
export type Usage = z.infer<typeof usageSchema>;

/** How a run ended. */
export const runStatusSchema = z.enum(['completed', 'limit', 'error', 'cancelled', 'budget_reached']);
export type RunStatus = z.infer<typeof runStatusSchema>;

/** The budget a run spends against: its session's, its user's for the day, or the deployment's for the day. */
export const budgetScopeSchema = z.enum(['session', 'user', 'deployment']);
export type BudgetScope = z.infer<typeof budgetScopeSchema>;

/** How a run's invocation ended: its status, or `awaiting_approval` when it waits for a person (it is not over). */
export const doneStatusSchema = z.union([runStatusSchema, z.literal('awaiting_approval')]);
export type DoneStatus = z.infer<typeof doneStatusSchema>;

/** A tool's name (as agent files and the registry spell it) → the calls of it one run may make (ZAP's `SetToolLimit`). */
export const toolLimitsSchema = z.record(
  z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, 'must be a tool name'),
  z.number({ error: 'must be a whole number of calls' }).int('must be a whole number of calls').positive('must be at least 1'),
);
export type ToolLimits = z.infer<typeof toolLimitsSchema>;

/** A cap on the tool loop's iterations (the model calls of one run), from an agent file or a request. */
export const maxToolIterationsSchema = z.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be at least 1').max(1000, 'must be at most 1000');

/** A task's complexity (Agent Zero's F1–F5): F1–F2 text only on the light tier, F3–F4 with tools on the standard tier, F5 with tools on the heavy tier. */
export const complexityLevelSchema = z.enum(['F1', 'F2', 'F3', 'F4', 'F5'], { error: 'must be one of F1, F2, F3, F4, F5' });
export type ComplexityLevel = z.infer<typeof complexityLevelSchema>;

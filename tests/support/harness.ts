import { join } from 'node:path';
import { DEFAULT_LIMITS, type RunLimits } from '@zero/agent/loop/limits';
import type { AuthConfig } from '@zero/runtime/auth/authenticator';
import type { DeploymentPermissions } from '@zero/agent/tools/policy/deployment';
import type { OutboundOptions } from '@zero/agent/net/outbound';
import type { RuntimeConfig } from '../../functions/create-runtime';
import type { ToolSpec } from '@zero/runtime/tools/tool';
import type { AppOptions } from '../../functions/http/app';
import { startServer, type RunningServer } from '../../local/server';
import { allowConsoleUploads, startLocalStack, syncAgents, type LocalStack } from '../../local/stack';
import { FakeAnthropic } from './fake-anthropic';
import { FakeOpenAI } from './fake-openai';
import { FakeBedrock } from './fake-bedrock';
import { testTools } from './tools';

export const TEST_API_KEY = 'sk-ant-test-secret-key-0123456789';
/** The harness's administrator key (user "dev"), like the local stack's development key. */
export const DEV_KEY = 'zdev_test_key_for_the_harness_0001';
export const DEV = { authorization: `Bearer ${DEV_KEY}` };
const root = join(import.meta.dirname, '..', '..');

export interface Harness {
  fake: FakeAnthropic;
  /** The fake OpenAI-compatible endpoint, when `openai` asked for one. */
  openai?: FakeOpenAI;
  /** The fake GitHub Copilot (token exchange and chat completions), when `copilot` asked for one. */
  copilot?: FakeOpenAI;
  /** The fake Bedrock runtime (answering with `fake`'s script), when `bedrock` asked for one. */
  bedrock?: FakeBedrock;
  stack: LocalStack;
  server: RunningServer;
  url: string;
  tools: ReturnType<typeof testTools>;
  /** Creates an API key for a user through the API and returns its auth header. */
  userHeaders(userId: string, name?: string): Promise<Record<string, string>>;
  /** Restarts the HTTP server (same stores), as after a process restart; `samePort` keeps its URL (for a client that reconnects). */
  restartServer(options?: { samePort?: boolean; downMs?: number }): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  dataDir?: string;
  limits?: Partial<RunLimits>;
  extraTools?: ToolSpec<any>[];
  /** Leave the model unconfigured (no key, no base URL). */
  noModel?: boolean;
  leaseTtlMs?: number;
  eventsMaxDurationMs?: number;
  jwtSecret?: string;
  /** JWT settings in full (a JWKS URL, a maximum lifetime); replaces `jwtSecret`'s. */
  jwt?: AuthConfig['jwt'];
  maxStreamsPerUser?: number;
  maxStreamsPerSession?: number;
  /** How outbound requests (web_fetch, webhook callbacks) resolve and dial. */
  outbound?: OutboundOptions;
  webhookCallback?: RuntimeConfig['webhookCallback'];
  /** A time budget per invocation, as Lambda's remaining time would give one; a run near it hands over. */
  runBudgetMs?: number;
  approvalTtlMs?: number;
  /** `ZERO_HIDE_THINKING_FROM_VIEWERS`. */
  hideThinkingFromViewers?: boolean;
  handoverReserveMs?: number;
  /**
   * The deployment's permission defaults. The harness's test tools (ledger, slow, boom…) declare no
   * `readOnly`, so it allows tools with side effects unless a test passes its own (`{}` is Zero's default: ask).
   */
  permissions?: DeploymentPermissions;
  /** Caps of a memory store (the deployment's `ZERO_MEMORY_*`). */
  memory?: RuntimeConfig['memory'];
  /** Session, user and deployment budgets (the deployment's `ZERO_BUDGET_*`). */
  budgets?: RuntimeConfig['budgets'];
  /** Rate limits per credential, session and webhook (the deployment's `ZERO_RATE_LIMIT_*`), with a short window for tests. */
  rateLimits?: RuntimeConfig['rateLimits'];
  /** GitHub's API address (a fake's) and retries, the token resolver, and the console's address for links. */
  github?: RuntimeConfig['github'];
  githubToken?: RuntimeConfig['githubToken'];
  publicUrl?: string;
  /** Starts a fake OpenAI-compatible server, configured as the endpoint `name` (default `fakeai`) with these settings. */
  openai?: { name?: string; key?: string; noTools?: string[]; prices?: Record<string, { input: number; output: number }>; contextWindows?: Record<string, number> };
  /** Starts a fake GitHub Copilot taking this GitHub token, configured as the provider `copilot`. */
  copilot?: { githubToken: string };
  /** Starts a fake Bedrock runtime, reached through the Bedrock SDK's endpoint override, answering with `fake`'s script. */
  bedrock?: boolean;
  /** The default provider and fallback chain (`ZERO_MODEL_PROVIDER`, `ZERO_MODEL_FALLBACK`). */
  providers?: { default?: string; fallback?: string[] };
  /** The deployment's model of each tier (`ZERO_MODEL_TIERS`). */
  tiers?: RuntimeConfig['tiers'];
  /** The operator's complexity rules for tier routing (`ZERO_COMPLEXITY_RULES`). */
  complexityRules?: RuntimeConfig['complexityRules'];
  /**
   * A new session's title from the light tier after its first exchange (`ZERO_SESSION_TITLES`). Off unless a
   * test turns it on: the fake model's scripts then answer only the runs' own calls.
   */
  sessionTitles?: boolean;
  /** EventBridge Scheduler (a fake's endpoint): schedules are registered there as on AWS. */
  scheduler?: RuntimeConfig['scheduler'];
  /** The project API's limits (archive sizes, upload lifetimes), the defaults where unset. */
  projectLimits?: AppOptions['projectLimits'];
  /** The key vault credentials are sealed with (a key file, or KMS at a fake's endpoint); absent: vaults hold no credentials. */
  vaultKey?: RuntimeConfig['vaultKey'];
}

/** Starts the fake Anthropic server, dynalite, s3rver and Zero's HTTP server, all on loopback. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const fake = await new FakeAnthropic().start();
  const openai = options.openai ? await new FakeOpenAI().start() : undefined;
  if (openai && options.openai?.key) openai.requiredKey = options.openai.key;
  const copilot = options.copilot ? (await new FakeOpenAI().start()).issueCopilotTokens(options.copilot.githubToken) : undefined;
  const bedrock = options.bedrock ? await new FakeBedrock(fake).start() : undefined;
  const stack = await startLocalStack({ dataDir: options.dataDir });
  await syncAgents(stack.store, join(root, 'agents'));
  await syncAgents(stack.store, join(root, 'tests', 'fixtures', 'agents'));
  const tools = testTools();
  const config = () => ({
    store: stack.store,
    anthropic: options.noModel ? {} : { apiKey: TEST_API_KEY, baseURL: fake.url, maxRetries: 2 },
    limits: { ...DEFAULT_LIMITS, retryBaseMs: 5, ...options.limits },
    tools: [...tools.tools, ...(options.extraTools ?? [])],
    catalogRevalidateMs: 0,
    leaseTtlMs: options.leaseTtlMs,
    outbound: options.outbound,
    webhookCallback: options.webhookCallback,
    runBudgetMs: options.runBudgetMs,
    approvalTtlMs: options.approvalTtlMs,
    hideThinkingFromViewers: options.hideThinkingFromViewers,
    handoverReserveMs: options.handoverReserveMs,
    permissions: options.permissions ?? { side_effects: 'allow' },
    auth: {
      staticKeys: [{ key: DEV_KEY, user: { id: 'dev', name: 'Developer' } }],
      ...(options.jwtSecret ? { jwt: { secret: options.jwtSecret, issuer: 'https://auth.example.test' } } : {}),
      ...(options.jwt ? { jwt: options.jwt } : {}),
    },
    maxStreamsPerUser: options.maxStreamsPerUser,
    maxStreamsPerSession: options.maxStreamsPerSession,
    memory: options.memory,
    budgets: options.budgets,
    rateLimits: options.rateLimits,
    github: options.github,
    githubToken: options.githubToken,
    publicUrl: options.publicUrl,
    tiers: options.tiers,
    complexityRules: options.complexityRules,
    sessionTitles: options.sessionTitles ?? false,
    scheduler: options.scheduler,
    vaultKey: options.vaultKey,
    providers: {
      ...options.providers,
      ...(bedrock ? { bedrock: { region: 'eu-west-3', baseURL: bedrock.url, credentials: { accessKeyId: 'AKIAFAKEBEDROCK00001', secretAccessKey: 'fake-bedrock-secret' } } } : {}),
      ...(copilot ? { copilot: { githubToken: options.copilot!.githubToken, url: copilot.url, tokenUrl: copilot.tokenUrl, maxRetries: 2 } } : {}),
      endpoints: openai ? { [options.openai?.name ?? 'fakeai']: { url: openai.url, key: options.openai?.key, noTools: options.openai?.noTools, prices: options.openai?.prices, contextWindows: options.openai?.contextWindows, maxRetries: 2 } } : {},
    },
  });
  const appOptions = { eventsMaxDurationMs: options.eventsMaxDurationMs, projectLimits: options.projectLimits };
  let server = await startServer(config(), 0, '127.0.0.1', appOptions);
  await allowConsoleUploads(stack.store, server.url);
  const harness: Harness = {
    fake,
    openai,
    copilot,
    bedrock,
    stack,
    server,
    url: server.url,
    tools,
    async userHeaders(userId, name) {
      const { json, status } = await postJson(`${harness.url}/api/v2/keys`, { user_id: userId, ...(name ? { name } : {}) }, DEV);
      if (status !== 201) throw new Error(`could not create a key for ${userId}: ${status}`);
      return { authorization: `Bearer ${json.key}` };
    },
    async restartServer({ samePort = false, downMs = 0 } = {}) {
      await server.close();
      await new Promise((r) => setTimeout(r, downMs));
      server = await startServer(config(), samePort ? Number(new URL(server.url).port) : 0, '127.0.0.1', appOptions);
      await allowConsoleUploads(stack.store, server.url);
      harness.server = server;
      harness.url = server.url;
    },
    async close() {
      await server.close();
      await fake.stop();
      await openai?.stop();
      await copilot?.stop();
      await bedrock?.stop();
      await stack.stop();
    },
  };
  return harness;
}

/** A response's status and body, the body parsed as JSON when it is JSON. */
async function readBody(response: Response) {
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, headers: response.headers };
}

/** Any request to the API (`path` under /api/v2), its body as text and, when there is one, as JSON. */
export async function send(h: Pick<Harness, 'url'>, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${h.url}/api/v2${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, json: text ? JSON.parse(text) : undefined };
}

export async function getJson(url: string, headers: Record<string, string> = DEV) {
  return readBody(await fetch(url, { headers }));
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = DEV) {
  return readBody(
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

/** The environment a Lambda entry (functions/worker.ts, functions/api.ts) reads its stores from when SST has linked nothing: the harness's. */
export function storeEnv(h: Harness): Record<string, string> {
  return {
    ZERO_TABLE: h.stack.store.table,
    ZERO_BUCKET: h.stack.store.bucket,
    ZERO_DYNAMODB_ENDPOINT: h.stack.store.dynamoEndpoint!,
    ZERO_S3_ENDPOINT: h.stack.store.s3Endpoint!,
    AWS_ACCESS_KEY_ID: h.stack.store.credentials!.accessKeyId,
    AWS_SECRET_ACCESS_KEY: h.stack.store.credentials!.secretAccessKey,
    AWS_REGION: 'us-east-1',
  };
}

/** The developer key the harness accepts, for another instance on its stores to accept it too. */
const devAuth = (): AuthConfig => ({ staticKeys: [{ key: DEV_KEY, user: { id: 'dev', name: 'Developer' } }] });

/**
 * A second Zero in this process on the harness's stores and fake model (another Lambda, another
 * `npm start`): the harness's basics and developer key, with `extra` on top.
 */
export function startSecondInstance(h: Harness, extra: Partial<RuntimeConfig> = {}): Promise<RunningServer> {
  return startServer({ store: h.stack.store, anthropic: { apiKey: TEST_API_KEY, baseURL: h.fake.url }, limits: DEFAULT_LIMITS, tools: testTools().tools, catalogRevalidateMs: 0, auth: devAuth(), ...extra });
}

/** The configuration of a Zero in a child process (tests/support/child.ts) on the harness's stores: no model retries, a lease of `leaseTtlMs`. */
export function childConfig(h: Harness, leaseTtlMs: number): Partial<RuntimeConfig> {
  return { store: h.stack.store, anthropic: { apiKey: TEST_API_KEY, baseURL: h.fake.url, maxRetries: 0 }, leaseTtlMs, auth: devAuth() };
}

/** Opens a session through the API as the user of `headers`, on the test agent; its id. */
export async function openSessionAs(h: Harness, headers: Record<string, string>, title: string): Promise<string> {
  const { status, json } = await postJson(`${h.url}/api/v2/sessions`, { title, agent_id: 'tester' }, headers);
  if (status !== 201) throw new Error(`opening a session answered ${status}: ${JSON.stringify(json)}`);
  return json.session.session_id;
}

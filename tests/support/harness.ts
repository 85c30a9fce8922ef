import { join } from 'node:path';
import { DEFAULT_LIMITS, type RunLimits, type ToolSpec } from '@zero/core';
import { startServer, type RunningServer } from '../../local/server';
import { startLocalStack, syncAgents, type LocalStack } from '../../local/stack';
import { FakeAnthropic } from './fake-anthropic';
import { testTools } from './tools';

export const TEST_API_KEY = 'sk-ant-test-secret-key-0123456789';
const root = join(import.meta.dirname, '..', '..');

export interface Harness {
  fake: FakeAnthropic;
  stack: LocalStack;
  server: RunningServer;
  url: string;
  tools: ReturnType<typeof testTools>;
  /** Restarts the HTTP server (same stores), as after a process restart. */
  restartServer(): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  dataDir?: string;
  limits?: Partial<RunLimits>;
  extraTools?: ToolSpec<any>[];
  /** Leave the model unconfigured (no key, no base URL). */
  noModel?: boolean;
}

/** Starts the fake Anthropic server, dynalite, s3rver and Zero's HTTP server, all on loopback. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const fake = await new FakeAnthropic().start();
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
  });
  let server = await startServer(config());
  const harness: Harness = {
    fake,
    stack,
    server,
    url: server.url,
    tools,
    async restartServer() {
      await server.close();
      server = await startServer(config());
      harness.server = server;
      harness.url = server.url;
    },
    async close() {
      await server.close();
      await fake.stop();
      await stack.stop();
    },
  };
  return harness;
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, headers: response.headers };
}

/**
 * A Zero server in its own process, against stores and a fake model started
 * by the test, so the test can SIGKILL it mid-run. Configuration comes as
 * JSON in ZERO_CHILD_CONFIG; the URL is printed as the first stdout line.
 *
 * ZERO_CHILD_FAILPOINT (`{"after":"<record kind>","signal":"SIGKILL"|"SIGSTOP"}`) makes the process
 * signal itself the moment the first record of that kind is durable: dead (or frozen) exactly
 * between storing a record and what follows it, which no outside timing can hit reliably.
 */
import { DEFAULT_LIMITS } from '@zero/agent/loop/limits';
import type { RuntimeConfig } from '../../functions/create-runtime';
import { startServer } from '../../local/server';
import { testTools } from './tools';

const config = JSON.parse(process.env.ZERO_CHILD_CONFIG ?? '{}') as Partial<RuntimeConfig>;
const server = await startServer({
  ...config,
  store: config.store!,
  anthropic: config.anthropic ?? {},
  limits: { ...DEFAULT_LIMITS, ...config.limits },
  tools: testTools().tools,
  catalogRevalidateMs: 0,
  // As in the harness: the test tools declare no readOnly, and run without a person unless a test says otherwise.
  permissions: config.permissions ?? { side_effects: 'allow' },
  // As in the harness: no title call after a session's first exchange unless a test asks for one.
  sessionTitles: config.sessionTitles ?? false,
});
const failpoint = process.env.ZERO_CHILD_FAILPOINT ? (JSON.parse(process.env.ZERO_CHILD_FAILPOINT) as { after: string; signal: NodeJS.Signals }) : undefined;
if (failpoint) {
  const sessions = server.runtime.sessions;
  const append = sessions.append.bind(sessions);
  let armed = true;
  sessions.append = async (...args) => {
    const stored = await append(...args);
    if (armed && stored.kind === failpoint.after) {
      armed = false;
      process.kill(process.pid, failpoint.signal);
    }
    return stored;
  };
}
process.stdout.write(`${server.url}\n`);

import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { createRuntime, type Runtime, type RuntimeConfig } from '../functions/create-runtime';
import { createApp, type AppOptions } from '../functions/http/app';
import { closeOnUnreadBody } from './unread-body';

export interface RunningServer {
  url: string;
  runtime: Runtime;
  close(): Promise<void>;
}

/** Where `npm run build:console` writes the console (`console/dist`). */
export const CONSOLE_DIR = join(import.meta.dirname, '..', 'console', 'dist');

export interface ServerOptions extends AppOptions {
  /** Static files served at `/` (the console); nothing is served when the folder does not exist. */
  consoleDir?: string;
  /** Runs the schedules and the outbox's sweep with in-process timers (`npm start` does; the test harness does not, its tests drive their own). */
  scheduleTimer?: boolean;
}

/** Serves the same Hono app as Lambda, on Node, and the console's static files at `/`. */
export async function startServer(config: RuntimeConfig, port = 0, hostname = '127.0.0.1', options: ServerOptions = {}): Promise<RunningServer> {
  const runtime = createRuntime(config);
  const app = createApp(runtime, options);
  const consoleDir = options.consoleDir ?? CONSOLE_DIR;
  if (existsSync(join(consoleDir, 'index.html'))) {
    // Asset names carry a content hash; index.html must be revalidated to pick up a new build.
    app.use(
      '/*',
      serveStatic({
        root: consoleDir,
        onFound: (path, c) => c.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache'),
      }),
    );
  }
  // A port in use (EADDRINUSE) rejects, for the caller to explain, instead of an unhandled 'error' event.
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: closeOnUnreadBody(app.fetch), port, hostname }, () => {
      s.off('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
  // Locally nothing else fires schedules: this process's timer stands in for EventBridge Scheduler.
  const timer = options.scheduleTimer ? new (await import('@zero/integrations/schedules')).ScheduleTimer(runtime).start() : undefined;
  // Event deliveries a stopped process left unsent: swept now and every 15 s (on AWS, delayed queue messages do this).
  const sweeper = options.scheduleTimer ? (await import('@zero/integrations/subscriptions')).startOutboxSweeps(runtime) : undefined;
  const address = server.address() as AddressInfo;
  return {
    url: `http://${hostname}:${address.port}`,
    runtime,
    close: async () => {
      timer?.stop();
      sweeper?.stop();
      await new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      });
      // MCP sessions and the stdio servers this process started end with it.
      await runtime.mcp.close();
    },
  };
}

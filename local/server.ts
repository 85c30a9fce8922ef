import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createRuntime, type Runtime, type RuntimeConfig } from '@zero/core';
import { createApp, type AppOptions } from '../functions/http/app';

export interface RunningServer {
  url: string;
  runtime: Runtime;
  close(): Promise<void>;
}

/** Serves the same Hono app as Lambda, on Node. */
export async function startServer(config: RuntimeConfig, port = 0, hostname = '127.0.0.1', options: AppOptions = {}): Promise<RunningServer> {
  const runtime = createRuntime(config);
  const app = createApp(runtime, options);
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port, hostname }, () => resolve(s));
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${hostname}:${address.port}`,
    runtime,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/**
 * What calling a tool through an MCP server adds to a tool call: the same
 * echo as a built-in tool and as `@modelcontextprotocol/server-everything`'s
 * `echo` over Streamable HTTP on loopback (its own process, the session warm
 * and the tool list cached, as on a warm Lambda instance), both through the
 * tool registry with the permission check. Figures: p50 and p99 of each, and
 * the p50 overhead. Run with `npx tsx bench/mcp.ts` (`MCP_BENCH_N` calls, default 300); `npm run bench` runs it too.
 */
import { pathToFileURL } from 'node:url';
import * as z from 'zod';
import { McpClients } from '@zero/integrations/mcp/clients';
import { McpServerStore } from '@zero/integrations/mcp/server-store';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { defineTool, type ToolContext } from '@zero/runtime/tools/tool';
import type { AgentDefinition } from '@zero/agent/definitions/definition';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { startEverythingServer } from '../tests/support/mcp-servers';
import { percentile, table } from './support/stats';

export interface McpOverheadResult {
  calls: number;
  direct_p50_ms: number;
  direct_p99_ms: number;
  mcp_p50_ms: number;
  mcp_p99_ms: number;
  /** p50 of an MCP call less p50 of a direct one. */
  overhead_p50_ms: number;
}

export async function mcpOverhead(calls = 300): Promise<McpOverheadResult> {
  const server = await startEverythingServer();
  // No deployment-wide servers: the agent file declares its one.
  const store = new McpServerStore({ list: async () => [] } as unknown as ArtifactStore);
  const mcp = new McpClients(store, { outbound: { allow: [`127.0.0.1:${server.port}`] }, resolveSecret: () => undefined, connectTimeoutMs: 10_000, toolsTtlMs: 3_600_000, canSpawn: true });
  try {
    const direct = defineTool({ name: 'echo', description: 'Echoes.', input: z.object({ message: z.string() }), readOnly: true, execute: async ({ message }) => `Echo: ${message}` });
    const agent = {
      id: 'bench',
      tools: ['echo'],
      permissions: { 'mcp__everything__*': 'allow' },
      mcp: { servers: { everything: { type: 'http', url: server.url } }, references: [], tools: ['mcp__everything__echo'], disallowed: [] },
    } as unknown as AgentDefinition;
    const found = await mcp.toolsFor(agent);
    // MCP tools ask by default: the deployment allows this server's, as an operator would (`ZERO_PERMISSIONS`).
    const registry = new ToolRegistry([direct], { permissions: { side_effects: 'allow', rules: { 'mcp__everything__*': 'allow' } } }).extend(found);
    const granted = { ...agent, tools: ['echo', ...found.map((t) => t.name)] };
    const context = { agent: granted, sessionId: 's', runId: 'r', toolCallId: 't', signal: new AbortController().signal } as unknown as ToolContext;
    const time = async (name: string) => {
      const samples: number[] = [];
      for (let i = 0; i < calls + 20; i++) {
        const started = performance.now();
        const result = await registry.execute(name, { message: `m${i}` }, context, { timeoutMs: 10_000, maxOutputChars: 10_000 });
        if (result.is_error || !result.content.includes(`Echo: m${i}`)) throw new Error(`${name} failed: ${result.content}`);
        // The first calls warm both paths up (JIT, the connection pool).
        if (i >= 20) samples.push(performance.now() - started);
      }
      return samples;
    };
    // Alternating rounds, so that load on the machine weighs on both alike.
    const directSamples: number[] = [];
    const mcpSamples: number[] = [];
    for (let round = 0; round < 3; round++) {
      directSamples.push(...(await time('echo')));
      mcpSamples.push(...(await time('mcp__everything__echo')));
    }
    const round2 = (value: number) => Math.round(value * 100) / 100;
    const result = {
      calls: mcpSamples.length,
      direct_p50_ms: round2(percentile(directSamples, 50)),
      direct_p99_ms: round2(percentile(directSamples, 99)),
      mcp_p50_ms: round2(percentile(mcpSamples, 50)),
      mcp_p99_ms: round2(percentile(mcpSamples, 99)),
      overhead_p50_ms: 0,
    };
    result.overhead_p50_ms = round2(result.mcp_p50_ms - result.direct_p50_ms);
    return result;
  } finally {
    await mcp.close();
    await server.stop();
  }
}

export function printMcpOverhead(r: McpOverheadResult): string {
  return table(`MCP tool-call overhead over a direct tool call — ${r.calls} calls each, Streamable HTTP on loopback, warm session (ms)`, ['tool call', 'p50', 'p99'], [
    ['built-in echo', r.direct_p50_ms, r.direct_p99_ms],
    ['server-everything echo (MCP)', r.mcp_p50_ms, r.mcp_p99_ms],
    ['overhead (p50)', r.overhead_p50_ms, ''],
  ]);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(printMcpOverhead(await mcpOverhead(Number(process.env.MCP_BENCH_N ?? 300))));
}

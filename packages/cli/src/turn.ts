import type { ApprovalChoice, ChatInput, ReceivedEvent, ZeroClient } from '@zero/client';
import type { RunView } from './render/run-view';
import { RunCollector, type RunResult } from './run-result';

export interface TurnOptions {
  client: ZeroClient;
  body: ChatInput;
  view?: RunView;
  /** Every event as it arrives (`--jsonl`). */
  onEvent?: (received: ReceivedEvent) => void;
  /** Asks a person about a waiting call; undefined leaves the run waiting. */
  ask?: (call: { id: string; name: string; input: unknown }) => Promise<ApprovalChoice | undefined>;
  onStart?: (sessionId: string, runId: string) => void;
  onReconnect?: () => void;
  signal?: AbortSignal;
}

/**
 * One message and its run, to the run's end: the events go to the view (or
 * `onEvent`), calls that wait for approval are asked about and the run is
 * followed on after the decisions, from the last event id seen.
 */
export async function runTurn(options: TurnOptions): Promise<RunResult> {
  const { client, signal, onReconnect } = options;
  const collector = new RunCollector();
  let stream = client.chatStream(options.body, { signal, onReconnect });
  while (true) {
    for await (const received of stream) {
      collector.add(received.event);
      options.onEvent?.(received);
      options.view?.handle(received.event);
      if (received.event.type === 'start' && received.event.run_id === stream.runId) options.onStart?.(received.event.session_id, received.event.run_id);
    }
    const result = collector.result;
    if (result.status !== 'awaiting_approval' || !options.ask || signal?.aborted) return result;
    for (const call of result.pending ?? []) {
      const choice = await options.ask(call);
      if (!choice) return result;
      await client.decide(result.session_id!, call.id, choice, { tool: call.name });
    }
    stream = client.followRun(result.session_id!, result.run_id!, stream.lastEventId, { signal, onReconnect });
  }
}

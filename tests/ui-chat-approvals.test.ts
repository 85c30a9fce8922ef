import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { historyToUIMessages } from '@zero/agent/ui';
import { DEV, getJson, startHarness, type Harness } from './support/harness';
import { NodeChat, newChatId } from './support/node-chat';

async function put(h: Harness, path: string, body: unknown) {
  const response = await fetch(`${h.url}/api/v2${path}`, { method: 'PUT', headers: { 'content-type': 'application/json', ...DEV }, body: JSON.stringify(body) });
  return response.status;
}

type ToolPart = { type: string; toolCallId: string; state: string; input?: unknown; output?: unknown; approval?: { id: string; approved?: boolean; reason?: string } };
const ledgerPart = (message: UIMessage | undefined) => message?.parts.find((p) => p.type === 'tool-ledger') as ToolPart | undefined;
const reloaded = async (h: Harness, id: string) => historyToUIMessages((await getJson(`${h.url}/api/v2/sessions/${id}`)).json.history);
const texts = (message: UIMessage | undefined) => message?.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])) ?? [];

describe('useChat approvals: the AI SDK parts tool-approval-request and tool-output-denied', () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zero-ui-approvals-'));
    process.env.ZERO_TEST_LEDGER = join(dir, 'ledger.txt');
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => h.fake.reset());

  const ledgerRuns = () => h.tools.executions.get('ledger') ?? 0;

  /** A chat whose session asks before `ledger` runs, answered automatically once every approval has a response. */
  async function askingChat() {
    const id = newChatId();
    const chat = new NodeChat(h.url, id, DEV, { agent_id: 'tester' }, { sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
    h.fake.script({ text: 'Hello.' });
    await chat.sendMessage({ text: 'Hi' });
    expect(await put(h, `/sessions/${id}/permissions`, { permissions: { ledger: 'ask' } })).toBe(200);
    return { id, chat };
  }

  it('a write that asks shows the approval request; addToolApprovalResponse approves; the tool runs once and the answer completes', async () => {
    const { id, chat } = await askingChat();
    const before = ledgerRuns();
    h.fake.script({ text: 'Writing it down. ', toolCalls: [{ name: 'ledger', input: { entry: 'from useChat' } }] }, { text: 'Written.' });
    await chat.sendMessage({ text: 'Write it down' });

    expect(chat.error).toBeUndefined();
    const asked = ledgerPart(chat.messages.at(-1));
    expect(asked).toMatchObject({ state: 'approval-requested', input: { entry: 'from useChat' }, approval: { id: asked!.toolCallId } });
    expect(chat.messages.at(-1)!.metadata).toMatchObject({ status: 'awaiting_approval' });
    expect(ledgerRuns()).toBe(before);
    // Reloaded from the history, the call waits the same way.
    expect(ledgerPart((await reloaded(h, id)).at(-1))).toMatchObject({ toolCallId: asked!.toolCallId, state: 'approval-requested', approval: { id: asked!.toolCallId } });

    await chat.addToolApprovalResponse({ id: asked!.approval!.id, approved: true });
    await until(() => chat.status === 'ready' && ledgerPart(chat.messages.at(-1))?.state === 'output-available');

    expect(chat.error).toBeUndefined();
    const answer = chat.messages.at(-1)!;
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(ledgerPart(answer)).toMatchObject({ toolCallId: asked!.toolCallId, state: 'output-available', output: 'recorded from useChat' });
    expect(texts(answer)).toEqual(['Writing it down. ', 'Written.']);
    expect(answer.metadata).toMatchObject({ status: 'completed' });
    expect(ledgerRuns()).toBe(before + 1);

    // Recorded as the same decision as the approvals route: who decided, and the run's ending.
    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    expect(json.history.find((r: { kind: string }) => r.kind === 'approval')).toMatchObject({ tool_use_id: asked!.toolCallId, decision: 'allow', by: { id: 'dev' } });
    expect(json.history.at(-1)).toMatchObject({ kind: 'run_end', status: 'completed' });
    expect(json.awaiting_approval).toBeNull();
  });

  it('a denial shows tool-output-denied, never runs the tool, and the model sees the reason', async () => {
    const { id, chat } = await askingChat();
    const before = ledgerRuns();
    h.fake.script({ text: 'Writing. ', toolCalls: [{ name: 'ledger', input: { entry: 'no' } }] }, { text: 'Understood, not written.' });
    await chat.sendMessage({ text: 'Write no' });
    const asked = ledgerPart(chat.messages.at(-1))!;
    expect(asked.state).toBe('approval-requested');

    await chat.addToolApprovalResponse({ id: asked.approval!.id, approved: false, reason: 'not today' });
    await until(() => chat.status === 'ready' && texts(chat.messages.at(-1)).includes('Understood, not written.'));

    expect(chat.error).toBeUndefined();
    expect(ledgerPart(chat.messages.at(-1))).toMatchObject({ toolCallId: asked.toolCallId, state: 'output-denied' });
    expect(chat.messages.at(-1)!.metadata).toMatchObject({ status: 'completed' });
    expect(ledgerRuns()).toBe(before);
    expect(JSON.stringify(h.fake.requests.at(-1)!.body.messages)).toContain('not today');
    expect(ledgerPart((await reloaded(h, id)).at(-1))).toMatchObject({ toolCallId: asked.toolCallId, state: 'output-denied', approval: { approved: false, reason: 'not today' } });
  });

  it('a chat opened from the history (useChat({ messages })) answers a waiting call and the run completes', async () => {
    const { id, chat } = await askingChat();
    const before = ledgerRuns();
    h.fake.script({ text: 'Writing. ', toolCalls: [{ name: 'ledger', input: { entry: 'after reload' } }] }, { text: 'Written after reload.' });
    await chat.sendMessage({ text: 'Write after reload' });
    expect(ledgerPart(chat.messages.at(-1))?.state).toBe('approval-requested');

    const opened = new NodeChat(h.url, id, DEV, {}, { sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
    opened.messages = await reloaded(h, id);
    const asked = ledgerPart(opened.messages.at(-1))!;
    await opened.addToolApprovalResponse({ id: asked.approval!.id, approved: true });
    await until(() => opened.status === 'ready' && texts(opened.messages.at(-1)).includes('Written after reload.'));
    expect(opened.error).toBeUndefined();
    expect(ledgerPart(opened.messages.at(-1))).toMatchObject({ state: 'output-available', output: 'recorded after reload' });
    expect(ledgerRuns()).toBe(before + 1);
  });

  it('a watcher re-attaches (useChat resume) to a run another member sent on, and sees the rest of it', async () => {
    const { id, chat } = await askingChat();
    h.fake.script({ text: 'Writing. ', toolCalls: [{ name: 'ledger', input: { entry: 'watched' } }] }, { text: ['Written ', 'while ', 'you ', 'watched.'], deltaDelayMs: 150 });
    await chat.sendMessage({ text: 'Write watched' });
    const asked = ledgerPart(chat.messages.at(-1))!;
    const requestsBefore = h.fake.requests.length;
    const decided = await fetch(`${h.url}/api/v2/sessions/${id}/approvals/${asked.toolCallId}`, { method: 'POST', headers: { 'content-type': 'application/json', ...DEV }, body: JSON.stringify({ decision: 'allow' }) });
    expect(decided.status).toBe(200);
    // The resumed run is under way (the model was asked again), writing slowly.
    await until(() => h.fake.requests.length > requestsBefore);

    await chat.resumeStream();
    expect(chat.error).toBeUndefined();
    expect(ledgerPart(chat.messages.at(-1))).toMatchObject({ toolCallId: asked.toolCallId, state: 'output-available', output: 'recorded watched' });
    expect(texts(chat.messages.at(-1)).join('')).toContain('Written while you watched.');
    expect(chat.messages.at(-1)!.metadata).toMatchObject({ status: 'completed' });
  });

  it('answering one of two waiting calls records it and ends the stream; the run waits for the other', async () => {
    const { id, chat } = await askingChat();
    const before = ledgerRuns();
    h.fake.script({ text: 'Two entries. ', toolCalls: [{ name: 'ledger', input: { entry: 'one' } }, { name: 'ledger', input: { entry: 'two' } }] }, { text: 'Both written.' });
    await chat.sendMessage({ text: 'Write two' });
    const asked = chat.messages.at(-1)!.parts.filter((p) => p.type === 'tool-ledger') as unknown as ToolPart[];
    expect(asked.map((p) => p.state)).toEqual(['approval-requested', 'approval-requested']);
    const answered = { ...chat.messages.at(-1)!, parts: chat.messages.at(-1)!.parts.map((p) => (p === (asked[0] as unknown) ? { ...asked[0], state: 'approval-responded', approval: { id: asked[0]!.toolCallId, approved: true } } : p)) };
    const response = await fetch(`${h.url}/api/v2/ui/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...DEV },
      body: JSON.stringify({ id, trigger: 'submit-message', messageId: answered.id, messages: [answered] }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('data: [DONE]');
    const { json } = await getJson(`${h.url}/api/v2/sessions/${id}`);
    expect(json.awaiting_approval.pending.map((p: { tool_call_id: string }) => p.tool_call_id)).toEqual([asked[1]!.toolCallId]);
    expect(json.history.filter((r: { kind: string }) => r.kind === 'approval')).toMatchObject([{ tool_use_id: asked[0]!.toolCallId, decision: 'allow' }]);
    expect(ledgerRuns()).toBe(before);
  });

  it('an answer for a call that no longer waits is refused with 409 and runs nothing', async () => {
    const { id, chat } = await askingChat();
    const before = ledgerRuns();
    h.fake.script({ text: 'Writing. ', toolCalls: [{ name: 'ledger', input: { entry: 'twice' } }] }, { text: 'Done.' });
    await chat.sendMessage({ text: 'Write twice' });
    const asked = ledgerPart(chat.messages.at(-1))!;
    const approvedMessage = { ...chat.messages.at(-1)!, parts: chat.messages.at(-1)!.parts.map((p) => (p === (asked as unknown) ? { ...asked, state: 'approval-responded', approval: { id: asked.toolCallId, approved: true } } : p)) };
    const body = JSON.stringify({ id, trigger: 'submit-message', messageId: approvedMessage.id, messages: [approvedMessage], agent_id: 'tester' });
    const post = () => fetch(`${h.url}/api/v2/ui/chat`, { method: 'POST', headers: { 'content-type': 'application/json', ...DEV }, body });

    const first = await post();
    expect(first.status).toBe(200);
    await first.text();
    const again = await post();
    expect(again.status).toBe(409);
    expect(ledgerRuns()).toBe(before + 1);
  });
});

async function until(probe: () => boolean) {
  for (let i = 0; i < 400 && !probe(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(probe()).toBe(true);
}

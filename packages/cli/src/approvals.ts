import type { Interface } from 'node:readline/promises';
import type { ApprovalChoice } from '@zero/client';
import type { Colors } from './render/theme';

/** Asks a person about one waiting call: the tool, its input, and allow / deny / always for this session. */
export async function askApproval(rl: Interface, c: Colors, call: { name: string; input: unknown }): Promise<ApprovalChoice> {
  const input = JSON.stringify(call.input, null, 2) ?? '';
  process.stderr.write(`${c.yellow('?')} ${c.bold(call.name)} wants to run with:\n${c.dim(input.split('\n').map((l) => `  ${l}`).join('\n'))}\n`);
  while (true) {
    const answer = (await rl.question(`${c.bold('allow')} once, ${c.bold('deny')}, or ${c.bold('always')} for this session? [a/d/A] `)).trim();
    if (answer === 'a' || /^allow$/i.test(answer) || answer === 'y') return 'allow';
    if (answer === 'd' || /^deny$/i.test(answer) || answer === 'n') return 'deny';
    if (answer === 'A' || /^always$/i.test(answer)) return 'always';
  }
}

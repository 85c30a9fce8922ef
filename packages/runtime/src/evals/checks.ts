import * as z from 'zod';
import type { EvalCheck } from '@zero/agent/wire/evals';
import type { CaseOutcome } from './case-outcome';
import type { CheckResult } from '@zero/agent/wire/evals';

/** Reads a file of the case's project copy after its runs; undefined when there is none. */
export type ReadProjectFile = (path: string) => Promise<string | undefined>;

/**
 * Runs a case's deterministic checks over what its session did. Must not throw: a check that cannot be
 * evaluated (a bad pattern, no project to look in) fails with the reason.
 */
export async function runChecks(checks: readonly EvalCheck[], outcome: CaseOutcome, readFile: ReadProjectFile | undefined): Promise<CheckResult[]> {
  const names = outcome.toolCalls.map((c) => c.name);
  return Promise.all(
    checks.map(async (check): Promise<CheckResult> => {
      const result = (pass: boolean, detail: string) => ({ type: check.type, pass, detail });
      switch (check.type) {
        case 'tool_called':
          return result(names.includes(check.tool), names.includes(check.tool) ? `${check.tool} was called` : `${check.tool} was not called (calls: ${names.join(', ') || 'none'})`);
        case 'tool_not_called':
          return result(!names.includes(check.tool), names.includes(check.tool) ? `${check.tool} was called` : `${check.tool} was not called`);
        case 'tool_sequence': {
          let at = 0;
          for (const name of names) if (name === check.tools[at]) at++;
          const pass = at >= check.tools.length;
          return result(pass, pass ? `called in order: ${check.tools.join(' → ')}` : `expected ${check.tools.join(' → ')} in order; calls were ${names.join(', ') || 'none'}`);
        }
        case 'answer_matches':
        case 'answer_not_matches': {
          let re: RegExp;
          try {
            re = new RegExp(check.pattern, check.flags);
          } catch (error) {
            return result(false, `the pattern is not a regular expression: ${error instanceof Error ? error.message : String(error)}`);
          }
          const matched = re.test(outcome.answer);
          const pass = check.type === 'answer_matches' ? matched : !matched;
          return result(pass, `${matched ? 'matches' : 'does not match'} /${check.pattern}/${check.flags ?? ''}`);
        }
        case 'answer_json_schema': {
          const value = jsonIn(outcome.answer);
          if (value === undefined) return result(false, 'the answer holds no JSON');
          // A JSON Schema validator of its own (loaded with the first such check): zod's converter would sit in every cold start.
          const { Validator } = await import('@cfworker/json-schema');
          let verdict: { valid: boolean; errors: { instanceLocation: string; error: string }[] };
          try {
            verdict = new Validator(check.schema as ConstructorParameters<typeof Validator>[0], '2020-12', false).validate(value);
          } catch (error) {
            return result(false, `the JSON Schema cannot be used: ${error instanceof Error ? error.message : String(error)}`);
          }
          return result(
            verdict.valid,
            verdict.valid ? 'valid against the schema' : `not valid: ${verdict.errors.map((e) => `${e.instanceLocation.replace(/^#\/?/, '') || '(root)'} ${e.error}`).join('; ')}`,
          );
        }
        case 'file_written': {
          if (!readFile) return result(false, 'the case has no project to look in');
          const text = await readFile(check.path).catch(() => undefined);
          if (text === undefined) return result(false, `${check.path} was not written`);
          if (check.contains !== undefined && !text.includes(check.contains)) return result(false, `${check.path} does not contain ${JSON.stringify(check.contains)}`);
          return result(true, check.contains === undefined ? `${check.path} exists` : `${check.path} contains ${JSON.stringify(check.contains)}`);
        }
        case 'max_cost_usd':
          return result(outcome.usage.cost_usd <= check.value, `cost $${outcome.usage.cost_usd.toFixed(6)} (ceiling $${check.value})`);
        case 'max_steps':
          return result(outcome.steps <= check.value, `${outcome.steps} steps (ceiling ${check.value})`);
      }
    }),
  );
}

/** The answer as JSON: the whole text, or its first fenced block, or from its first `{`/`[` to the matching last one. */
function jsonIn(answer: string): unknown {
  const tries = [answer.trim(), /```(?:json)?\s*([\s\S]*?)```/.exec(answer)?.[1]?.trim() ?? ''];
  for (const [open, close] of [['{', '}'], ['[', ']']] as const) {
    const a = answer.indexOf(open);
    const b = answer.lastIndexOf(close);
    if (a >= 0 && b > a) tries.push(answer.slice(a, b + 1));
  }
  for (const text of tries) {
    if (!text) continue;
    try {
      return JSON.parse(text);
    } catch {
      // next
    }
  }
  return undefined;
}

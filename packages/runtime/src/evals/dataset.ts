import { parse as parseYaml } from 'yaml';
import { datasetContentSchema, type Dataset, type DatasetContent, type EvalCase } from '@zero/agent/wire/evals';

/** Why a dataset file could not be read: the line (JSONL) or the path of the offending field. */
export class DatasetFileError extends Error {
  constructor(readonly field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'DatasetFileError';
  }
}

/**
 * Reads a dataset file: YAML or JSON (an object with `cases`), or JSONL (one case per line, with
 * optionally `input` for a single message). Throws DatasetFileError naming the line or field.
 */
export function parseDatasetFile(text: string, format: 'yaml' | 'jsonl' | 'json'): DatasetContent {
  let raw: unknown;
  if (format === 'jsonl') {
    const cases = text.split('\n').flatMap((line, i) => {
      if (!line.trim()) return [];
      try {
        const value = JSON.parse(line) as Record<string, unknown>;
        return [normaliseCase(value, i)];
      } catch (error) {
        throw new DatasetFileError(`line ${i + 1}`, error instanceof Error ? error.message : String(error));
      }
    });
    raw = { cases };
  } else {
    try {
      raw = format === 'yaml' ? parseYaml(text, { maxAliasCount: 100 }) : JSON.parse(text);
    } catch (error) {
      throw new DatasetFileError('file', error instanceof Error ? error.message : String(error));
    }
    if (raw && typeof raw === 'object' && Array.isArray((raw as { cases?: unknown }).cases)) {
      raw = { ...(raw as object), cases: (raw as { cases: unknown[] }).cases.map((c, i) => (c && typeof c === 'object' ? normaliseCase(c as Record<string, unknown>, i) : c)) };
    }
  }
  const parsed = datasetContentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DatasetFileError(issue.path.join('.') || 'file', issue.message);
  }
  return parsed.data;
}

/** A file's case may give one `input` for `messages`, and no id (its position then names it). */
function normaliseCase(value: Record<string, unknown>, index: number): Record<string, unknown> {
  const { input, ...rest } = value;
  return { id: `case-${index + 1}`, ...rest, ...(input !== undefined && rest.messages === undefined ? { messages: [input] } : {}) };
}

/** The rubric a case is graded by: the case's or the dataset's, with its expected facts as criteria; undefined: no rubric grading. */
export function rubricOf(dataset: Pick<Dataset, 'rubric'>, c: EvalCase): string | undefined {
  const facts = c.expected_facts?.length ? `The answer states each of these facts:\n${c.expected_facts.map((f) => `- ${f}`).join('\n')}` : '';
  const base = c.rubric ?? dataset.rubric ?? '';
  const rubric = [base, facts].filter(Boolean).join('\n\n');
  return rubric || undefined;
}

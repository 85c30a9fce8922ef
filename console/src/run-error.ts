/** A failed run's error as a person reads it: a sentence saying what happened, the code, and what the upstream API said (never its raw JSON). */
export interface ShownError {
  sentence: string;
  code: string;
  /** The HTTP status of a model API failure. */
  status?: number;
  /** The upstream API's own message, taken out of its JSON. */
  detail?: string;
}

const MODEL_SENTENCES: [test: (status: number | undefined) => boolean, sentence: string][] = [
  [(s) => s === 429, 'The model API is receiving too many requests right now. Wait a moment, then retry.'],
  [(s) => s === 529 || s === 503, 'The model is overloaded right now. Retry in a moment.'],
  [(s) => s === 401 || s === 403, "The model API refused this deployment's key. Ask whoever runs Zero to check it."],
  [(s) => s === 400 || s === 413 || s === 422, 'The model API refused the request.'],
  [(s) => s !== undefined && s >= 500, 'The model API had a problem on its side. Retry in a moment.'],
  [(s) => s === undefined, 'The model API could not be reached, or its answer broke off.'],
];

const ZERO_SENTENCES: Record<string, string> = {
  internal: 'Something went wrong inside Zero.',
  lease_lost: 'Another process took over this session while the answer was written.',
  timeout: 'The answer took longer than the time a run may take.',
};

/** `the model API failed (HTTP 400): 400 {"type":"error","error":{"type":"api_error","message":"…"}}` → its parts. */
export function describeRunError(error: { code: string; message: string }): ShownError {
  const status = Number(/\(HTTP (\d{3})\)/.exec(error.message)?.[1]) || undefined;
  const detail = upstreamMessage(error.message);
  if (error.code === 'model_error') {
    const sentence = MODEL_SENTENCES.find(([test]) => test(status))?.[1] ?? 'The model API failed.';
    return { sentence, code: error.code, status, detail };
  }
  return { sentence: ZERO_SENTENCES[error.code] ?? capitalise(error.message), code: error.code, status, ...(ZERO_SENTENCES[error.code] ? { detail } : {}) };
}

/** The message inside an upstream JSON error, or the text after the last colon when there is none. */
function upstreamMessage(message: string): string | undefined {
  const json = message.indexOf('{');
  if (json >= 0) {
    try {
      const body = JSON.parse(message.slice(json)) as { error?: { type?: string; message?: string }; message?: string };
      const inner = body.error?.message ?? body.message;
      if (inner) return body.error?.type ? `${inner} (${body.error.type})` : inner;
    } catch {
      // Not JSON after all: fall through to the plain message.
    }
  }
  const plain = message.replace(/^the model API failed( \(HTTP \d+\))?:\s*/, '').trim();
  return plain && !plain.startsWith('{') ? plain : undefined;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

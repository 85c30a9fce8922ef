import * as z from 'zod';
import { OpenAICompatibleProvider, type EndpointCredentials } from './openai-compatible';
import { ModelError } from './provider';
import type { CopilotConfig } from './providers-config';

/** Copilot's token exchange: a GitHub token with Copilot access in, a short-lived Copilot token out. */
const COPILOT_TOKEN_URL = 'https://api.github.com/copilot_internal/v2/token';
/** Copilot's Chat Completions API (a business or enterprise seat may be served at its own, `ZERO_COPILOT_URL`). */
const COPILOT_API_URL = 'https://api.githubcopilot.com';
/** A Copilot token is renewed this long before it expires, so no call goes out with one about to lapse. */
const COPILOT_REFRESH_MARGIN_MS = 60_000;
const EXCHANGE_TIMEOUT_MS = 15_000;

/** The headers Copilot asks of an integration, on the exchange and on each call. */
const INTEGRATION_HEADERS = {
  'editor-version': 'vscode/1.95.0',
  'editor-plugin-version': 'copilot-chat/0.22.4',
  'copilot-integration-id': 'vscode-chat',
  'user-agent': 'GitHubCopilotChat/0.22.4',
};

/** The exchange's answer, as far as Zero reads it. */
const exchangeSchema = z.looseObject({
  token: z.string().min(1),
  /** Unix seconds. */
  expires_at: z.number().int().positive(),
  /** Seconds after which GitHub suggests getting a new token. */
  refresh_in: z.number().int().positive().optional(),
});

/**
 * The Copilot token of one deployment: exchanged for the GitHub token on the first call, kept in
 * memory (never logged, stored or sent anywhere but Copilot's API) and exchanged again when it is
 * within a minute of its expiry (or past GitHub's `refresh_in`), or when Copilot refused it. Calls
 * that need a token while an exchange is under way wait for that one exchange.
 */
export class CopilotToken implements EndpointCredentials {
  readonly headers = INTEGRATION_HEADERS;
  private current?: { authorization: string; refreshAt: number };
  private exchanging?: Promise<{ authorization: string; refreshAt: number }>;

  constructor(
    private readonly config: Pick<CopilotConfig, 'githubToken' | 'tokenUrl'>,
    private readonly now: () => number = Date.now,
  ) {}

  async authorization(): Promise<string> {
    if (this.current && this.now() < this.current.refreshAt) return this.current.authorization;
    this.exchanging ??= this.exchange().finally(() => (this.exchanging = undefined));
    this.current = await this.exchanging;
    return this.current.authorization;
  }

  refused(authorization: string): void {
    if (this.current?.authorization === authorization) this.current = undefined;
  }

  private async exchange(): Promise<{ authorization: string; refreshAt: number }> {
    const url = this.config.tokenUrl ?? COPILOT_TOKEN_URL;
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { authorization: `token ${this.config.githubToken}`, accept: 'application/json', ...INTEGRATION_HEADERS },
        signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
      });
    } catch (error) {
      throw new ModelError(`copilot's token exchange (${url}) could not be reached: ${(error as Error).message}`, false);
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      const why = response.status === 401 || response.status === 403 || response.status === 404 ? ': the GitHub token (ZERO_COPILOT_GITHUB_TOKEN) is invalid or has no Copilot access' : '';
      throw new ModelError(`copilot's token exchange answered ${response.status}${why}`, false, response.status);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = exchangeSchema.safeParse(json);
    // The answer holds a token: name the field that is wrong, never echo the body.
    if (!parsed.success) throw new ModelError(`copilot's token exchange answered without a usable token (${parsed.error.issues[0]?.path.join('.') || 'body'}: ${parsed.error.issues[0]?.message})`, false, 502);
    const { token, expires_at, refresh_in } = parsed.data;
    const now = this.now();
    const refreshAt = Math.min(expires_at * 1000 - COPILOT_REFRESH_MARGIN_MS, refresh_in ? now + refresh_in * 1000 : Infinity);
    return { authorization: `Bearer ${token}`, refreshAt };
  }
}

/** GitHub Copilot's chat completions as a model provider: OpenAI's Chat Completions, authorised by a Copilot token. */
export function createCopilotProvider(config: CopilotConfig): OpenAICompatibleProvider {
  return new OpenAICompatibleProvider('copilot', { url: config.url ?? COPILOT_API_URL, prices: config.prices, maxRetries: config.maxRetries }, new CopilotToken(config));
}

import { ServerResponse } from 'node:http';

/**
 * `npm run bench -- --cloud`: each DynamoDB and S3 response held back by a
 * latency drawn from a log-normal distribution fitted to what AWS publishes
 * for requests inside a region (figures and sources in bench/README.md):
 *
 * - DynamoDB: "single-digit millisecond" reads and writes → median 4 ms, 99th
 *   percentile 10 ms (so 99 % of requests stay single-digit).
 * - S3: for small requests "median latencies are often in the tens of
 *   milliseconds range" → median 30 ms, 99th percentile 100 ms.
 *
 * Loopback answers in well under a millisecond, so the delay stands for the
 * whole round trip. Zero's peers make no store requests: the same latency on
 * their (zero) store calls adds nothing to them.
 */
export interface LatencyFit {
  medianMs: number;
  p99Ms: number;
}

export const CLOUD_LATENCY = {
  dynamodb: { medianMs: 4, p99Ms: 10 },
  s3: { medianMs: 30, p99Ms: 100 },
} as const satisfies Record<string, LatencyFit>;

/** z of the 99th percentile of the standard normal distribution. */
const Z99 = 2.3263;

/** A latency drawn from the log-normal distribution with this median and 99th percentile (Box–Muller). */
export function drawLatencyMs(fit: LatencyFit, random = Math.random): number {
  const sigma = Math.log(fit.p99Ms / fit.medianMs) / Z99;
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return fit.medianMs * Math.exp(sigma * normal);
}

/**
 * Holds back every response this process's HTTP servers send, by a latency of
 * the fit `fitOf` picks for the port it was served on (`undefined`: not
 * delayed). For the stores process, where dynalite and s3rver listen.
 */
export function delayResponses(fitOf: (localPort: number | undefined) => LatencyFit | undefined): void {
  const end = ServerResponse.prototype.end;
  ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
    const fit = fitOf(this.socket?.localPort);
    if (!fit) return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    setTimeout(() => (end as (...a: unknown[]) => ServerResponse).apply(this, args), drawLatencyMs(fit));
    return this;
  } as typeof end;
}

import type { Bill } from '../../tests/support/prompt-cache';
import type { RequestCount } from './dynamo-requests';
import type { Runner, RunnerEnv } from '../runners/runner';
import type { Plan } from '../workload';
import type { Child } from './child';

/** What the fake model process reports. Times are epoch milliseconds. */
export interface FakeStats {
  requests: number;
  bills: Bill[];
  deltas: [string, number][];
  responses: { arrived: number; ended: number }[];
}

/** The fake model process as the scenarios drive it. */
export class FakeModel {
  constructor(private readonly child: Child<{ url: string }>) {}
  get url() {
    return this.child.ready.url;
  }
  plan(plan: Plan) {
    return this.child.call('plan', plan);
  }
  reset() {
    return this.child.call('reset');
  }
  stats() {
    return this.child.call<FakeStats>('stats');
  }
}

export interface BenchContext {
  fake: FakeModel;
  /** CPU time so far of the process serving DynamoDB and S3 (dynalite, s3rver). */
  storesCpuMs(): Promise<number>;
  /** The DynamoDB requests the emulator has served since the last reset, by operation and item type. */
  storeRequests(): Promise<RequestCount[]>;
  /** Resets the DynamoDB and the S3 counts. */
  resetStoreRequests(): Promise<void>;
  /** The S3 requests the emulator has served since the last reset, by billing class (PUT/COPY/POST/LIST; GET and the rest). */
  s3Requests(): Promise<{ put: number; get: number }>;
  env: RunnerEnv;
  /** Every runner, in its default configuration (Zero first). */
  runners: Runner[];
}

/** Wall-clock milliseconds since the epoch, comparable with the fake process's timestamps. */
export const epochNow = () => performance.timeOrigin + performance.now();

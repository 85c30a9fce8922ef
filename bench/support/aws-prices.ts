import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * AWS list prices, us-east-1, on-demand, as published on each service's pricing page in November 2026
 * (no free tier counted). The functions run on arm64 (sst.config.ts).
 */
export const AWS_PRICES = {
  /** Lambda, arm64: per GB-second and per request (aws.amazon.com/lambda/pricing). */
  lambdaGbSecond: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  /** DynamoDB on-demand: per write request unit (1 KB) and read request unit (4 KB, strongly consistent) (aws.amazon.com/dynamodb/pricing/on-demand). */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  /** S3 Standard: PUT, COPY, POST, LIST per request; GET and the rest per request (aws.amazon.com/s3/pricing). */
  s3Put: 0.005 / 1000,
  s3Get: 0.0004 / 1000,
  /** SQS standard queue, per request (64 KB chunk) (aws.amazon.com/sqs/pricing). */
  sqsRequest: 0.4 / 1e6,
} as const;

/** Claude Managed Agents' price of one running session-hour, for comparison. */
export const MANAGED_AGENTS_SESSION_HOUR_USD = 0.08;

/** The memory (MB) sst.config.ts gives the API and worker functions (their shared settings). */
export function configuredFunctionMemoryMb(root = join(import.meta.dirname, '..', '..')): number {
  const config = readFileSync(join(root, 'sst.config.ts'), 'utf8');
  const shared = config.slice(config.indexOf('const shared = {'));
  const match = /memory: '(\d+) MB'/.exec(shared);
  if (!match) throw new Error('sst.config.ts: no memory in the functions\' shared settings');
  return Number(match[1]);
}

/** What a piece of work used on AWS, as billed. */
export interface InfraUse {
  lambdaSeconds: number;
  lambdaInvocations: number;
  memoryMb: number;
  dynamoWriteUnits: number;
  dynamoReadUnits: number;
  s3Puts: number;
  s3Gets: number;
  queueRequests: number;
}

/** Its price in USD, by service. */
export function infraCost(use: InfraUse) {
  const p = AWS_PRICES;
  const lambda = use.lambdaSeconds * (use.memoryMb / 1024) * p.lambdaGbSecond + use.lambdaInvocations * p.lambdaRequest;
  const dynamodb = use.dynamoWriteUnits * p.dynamoWriteUnit + use.dynamoReadUnits * p.dynamoReadUnit;
  const s3 = use.s3Puts * p.s3Put + use.s3Gets * p.s3Get;
  const queue = use.queueRequests * p.sqsRequest;
  return { lambda, dynamodb, s3, queue, total: lambda + dynamodb + s3 + queue };
}

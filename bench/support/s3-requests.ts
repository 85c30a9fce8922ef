import type { S3Client } from '@aws-sdk/client-s3';

/** Counts the requests an S3 client sends, by command (`PutObject`, `ListObjectsV2`…); read the map when the work is done. */
export function countS3Requests(s3: S3Client): Map<string, number> {
  const counts = new Map<string, number>();
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      counts.set(context.commandName ?? '?', (counts.get(context.commandName ?? '?') ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  return counts;
}

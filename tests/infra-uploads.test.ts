import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateSstProgram, type EvaluatedProgram } from './support/sst-program';

/** Archives uploaded straight to S3 (`POST …/uploads`) and never completed do not stay in the bucket. */
describe('the SST program: staged uploads expire', () => {
  let program: EvaluatedProgram;
  beforeAll(async () => {
    program = await evaluateSstProgram('test');
  }, 180_000);

  it('expires objects under uploads/ (and only those) a day after they were written', () => {
    const bucket = program.resources.find((r) => r.type === 'aws:s3/bucket:Bucket')!.inputs.bucket;
    const lifecycles = program.resources.filter((r) => r.type === 'aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration');
    expect(lifecycles).toHaveLength(1);
    expect(lifecycles[0]!.inputs).toMatchObject({ bucket });
    expect(lifecycles[0]!.inputs.rules).toEqual([
      {
        id: 'expire-staged-uploads',
        status: 'Enabled',
        filter: { prefix: 'uploads/' },
        expiration: { days: 1 },
        abortIncompleteMultipartUpload: { daysAfterInitiation: 1 },
      },
    ]);
  });
});

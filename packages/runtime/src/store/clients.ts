import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';

/** Where the stores live. In AWS only the names are set; locally the endpoints point at dynalite and s3rver. */
export interface StoreConfig {
  table: string;
  bucket: string;
  region?: string;
  dynamoEndpoint?: string;
  s3Endpoint?: string;
  /** Static credentials for the local servers; AWS uses the function's role. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export function createDynamoClient(config: StoreConfig): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: config.region ?? process.env.AWS_REGION ?? 'us-east-1',
    endpoint: config.dynamoEndpoint,
    credentials: config.credentials,
    // One process may drive many sessions at once (the local server, a busy instance): the SDK's default of 50 sockets queues them.
    requestHandler: { httpAgent: { keepAlive: true, maxSockets: 256 }, httpsAgent: { keepAlive: true, maxSockets: 256 } },
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

export function createS3Client(config: StoreConfig): S3Client {
  return new S3Client({
    region: config.region ?? process.env.AWS_REGION ?? 'us-east-1',
    endpoint: config.s3Endpoint,
    credentials: config.credentials,
    forcePathStyle: !!config.s3Endpoint,
    // s3rver predates flexible checksums; AWS accepts either.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

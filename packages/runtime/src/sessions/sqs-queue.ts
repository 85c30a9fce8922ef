import type { RunJob, RunQueue } from './queue';

/** Run jobs on SQS, consumed by the worker function. The client loads on first use, off the API's cold start. */
export class SqsRunQueue implements RunQueue {
  private client?: Promise<{ send(command: unknown): Promise<unknown>; SendMessageCommand: new (input: object) => unknown }>;

  constructor(
    private readonly queueUrl: string,
    private readonly options: { region?: string; endpoint?: string } = {},
  ) {}

  send(job: RunJob): Promise<void> {
    return this.post({ MessageBody: JSON.stringify(job) });
  }

  sendMessage(message: Record<string, string>): Promise<void> {
    return this.post({ MessageBody: JSON.stringify(message) });
  }

  sendLater(message: Record<string, string>, delaySeconds: number): Promise<void> {
    return this.post({ MessageBody: JSON.stringify(message), DelaySeconds: Math.min(900, Math.max(0, Math.round(delaySeconds))) });
  }

  private async post(input: { MessageBody: string; DelaySeconds?: number }): Promise<void> {
    this.client ??= import('@aws-sdk/client-sqs').then(({ SQSClient, SendMessageCommand }) => {
      const sqs = new SQSClient({ region: this.options.region ?? process.env.AWS_REGION, endpoint: this.options.endpoint });
      return { send: (command: unknown) => sqs.send(command as never), SendMessageCommand: SendMessageCommand as never };
    });
    const { send, SendMessageCommand } = await this.client;
    await send(new SendMessageCommand({ QueueUrl: this.queueUrl, ...input }));
  }
}

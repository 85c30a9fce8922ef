import type { Socket } from 'node:net';
import type pg from 'pg';

/**
 * Counts the bytes a PostgreSQL connection receives and ends the connection once they pass `limit`,
 * before the driver holds a message that large: the driver buffers a whole message (a row, an error,
 * a notice) before it parses it, and a value past ~512 MB can never become a string (the process
 * would die of ERR_STRING_TOO_LONG). Counts the socket it reads, and the TLS socket that replaces it.
 */
export class ReceivedBytesGuard {
  /** Bytes received since the guard was attached. */
  received = 0;
  /** True once the limit was passed and the connection ended. */
  tripped = false;

  constructor(client: pg.Client, readonly limit: number) {
    const connection = client.connection as unknown as { stream: Socket } & NodeJS.EventEmitter;
    const watch = (stream: Socket) =>
      stream.on('data', (chunk: Buffer) => {
        this.received += chunk.length;
        if (this.received > this.limit && !this.tripped) {
          this.tripped = true;
          stream.destroy();
        }
      });
    watch(connection.stream);
    connection.on('sslconnect', () => watch(connection.stream));
  }

  /** Bytes still allowed before the connection is ended. */
  get remaining(): number {
    return Math.max(0, this.limit - this.received);
  }
}

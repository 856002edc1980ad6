import { createHash, timingSafeEqual } from 'node:crypto';
import { Server, Socket, createServer } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { EMPTY_PARSE, ParseCompleteCounter, SharedMessage, shareStatement } from './shared-statements';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
/** Messages after which the client waits for the server: the end of one unit of work. */
const BATCH_END = new Set(['S', 'Q', 'X', 'H'].map((c) => c.charCodeAt(0)));
const TERMINATE = 'X'.charCodeAt(0);
const PASSWORD_MESSAGE = 'p'.charCodeAt(0);
/** AuthenticationCleartextPassword of the PostgreSQL wire protocol: 'R', length 8, code 3. */
const ASK_CLEARTEXT_PASSWORD = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]);
/** SQLSTATE 28P01 invalid_password. */
const INVALID_PASSWORD = '28P01';

interface Connection {
  socket: Socket;
  buffer: Buffer;
  pending: SharedMessage[];
  started: boolean;
  /** Its named statements: the client's name to the session-wide one (shared-statements.ts). */
  names: Map<string, string>;
  /** The startup message, held until the password is checked. */
  startup?: Buffer;
  /** Refused (wrong password): nothing more it sends reaches the database. */
  refused?: boolean;
}

interface Batch {
  connection: Connection;
  messages: SharedMessage[];
}

/**
 * A Postgres wire-protocol front for PGlite, so the `pg` driver (and TypeORM) can use it with
 * several connections. PGlite is a single backend session, so work from different connections
 * must never interleave inside one unit of work: messages are queued per connection up to the
 * Sync (or simple Query) that ends them and run as one batch, and while a connection has a
 * transaction open only its batches run. (pglite-socket queues message by message, which lets one
 * connection's Parse replace another's unnamed statement before its Bind: seen under load.)
 *
 * PGlite trusts every session as a superuser, so with a `password` the server asks each client for
 * it (cleartext password authentication, which `pg` supports; the bytes never leave the loopback)
 * and passes the startup message on only when it matches: other local processes cannot connect.
 *
 * Named prepared statements are shared by every connection (shared-statements.ts): a statement is
 * parsed and planned once for the session, and a later Parse of it by any connection is answered
 * without preparing it again. Nothing here deallocates them; their number is that of the distinct
 * statements clients name, which `prepared()` in this library bounds.
 */
export class PgliteWireServer {
  private readonly server: Server;
  private readonly queue: Batch[] = [];
  private readonly connections = new Set<Connection>();
  /** Session-wide names of the statements the session holds. */
  private readonly prepared = new Set<string>();
  private owner?: Connection;
  private draining = false;

  constructor(
    private readonly db: PGlite,
    private readonly password?: string,
  ) {
    this.server = createServer((socket) => this.accept(socket));
  }

  async listen(host: string, port: number): Promise<number> {
    await new Promise<void>((resolve, reject) =>
      this.server.once('error', reject).listen(port, host, resolve),
    );
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('no TCP address');
    return address.port;
  }

  async close(): Promise<void> {
    for (const connection of this.connections) connection.socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    while (this.draining) await new Promise((r) => setTimeout(r, 10));
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    const connection: Connection = {
      socket,
      buffer: Buffer.alloc(0),
      pending: [],
      started: false,
      names: new Map(),
    };
    this.connections.add(connection);
    socket.on('data', (chunk) => this.receive(connection, chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => void this.disconnect(connection));
  }

  private receive(connection: Connection, chunk: Buffer): void {
    if (connection.refused) return;
    connection.buffer = connection.buffer.length ? Buffer.concat([connection.buffer, chunk]) : chunk;
    for (;;) {
      const buffer = connection.buffer;
      if (!connection.started) {
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        const code = buffer.readInt32BE(4);
        if (length === 8 && code === SSL_REQUEST) {
          connection.socket.write('N'); // no TLS on the loopback
          connection.buffer = buffer.subarray(8);
          continue;
        }
        if (buffer.length < length) return;
        connection.buffer = buffer.subarray(length);
        if (code === CANCEL_REQUEST) continue;
        connection.started = true;
        if (this.password === undefined) {
          this.enqueue(connection, [{ message: buffer.subarray(0, length) }]);
        } else {
          connection.startup = Buffer.from(buffer.subarray(0, length));
          connection.socket.write(ASK_CLEARTEXT_PASSWORD);
        }
        continue;
      }
      if (buffer.length < 5) return;
      const length = buffer.readInt32BE(1) + 1;
      if (buffer.length < length) return;
      const message = buffer.subarray(0, length);
      connection.buffer = buffer.subarray(length);
      if (message[0] === TERMINATE) {
        connection.socket.end();
        return;
      }
      if (connection.startup) {
        if (!this.authenticate(connection, message)) return;
        continue;
      }
      connection.pending.push(shareStatement(message, connection.names));
      if (BATCH_END.has(message[0])) {
        this.enqueue(connection, connection.pending);
        connection.pending = [];
      }
    }
  }

  /** The password message answers the startup's challenge: right, the session starts; else refused. */
  private authenticate(connection: Connection, message: Buffer): boolean {
    const startup = connection.startup!;
    connection.startup = undefined;
    const end = message.indexOf(0, 5);
    const given = message[0] === PASSWORD_MESSAGE && end > 0 ? message.subarray(5, end) : Buffer.alloc(0);
    if (!sameSecret(given, Buffer.from(this.password ?? '', 'utf8'))) {
      connection.refused = true;
      connection.buffer = Buffer.alloc(0);
      connection.socket.end(errorResponse(INVALID_PASSWORD, 'password authentication failed'));
      return false;
    }
    this.enqueue(connection, [{ message: startup }]);
    return true;
  }

  private enqueue(connection: Connection, messages: SharedMessage[]): void {
    this.queue.push({ connection, messages });
    void this.drain();
  }

  /**
   * The batch's bytes, with a Parse of a statement the session already holds made empty, and the
   * session-wide name each Parse prepares (undefined for the others), in order.
   */
  private bytesOf(batch: Batch): { bytes: Uint8Array; parses: (string | undefined)[] } {
    const parses: (string | undefined)[] = [];
    const parts = batch.messages.map(({ message, prepares }) => {
      if (message[0] !== EMPTY_PARSE[0]) return message;
      const fresh = prepares !== undefined && !this.prepared.has(prepares) && !parses.includes(prepares);
      parses.push(fresh ? prepares : undefined);
      return prepares !== undefined && !fresh ? EMPTY_PARSE : message;
    });
    return { bytes: new Uint8Array(Buffer.concat(parts)), parses };
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      for (;;) {
        const index = this.owner ? this.queue.findIndex((b) => b.connection === this.owner) : 0;
        if (index < 0 || this.queue.length === 0) return;
        const [batch] = this.queue.splice(index, 1);
        const { socket } = batch.connection;
        const { bytes, parses } = this.bytesOf(batch);
        // Only a batch that prepares a statement has its answer read: which Parse succeeded.
        const completed = parses.some((name) => name !== undefined) ? new ParseCompleteCounter() : undefined;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(bytes, {
              onRawData: (data) => {
                completed?.take(data);
                if (!socket.destroyed) socket.write(Buffer.from(data));
              },
            }),
          );
          for (const name of parses.slice(0, completed?.count ?? 0)) if (name) this.prepared.add(name);
        } catch {
          // The backend could not process this connection's bytes: drop that client, serve the others.
          socket.destroy();
        }
        this.owner = this.db.isInTransaction() ? batch.connection : undefined;
        if (this.owner && !this.connections.has(this.owner)) {
          // Its client left while this batch ran: end the transaction it opened.
          await this.db.exec('ROLLBACK').catch(() => undefined);
          this.owner = undefined;
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private async disconnect(connection: Connection): Promise<void> {
    this.connections.delete(connection);
    for (let i = this.queue.length - 1; i >= 0; i--)
      if (this.queue[i].connection === connection) this.queue.splice(i, 1);
    if (this.owner === connection) {
      // A client that vanished inside a transaction must not keep the database locked.
      await this.db.exec('ROLLBACK').catch(() => undefined);
      this.owner = undefined;
      void this.drain();
    }
  }
}

/** Constant-time comparison of two secrets of any length (by their SHA-256). */
function sameSecret(a: Buffer, b: Buffer): boolean {
  const digest = (x: Buffer) => createHash('sha256').update(x).digest();
  return timingSafeEqual(digest(a), digest(b)) && a.length === b.length;
}

/** ErrorResponse ('E') of the wire protocol: severity FATAL, the SQLSTATE and a message. */
function errorResponse(sqlState: string, text: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${sqlState}\0M${text}\0\0`, 'utf8');
  const header = Buffer.alloc(5);
  header[0] = 'E'.charCodeAt(0);
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

import { createHash } from 'node:crypto';

/**
 * Named prepared statements for many clients of one PGlite session (the wire server's).
 *
 * Every `pg` connection to the wire server shares PGlite's single backend session, so two
 * connections preparing the same statement name would collide ("prepared statement already
 * exists") and one connection's name would be visible to the others. Each client name is therefore
 * mapped to a session-wide name derived from the statement's text and parameter types: the same
 * statement prepared by several connections is parsed and planned once, and names from different
 * connections never meet. Protocol messages: PostgreSQL's "Message Formats" (Parse 'P', Bind 'B',
 * Describe 'D', Close 'C', ParseComplete '1').
 */

const PARSE = 0x50; // 'P'
const BIND = 0x42; // 'B'
const DESCRIBE = 0x44; // 'D'
const CLOSE = 0x43; // 'C'
const STATEMENT = 0x53; // 'S' in Describe and Close
const PARSE_COMPLETE = 0x31; // '1'

/**
 * Parse of the unnamed statement with an empty query: answers ParseComplete and prepares nothing
 * that a later message could use. Stands in for a Parse of a statement the session already holds.
 */
export const EMPTY_PARSE = Buffer.from([PARSE, 0, 0, 0, 8, 0, 0, 0, 0]);

/** A client's frontend message as the session must see it, and the statement it prepares, if any. */
export interface SharedMessage {
  message: Buffer;
  /** Set for a Parse of a named statement: its session-wide name. */
  prepares?: string;
}

/**
 * Rewrites one frontend message of a connection: a named Parse gets its session-wide name (and the
 * connection remembers it under the client's name), Bind and Describe of a statement name it,
 * Close of a named statement becomes a Close of the unnamed one (the session keeps the shared
 * statement for the connections that still use it). Everything else passes unchanged.
 */
export function shareStatement(message: Buffer, names: Map<string, string>): SharedMessage {
  switch (message[0]) {
    case PARSE: {
      const nameEnd = message.indexOf(0, 5);
      const clientName = message.toString('utf8', 5, nameEnd);
      if (clientName === '') return { message };
      const rest = message.subarray(nameEnd + 1); // query text, NUL, parameter types
      const shared = `s_${createHash('sha256').update(rest).digest('hex').slice(0, 40)}`;
      names.set(clientName, shared);
      return { message: withName(message[0], [], shared, rest), prepares: shared };
    }
    case BIND: {
      const portalEnd = message.indexOf(0, 5);
      const nameEnd = message.indexOf(0, portalEnd + 1);
      const shared = names.get(message.toString('utf8', portalEnd + 1, nameEnd));
      if (shared === undefined) return { message };
      const portal = message.subarray(5, portalEnd + 1);
      return { message: withName(message[0], [portal], shared, message.subarray(nameEnd + 1)) };
    }
    case DESCRIBE:
    case CLOSE: {
      if (message[5] !== STATEMENT) return { message };
      const nameEnd = message.indexOf(0, 6);
      const clientName = message.toString('utf8', 6, nameEnd);
      if (clientName === '') return { message };
      const shared = message[0] === CLOSE ? '' : names.get(clientName);
      if (message[0] === CLOSE) names.delete(clientName);
      if (shared === undefined) return { message };
      return { message: withName(message[0], [Buffer.from([STATEMENT])], shared, Buffer.alloc(0)) };
    }
    default:
      return { message };
  }
}

function withName(type: number, before: Buffer[], name: string, after: Buffer): Buffer {
  const body = Buffer.concat([...before, Buffer.from(`${name}\0`, 'utf8'), after]);
  const header = Buffer.alloc(5);
  header[0] = type;
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/**
 * Counts ParseComplete messages in a backend's output as it streams (a message may span chunks).
 * The backend answers a unit of work's Parse messages in order and skips the rest of it after an
 * error, so the count says how many of its first Parse messages succeeded.
 */
export class ParseCompleteCounter {
  count = 0;
  private header = Buffer.alloc(5);
  private headerBytes = 0;
  private skip = 0;

  take(data: Uint8Array): void {
    let i = 0;
    while (i < data.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, data.length - i);
        i += n;
        this.skip -= n;
        continue;
      }
      this.header[this.headerBytes++] = data[i++];
      if (this.headerBytes < 5) continue;
      this.headerBytes = 0;
      if (this.header[0] === PARSE_COMPLETE) this.count++;
      this.skip = this.header.readInt32BE(1) - 4;
    }
  }
}

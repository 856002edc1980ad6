import { Socket, createSocket } from 'node:dgram';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

const TYPE_TXT = 16;
const TYPE_CNAME = 5;
const TYPE_ANY = 255;
const CLASS_IN = 1;
const NOERROR = 0;
const FORMERR = 1;
const NXDOMAIN = 3;

/**
 * A DNS server for tests only (UDP on loopback, RFC 1035 4): it answers TXT queries from what a test
 * put into `txt` and `cnames`, and from the file lego's exec provider appends to (`present NAME
 * VALUE` / `cleanup NAME VALUE` lines, see `writeExecScript`). A CNAME is followed as a recursive
 * resolver does: the answer holds the CNAME, then the target's TXT records. Unknown names: NXDOMAIN.
 */
export class TestDnsServer {
  readonly txt = new Map<string, string[]>();
  readonly cnames = new Map<string, string>();
  /** Names asked about, in order (lower-case, no trailing dot). */
  readonly queries: string[] = [];

  private constructor(
    private readonly socket: Socket,
    private readonly recordsFile: string,
  ) {}

  static async start(recordsFile: string): Promise<TestDnsServer> {
    const socket = createSocket('udp4');
    const server = new TestDnsServer(socket, recordsFile);
    socket.on('message', (message, remote) => {
      const answer = server.answer(message);
      if (answer) socket.send(answer, remote.port, remote.address);
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return server;
  }

  /** `127.0.0.1:port`, as ACME_DNS_RESOLVER and lego's `--dns.resolvers` take it. */
  get address(): string {
    return `127.0.0.1:${this.socket.address().port}`;
  }

  /** A shell script for lego's `EXEC_PATH`: it records each present/cleanup in the records file. */
  writeExecScript(path: string): void {
    writeFileSync(path, `#!/bin/sh\nprintf '%s %s %s\\n' "$1" "$2" "$3" >> '${this.recordsFile}'\n`);
    chmodSync(path, 0o755);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private txtOf(name: string): string[] {
    const values = [...(this.txt.get(name) ?? [])];
    if (!existsSync(this.recordsFile)) return values;
    for (const line of readFileSync(this.recordsFile, 'utf8').split('\n')) {
      const [action, fqdn, value] = line.trim().split(/\s+/);
      if (normalize(fqdn ?? '') !== name || !value) continue;
      if (action === 'present') values.push(value);
      if (action === 'cleanup' && values.includes(value)) values.splice(values.indexOf(value), 1);
    }
    return values;
  }

  private answer(query: Buffer): Buffer | undefined {
    if (query.length < 12) return undefined;
    const question = readQuestion(query);
    if (!question) return header(query, FORMERR, 0, Buffer.alloc(0));
    const { name, type, end } = question;
    this.queries.push(name);
    const questionBytes = query.subarray(12, end);
    const records: Buffer[] = [];
    let owner = name;
    const target = this.cnames.get(name);
    if (target) {
      records.push(record(name, TYPE_CNAME, encodeName(target)));
      owner = target;
    }
    const values = this.txtOf(owner);
    if (type === TYPE_TXT || type === TYPE_ANY) {
      for (const value of values) records.push(record(owner, TYPE_TXT, characterStrings(value)));
    }
    const known = target !== undefined || values.length > 0;
    return header(
      query,
      known ? NOERROR : NXDOMAIN,
      records.length,
      Buffer.concat([questionBytes, ...records]),
    );
  }
}

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

function readQuestion(query: Buffer): { name: string; type: number; end: number } | undefined {
  if (query.readUInt16BE(4) !== 1) return undefined;
  const labels: string[] = [];
  let offset = 12;
  while (offset < query.length) {
    const length = query[offset];
    if (length === 0) {
      if (offset + 5 > query.length) return undefined;
      return { name: normalize(labels.join('.')), type: query.readUInt16BE(offset + 1), end: offset + 5 };
    }
    if (length > 63) return undefined;
    labels.push(query.toString('latin1', offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  return undefined;
}

/** The reply header: the query's id, QR and AA and RA set, RD echoed, one question, no authority. */
function header(query: Buffer, rcode: number, answers: number, rest: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(query.readUInt16BE(0), 0);
  head.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | rcode, 2);
  head.writeUInt16BE(rcode === FORMERR ? 0 : 1, 4);
  head.writeUInt16BE(answers, 6);
  return Buffer.concat([head, rest]);
}

function encodeName(name: string): Buffer {
  const parts = normalize(name)
    .split('.')
    .filter((l) => l !== '')
    .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'latin1')]));
  return Buffer.concat([...parts, Buffer.from([0])]);
}

function record(owner: string, type: number, data: Buffer): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(CLASS_IN, 2);
  fixed.writeUInt32BE(0, 4);
  fixed.writeUInt16BE(data.length, 8);
  return Buffer.concat([encodeName(owner), fixed, data]);
}

/** RFC 1035 3.3.14: a TXT value as character-strings of at most 255 bytes each. */
function characterStrings(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

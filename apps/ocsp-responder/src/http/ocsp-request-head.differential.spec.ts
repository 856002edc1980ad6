import { parseSimpleOcspRequest } from './ocsp-request-head';

/**
 * Differential test of the fast front's request recogniser against Node's own HTTP parser
 * (llhttp, the one `node:http` runs, in its strict default mode): whatever the front answers
 * itself must be exactly one complete request to llhttp too, with the same method, target, body
 * and keep-alive decision, and no byte left over. A disagreement is a request-smuggling surface
 * (RFC 9112 11.2): the front and Node would frame the connection differently. See
 * docs/adr/0008-ocsp-fast-front.md.
 */

interface LlhttpMessage {
  method: string;
  url: string;
  body: Buffer;
  keepAlive: boolean;
  upgrade: boolean;
}

interface LlhttpResult {
  error: boolean;
  messages: LlhttpMessage[];
}

interface NodeHttpParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(bytes: Buffer): number | Error;
  finish(): number | Error | undefined;
  close(): void;
  [key: number]: unknown;
}

interface NodeHttpParserClass {
  new (): NodeHttpParser;
  REQUEST: number;
  kOnHeadersComplete: number;
  kOnBody: number;
  kOnMessageComplete: number;
  kLenientNone: number;
}

// Node's own parser binding, as node:http's server uses it (lib/_http_server.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { HTTPParser, methods } = require('_http_common') as {
  HTTPParser: NodeHttpParserClass;
  methods: string[];
};

/** How llhttp frames `bytes` as a server reading one connection's first read would. */
function llhttp(bytes: Buffer): LlhttpResult {
  const parser = new HTTPParser();
  const messages: LlhttpMessage[] = [];
  let current: LlhttpMessage | undefined;
  parser.initialize(HTTPParser.REQUEST, {}, 0, HTTPParser.kLenientNone);
  parser[HTTPParser.kOnHeadersComplete] = (
    _major: number,
    _minor: number,
    _headers: string[],
    method: number,
    url: string,
    _status: number,
    _message: string,
    upgrade: boolean,
    keepAlive: boolean,
  ) => {
    current = { method: methods[method], url, body: Buffer.alloc(0), keepAlive, upgrade };
    return 0;
  };
  parser[HTTPParser.kOnBody] = (chunk: Buffer) => {
    if (current) current.body = Buffer.concat([current.body, chunk]);
  };
  parser[HTTPParser.kOnMessageComplete] = () => {
    if (current) messages.push(current);
    current = undefined;
  };
  const parsed = parser.execute(bytes);
  parser.close();
  return { error: parsed instanceof Error || parsed !== bytes.length, messages };
}

const tenant = '/v1/tenants/3f0c8b6e-5d0a-4f2b-9a57-1c2d3e4f5a6b/ocsp';
const der = Buffer.from('3051304f304d304b3049300906052b0e03021a05000414', 'hex');
const lines = (...parts: string[]) => Buffer.from(parts.join('\r\n'), 'latin1');
const post = (headers: string[], body: Buffer = der) =>
  Buffer.concat([lines(`POST ${tenant} HTTP/1.1`, ...headers, '', ''), body]);
const get = (path: string, headers: string[] = ['Host: ocsp.example']) =>
  lines(`GET ${tenant}/${path} HTTP/1.1`, ...headers, '', '');

const valid: Buffer[] = [
  post(['Host: ocsp.example', 'Content-Type: application/ocsp-request', `Content-Length: ${der.length}`]),
  post(['Host: ocsp.example', `Content-Length: ${der.length}`, 'Connection: close']),
  Buffer.concat([lines(`POST ${tenant} HTTP/1.0`, `Content-Length: ${der.length}`, '', ''), der]),
  Buffer.concat([
    lines(`POST ${tenant} HTTP/1.0`, 'Connection: keep-alive', `Content-Length: ${der.length}`, '', ''),
    der,
  ]),
  get('MEQwQjBAMD4wPDAJBgUrDgMCGgUABBT4cyABkyiCIhU4JpmIBewdDnn8ZgQU'),
  get('MEQwQjBAMD4wPDAJBgUrDgMCGgUABBT4cyABkyiCIhU4JpmIBewdDnn8ZgQU%3D', [
    'Host: ocsp.example',
    'User-Agent: OpenSSL',
    'Accept: */*',
  ]),
];

/** Smuggling and framing vectors (RFC 9112 6.3, 11.2; the classic CL.TE / TE.CL / CL.CL shapes). */
const hostile: Record<string, Buffer> = {
  'duplicate Content-Length': post([
    'Host: x',
    `Content-Length: ${der.length}`,
    `Content-Length: ${der.length}`,
  ]),
  'differing Content-Length': post(['Host: x', `Content-Length: ${der.length}`, 'Content-Length: 0']),
  'Content-Length list': post(['Host: x', `Content-Length: ${der.length}, ${der.length}`]),
  'signed Content-Length': post(['Host: x', `Content-Length: +${der.length}`]),
  'Transfer-Encoding with Content-Length': post([
    'Host: x',
    'Transfer-Encoding: chunked',
    `Content-Length: ${der.length}`,
  ]),
  'Transfer-Encoding chunked': Buffer.concat([
    lines(`POST ${tenant} HTTP/1.1`, 'Host: x', 'Transfer-Encoding: chunked', '', ''),
    Buffer.from(`${der.length.toString(16)}\r\n`),
    der,
    Buffer.from('\r\n0\r\n\r\n'),
  ]),
  'obfuscated Transfer-Encoding': post([
    'Host: x',
    'Transfer-Encoding : chunked',
    `Content-Length: ${der.length}`,
  ]),
  'obs-fold': post(['Host: x', `Content-Length: ${der.length}`, 'User-Agent: a', ' folded']),
  'bare LF line ends': Buffer.concat([
    Buffer.from(`POST ${tenant} HTTP/1.1\nHost: x\nContent-Length: ${der.length}\n\n`),
    der,
  ]),
  'bare CR in a header': post(['Host: x\rX-Evil: 1', `Content-Length: ${der.length}`]),
  'space before colon': post(['Host: x', `Content-Length : ${der.length}`]),
  'NUL in a header': post(['Host: x\0', `Content-Length: ${der.length}`]),
  'pipelined second request': Buffer.concat([
    post(['Host: x', `Content-Length: ${der.length}`]),
    get('MEQwQjBAMD4wPDAJBgUrDgMCGgUABBT4cyABkyiCIhU4JpmIBewdDnn8ZgQU'),
  ]),
  'body longer than Content-Length': Buffer.concat([post(['Host: x', `Content-Length: ${der.length}`]), der]),
  'body shorter than Content-Length': post(['Host: x', `Content-Length: ${der.length + 10}`]),
  'oversized head': post(['Host: x', `User-Agent: ${'a'.repeat(5000)}`, `Content-Length: ${der.length}`]),
  'partial head': lines(`POST ${tenant} HTTP/1.1`, 'Host: x', `Content-Length: ${der.length}`),
  'HTTP/1.1 without Host': post([`Content-Length: ${der.length}`]),
  'duplicate Host': post(['Host: x', 'Host: y', `Content-Length: ${der.length}`]),
  'absolute-form target': Buffer.concat([
    lines(`POST http://x${tenant} HTTP/1.1`, 'Host: x', `Content-Length: ${der.length}`, '', ''),
    der,
  ]),
  'Expect: 100-continue': post(['Host: x', 'Expect: 100-continue', `Content-Length: ${der.length}`]),
  Upgrade: post(['Host: x', 'Connection: Upgrade', 'Upgrade: h2c', `Content-Length: ${der.length}`]),
  'unknown Connection option': post([
    'Host: x',
    'Connection: close, keep-alive',
    `Content-Length: ${der.length}`,
  ]),
  'GET with a body': Buffer.concat([
    get('MEQwQjBAMD4wPDAJBgUrDgMCGgUABBT4cyABkyiCIhU4JpmIBewdDnn8ZgQU', ['Host: x', 'Content-Length: 3']),
    Buffer.from('abc'),
  ]),
  'HTTP/2 preface': Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
  'HTTP/0.9 line': Buffer.from(`GET ${tenant}/abc\r\n\r\n`),
  'lower-case method': Buffer.concat([
    lines(`post ${tenant} HTTP/1.1`, 'Host: x', `Content-Length: ${der.length}`, '', ''),
    der,
  ]),
  'two spaces in the request line': Buffer.concat([
    lines(`POST  ${tenant} HTTP/1.1`, 'Host: x', `Content-Length: ${der.length}`, '', ''),
    der,
  ]),
  '8-bit byte in a header': Buffer.concat([
    Buffer.from(`POST ${tenant} HTTP/1.1\r\nHost: x\xff\r\nContent-Length: ${der.length}\r\n\r\n`, 'latin1'),
    der,
  ]),
};

/** Deterministic PRNG (mulberry32) so a failure names a reproducible case. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Bytes that change HTTP framing when inserted, deleted or swapped in. */
const INTERESTING = Buffer.from(' \t\r\n:;,0123456789-+\0\x0b\x0c\x7f\x80\xffaA/%=?#', 'latin1');

function mutate(input: Buffer, random: () => number): Buffer {
  const bytes = [...input];
  const edits = 1 + Math.floor(random() * 3);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * (bytes.length + 1));
    const byte = INTERESTING[Math.floor(random() * INTERESTING.length)];
    const kind = random();
    if (kind < 0.35) bytes.splice(at, 0, byte);
    else if (kind < 0.7) bytes.splice(at, 1);
    else if (kind < 0.9) bytes[Math.min(at, bytes.length - 1)] = byte;
    else bytes.splice(at, 0, ...bytes.slice(at, at + 1 + Math.floor(random() * 20))); // repeat a run
  }
  return Buffer.from(bytes);
}

/** What the front decided, in llhttp's terms, for comparison. */
function agreesWithLlhttp(bytes: Buffer): string | undefined {
  const front = parseSimpleOcspRequest(bytes);
  if (!front) return undefined; // refused: Node's own server parses and answers it
  const node = llhttp(bytes);
  const target = front.method === 'POST' ? undefined : `/v1/tenants/${front.tenantId}/ocsp/${front.encoded}`;
  const problems: string[] = [];
  if (node.error) problems.push('llhttp rejects it');
  if (node.messages.length !== 1) problems.push(`llhttp sees ${node.messages.length} requests`);
  const [message] = node.messages;
  if (message) {
    if (message.method !== front.method) problems.push(`method ${message.method}`);
    if (!message.url.startsWith(`/v1/tenants/${front.tenantId}/ocsp`)) problems.push(`url ${message.url}`);
    if (target !== undefined && message.url !== target) problems.push(`url ${message.url}`);
    if (front.method === 'POST' && !message.body.equals(front.body ?? Buffer.alloc(0)))
      problems.push('body differs');
    if (front.method === 'GET' && message.body.length !== 0) problems.push('GET body');
    if (message.keepAlive !== front.keepAlive) problems.push(`keep-alive ${message.keepAlive}`);
    if (message.upgrade) problems.push('upgrade');
  }
  return problems.length ? `${problems.join('; ')}: ${JSON.stringify(bytes.toString('latin1'))}` : undefined;
}

describe('the fast front frames requests exactly as Node does (differential against llhttp)', () => {
  it('the oracle is llhttp: it frames the valid corpus as one request each', () => {
    for (const bytes of valid) {
      const node = llhttp(bytes);
      expect(node.error).toBe(false);
      expect(node.messages).toHaveLength(1);
      expect(parseSimpleOcspRequest(bytes)).toBeDefined();
      expect(agreesWithLlhttp(bytes)).toBeUndefined();
    }
  });

  it.each(Object.entries(hostile))('leaves %s to Node', (_name, bytes) => {
    expect(parseSimpleOcspRequest(bytes)).toBeUndefined();
  });

  it('agrees with llhttp on 30,000 mutations of valid requests', () => {
    const random = prng(0x5eed);
    const disagreements: string[] = [];
    let accepted = 0;
    for (let i = 0; i < Number(process.env.FUZZ_CASES ?? 30_000); i++) {
      const bytes = mutate(valid[i % valid.length], random);
      if (parseSimpleOcspRequest(bytes)) accepted++;
      const problem = agreesWithLlhttp(bytes);
      if (problem) disagreements.push(problem);
    }
    expect(disagreements.slice(0, 5)).toEqual([]);
    expect(accepted).toBeGreaterThan(1_000); // the mutations do exercise the accepting path
  });

  it('agrees with llhttp on random bytes in the header values it accepts', () => {
    const random = prng(0xbad);
    const disagreements: string[] = [];
    const names = ['User-Agent', 'Accept', 'Host', 'Content-Type', 'Connection', 'Content-Length'];
    for (let i = 0; i < 5_000; i++) {
      const value = Buffer.from(
        Array.from({ length: 1 + Math.floor(random() * 12) }, () => Math.floor(random() * 256)),
      ).toString('latin1');
      const name = names[i % names.length];
      const others = ['Host: x', `Content-Length: ${der.length}`].filter((h) => !h.startsWith(name));
      const bytes = post([...others, `${name}: ${value}`]);
      const problem = agreesWithLlhttp(bytes);
      if (problem) disagreements.push(problem);
    }
    expect(disagreements).toEqual([]);
  });
});

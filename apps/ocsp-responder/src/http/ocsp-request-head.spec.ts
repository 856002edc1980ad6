import { parseSimpleOcspRequest } from './ocsp-request-head';

const parse = (text: string) => parseSimpleOcspRequest(Buffer.from(text, 'latin1'));
const post = (head: string, body = 'DER') =>
  `POST /v1/tenants/t-1/ocsp HTTP/1.1\r\nHost: pki\r\n${head}Content-Length: ${body.length}\r\n\r\n${body}`;

describe('parseSimpleOcspRequest', () => {
  it('reads a whole OCSP POST: tenant, body, keep-alive', () => {
    expect(parse(post('Content-Type: application/ocsp-request\r\n'))).toEqual({
      method: 'POST',
      tenantId: 't-1',
      body: Buffer.from('DER'),
      keepAlive: true,
    });
  });

  it('reads an OCSP GET with a raw slash and %-escapes in its request', () => {
    expect(parse('GET /v1/tenants/t-1/ocsp/MEk%2Bab/cd%3D HTTP/1.1\r\nhost: pki\r\n\r\n')).toEqual({
      method: 'GET',
      tenantId: 't-1',
      encoded: 'MEk%2Bab/cd%3D',
      keepAlive: true,
    });
  });

  it("accepts the headers fetch() sends (Node's undici), which change nothing in the answer", () => {
    const head =
      'connection: keep-alive\r\ncontent-type: application/ocsp-request\r\naccept: */*\r\n' +
      'accept-language: *\r\nsec-fetch-mode: cors\r\nuser-agent: node\r\naccept-encoding: gzip, deflate\r\n';
    expect(parse(post(head))?.keepAlive).toBe(true);
  });

  it('accepts the trailing slash the Node path accepts on POST', () => {
    expect(parse(post('').replace('/ocsp ', '/ocsp/ '))?.method).toBe('POST');
  });

  it.each([
    ['HTTP/1.1', '', true],
    ['HTTP/1.1', 'Connection: close\r\n', false],
    ['HTTP/1.1', 'connection: Keep-Alive\r\n', true],
    ['HTTP/1.0', '', false],
    ['HTTP/1.0', 'Connection: keep-alive\r\n', true],
    ['HTTP/1.0', 'Connection: close\r\n', false],
  ])('%s with %j: keep-alive %s (RFC 9112 9.3)', (version, header, keepAlive) => {
    expect(parse(post(header).replace('HTTP/1.1', version))?.keepAlive).toBe(keepAlive);
  });

  it('accepts HTTP/1.0 without Host (openssl and nginx send 1.0)', () => {
    expect(parse('POST /v1/tenants/t/ocsp HTTP/1.0\r\nContent-Length: 1\r\n\r\nx')?.body).toEqual(
      Buffer.from('x'),
    );
  });

  it.each([
    ['an incomplete head', 'POST /v1/tenants/t/ocsp HTTP/1.1\r\nHost: pki\r\nContent-Le'],
    ['a body not all there', post('', 'DER').slice(0, -1)],
    ['bytes after the request (pipelining)', post('') + 'GET /'],
    ['HEAD', 'HEAD /v1/tenants/t/ocsp/MEk HTTP/1.1\r\nHost: pki\r\n\r\n'],
    ['PUT', post('').replace('POST', 'PUT')],
    ['GET of the POST path', 'GET /v1/tenants/t/ocsp HTTP/1.1\r\nHost: pki\r\n\r\n'],
    ['GET without request', 'GET /v1/tenants/t/ocsp/ HTTP/1.1\r\nHost: pki\r\n\r\n'],
    ['POST with a path after ocsp', post('').replace('/ocsp ', '/ocsp/x ')],
    ['a query string', post('').replace('/ocsp ', '/ocsp?x=1 ')],
    ['a %-escaped tenant', post('').replace('t-1', 't%2D1')],
    ['another path', post('').replace('/ocsp ', '/crl ')],
    ['an absolute-form target', post('').replace('/v1', 'http://pki/v1')],
    ['HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['HTTP/1.2', post('').replace('HTTP/1.1', 'HTTP/1.2')],
    ['a lowercase method', post('').replace('POST', 'post')],
    ['two spaces in the request line', post('').replace('POST ', 'POST  ')],
    ['HTTP/1.1 without Host', 'POST /v1/tenants/t/ocsp HTTP/1.1\r\nContent-Length: 1\r\n\r\nx'],
    ['POST without Content-Length', 'POST /v1/tenants/t/ocsp HTTP/1.1\r\nHost: pki\r\n\r\n'],
    ['GET with a body', 'GET /v1/tenants/t/ocsp/MEk HTTP/1.1\r\nHost: pki\r\nContent-Length: 1\r\n\r\nx'],
    ['Transfer-Encoding', post('Transfer-Encoding: chunked\r\n')],
    ['Expect', post('Expect: 100-continue\r\n')],
    ['Upgrade', post('Upgrade: websocket\r\n')],
    ['If-None-Match', post('If-None-Match: "x"\r\n')],
    ['If-Modified-Since', post('If-Modified-Since: Wed, 02 Jan 2030 03:04:05 GMT\r\n')],
    ['an unknown header', post('X-Anything: 1\r\n')],
    ['a duplicate Content-Length', post('Content-Length: 3\r\n')],
    ['a duplicate Host', post('Host: other\r\n')],
    ['Connection with several tokens', post('Connection: keep-alive, Upgrade\r\n')],
    ['a negative Content-Length', post('').replace('Content-Length: 3', 'Content-Length: -3')],
    ['a Content-Length with a sign', post('').replace('Content-Length: 3', 'Content-Length: +3')],
    ['a body over 64 KiB', post('', 'x'.repeat(64 * 1024 + 1))],
    ['an obs-fold header line', post('Accept: a\r\n b\r\n')],
    ['a space before the colon', post('Accept : a\r\n')],
    ['a bare LF inside a header', post('Accept: a\nX-Other: b\r\n')],
    ['a NUL in a header', post('Accept: a\0b\r\n')],
    ['8-bit bytes in a header', post('Accept: caf\xe9\r\n')],
    ['an empty buffer', ''],
    ['garbage', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n'],
  ])('refuses %s', (_, text) => {
    expect(parse(text)).toBeUndefined();
  });

  it('accepts a body of exactly 64 KiB (the Node path refuses only above it)', () => {
    expect(parse(post('', 'x'.repeat(64 * 1024)))?.body?.length).toBe(64 * 1024);
  });
});

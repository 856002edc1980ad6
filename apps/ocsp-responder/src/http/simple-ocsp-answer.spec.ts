import { httpDate, simpleOcspAnswer } from './simple-ocsp-answer';

const NOW = Date.parse('2030-01-02T03:04:05.678Z');
const DER = Buffer.from([0x30, 0x03, 0x0a, 0x01, 0x00]);
const CACHE = {
  etag: '"tag"',
  thisUpdate: new Date('2030-01-02T03:00:00.900Z'),
  nextUpdate: new Date('2030-01-02T04:00:00.000Z'),
};

const text = (bytes: Buffer) => bytes.toString('latin1');

describe('simpleOcspAnswer', () => {
  it('writes the bytes it made for an answer again within the same second, and makes new ones after', () => {
    const answer = { der: DER, cache: { ...CACHE } };
    const options = { method: 'POST' as const, keepAlive: false, keepAliveTimeoutMs: 5_000, now: NOW };
    const first = simpleOcspAnswer(answer, options);
    // Another request for the same cached answer (a new answer object around the same entry).
    expect(simpleOcspAnswer({ der: DER, cache: answer.cache }, { ...options, now: NOW + 200 })).toBe(first);
    const kept = simpleOcspAnswer(answer, { ...options, keepAlive: true });
    expect(text(kept)).toContain('Connection: keep-alive');
    expect(text(first)).toContain('Connection: close');
    const later = simpleOcspAnswer(answer, { ...options, now: NOW + 1_000 });
    expect(text(later)).toContain('Date: Wed, 02 Jan 2030 03:04:06 GMT');
    expect(text(later)).toContain('max-age=3353,');
  });

  it('sends a POST answer as cacheable as a GET one (RFC 5019 6.2), with the body after the head', () => {
    const bytes = simpleOcspAnswer(
      { der: DER, cache: CACHE },
      {
        method: 'POST',
        keepAlive: true,
        keepAliveTimeoutMs: 5_000,
        now: NOW,
      },
    );
    expect(text(bytes)).toBe(
      'HTTP/1.1 200 OK\r\nExpires: Wed, 02 Jan 2030 04:00:00 GMT\r\nETag: "tag"\r\n' +
        'Last-Modified: Wed, 02 Jan 2030 03:00:00 GMT\r\n' +
        'Cache-Control: public, max-age=3354, no-transform, must-revalidate\r\nAccess-Control-Allow-Origin: *\r\n' +
        'Content-Type: application/ocsp-response\r\n' +
        'Content-Length: 5\r\nDate: Wed, 02 Jan 2030 03:04:05 GMT\r\nConnection: keep-alive\r\n' +
        `Keep-Alive: timeout=5\r\n\r\n${text(DER)}`,
    );
  });

  it('sends a GET answer cacheable until nextUpdate, with validators (RFC 5019 6)', () => {
    const bytes = simpleOcspAnswer(
      { der: DER, cache: CACHE },
      {
        method: 'GET',
        keepAlive: false,
        keepAliveTimeoutMs: 5_000,
        now: NOW,
      },
    );
    expect(text(bytes)).toBe(
      'HTTP/1.1 200 OK\r\nExpires: Wed, 02 Jan 2030 04:00:00 GMT\r\nETag: "tag"\r\n' +
        'Last-Modified: Wed, 02 Jan 2030 03:00:00 GMT\r\n' +
        'Cache-Control: public, max-age=3354, no-transform, must-revalidate\r\nAccess-Control-Allow-Origin: *\r\n' +
        'Content-Type: application/ocsp-response\r\nContent-Length: 5\r\n' +
        `Date: Wed, 02 Jan 2030 03:04:05 GMT\r\nConnection: close\r\n\r\n${text(DER)}`,
    );
  });

  it('sends a GET answer without cache data as no-store', () => {
    const bytes = simpleOcspAnswer(
      { der: DER },
      {
        method: 'GET',
        keepAlive: true,
        keepAliveTimeoutMs: 0,
        now: NOW,
      },
    );
    expect(text(bytes)).toContain('\r\nCache-Control: no-store\r\n');
    // Without a keepAliveTimeout Node announces none.
    expect(text(bytes)).toContain('\r\nConnection: keep-alive\r\n\r\n');
  });

  it('never sends a negative max-age once nextUpdate has passed', () => {
    const bytes = simpleOcspAnswer(
      { der: DER, cache: CACHE },
      {
        method: 'GET',
        keepAlive: true,
        keepAliveTimeoutMs: 5_000,
        now: CACHE.nextUpdate.getTime() + 10_000,
      },
    );
    expect(text(bytes)).toContain('Cache-Control: public, max-age=0, no-transform, must-revalidate\r\n');
  });

  it('sends an answer naming an unknown serial as no-cache, no-store, without validators (RFC 6960 2.4)', () => {
    const bytes = text(
      simpleOcspAnswer(
        { der: DER, unknown: true },
        { method: 'GET', keepAlive: true, keepAliveTimeoutMs: 5_000, now: NOW },
      ),
    );
    expect(bytes).toContain('\r\nCache-Control: no-cache, no-store\r\n');
    expect(bytes).not.toMatch(/max-age|ETag|Last-Modified|Expires/);
  });
});

describe('httpDate', () => {
  it('is the IMF-fixdate of the current second, and follows the clock', () => {
    expect(httpDate(NOW)).toBe('Wed, 02 Jan 2030 03:04:05 GMT');
    expect(httpDate(NOW + 400)).toBe('Wed, 02 Jan 2030 03:04:06 GMT');
    expect(httpDate(NOW - 5_000)).toBe('Wed, 02 Jan 2030 03:04:00 GMT');
  });
});

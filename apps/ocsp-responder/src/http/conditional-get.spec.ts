import { IncomingMessage, ServerResponse } from 'node:http';
import { CacheableRepresentation, answerConditionally } from './conditional-get';

interface FakeResponse {
  headers: Record<string, string>;
  statusCode?: number;
  ended: boolean;
}

function exchange(
  requestHeaders: Record<string, string>,
  representation: Partial<CacheableRepresentation> = {},
): { notModified: boolean; res: FakeResponse } {
  const res: FakeResponse = { headers: {}, ended: false };
  const response = {
    setHeader(name: string, value: string) {
      res.headers[name.toLowerCase()] = value;
      return response;
    },
    set statusCode(code: number) {
      res.statusCode = code;
    },
    end() {
      res.ended = true;
      return response;
    },
  };
  const req = {
    headers: Object.fromEntries(Object.entries(requestHeaders).map(([k, v]) => [k.toLowerCase(), v])),
  };
  const notModified = answerConditionally(
    req as unknown as IncomingMessage,
    response as unknown as ServerResponse,
    {
      etag: '"abc"',
      lastModified: new Date('2030-01-02T03:04:05.678Z'),
      maxAgeSeconds: 120.9,
      ...representation,
    },
  );
  return { notModified, res };
}

/** The representation's Last-Modified as sent: whole seconds. */
const LAST_MODIFIED = 'Wed, 02 Jan 2030 03:04:05 GMT';

describe('answerConditionally', () => {
  it('sets the validators and Cache-Control of a cacheable public resource', () => {
    const { notModified, res } = exchange({});
    expect(notModified).toBe(false);
    expect(res.headers).toEqual({
      etag: '"abc"',
      'last-modified': LAST_MODIFIED,
      'cache-control': 'public, max-age=120',
    });
    expect(res.statusCode).toBeUndefined();
    expect(res.ended).toBe(false);
  });

  it('never sends a negative max-age', () => {
    expect(exchange({}, { maxAgeSeconds: -5 }).res.headers['cache-control']).toBe('public, max-age=0');
  });

  describe('If-None-Match', () => {
    it.each([
      ['the same strong tag', '"abc"'],
      ['a list holding it', '"x", "abc", "y"'],
      ['a list without spaces', '"x","abc"'],
      ['its weak form (weak comparison, RFC 9110 13.1.2)', 'W/"abc"'],
      ['a list holding its weak form', '"x", W/"abc"'],
      ['*', '*'],
    ])('answers 304 for %s', (_, header) => {
      const { notModified, res } = exchange({ 'If-None-Match': header });
      expect(notModified).toBe(true);
      expect(res.statusCode).toBe(304);
      expect(res.ended).toBe(true);
      // A 304 carries the validators too (RFC 9110 15.4.5).
      expect(res.headers.etag).toBe('"abc"');
      expect(res.headers['cache-control']).toBe('public, max-age=120');
    });

    it.each([
      ['another tag', '"abd"'],
      ['a list of other tags', '"x", "y"'],
      ['the tag without quotes', 'abc'],
      ['an empty header', ''],
    ])('does not answer 304 for %s', (_, header) => {
      const { notModified, res } = exchange({ 'If-None-Match': header });
      expect(notModified).toBe(false);
      expect(res.statusCode).toBeUndefined();
      expect(res.ended).toBe(false);
    });
  });

  describe('If-Modified-Since', () => {
    it.each([
      ['the Last-Modified sent (sub-second part ignored)', LAST_MODIFIED],
      ['a later date', 'Thu, 03 Jan 2030 00:00:00 GMT'],
    ])('answers 304 for %s', (_, header) => {
      expect(exchange({ 'If-Modified-Since': header }).notModified).toBe(true);
    });

    it.each([
      ['an earlier date', 'Wed, 02 Jan 2030 03:04:04 GMT'],
      ['an unparseable date', 'yesterday-ish'],
    ])('does not answer 304 for %s', (_, header) => {
      expect(exchange({ 'If-Modified-Since': header }).notModified).toBe(false);
    });
  });

  describe('precedence (RFC 9110 13.2.2)', () => {
    it('ignores If-Modified-Since when If-None-Match is present and does not match', () => {
      const { notModified } = exchange({
        'If-None-Match': '"other"',
        'If-Modified-Since': 'Thu, 03 Jan 2030 00:00:00 GMT',
      });
      expect(notModified).toBe(false);
    });

    it('answers 304 for a matching If-None-Match whatever If-Modified-Since says', () => {
      const { notModified } = exchange({
        'If-None-Match': '"abc"',
        'If-Modified-Since': 'Mon, 01 Jan 2029 00:00:00 GMT',
      });
      expect(notModified).toBe(true);
    });
  });
});

import { decodeOcspGetRequest } from './ocsp-get-request';

const bytes = Buffer.from([0x30, 0x03, 0xfb, 0xff, 0xfe, 0x3f]);

describe('decodeOcspGetRequest', () => {
  it('accepts base64url, unpadded', () => {
    expect(Buffer.from(decodeOcspGetRequest(bytes.toString('base64url'))!)).toEqual(bytes);
  });

  it('accepts standard base64 after percent-decoding, with padding and "+" and "/"', () => {
    const standard = bytes.toString('base64');
    expect(standard).toMatch(/[+/]/);
    expect(Buffer.from(decodeOcspGetRequest(decodeURIComponent(encodeURIComponent(standard)))!)).toEqual(
      bytes,
    );
  });

  it('accepts a raw "/" that split the path into segments', () => {
    const standard = bytes.toString('base64');
    expect(Buffer.from(decodeOcspGetRequest(standard.split('/'))!)).toEqual(bytes);
  });

  it('refuses empty input and characters outside both alphabets', () => {
    expect(decodeOcspGetRequest('')).toBeUndefined();
    expect(decodeOcspGetRequest('abc$')).toBeUndefined();
    expect(decodeOcspGetRequest('A')).toBeUndefined();
  });
});

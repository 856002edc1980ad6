import { newSigningSecret, signedHeaders } from './standard-webhooks';

describe('Standard Webhooks signing', () => {
  it('matches the example of the specification', () => {
    const headers = signedHeaders(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('makes secrets of 32 random octets, never twice the same', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
  });

  it('refuses a secret without the whsec_ prefix', () => {
    expect(() => signedHeaders('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'id', 1, '{}')).toThrow(/whsec_/);
  });
});

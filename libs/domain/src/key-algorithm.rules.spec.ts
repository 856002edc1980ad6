import { CaError, KeyAlgorithm } from '@ca/contracts';
import {
  assertOfferedKeyAlgorithm,
  caKeyAlgorithmFor,
  defaultLeafKeyAlgorithm,
  keyAlgorithmsOf,
} from './key-algorithm.rules';

const { P256, P384, Rsa2048, Rsa3072, Rsa4096 } = KeyAlgorithm;

describe('the deployment key algorithm (KEY_ALGORITHM, docs/api.md#key-algorithms)', () => {
  it.each([P256, P384, Rsa2048, Rsa3072, Rsa4096])(
    'is the key of a CA made without a choice under %s',
    (d) => {
      expect(caKeyAlgorithmFor(undefined, d)).toBe(d);
    },
  );

  it('lets an explicit choice win over it', () => {
    expect(caKeyAlgorithmFor(P384, P256)).toBe(P384);
    expect(caKeyAlgorithmFor(P256, Rsa2048)).toBe(P256);
    expect(caKeyAlgorithmFor(Rsa4096, Rsa2048)).toBe(Rsa4096);
  });

  it.each([P256, P384, Rsa3072, Rsa4096])(
    'refuses an explicit RSA-2048 under %s with 400 on keyAlgorithm',
    (deployment) => {
      let thrown: unknown;
      try {
        caKeyAlgorithmFor(Rsa2048, deployment);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(CaError);
      expect(thrown).toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [
          {
            field: 'keyAlgorithm',
            message: 'keyAlgorithm must be one of the following values: P-256, P-384, RSA-3072, RSA-4096',
          },
        ],
      });
    },
  );

  it('accepts an explicit RSA-2048 where it is the deployment algorithm', () => {
    expect(caKeyAlgorithmFor(Rsa2048, Rsa2048)).toBe(Rsa2048);
    expect(() => assertOfferedKeyAlgorithm(Rsa2048, Rsa2048)).not.toThrow();
    expect(keyAlgorithmsOf(Rsa2048)).toEqual([P256, P384, Rsa2048, Rsa3072, Rsa4096]);
    expect(keyAlgorithmsOf(P256)).toEqual([P256, P384, Rsa3072, Rsa4096]);
  });
});

describe('defaultLeafKeyAlgorithm', () => {
  it.each([
    [P256, P256, P256],
    [P384, P256, P256],
    [Rsa3072, P256, Rsa3072],
    [Rsa4096, P256, Rsa3072],
    // A deployment that chose RSA-2048: its RSA-2048 CAs' leaves are RSA-2048 too.
    [Rsa2048, Rsa2048, Rsa2048],
    [Rsa3072, Rsa2048, Rsa3072],
    [P256, Rsa2048, P256],
    // An RSA-2048 CA left from when the deployment chose RSA-2048: leaves of its family's default.
    [Rsa2048, P256, Rsa3072],
  ])('under a %s CA in a %s deployment: %s', (ca, deployment, leaf) => {
    expect(defaultLeafKeyAlgorithm(ca, deployment)).toBe(leaf);
  });

  it('defaults to the P-256 deployment', () => {
    expect(defaultLeafKeyAlgorithm(Rsa2048)).toBe(Rsa3072);
    expect(defaultLeafKeyAlgorithm(P384)).toBe(P256);
  });
});

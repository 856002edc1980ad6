import { KeyCustodyError } from './key-custody.error';

describe('KeyCustodyError', () => {
  it('is an Error with a name, a failure kind and the message as given', () => {
    const error = new KeyCustodyError('key-unavailable', 'Cannot open key k of tenant t');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('KeyCustodyError');
    expect(error.failure).toBe('key-unavailable');
    expect(String(error)).toBe('KeyCustodyError: Cannot open key k of tenant t');
  });
});

import { characterLength, storableText, textProblem, truncateCharacters } from './text-rules';
import { textFieldErrors } from './text-fields';

describe('text rules', () => {
  it.each([
    ['plain ASCII', 'Acme Corp'],
    ['CJK', '認証局'],
    ['RTL', 'שלום עולם'],
    ['emoji (surrogate pairs)', 'ops 🔐 team 👩‍💻'],
    ['combining marks', 'Zoë'],
  ])('accepts %s', (_name, text) => expect(textProblem(text)).toBeUndefined());

  it.each([
    ['NUL', 'a\u0000b', /NUL/],
    ['a lone high surrogate', 'a\ud83d', /unpaired surrogate/],
    ['a lone low surrogate', '\udc10x', /unpaired surrogate/],
    ['a reversed pair', '\ude00\ud83d', /unpaired surrogate/],
    ['tab', 'a\tb', /U\+0009/],
    ['LF', 'a\nb', /U\+000A/],
    ['ESC', '\u001b[31m', /U\+001B/],
    ['DEL', 'a\u007f', /U\+007F/],
    ['a C1 control (NEL)', 'a\u0085', /U\+0085/],
  ])('refuses %s', (_name, text, message) => expect(textProblem(text)).toMatch(message));

  it('lets multi-line fields hold CR and LF, and nothing else more', () => {
    expect(textProblem('-----BEGIN X-----\r\nAAAA\n-----END X-----\n', { multiLine: true })).toBeUndefined();
    expect(textProblem('a\tb', { multiLine: true })).toMatch(/U\+0009/);
    expect(textProblem('a\u0000', { multiLine: true })).toMatch(/NUL/);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(characterLength('🔐🔐')).toBe(2);
    expect(characterLength('認証')).toBe(2);
  });

  it('never cuts a character in half', () => {
    const text = `${'a'.repeat(255)}🔐tail`;
    const cut = truncateCharacters(text, 256);
    expect(cut).toBe(`${'a'.repeat(255)}🔐`);
    expect(textProblem(cut)).toBeUndefined();
    expect(truncateCharacters('🔐🔐🔐', 2, '…')).toBe('🔐🔐…');
    expect(truncateCharacters('short', 10, '…')).toBe('short');
  });

  it('makes text storable as PostgreSQL keeps it: NUL and unpaired surrogates become U+FFFD', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText('x\ud83d')).toBe('x\uFFFD');
    expect(storableText('\udc00y')).toBe('\uFFFDy');
    expect(storableText('ok 🔐')).toBe('ok 🔐');
    // What Node encodes to UTF-8 and decodes back is exactly the storable text.
    const odd = 'a\ud83d\u0000🔐';
    expect(Buffer.from(storableText(odd), 'utf8').toString('utf8')).toBe(
      storableText(odd).replace(/\0/g, ''),
    );
  });

  it('names every refused string of a JSON body by its path, keys included', () => {
    expect(
      textFieldErrors({
        commonName: 'ok',
        organization: 'bad\u0000',
        subjectAlternativeNames: ['a.example', 'b\u0085.example'],
        customExtensions: { 'k\u0000': 'v', good: 'v\ud800' },
        csrPem: '-----BEGIN CERTIFICATE REQUEST-----\nAA\n-----END CERTIFICATE REQUEST-----\n',
      }),
    ).toEqual([
      { field: 'organization', message: 'organization contains NUL (U+0000)' },
      { field: 'subjectAlternativeNames.1', message: expect.stringMatching(/U\+0085/) },
      { field: 'customExtensions', message: 'a key contains NUL (U+0000)' },
      { field: 'customExtensions.good', message: expect.stringMatching(/unpaired surrogate/) },
    ]);
  });
});

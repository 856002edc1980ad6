import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadOrCreateLocalKek } from './local-kek';

const kekBase64 = Buffer.alloc(32, 0xab).toString('base64');

describe('loadOrCreateLocalKek', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'custody-kek-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  describe('with CA_KEK set', () => {
    it('decodes it, in either mode, and writes nothing', () => {
      expect(loadOrCreateLocalKek({ kekBase64, embedded: false })).toEqual(new Uint8Array(32).fill(0xab));
      expect(loadOrCreateLocalKek({ kekBase64: `${kekBase64}\n`, dataDir, embedded: true })).toHaveLength(32);
      expect(readdirSync(dataDir)).toEqual([]);
    });

    it.each([
      ['empty', ''],
      ['31 bytes', Buffer.alloc(31).toString('base64')],
      ['33 bytes', Buffer.alloc(33).toString('base64')],
      ['not base64', `${kekBase64.slice(0, -2)}*=`],
      ['base64url', Buffer.alloc(32, 0xff).toString('base64url')],
      ['hex', Buffer.alloc(32).toString('hex')],
    ])('refuses a value that is %s', (_case, value) => {
      expect(() => loadOrCreateLocalKek({ kekBase64: value, dataDir, embedded: true })).toThrow(
        new Error('CA_KEK must be base64 of 32 bytes'),
      );
    });
  });

  describe('without CA_KEK', () => {
    it('is required when DATABASE_URL is set (not embedded)', () => {
      expect(() => loadOrCreateLocalKek({ dataDir, embedded: false })).toThrow(
        new Error('CA_KEK is required when DATABASE_URL is set'),
      );
      expect(readdirSync(dataDir)).toEqual([]);
    });

    it('creates <dataDir>/keys/ca-kek in embedded mode: dir 0700, file 0600, base64 of 32 random bytes', () => {
      const kek = loadOrCreateLocalKek({ dataDir, embedded: true });
      const file = join(dataDir, 'keys', 'ca-kek');
      expect(statSync(join(dataDir, 'keys')).mode & 0o777).toBe(0o700);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toBe(`${Buffer.from(kek).toString('base64')}\n`);
      expect(kek).toHaveLength(32);
      expect(readdirSync(join(dataDir, 'keys'))).toEqual(['ca-kek']); // no temporary file left
    });

    it('reuses the file on the next start', () => {
      const first = loadOrCreateLocalKek({ dataDir, embedded: true });
      const second = loadOrCreateLocalKek({ dataDir, embedded: true });
      expect(second).toEqual(first);
      expect(loadOrCreateLocalKek({ dataDir: join(dataDir, 'other'), embedded: true })).not.toEqual(first);
    });

    it('creates DATA_DIR itself when it does not exist yet', () => {
      const nested = join(dataDir, 'fresh', 'data');
      loadOrCreateLocalKek({ dataDir: nested, embedded: true });
      expect(existsSync(join(nested, 'keys', 'ca-kek'))).toBe(true);
    });

    it('keeps an existing keys directory and uses a KEK someone put there', () => {
      mkdirSync(join(dataDir, 'keys'), { mode: 0o750 });
      writeFileSync(join(dataDir, 'keys', 'ca-kek'), kekBase64, { mode: 0o600 });
      expect(loadOrCreateLocalKek({ dataDir, embedded: true })).toEqual(new Uint8Array(32).fill(0xab));
      expect(statSync(join(dataDir, 'keys')).mode & 0o777).toBe(0o750);
    });

    it('refuses a damaged KEK file rather than replacing it', () => {
      mkdirSync(join(dataDir, 'keys'));
      writeFileSync(join(dataDir, 'keys', 'ca-kek'), 'garbage');
      expect(() => loadOrCreateLocalKek({ dataDir, embedded: true })).toThrow(
        /ca-kek must hold base64 of 32 bytes/,
      );
      expect(readFileSync(join(dataDir, 'keys', 'ca-kek'), 'utf8')).toBe('garbage');
    });

    it('needs DATA_DIR in embedded mode', () => {
      expect(() => loadOrCreateLocalKek({ embedded: true })).toThrow('DATA_DIR is required');
    });
  });
});

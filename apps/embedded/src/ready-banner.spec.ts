import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readyBanner } from './ready-banner';

/** The first `text` block after "prints, once ready:" in the README. */
function readmeBanner(): string {
  const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
  const block = /prints, once ready:\s*```text\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no banner block after "prints, once ready:"');
  return block[1];
}

describe('ready banner', () => {
  it('is the one README.md shows for a first `npm start`', () => {
    const printed = readyBanner({
      startedInMs: 4353,
      host: '127.0.0.1',
      gatewayPort: 3000,
      pkiPort: 3001,
      dataDir: '…/.data',
      externalTokens: false,
      consoleUrl: 'http://127.0.0.1:3000/console/#token=eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9…',
    });
    expect(printed.trim()).toBe(readmeBanner().trim());
  });

  it('names the real Postgres and NATS, and the identity provider, when they are configured', () => {
    const printed = readyBanner({
      startedInMs: 1,
      host: '0.0.0.0',
      gatewayPort: 3000,
      pkiPort: 3001,
      databaseUrl: 'postgres://db/ca',
      natsUrl: 'nats://bus:4222',
      dataDir: '.data',
      externalTokens: true,
      consoleUrl: 'https://ca.example.com/console/',
    });
    expect(printed).toContain('(Postgres, NATS)');
    expect(printed).toContain('signed by your identity provider');
    expect(printed).not.toContain('npm run token');
    expect(printed).toContain('Console:             https://ca.example.com/console/   (sign in with a token');
    expect(printed).not.toContain('#token=');
  });
});

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

const REPO_ROOT = join(__dirname, '../../../..');

/**
 * Where the initialised template lives: the repository's ignored `tmp/`, one per PGlite version
 * (tools/jest/global-teardown.js removes `tmp/pglite-template-*`).
 */
function embeddedTemplateDir(): string {
  const manifest = join(REPO_ROOT, 'node_modules/@electric-sql/pglite/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return join(REPO_ROOT, 'tmp', `pglite-template-${version}`);
}

/**
 * A new temporary DATA_DIR whose embedded database is already initialised. PGlite's initdb runs in
 * WebAssembly and takes 4 to 5 s on a CI core; a copy of a cleanly closed data directory starts in
 * under a second, and every suite starts one or more systems. The template is made once per run
 * (Jest's global teardown removes it); two workers making it at once race on an atomic rename, and
 * the loser's copy is thrown away.
 */
export async function freshEmbeddedDataDir(prefix: string): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  await seedEmbeddedDataDir(dataDir);
  return dataDir;
}

/** Puts the initialised database where `startEmbeddedPostgres(dataDir)` looks for it (`<dataDir>/pg`). */
export async function seedEmbeddedDataDir(dataDir: string): Promise<void> {
  const template = embeddedTemplateDir();
  if (!existsSync(template)) await makeTemplate(template);
  cpSync(join(template, 'pg'), join(dataDir, 'pg'), { recursive: true });
}

async function makeTemplate(template: string): Promise<void> {
  mkdirSync(join(template, '..'), { recursive: true });
  const building = mkdtempSync(`${template}.building-`);
  try {
    const db = await PGlite.create({ dataDir: join(building, 'pg') });
    await db.close();
    renameSync(building, template);
  } catch (error) {
    // Another worker renamed its copy first: use that one.
    if (!existsSync(template)) throw error;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

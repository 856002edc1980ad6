import { CommandContext, stringOption } from './command';
import { assertFree, writeOwnerOnly } from './secret-files';
import { details } from './table';

/** The key material of an issuance or renewal answer (docs/api.md#issuance-answer, docs/api.md#renew-a-certificate), Text format. */
export interface IssuedMaterial {
  serialNumber: string;
  expiresAt: string;
  certificatePem?: string;
  privateKeyPem?: string;
  /** PKCS#12 in Base64 and its password, when passwordProtected was asked for. */
  pfxBase64?: string;
  password?: string;
}

/** File options shared by `cert issue` and `cert renew`. */
export const issuedFileOptions = {
  'cert-file': { type: 'string' },
  'key-file': { type: 'string' },
  'p12-file': { type: 'string' },
  p12: { type: 'boolean' },
} as const;

interface IssuedFiles {
  cert?: string;
  key?: string;
  p12?: string;
}

/**
 * Where the answer will go, checked before the call. For people the files default to
 * `<name>.crt`, `<name>.key`, `<name>.p12`, so a key is never only on the screen; with --json
 * only the files asked for are written.
 */
export function planIssuedFiles(context: CommandContext, baseName: string): IssuedFiles {
  const file = (option: string, extension: string) =>
    stringOption(context.values, option) ?? (context.json ? undefined : `${baseName}.${extension}`);
  const files = {
    cert: file('cert-file', 'crt'),
    key: file('key-file', 'key'),
    p12: context.values.p12 === true ? file('p12-file', 'p12') : stringOption(context.values, 'p12-file'),
  };
  assertFree([files.cert, files.key, files.p12], context.force);
  return files;
}

/**
 * Writes what the API returned once (the private key, the PKCS#12 and its password are not kept
 * by the service) to owner-only files, then prints a summary, or the answer itself with --json.
 * Should a write fail anyway, the answer is printed first so the key is not lost.
 */
export function saveIssued(
  context: CommandContext,
  answer: IssuedMaterial,
  id: [string, string],
  files: IssuedFiles,
): void {
  const written: [string, string | undefined][] = [];
  const save = (label: string, path: string | undefined, content: string | Uint8Array | undefined) => {
    if (!path || content === undefined) return;
    writeOwnerOnly(path, content, context.force);
    written.push([label, path]);
  };
  try {
    save('Certificate', files.cert, answer.certificatePem);
    save('Private key', files.key, answer.privateKeyPem);
    save('PKCS#12', files.p12, answer.pfxBase64 && Buffer.from(answer.pfxBase64, 'base64'));
  } catch (error) {
    context.print(JSON.stringify(answer, null, 2));
    throw error;
  }
  if (context.json) return context.print(JSON.stringify(answer, null, 2));
  context.print(
    details([
      id,
      ['Serial', answer.serialNumber],
      ['Expires', answer.expiresAt],
      ...written,
      ['PKCS#12 password', answer.password && `${answer.password}   (shown once: keep it now)`],
    ]),
  );
}

/** A file name from a common name: letters, digits, dot, dash and underscore. */
export const fileBaseName = (commonName: string) =>
  commonName.replace(/[^A-Za-z0-9._-]+/g, '_') || 'certificate';

import { createHash } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { AcmeProblem } from '../protocol/acme-problem';

/** The TXT records at a name, each as its character-strings (node:dns `resolveTxt`). */
export type TxtLookup = (name: string) => Promise<string[][]>;

/** Per try; the resolver retries once with twice the time (c-ares), inside the overall deadline. */
const TRY_TIMEOUT_MS = 2_500;

/**
 * TXT lookups through node:dns against ACME_DNS_RESOLVER's servers, or the system's when empty. The
 * recursive resolver follows CNAMEs (RFC 8555 8.4 allows a delegated `_acme-challenge`); a lookup
 * that outlasts `deadlineMs` is cancelled.
 */
export function resolverTxtLookup(servers: readonly string[], deadlineMs: number): TxtLookup {
  return async (name) => {
    // One resolver per lookup: cancel() ends every query of its resolver.
    const resolver = new Resolver({ timeout: TRY_TIMEOUT_MS, tries: 2 });
    if (servers.length > 0) resolver.setServers(servers);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        resolver.cancel();
        reject(Object.assign(new Error('timed out'), { code: 'ETIMEOUT' }));
      }, deadlineMs);
    });
    try {
      return await Promise.race([resolver.resolveTxt(name), deadline]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The TXT value dns-01 expects (RFC 8555 8.4): base64url(SHA-256(key authorization)). */
export function dns01Digest(keyAuthorization: string): string {
  return createHash('sha256').update(keyAuthorization).digest('base64url');
}

/**
 * RFC 8555 8.4: one of the TXT records at `_acme-challenge.<name>` must hold the digest (a name
 * may carry several, e.g. one for `*.name` and one for `name`); the character-strings of one
 * record are read as one value.
 */
export async function checkDns01(
  lookup: TxtLookup,
  target: { name: string; keyAuthorization: string },
): Promise<void> {
  const recordName = `_acme-challenge.${target.name}`;
  let records: string[][];
  try {
    records = await lookup(recordName);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') {
      throw new AcmeProblem('unauthorized', `there is no TXT record at ${recordName}`, 403);
    }
    throw new AcmeProblem('dns', `the TXT query for ${recordName} failed (${String(code ?? 'error')})`);
  }
  const expected = dns01Digest(target.keyAuthorization);
  const values = records.map((strings) => strings.join(''));
  if (!values.includes(expected)) {
    throw new AcmeProblem(
      'incorrectResponse',
      `none of the ${values.length} TXT records at ${recordName} holds the key authorization digest`,
      403,
    );
  }
}

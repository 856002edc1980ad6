import { CaError } from '@ca/contracts';
import { openPayload, sealPayload } from './download-payload';
import { DownloadKind, DownloadStore } from './download.store';
import { decodeDownloadToken, encodeDownloadToken, lookupHashOf, newDownloadToken } from './download-token';

/** docs/api.md#limits: pre-signed download URLs are valid one hour (DOWNLOAD_LINK_TTL). */
export const DOWNLOAD_LINK_TTL_MS = 60 * 60_000;

/** docs/api.md#expiring-certificates: the private key and the PKCS#12 links work once; the certificate until expiry. */
const SINGLE_USE: Record<DownloadKind, boolean> = {
  certificate: false,
  'private-key': true,
  pkcs12: true,
};

export const DOWNLOAD_CONTENT_TYPE: Record<DownloadKind, string> = {
  certificate: 'application/x-pem-file',
  'private-key': 'application/x-pem-file',
  pkcs12: 'application/x-pkcs12',
};

export interface DownloadFile {
  kind: DownloadKind;
  fileName: string;
  content: Buffer;
}

export interface DownloadedFile {
  kind: DownloadKind;
  fileName: string;
  contentType: string;
  content: Buffer;
}

/**
 * Creates pre-signed download links and serves them (`GET /v1/downloads/{token}`). Every link
 * has its own random key; the payload is stored sealed under it and the key lives only in the
 * link. Unknown, garbled, expired and used links are all the same 404 to the caller: telling
 * them apart would tell a guesser which tokens once existed.
 */
export class DownloadLinks {
  constructor(
    private readonly store: DownloadStore,
    private readonly publicUrl: string,
    private readonly clock: () => Date = () => new Date(),
    private readonly ttlMs = DOWNLOAD_LINK_TTL_MS,
  ) {}

  /** One link per file, all expiring together one TTL (an hour by default) from now. */
  async create(files: DownloadFile[]): Promise<{ urls: string[]; expiresAt: Date }> {
    const expiresAt = new Date(this.clock().getTime() + this.ttlMs);
    const tokens = files.map(() => newDownloadToken());
    await this.store.insert(
      files.map((file, i) => {
        const lookupHash = lookupHashOf(tokens[i]);
        return {
          lookupHash,
          kind: file.kind,
          singleUse: SINGLE_USE[file.kind],
          fileName: file.fileName,
          ...sealPayload(tokens[i].key, lookupHash, file.content),
          expiresAt,
        };
      }),
    );
    const base = this.publicUrl.replace(/\/+$/, '');
    return { urls: tokens.map((t) => `${base}/v1/downloads/${encodeDownloadToken(t)}`), expiresAt };
  }

  /**
   * The file of a link. A single-use link is consumed by this call unless `peek` (HEAD): the
   * payload is opened first, so a token with a valid id but a wrong key burns nothing.
   */
  async download(tokenText: string, options: { peek?: boolean } = {}): Promise<DownloadedFile> {
    const token = decodeDownloadToken(tokenText);
    if (!token) throw gone(this.ttlMs);
    const lookupHash = lookupHashOf(token);
    const stored = await this.store.findLive(lookupHash, this.clock());
    const content = stored && openPayload(token.key, lookupHash, stored);
    if (!stored || !content) throw gone(this.ttlMs);
    if (stored.singleUse && !options.peek && !(await this.store.consume(lookupHash))) throw gone(this.ttlMs);
    return {
      kind: stored.kind,
      fileName: stored.fileName,
      contentType: DOWNLOAD_CONTENT_TYPE[stored.kind],
      content,
    };
  }

  /** Housekeeping: erases the payloads of expired links. */
  removeExpired(): Promise<number> {
    return this.store.removeExpired(this.clock());
  }
}

function gone(ttlMs: number): CaError {
  const lifetime = ttlMs === DOWNLOAD_LINK_TTL_MS ? 'one hour' : `${Math.round(ttlMs / 60_000)} minutes`;
  return CaError.notFound(
    `This download link is not valid: it is unknown, has expired (links last ${lifetime}) or, for a private key or PKCS#12, has already been used.`,
  );
}

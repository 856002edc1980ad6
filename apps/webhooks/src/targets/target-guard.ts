import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isNonPublicAddress } from '@ca/net-safety';

/** A webhook URL this deployment does not deliver to, with the reason a caller may read. */
export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

/** Where one delivery connects: the URL and the address its host was resolved to and checked. */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

const MAX_URL_LENGTH = 2048;

/**
 * https URLs whose host resolves to public addresses only, unless the deployment allows private
 * targets (WEBHOOK_ALLOW_PRIVATE_TARGETS, then also http and loopback/private). Checked at
 * subscription and before every attempt; the attempt connects to the address checked here, so a
 * name that re-resolves elsewhere in between (DNS rebinding) is not followed.
 */
export class TargetGuard {
  private readonly dnsLookup: (name: string) => Promise<string[]>;

  constructor(
    private readonly allowPrivateTargets: boolean,
    dnsLookup?: (name: string) => Promise<string[]>,
  ) {
    this.dnsLookup =
      dnsLookup ??
      (async (name) => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address));
  }

  /** The URL's form alone (no DNS): what `POST /v2/webhooks` refuses before anything else. */
  parse(raw: string): URL {
    if (raw.length > MAX_URL_LENGTH) throw new TargetRefused(`must be at most ${MAX_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new TargetRefused('is not a URL');
    }
    const schemes = this.allowPrivateTargets ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(url.protocol)) {
      throw new TargetRefused(
        this.allowPrivateTargets ? 'must be an http or https URL' : 'must be an https URL',
      );
    }
    if (url.username || url.password) throw new TargetRefused('must not carry credentials');
    if (url.hash) throw new TargetRefused('must not have a fragment');
    return url;
  }

  async check(raw: string): Promise<CheckedTarget> {
    const url = this.parse(raw);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = await this.dnsLookup(host);
      } catch {
        throw new TargetRefused(`${host} does not resolve`);
      }
    }
    if (addresses.length === 0) throw new TargetRefused(`${host} has no address`);
    // Every address must be public: a name with one private address could be steered to it.
    if (!this.allowPrivateTargets && addresses.some(isNonPublicAddress)) {
      throw new TargetRefused(`${host} resolves to a private or reserved address`);
    }
    const address = addresses[0];
    return { url, address, family: isIP(address) === 6 ? 6 : 4 };
  }
}

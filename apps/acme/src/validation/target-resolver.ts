import { lookup } from 'node:dns/promises';
import { isNonPublicAddress } from '@ca/net-safety';

/** Where a validation connects to, and what refused it. */
export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

export interface TargetResolverOptions {
  /** ACME_RESOLVE: `name` or `*.name` → IP, consulted before DNS. */
  overrides: ReadonlyMap<string, string>;
  /** ACME_ALLOW_PRIVATE_TARGETS. */
  allowPrivateTargets: boolean;
  /** DNS, replaceable in tests. */
  dnsLookup?: (name: string) => Promise<string[]>;
}

/**
 * Turns an identifier into the address a challenge is checked at: the ACME_RESOLVE override
 * (exact name first, then `*.parent`), else DNS; non-public addresses are refused unless the
 * deployment allows them.
 */
export class TargetResolver {
  private readonly dnsLookup: (name: string) => Promise<string[]>;

  constructor(private readonly options: TargetResolverOptions) {
    this.dnsLookup =
      options.dnsLookup ??
      (async (name) => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address));
  }

  /** The override for a name, if any. */
  override(name: string): string | undefined {
    const lower = name.toLowerCase();
    const exact = this.options.overrides.get(lower);
    if (exact) return exact;
    const labels = lower.split('.');
    for (let i = 1; i < labels.length; i++) {
      const wildcard = this.options.overrides.get(`*.${labels.slice(i).join('.')}`);
      if (wildcard) return wildcard;
    }
    return undefined;
  }

  async resolve(name: string): Promise<string> {
    let addresses: string[];
    const override = this.override(name);
    if (override) addresses = [override];
    else {
      try {
        addresses = await this.dnsLookup(name);
      } catch {
        throw new TargetRefused(`${name} does not resolve`);
      }
    }
    const allowed = addresses.filter((ip) => this.options.allowPrivateTargets || !isNonPublicAddress(ip));
    if (allowed.length === 0) {
      throw new TargetRefused(
        addresses.length === 0
          ? `${name} has no address`
          : `${name} resolves to a private or reserved address, which this deployment does not validate against`,
      );
    }
    return allowed[0];
  }
}

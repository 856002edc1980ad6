import { IssuanceApi, IssuancePattern, KeyAlgorithm } from '@ca/contracts';
import {
  assertOfferedKeyAlgorithm,
  DEFAULT_DEPLOYMENT_KEY_ALGORITHM,
  defaultLeafKeyAlgorithm,
} from '@ca/domain';
import { RpcClient } from '@ca/messaging';

const MAX_TENANTS = 10_000;
/**
 * How long a tenant's answer is kept: a rollover or a root renewal may change the family of the CA
 * that signs its leaves; a v2 issuance in that first minute still gets a key any CA accepts.
 */
const KEEP_MS = 60_000;

/**
 * docs/api.md#key-algorithms: the key the gateway makes for a v2 certificate when the body names
 * none: the family of the CA that signs the tenant's leaves now (its active issuing CA, else its
 * active root): P-256 under an EC CA, RSA-3072 under an RSA CA (RSA-2048 under an RSA-2048 CA of a
 * deployment whose KEY_ALGORITHM is RSA-2048). Kept per tenant for a minute.
 */
export class LeafKeyAlgorithms {
  private readonly known = new Map<string, { algorithm: KeyAlgorithm; until: number }>();

  constructor(
    private readonly issuance: RpcClient<IssuanceApi>,
    private readonly now = () => Date.now(),
    /** KEY_ALGORITHM: RSA-2048 may be asked for only where it is this. */
    private readonly deployment: KeyAlgorithm = DEFAULT_DEPLOYMENT_KEY_ALGORITHM,
  ) {}

  /**
   * The key of a v1 certificate: P-256 in a deployment that kept the default (v1 as it always
   * was, without asking issuance), else the default of the tenant's CA as for v2, so a deployment
   * that chose RSA gets RSA leaves with unchanged v1 requests.
   */
  async chooseV1(command: {
    tenantId: string;
    principal: string;
    requestId?: string;
  }): Promise<KeyAlgorithm> {
    if (this.deployment === DEFAULT_DEPLOYMENT_KEY_ALGORITHM) return KeyAlgorithm.P256;
    return this.choose(undefined, command);
  }

  async choose(
    requested: KeyAlgorithm | undefined,
    command: { tenantId: string; principal: string; requestId?: string },
  ): Promise<KeyAlgorithm> {
    if (requested) {
      assertOfferedKeyAlgorithm(requested, this.deployment);
      return requested;
    }
    const known = this.known.get(command.tenantId);
    if (known && known.until > this.now()) return known.algorithm;
    const { cas } = await this.issuance.send(IssuancePattern.ListCas, command);
    const active = cas.filter(({ state }) => state === 'active');
    const signing =
      active.find(({ role }) => role === 'issuing') ?? active.find(({ role }) => role === 'root');
    // No CA that signs yet: issuance answers that (404 or 409); the key made meanwhile is the default.
    if (!signing) return KeyAlgorithm.P256;
    const chosen = defaultLeafKeyAlgorithm(signing.keyAlgorithm, this.deployment);
    if (this.known.size >= MAX_TENANTS) this.known.clear();
    this.known.set(command.tenantId, { algorithm: chosen, until: this.now() + KEEP_MS });
    return chosen;
  }
}

import { defaultLeafKeyAlgorithm, IssuanceApi, IssuancePattern, KeyAlgorithm } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';

const MAX_TENANTS = 10_000;

/**
 * docs/api.md#key-algorithms: the key the gateway makes for a v2 certificate when the body names
 * none: the family of the CA that signs the tenant's leaves (P-256 under an EC CA, RSA-3072 under
 * an RSA CA). A tenant's CAs do not change once made, so the answer is kept per tenant.
 */
export class LeafKeyAlgorithms {
  private readonly known = new Map<string, KeyAlgorithm>();

  constructor(private readonly issuance: RpcClient<IssuanceApi>) {}

  async choose(
    requested: KeyAlgorithm | undefined,
    command: { tenantId: string; principal: string; requestId?: string },
  ): Promise<KeyAlgorithm> {
    if (requested) return requested;
    const known = this.known.get(command.tenantId);
    if (known) return known;
    const { cas } = await this.issuance.send(IssuancePattern.ListCas, command);
    const signing = cas.find(({ role }) => role === 'issuing') ?? cas.find(({ role }) => role === 'root');
    // No CA yet: issuance answers that (404); the key made meanwhile is the default.
    if (!signing) return KeyAlgorithm.P256;
    const chosen = defaultLeafKeyAlgorithm(signing.keyAlgorithm);
    if (this.known.size >= MAX_TENANTS) this.known.clear();
    this.known.set(command.tenantId, chosen);
    return chosen;
  }
}

import { CaError } from '@ca/contracts';
import { CertificateAuthorityEntity } from './certificate-authority.entity';
import { EXTERNAL_KEY_CUSTODY } from './pending-ca.entity';

/**
 * docs/api.md#renew-the-root: only a root whose key is in this system's custody can sign a cross
 * certificate. A root held elsewhere (hierarchy `ExternalRoot`: the tenant's own offline root
 * signed our issuing CA) is renewed where its key is; then the tenant's operator adds an issuing
 * CA under the new root there. Refused with 409 CONFLICT, nothing changed.
 */
export function assertRootHeldHere(root: Pick<CertificateAuthorityEntity, 'keyCustody'>): void {
  if (root.keyCustody === EXTERNAL_KEY_CUSTODY) {
    throw CaError.conflict(
      "This tenant's root is held outside this system (ExternalRoot): renew it where its key is kept.",
    );
  }
}

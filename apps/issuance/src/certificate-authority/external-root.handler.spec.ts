import { DEFAULT_DEPLOYMENT_KEY_ALGORITHM } from '@ca/domain';
import { CaError, ErrorCode } from '@ca/contracts';
import type { CaKeyCustodies } from '../custody/ca-key-custodies';
import type { IssuanceDatabase } from '../issuance-database.store';
import { ExternalRootHandler } from './external-root.handler';

const TENANT = '6f1c2d3e-4a5b-4c6d-8e7f-101112131415';

/** A handler whose database and custody fail the test if touched. */
function handler(): ExternalRootHandler {
  const untouched = new Proxy(
    {},
    {
      get: (_target, name) => {
        throw new Error(`touched ${String(name)}`);
      },
    },
  );
  return new ExternalRootHandler({
    database: untouched as IssuanceDatabase,
    custodies: untouched as CaKeyCustodies,
    custodyKind: 'local',
    onEventsRecorded: () => undefined,
    pkiPublicUrl: '',
    deploymentKeyAlgorithm: DEFAULT_DEPLOYMENT_KEY_ALGORITHM,
  });
}

describe('ExternalRootHandler.addPending (docs/api.md#add-an-issuing-ca under a corporate root)', () => {
  it('refuses validityDays before making a key: the corporate CA sets the validity', async () => {
    const refused = handler().addPending({
      tenantId: TENANT,
      principal: 'admin',
      request: { validityDays: 30 },
    });
    await expect(refused).rejects.toBeInstanceOf(CaError);
    await expect(refused).rejects.toMatchObject({
      code: ErrorCode.ValidationFailed,
      errors: [expect.objectContaining({ field: 'validityDays' })],
    });
  });

  it('refuses an unknown key algorithm the same way', async () => {
    await expect(
      handler().addPending({
        tenantId: TENANT,
        principal: 'admin',
        request: { keyAlgorithm: 'P-521' as never },
      }),
    ).rejects.toMatchObject({ code: ErrorCode.ValidationFailed });
  });
});

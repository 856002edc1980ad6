import type { AddIssuingCaCommand } from '@ca/contracts';
import type { AddIssuingCaHandler } from './add-issuing-ca.handler';
import { CertificateAuthorityController } from './certificate-authority.controller';
import type { ExternalRootHandler } from './external-root.handler';

const command: AddIssuingCaCommand = {
  tenantId: '6f1c2d3e-4a5b-4c6d-8e7f-101112131415',
  principal: 'admin',
  request: {},
};

function controller(rootHeldOutside: boolean) {
  const addIssuingCa = { execute: jest.fn().mockResolvedValue({ caId: 'ours' }) };
  const externalRoot = {
    rootHeldOutside: jest.fn().mockResolvedValue(rootHeldOutside),
    addPending: jest.fn().mockResolvedValue({ caId: 'pending', state: 'pending' }),
  };
  const built = new CertificateAuthorityController(
    undefined as never,
    undefined as never,
    undefined as never,
    addIssuingCa as unknown as AddIssuingCaHandler,
    externalRoot as unknown as ExternalRootHandler,
    undefined as never,
    undefined as never,
    // The responder's direct path is beside the point here: the change just runs.
    { aroundCaChange: (_tenantId: unknown, change: () => unknown) => change() } as never,
  );
  return { built, addIssuingCa, externalRoot };
}

describe('POST /v2/ca/issuing (docs/api.md#add-an-issuing-ca)', () => {
  it('signs a new issuing CA with our root', async () => {
    const { built, addIssuingCa, externalRoot } = controller(false);
    await expect(built.addIssuing(command)).resolves.toEqual({ caId: 'ours' });
    expect(addIssuingCa.execute).toHaveBeenCalledWith(command);
    expect(externalRoot.addPending).not.toHaveBeenCalled();
  });

  it('under a corporate root, makes a pending CA whose CSR that root signs', async () => {
    const { built, addIssuingCa, externalRoot } = controller(true);
    await expect(built.addIssuing(command)).resolves.toEqual({ caId: 'pending', state: 'pending' });
    expect(externalRoot.rootHeldOutside).toHaveBeenCalledWith(command.tenantId);
    expect(addIssuingCa.execute).not.toHaveBeenCalled();
  });

  it('checks the command before reading anything', async () => {
    const { built, externalRoot } = controller(true);
    await expect(built.addIssuing({ ...command, tenantId: 'not-a-uuid' })).rejects.toThrow();
    expect(externalRoot.rootHeldOutside).not.toHaveBeenCalled();
  });
});

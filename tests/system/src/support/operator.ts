import { IssuanceApi } from '@ca/contracts';
import { GatewayOperations, openGatewayDatabase, parseOpsCommand } from '@ca/gateway';
import { SystemUnderTest } from './system-under-test';

export interface OperatorRun {
  code: number;
  out: string[];
  err: string[];
}

/**
 * `npm run ops -- <args>` as the operator runs it (docs/operations.md#operator-commands), in this
 * process on the system's database and bus: the same GatewayOperations, its lines collected.
 */
export async function runOperatorCommand(sut: SystemUnderTest, args: string[]): Promise<OperatorRun> {
  const dataSource = await openGatewayDatabase(sut.databaseUrl, 1);
  const issuance = sut.system.messaging.rpcClient<IssuanceApi>();
  try {
    const operations = new GatewayOperations(
      dataSource,
      { defaultCertificateLimit: sut.config.defaultCertificateLimit },
      issuance,
    );
    const out: string[] = [];
    const err: string[] = [];
    const code = await operations.run(parseOpsCommand(args), {
      out: async (line: string) => void out.push(line),
      err: async (line: string) => void err.push(line),
    });
    return { code, out, err };
  } finally {
    await issuance.close();
    await dataSource.destroy();
  }
}

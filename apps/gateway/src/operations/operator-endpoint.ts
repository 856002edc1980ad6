import { IssuanceApi } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { OperatorEndpoint, OperatorEndpointOptions, listenForOperatorCommands } from '@ca/operations';
import type { DataSource } from 'typeorm';
import { openGatewayDatabase } from '../gateway-database';
import { GatewayOperations, OpsDefaults } from './gateway-operations';
import { parseOpsCommand } from './ops-command';

export interface GatewayOperatorEndpointOptions extends OpsDefaults, Omit<OperatorEndpointOptions, 'run'> {
  /** The embedded database that holds the gateway's schema. */
  databaseUrl: string;
  /** A client of issuance, for `expiring`; closed with the endpoint. */
  issuance?: RpcClient<IssuanceApi>;
}

/**
 * The embedded operator endpoint (docs/api.md#operator-commands) with the gateway's commands on
 * its own schema as the default; the other contexts' groups come in `commandGroups`.
 */
export async function startOperatorEndpoint(
  options: GatewayOperatorEndpointOptions,
): Promise<OperatorEndpoint> {
  const dataSource = await openGatewayDatabase(options.databaseUrl, 2);
  const operations = new GatewayOperations(dataSource, options, options.issuance);
  let endpoint: OperatorEndpoint;
  try {
    endpoint = await listenForOperatorCommands({
      ...options,
      run: (argv, io) => operations.run(parseOpsCommand(argv), io),
    });
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return {
    url: endpoint.url,
    close: async () => {
      await endpoint.close();
      await destroy(dataSource);
      await options.issuance?.close();
    },
  };
}

async function destroy(dataSource: DataSource): Promise<void> {
  if (dataSource.isInitialized) await dataSource.destroy();
}

import 'reflect-metadata';
import { runService } from '@ca/runtime';
import { startGateway } from './start-gateway';

void runService({ name: 'gateway', start: startGateway, startupPort: (config) => config.gatewayPort });

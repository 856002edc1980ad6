import 'reflect-metadata';
import { runService } from '@ca/runtime';
import { startOcspResponder } from './start-ocsp-responder';

void runService({
  name: 'ocsp-responder',
  start: startOcspResponder,
  startupPort: (config) => config.pkiPort,
  // OCSP_RESPONDER_WORKERS: the responder on every core, each worker a replica (docs/operations.md#scaling-the-responder).
  workers: (config) => config.ocsp.workers,
});

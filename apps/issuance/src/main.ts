import 'reflect-metadata';
import { runService } from '@ca/runtime';
import { startIssuance } from './start-issuance';

void runService({ name: 'issuance', defaultHealthPort: 3002, start: startIssuance });

import 'reflect-metadata';
import { runService } from '@ca/runtime';
import { startRevocation } from './start-revocation';

void runService({ name: 'revocation', defaultHealthPort: 3003, start: startRevocation });

import 'reflect-metadata';
import { runService } from '@ca/runtime';
import { startAcme } from './start-acme';

void runService({ name: 'acme', defaultHealthPort: 3004, start: startAcme });

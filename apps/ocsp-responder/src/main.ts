import 'reflect-metadata';
import { runService } from '@ca/runtime';
import { startOcspResponder } from './start-ocsp-responder';

void runService({ name: 'ocsp-responder', start: startOcspResponder });

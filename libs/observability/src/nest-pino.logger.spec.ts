import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { NestPinoLogger } from './nest-pino.logger';

function nestLogger(level: string): { nest: NestPinoLogger; messages: () => string[] } {
  const chunks: string[] = [];
  const destination = new Writable({ write: (chunk, _e, done) => (chunks.push(String(chunk)), done()) });
  const nest = new NestPinoLogger(createLogger({ level, service: 'gateway', destination }));
  const messages = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
  return { nest, messages };
}

describe('NestPinoLogger', () => {
  it("keeps Nest's route list and module wiring out of the info level", () => {
    const { nest, messages } = nestLogger('info');
    nest.log('AppController {/v1/ca}:', 'RoutesResolver');
    nest.log('Mapped {/v1/ca/initialize, POST} route', 'RouterExplorer');
    nest.log('GatewayModule dependencies initialized', 'InstanceLoader');
    nest.log('Nest application successfully started', 'NestApplication');
    expect(messages()).toEqual(['Nest application successfully started']);
  });

  it('shows them at debug', () => {
    const { nest, messages } = nestLogger('debug');
    nest.log('Mapped {/v1/ca/initialize, POST} route', 'RouterExplorer');
    expect(messages()).toEqual(['Mapped {/v1/ca/initialize, POST} route']);
  });
});

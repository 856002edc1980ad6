import { Controller, Get, HttpCode, ServiceUnavailableException } from '@nestjs/common';

/** `/health/live` (the process answers) and `/health/ready` (its dependencies answer). */
export function healthController(ready: () => Promise<boolean>) {
  @Controller('health')
  class HealthController {
    @Get('live')
    @HttpCode(200)
    live() {
      return { status: 'ok' };
    }

    @Get('ready')
    async ready() {
      if (!(await ready().catch(() => false)))
        throw new ServiceUnavailableException({ status: 'unavailable' });
      return { status: 'ok' };
    }
  }
  return HealthController;
}

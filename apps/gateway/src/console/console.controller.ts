import { Controller, Get, Inject, Param, Res, StreamableFile } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiExcludeController } from '@nestjs/swagger';
import { CaError, ErrorCode } from '@ca/contracts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Public } from '../auth/auth.decorators';
import { ConsoleSite } from './console-site';

export const CONSOLE_SITE = Symbol('CONSOLE_SITE');

const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};
/** Asset names as the build writes them: content-hashed, so they may be cached for good. */
const ASSET_NAME = /^[a-z0-9-]+\.(js|css|svg)$/;

/**
 * The operator console (docs/console.md): static files of the build, no bearer token (the page
 * signs in and calls the API itself). Every path under /console/ that is not an asset answers
 * index.html, so a deep link works on reload. Headers go through Nest's HTTP adapter, so this
 * does not depend on the HTTP library underneath.
 */
@Public()
@ApiExcludeController()
@Controller('console')
export class ConsoleController {
  constructor(
    @Inject(CONSOLE_SITE) private readonly site: ConsoleSite,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Get('config.json')
  config(@Res() response: unknown): void {
    this.send(response, 'application/json', Buffer.from(JSON.stringify(this.site.settings)), 'no-store');
  }

  @Get('assets/:file')
  async asset(@Param('file') file: string, @Res() response: unknown): Promise<void> {
    const match = ASSET_NAME.exec(file);
    const body = match
      ? await readFile(join(this.site.directory, 'assets', file)).catch(() => undefined)
      : undefined;
    if (!match || !body) throw new CaError(ErrorCode.NotFound, 'There is no such file in the console.');
    const cache = match[1] === 'svg' ? 'public, max-age=3600' : 'public, max-age=31536000, immutable';
    this.send(response, CONTENT_TYPES[match[1]], body, cache);
  }

  @Get()
  index(@Res() response: unknown): Promise<void> {
    return this.page(response);
  }

  @Get('*path')
  deepLink(@Res() response: unknown): Promise<void> {
    return this.page(response);
  }

  private async page(response: unknown): Promise<void> {
    const body = await readFile(join(this.site.directory, 'index.html')).catch(() => undefined);
    if (!body)
      throw new CaError(
        ErrorCode.ServiceUnavailable,
        'The console is not built on this server: run `npx nx build console` (npm start does it).',
      );
    this.send(response, 'text/html; charset=utf-8', body, 'no-store');
  }

  private send(response: unknown, contentType: string, body: Buffer, cacheControl: string): void {
    const http = this.adapterHost.httpAdapter;
    http.setHeader(response, 'Content-Type', contentType);
    http.setHeader(response, 'Cache-Control', cacheControl);
    http.setHeader(response, 'Content-Security-Policy', this.site.contentSecurityPolicy);
    http.setHeader(response, 'X-Content-Type-Options', 'nosniff');
    http.setHeader(response, 'Referrer-Policy', 'no-referrer');
    http.setHeader(response, 'Cross-Origin-Opener-Policy', 'same-origin');
    http.reply(response, new StreamableFile(body, { type: contentType, length: body.length }), 200);
  }
}

import { ServerResponse } from 'node:http';
import { sendBody } from './send-body';

/** 405 with the methods the resource has (RFC 9110 15.5.6: `Allow` is required). */
export function methodNotAllowed(res: ServerResponse, allow: string): void {
  res.setHeader('Allow', allow);
  res.setHeader('Cache-Control', 'no-store');
  const body = Buffer.from(
    JSON.stringify({
      type: 'about:blank',
      title: 'Method Not Allowed',
      status: 405,
      detail: `This resource allows ${allow} only.`,
    }),
  );
  sendBody(res, 405, 'application/problem+json; charset=utf-8', body);
}

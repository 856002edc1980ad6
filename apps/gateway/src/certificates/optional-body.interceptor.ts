import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';

/**
 * For a route whose body is optional: a request without one (body-parser leaves `req.body`
 * undefined) is taken as `{}`. Interceptors run before pipes, so the body still goes through the
 * same validation as every other (a JSON `null` or an array is still refused).
 */
@Injectable()
export class OptionalBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<{ body?: unknown }>();
    if (request.body === undefined) request.body = {};
    return next.handle();
  }
}

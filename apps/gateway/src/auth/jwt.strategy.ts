import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AuthenticatedPrincipal } from './authenticated-principal';
import { TokenVerifier } from './token-verifier';

type VerifyCallback = (error: unknown, payload?: unknown) => void;
interface VerifierOptions {
  tokenVerifier: TokenVerifier;
}

/*
 * passport-jwt verifies through jsonwebtoken, which has neither EdDSA nor JWKS. Its static
 * `JwtVerifier` (the seam passport-jwt's own tests replace) is pointed at our jose-based TokenVerifier, which
 * passport-jwt hands the options given as `jsonWebTokenOptions`.
 */
(Strategy as unknown as { JwtVerifier: unknown }).JwtVerifier = (
  token: string,
  _secretOrKey: unknown,
  options: VerifierOptions,
  callback: VerifyCallback,
) => {
  options.tokenVerifier.verify(token).then(
    (principal) => callback(null, principal),
    (error: unknown) => callback(error),
  );
};

/** The `jwt` passport strategy: Bearer token → AuthenticatedPrincipal on `request.user`. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(tokenVerifier: TokenVerifier) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // Required by passport-jwt; the key itself lives in the TokenVerifier.
      secretOrKeyProvider: (_req: unknown, _token: unknown, done: (e: unknown, key: string) => void) =>
        done(null, 'jose'),
      jsonWebTokenOptions: { tokenVerifier } as never,
    });
  }

  validate(principal: AuthenticatedPrincipal): AuthenticatedPrincipal {
    return principal;
  }
}

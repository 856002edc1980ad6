import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { AcmeApi, AcmePattern, CaError, EabKeySummary } from '@ca/contracts';
import { RpcClient } from '@ca/messaging';
import { CurrentPrincipal, RequireScope } from '../auth/auth.decorators';
import { AuthenticatedPrincipal, Scope } from '../auth/authenticated-principal';
import { RequestWithId } from '../http/request-id';
import { writeCommand } from '../certificates/write-command';
import { relaySealedSecret } from '../http/sealed-secret-relay';
import { ACME_RPC } from './acme-rpc';

class CreatedEabKeyDoc {
  @ApiProperty({ description: 'The key identifier, the `kid` of the external account binding.' })
  keyId!: string;
  @ApiProperty({ description: 'The HMAC key, base64url (32 random octets). Shown once, never again.' })
  hmacKey!: string;
  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
}

class EabKeySummaryDoc {
  @ApiProperty()
  keyId!: string;
  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
  @ApiPropertyOptional({ description: 'The ACME account the key was used for (one at most).' })
  boundAccount?: string;
  @ApiProperty()
  disabled!: boolean;
}

class EabKeyListDoc {
  @ApiProperty({ type: [EabKeySummaryDoc] })
  keys!: EabKeySummaryDoc[];
}

/**
 * docs/api.md#acme-external-account-binding: the credentials an ACME client needs to open an account
 * in this tenant. The acme context makes and keeps the HMAC key and seals it to a key this request
 * generates, so it never crosses the bus in clear.
 */
@ApiTags('ACME')
@ApiBearerAuth()
@Controller('v2/acme/eab-keys')
export class EabKeysController {
  constructor(@Inject(ACME_RPC) private readonly acme: RpcClient<AcmeApi>) {}

  @Post()
  @HttpCode(201)
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: 'Create External Account Binding credentials (the HMAC key is shown once)',
    operationId: 'createEabKey',
  })
  @ApiCreatedResponse({ type: CreatedEabKeyDoc })
  async create(@CurrentPrincipal() principal: AuthenticatedPrincipal, @Req() req: RequestWithId) {
    const { reply: created, secret: hmacKey } = await relaySealedSecret(
      'key',
      (recipientPublicKey) =>
        this.acme.send(AcmePattern.CreateEabKey, { ...writeCommand(principal, req), recipientPublicKey }),
      (reply) => reply.sealedHmacKey,
    );
    return { keyId: created.keyId, hmacKey, createdAt: created.createdAt };
  }

  @Get()
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: 'List External Account Binding keys (without the keys)',
    operationId: 'listEabKeys',
  })
  @ApiOkResponse({ type: EabKeyListDoc })
  list(@CurrentPrincipal() principal: AuthenticatedPrincipal): Promise<{ keys: EabKeySummary[] }> {
    return this.acme.send(AcmePattern.ListEabKeys, { tenantId: principal.tenantId });
  }

  @Delete(':keyId')
  @RequireScope(Scope.CaAdmin)
  @ApiOperation({
    summary: 'Disable an External Account Binding key (accounts already bound keep working)',
    operationId: 'disableEabKey',
  })
  @ApiOkResponse({ type: EabKeySummaryDoc })
  disable(
    @Param('keyId') keyId: string,
    @CurrentPrincipal() principal: AuthenticatedPrincipal,
    @Req() req: RequestWithId,
  ): Promise<EabKeySummary> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(keyId)) throw CaError.notFound('No such EAB key in this tenant.');
    return this.acme.send(AcmePattern.DisableEabKey, { ...writeCommand(principal, req), keyId });
  }
}

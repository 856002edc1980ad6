import { JWK } from 'jose';
import { EabKeys } from '../eab/eab-keys';
import { AcmeProblem, malformed, unauthorized } from './acme-problem';
import { json } from './acme-reply';
import { AcmeResource } from './acme-server';
import { AccountStore } from '../stores/account.store';
import { OrderStore } from '../stores/order.store';
import { accountView } from './acme-views';
import { verifyExternalAccountBinding } from './eab-binding';
import {
  jsonPayload,
  parseFlattenedJws,
  postAsGet,
  publicPart,
  readProtectedHeader,
  thumbprint,
  verifyJwsSignature,
} from './jws-request';

const MAX_CONTACTS = 10;

/** RFC 8555 7.3: contact URLs, mailto: only (7.3 says a server may limit the schemes). */
function readContact(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_CONTACTS) {
    throw malformed(`contact must be a list of at most ${MAX_CONTACTS} mailto: URLs`);
  }
  for (const entry of value) {
    if (typeof entry !== 'string' || !/^mailto:[^\s,?%<>]{3,254}$/.test(entry) || !entry.includes('@')) {
      throw new AcmeProblem('invalidContact', 'contact entries must be mailto: URLs with one address');
    }
  }
  return value as string[];
}

/** RFC 8555 7.3, 7.3.1, 7.3.4: new accounts (EAB required), and finding an account by its key. */
export function newAccountResource(accounts: AccountStore, eabKeys: EabKeys): AcmeResource {
  return {
    key: 'jwk',
    async handle(ctx, post) {
      const payload = jsonPayload(post.payload);
      const jwk = publicPart(post.jwk);
      const keyThumbprint = await thumbprint(jwk);
      const existing = await accounts.findByThumbprint(ctx.tenantId, keyThumbprint);
      if (existing) {
        // RFC 8555 7.3.6: nothing signed with a deactivated account's key is accepted any more.
        if (existing.status !== 'valid') {
          throw new AcmeProblem('unauthorized', `the account of this key is ${existing.status}`, 401);
        }
        return json(200, accountView(ctx.urls, existing), { location: ctx.urls.account(existing.id) });
      }
      if (payload.onlyReturnExisting === true) {
        throw new AcmeProblem('accountDoesNotExist', 'no account exists with this key', 400);
      }
      const contact = readContact(payload.contact);
      const key = await verifyExternalAccountBinding(payload.externalAccountBinding, {
        tenantId: ctx.tenantId,
        newAccountUrl: ctx.urls.newAccount(),
        accountJwk: jwk,
        findKey: (keyId) => eabKeys.find(keyId),
      });
      const account = await accounts.createBound({
        tenantId: ctx.tenantId,
        jwk,
        thumbprint: keyThumbprint,
        contact,
        eabKeyId: key.keyId,
      });
      if (!account) throw unauthorized('this external account key is already bound or disabled');
      return json(201, accountView(ctx.urls, account), { location: ctx.urls.account(account.id) });
    },
  };
}

/** RFC 8555 7.3.2, 7.3.6: read, update the contact, deactivate. */
export function accountResource(accounts: AccountStore): AcmeResource {
  return {
    key: 'kid',
    async handle(ctx, post, [id]) {
      const account = post.account!;
      if (account.id !== id) throw unauthorized('an account can only read and change itself');
      if (post.payload !== '') {
        const payload = jsonPayload(post.payload);
        if (payload.contact !== undefined) account.contact = readContact(payload.contact);
        if (payload.status !== undefined) {
          if (payload.status !== 'deactivated') throw malformed('status can only be set to deactivated');
          account.status = 'deactivated';
        }
        await accounts.update(account);
      }
      return json(200, accountView(ctx.urls, account), { location: ctx.urls.account(account.id) });
    },
  };
}

/** RFC 8555 7.1.2.1: the account's orders. */
export function accountOrdersResource(orders: OrderStore): AcmeResource {
  return {
    key: 'kid',
    async handle(ctx, post, [id]) {
      postAsGet(post.payload);
      if (post.account!.id !== id) throw unauthorized('an account can only list its own orders');
      const ids = await orders.orderIdsOf(id);
      return json(200, { orders: ids.map(ctx.urls.order) });
    },
  };
}

/** RFC 8555 7.3.5: roll the account key over; the inner JWS is signed by the new key. */
export function keyChangeResource(accounts: AccountStore): AcmeResource {
  return {
    key: 'kid',
    async handle(ctx, post) {
      const account = post.account!;
      const inner = parseFlattenedJws(Buffer.from(post.payload, 'utf8'));
      const header = readProtectedHeader(inner);
      if (!header.jwk) throw malformed('the inner JWS must carry the new key as jwk');
      if (header.nonce !== undefined) throw malformed('the inner JWS must not carry a nonce');
      if (header.url !== post.header.url) throw malformed('the inner JWS url must equal the outer one');
      const payload = jsonPayload(await verifyJwsSignature(inner, header, header.jwk));
      if (payload.account !== ctx.urls.account(account.id))
        throw malformed('account must be the URL of the signing account');
      const oldKey = payload.oldKey as JWK | undefined;
      if (
        typeof oldKey !== 'object' ||
        oldKey === null ||
        (await thumbprint(publicPart(oldKey))) !== account.thumbprint
      ) {
        throw malformed('oldKey must be the current account key');
      }
      const newKey = publicPart(header.jwk);
      const newThumbprint = await thumbprint(newKey);
      const holder = await accounts.findByThumbprint(ctx.tenantId, newThumbprint);
      if (holder) {
        throw new AcmeProblem('malformed', 'the new key is already used by an account', 409, {
          location: ctx.urls.account(holder.id),
        });
      }
      account.jwk = newKey;
      account.thumbprint = newThumbprint;
      await accounts.update(account);
      return json(200, accountView(ctx.urls, account), { location: ctx.urls.account(account.id) });
    },
  };
}

import type { Context } from 'koa';
import { findApiKey } from '../../db/companies/api-key.repository.ts';
import type { Scope } from '../../db/companies/api-key.entity.ts';
import type { Feature } from '../../db/companies/company.entity.ts';
import { systemEm, type Orm } from '../../db/orm.ts';
import { ApiError, unauthorized } from '../errors.ts';
import type { AuthMode, Caller } from '../route.ts';

const ERP_AUTHORIZATION = /^ApiKey\s+(\S+)$/i;

/** Reads the key from the header its API uses: `api-key` on the public API, `Authorization: ApiKey` on the ERP API. */
function presentedKey(ctx: Context, mode: Exclude<AuthMode, 'none'>): string | null {
  if (mode === 'api-key') return ctx.get('api-key') || null;
  return ERP_AUTHORIZATION.exec(ctx.get('authorization'))?.[1] ?? null;
}

/** Resolves the calling company from its API key; 401 when the key is missing, unknown or revoked. */
export async function authenticate(ctx: Context, orm: Orm, mode: Exclude<AuthMode, 'none'>): Promise<Caller> {
  const plaintext = presentedKey(ctx, mode);
  if (!plaintext) throw unauthorized();
  const apiKey = await findApiKey(systemEm(orm), plaintext);
  if (!apiKey) throw unauthorized();
  return { company: apiKey.company, apiKeyId: apiKey.id, apiKeyPrefix: apiKey.prefix, scopes: apiKey.scopes };
}

/** Scoped keys reach only what their scopes name (nothing where no scope applies); unscoped keys keep full access. */
export function authorize(caller: Caller, scope: Scope | undefined, feature: Feature | undefined): void {
  if (caller.scopes.length > 0 && !(scope && caller.scopes.includes(scope))) {
    const message = scope ? `This API key lacks the scope ${scope}` : 'This endpoint needs an API key without scopes';
    throw new ApiError(403, 'insufficient_scope', message, { extras: { required_scope: scope ?? null } });
  }
  if (feature && !caller.company.features.includes(feature)) {
    throw new ApiError(403, 'feature_not_enabled', `The ${feature} feature is not enabled for this company`, {
      shape: 'step',
    });
  }
}

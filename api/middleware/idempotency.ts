import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { uuidv7 } from '../../db/ids.ts';
import { IdempotencyKey } from '../../db/idempotency/idempotency-key.entity.ts';
import { companyEm, type Orm } from '../../db/orm.ts';
import { ApiError, validationError } from '../errors.ts';
import { formDigest, type MultipartBody } from '../multipart.ts';
import type { Caller, Reply } from '../route.ts';

const TTL_MS = 24 * 60 * 60 * 1000;
const KEY = /^[\x21-\x7e]{1,255}$/;
/**
 * A claim still in progress after this long was abandoned: its process died mid-request, or could not release it
 * while the database was down. No request runs this long (Temporal commands give up after 20 s), so the next
 * attempt with the key takes it over instead of being told "in progress" for 24 hours.
 */
const ABANDONED_AFTER_MS = 30_000;

/**
 * `Idempotency-Key` on a POST: the first request runs and its answer is kept for 24 hours; the same key with the
 * same body (as `requestContent` compares it: a multipart body by its `form`) replays it (status and body), with
 * another body is refused (422 `idempotency_key_reused`), and while the first still runs answers 409
 * `idempotency_key_in_progress`. Server errors and 429 are not kept: they say "not now", so the same key must be
 * evaluated afresh when the client retries; nor is a claim its request abandoned (see ABANDONED_AFTER_MS). The body
 * is digested only when a key is sent: an upload without one is not hashed.
 */
export async function idempotent(
  ctx: Context,
  orm: Orm,
  caller: Caller,
  form: MultipartBody | undefined,
  run: () => Promise<Reply>,
): Promise<Reply> {
  const key = ctx.request.headers['idempotency-key'];
  if (key === undefined || ctx.method !== 'POST') return run();
  if (typeof key !== 'string') throw validationError({ 'Idempotency-Key': ['Send one Idempotency-Key header'] });
  if (!KEY.test(key)) throw validationError({ 'Idempotency-Key': ['Must be 1 to 255 visible ASCII characters'] });
  const em = companyEm(orm, caller.company.id);
  const requestHash = createHash('sha256')
    .update(`${ctx.method} ${ctx.path}\n`)
    .update(requestContent(ctx, form))
    .digest('hex');
  const now = new Date();
  await em.nativeDelete(IdempotencyKey, { key, expiresAt: { $lte: now } });
  const claimed = await em
    .insert(IdempotencyKey, {
      id: uuidv7(),
      company: caller.company,
      key,
      method: ctx.method,
      path: ctx.path,
      requestHash,
      status: 'in_progress',
      responseStatus: null,
      responseBody: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + TTL_MS),
    })
    .then(
      () => true,
      (error: { name?: string }) => {
        if (error.name === 'UniqueConstraintViolationException') return false;
        throw error;
      },
    );
  const takenOver =
    !claimed &&
    (await em.nativeUpdate(
      IdempotencyKey,
      { key, requestHash, status: 'in_progress', createdAt: { $lt: new Date(now.getTime() - ABANDONED_AFTER_MS) } },
      { createdAt: now },
    )) === 1;
  if (!claimed && !takenOver) return replay(ctx, await em.findOneOrFail(IdempotencyKey, { key }), requestHash);

  let reply: Reply;
  try {
    reply = await run();
  } catch (error) {
    if (error instanceof ApiError && isFinalAnswer(error.status)) {
      await em.nativeUpdate(
        IdempotencyKey,
        { key },
        { status: 'completed', responseStatus: error.status, responseBody: JSON.stringify(error.body) },
      );
    } else {
      await em.nativeDelete(IdempotencyKey, { key });
    }
    throw error;
  }
  await em.nativeUpdate(
    IdempotencyKey,
    { key },
    {
      status: 'completed',
      responseStatus: reply.status,
      responseBody: reply.body === undefined ? null : JSON.stringify(reply.body),
    },
  );
  return reply;
}

/** What a request's key is held to: its JSON as sent, or what its multipart form holds (not the form's boundary). */
export function requestContent(ctx: Context, form: MultipartBody | undefined): string {
  return form ? `multipart ${formDigest(form)}` : (ctx.request.rawBody ?? '');
}

/** A client error other than a rate limit would be answered again as it was: a retry may replay it. */
const isFinalAnswer = (status: number) => status < 500 && status !== 429;

function replay(ctx: Context, stored: IdempotencyKey, requestHash: string): Reply {
  if (stored.requestHash !== requestHash)
    throw new ApiError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with another request');
  if (stored.status === 'in_progress')
    throw new ApiError(
      409,
      'idempotency_key_in_progress',
      'A request with this Idempotency-Key is still running; retry shortly',
    );
  ctx.set('idempotent-replayed', 'true');
  return {
    status: stored.responseStatus ?? 200,
    body: stored.responseBody == null ? undefined : JSON.parse(stored.responseBody),
  } as Reply;
}

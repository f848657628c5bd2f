// DIAN's side of Colombian fiscal sync, for the embedded default and the tests. Two things:
// - the access-token service (`POST /auth/token` with the company's NIT and legal representative), steered per NIT
//   (refuse the credentials, or fail with HTTP 503), from code or over `/_control/...`;
// - the mailbox the companies' DIAN e-mail is forwarded to: a Maildir directory (`<dir>/<companyRef>/new/`), the same
//   layout the product reads in production, filled by `deliver()` or `POST /_control/mailboxes/<companyRef>/messages`.
// Kept apart from simulators/dian (RADIAN events) so that each can change on its own.
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { tempDir } from '../../platform/temp-dir.ts';
import { failure, reply, serveJson, type SimulatorReply } from '../http.ts';
import { isObject } from '../../platform/json.ts';
import { deliverMail, type OutgoingMail } from './mail.ts';

export const DIAN_TOKEN_MODES = ['issue', 'refuse', 'fail'] as const;
export type DianTokenMode = (typeof DIAN_TOKEN_MODES)[number];

export interface TokenRequest {
  receivedAt: string;
  nit: string | null;
  legalRepresentative: string | null;
  status: number;
}

export interface DianMailboxSimulator {
  /** The access-token service. */
  url: string;
  /** The Maildir root companies' e-mail is delivered to. */
  mailboxDir: string;
  behave(nit: string, mode: DianTokenMode, times?: number): void;
  tokenRequests(nit?: string): TokenRequest[];
  deliver(companyId: string, mail: OutgoingMail): string;
  reset(): void;
  stop: () => Promise<void>;
}

/** Starts the token service on loopback and makes the mailbox (`mailboxDir`, else a fresh temporary directory). */
export async function startDianMailboxSimulator(
  options: { port?: number; host?: string; mailboxDir?: string } = {},
): Promise<DianMailboxSimulator> {
  const ownDir = !options.mailboxDir;
  const mailboxDir = options.mailboxDir ?? tempDir('ap-dian-mailbox-');
  mkdirSync(mailboxDir, { recursive: true });
  const requests: TokenRequest[] = [];
  const behaviours = new Map<string, { mode: DianTokenMode; remaining: number | null }>();

  const behave = (nit: string, mode: DianTokenMode, times?: number) => {
    if (!DIAN_TOKEN_MODES.includes(mode)) throw new RangeError(`mode must be one of ${DIAN_TOKEN_MODES.join(', ')}`);
    if (times !== undefined && !(Number.isInteger(times) && times > 0))
      throw new RangeError('times must be a positive integer');
    behaviours.set(nit, { mode, remaining: times ?? null });
  };
  const take = (nit: string): DianTokenMode => {
    const behaviour = behaviours.get(nit);
    if (!behaviour) return 'issue';
    if (behaviour.remaining !== null && --behaviour.remaining === 0) behaviours.delete(nit);
    return behaviour.mode;
  };

  const token = (body: unknown): SimulatorReply => {
    const nit = isObject(body) && typeof body.nit === 'string' ? body.nit : null;
    const representative =
      isObject(body) && typeof body.legal_representative === 'string' ? body.legal_representative : null;
    let answer: SimulatorReply;
    if (!nit || !/^\d{5,15}$/.test(nit) || !representative)
      answer = failure(400, 'invalid_request', 'nit (digits) and legal_representative are required');
    else {
      const mode = take(nit);
      if (mode === 'fail') answer = failure(503, 'unavailable', 'The DIAN service is temporarily unavailable');
      else if (mode === 'refuse')
        answer = failure(401, 'invalid_credentials', 'The legal representative is not registered for this NIT');
      else
        answer = reply(200, {
          request_id: randomUUID(),
          message: 'The access token was sent to the e-mail registered with DIAN',
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        });
    }
    requests.push({
      receivedAt: new Date().toISOString(),
      nit,
      legalRepresentative: representative,
      status: answer.status,
    });
    return answer;
  };

  const control = (method: string, segments: string[], body: unknown): SimulatorReply => {
    try {
      if (method === 'POST' && segments[1] === 'nits' && segments[3] === 'behave' && segments.length === 4) {
        const input = isObject(body) ? body : {};
        behave(segments[2]!, input.mode as DianTokenMode, input.times as number | undefined);
        return reply(200, { nit: segments[2], mode: input.mode });
      }
      if (method === 'GET' && segments[1] === 'token-requests')
        return reply(200, { requests: requests.filter((request) => !segments[2] || request.nit === segments[2]) });
      if (method === 'POST' && segments[1] === 'mailboxes' && segments[3] === 'messages' && segments.length === 4) {
        const input = isObject(body) ? body : {};
        const attachments = Array.isArray(input.attachments) ? input.attachments : [];
        const path = deliverMail(mailboxDir, segments[2]!, {
          ...(typeof input.subject === 'string' ? { subject: input.subject } : {}),
          ...(typeof input.received_at === 'string' ? { receivedAt: new Date(input.received_at) } : {}),
          attachments: attachments.filter(isObject).map((attachment) => ({
            name: String(attachment.name),
            data: new Uint8Array(
              Buffer.from(typeof attachment.content_base64 === 'string' ? attachment.content_base64 : '', 'base64'),
            ),
          })),
        });
        return reply(201, { path });
      }
      if (method === 'POST' && segments[1] === 'reset') {
        reset();
        return reply(200, { ok: true });
      }
    } catch (cause) {
      return failure(400, 'invalid_request', (cause as Error).message);
    }
    return failure(
      404,
      'not_found',
      'Control routes: POST /_control/nits/<nit>/behave, GET /_control/token-requests[/<nit>], POST /_control/mailboxes/<companyRef>/messages, POST /_control/reset',
    );
  };

  const reset = () => {
    requests.length = 0;
    behaviours.clear();
  };

  const server = await serveJson(
    ({ method, segments, json }) => {
      if (segments[0] === '_control') return control(method, segments, json);
      if (method === 'POST' && segments.join('/') === 'auth/token') return token(json);
      return failure(404, 'not_found', 'Routes: POST /auth/token');
    },
    { ...(options.port !== undefined ? { port: options.port } : {}), ...(options.host ? { host: options.host } : {}) },
  );
  return {
    url: server.url,
    mailboxDir,
    behave,
    tokenRequests: (nit) => requests.filter((request) => !nit || request.nit === nit),
    deliver: (companyId, mail) => deliverMail(mailboxDir, companyId, mail),
    reset,
    async stop() {
      await server.stop();
      if (ownDir) rmSync(mailboxDir, { recursive: true, force: true });
    },
  };
}

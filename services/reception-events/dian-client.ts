// The adapter to DIAN's event service (or its simulator, or a signing gateway in front of DIAN) at a configurable base
// URL. It speaks JSON shaped like the SOAP operation SendEventUpdateStatus: the event goes as `contentFile` (base64),
// the answer carries IsValid, StatusCode (00 processed, 99 rejected), ErrorMessage (the rules broken) and
// XmlBase64Bytes (DIAN's own ApplicationResponse, with the time it registered the event).

import { ApplicationFailure } from '@temporalio/common';
import type { ApplicationResponse } from './application-response.ts';

export interface DianEventAnswer {
  /** StatusCode 00: DIAN registered the event. */
  accepted: boolean;
  /** DIAN had already registered this very event (rule 90): a retry after a lost answer. */
  alreadyRegistered: boolean;
  statusCode: string;
  /** DIAN's messages: the rules broken, for a rejection. */
  errors: string[];
  /** When DIAN registered the event, from its ApplicationResponse. */
  registeredAt: Date | null;
  /** The answer as received, kept with the event. */
  raw: Record<string, unknown>;
}

const REQUEST_TIMEOUT_MS = 15_000;
/** "Documento procesado anteriormente": DIAN's answer to an event it already holds. */
const REPEATED_RULE = /^Regla:\s*90\b/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Answers that may succeed later: no answer, a timeout, throttling, or DIAN's side failing. */
const transient = (message: string) => ApplicationFailure.retryable(message, 'DianUnavailable');

/** Submits one event (SendEventUpdateStatus); throws DianUnavailable (retryable) or DianRequestRefused (not retryable). */
export async function sendEventUpdateStatus(baseUrl: string, event: ApplicationResponse): Promise<DianEventAnswer> {
  if (!baseUrl) throw ApplicationFailure.nonRetryable('DIAN_URL is not configured', 'DianRequestRefused');
  const fileName = `${event.ApplicationResponse.UUID.value}.json`;
  const contentFile = Buffer.from(JSON.stringify(event), 'utf8').toString('base64');
  let response: Response;
  try {
    response = await fetch(new URL('SendEventUpdateStatus', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'accounts-payable-radian/1' },
      body: JSON.stringify({ fileName, contentFile }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      redirect: 'manual',
    });
  } catch (thrown) {
    const cause = thrown as Error;
    throw transient(
      cause.name === 'TimeoutError'
        ? `No answer within ${REQUEST_TIMEOUT_MS / 1000} s`
        : `${cause.message}${cause.cause ? `: ${(cause.cause as Error).message}` : ''}`,
    );
  }
  const text = await response.text();
  if (response.status === 408 || response.status === 429 || response.status >= 500)
    throw transient(`DIAN answered HTTP ${response.status}`);
  if (response.status !== 200)
    throw ApplicationFailure.nonRetryable(
      `DIAN refused the request with HTTP ${response.status}: ${text.slice(0, 300)}`,
      'DianRequestRefused',
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw transient('DIAN answered something that is not a SendEventUpdateStatus response');
  }
  if (!isObject(body) || typeof body.IsValid !== 'boolean') throw transient('DIAN answered without IsValid');
  const errors = Array.isArray(body.ErrorMessage)
    ? body.ErrorMessage.filter((entry): entry is string => typeof entry === 'string')
    : [];
  const accepted = body.IsValid === true && body.StatusCode === '00';
  return {
    accepted,
    alreadyRegistered: !accepted && errors.length > 0 && errors.every((error) => REPEATED_RULE.test(error)),
    statusCode: typeof body.StatusCode === 'string' ? body.StatusCode : '',
    errors:
      errors.length || accepted
        ? errors
        : [typeof body.StatusDescription === 'string' ? body.StatusDescription : 'Rejected by DIAN without a reason'],
    registeredAt: registrationTime(body.XmlBase64Bytes),
    raw: body,
  };
}

/** IssueDate + IssueTime of DIAN's ApplicationResponse, when it sent one. */
function registrationTime(encoded: unknown): Date | null {
  if (typeof encoded !== 'string' || encoded === '') return null;
  try {
    const document = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as {
      ApplicationResponse?: { IssueDate?: unknown; IssueTime?: unknown };
    };
    const { IssueDate, IssueTime } = document.ApplicationResponse ?? {};
    if (typeof IssueDate !== 'string' || typeof IssueTime !== 'string') return null;
    const instant = new Date(`${IssueDate}T${IssueTime}`);
    return Number.isNaN(instant.getTime()) ? null : instant;
  } catch {
    return null;
  }
}

// The client of DIAN's event web service (WcfDianCustomerServices.svc, or a simulator of it at DIAN_URL): a signed
// ApplicationResponse goes zipped, base64, in `SendEventUpdateStatus` (or, during a company's habilitación with a test
// set, `SendTestSetAsync`, then `GetStatusZip`), in a SOAP 1.2 envelope signed with WS-Security.
import { setTimeout as sleep } from 'node:timers/promises';
import { Refusal } from '../../platform/refusal.ts';
import { XMLParser } from 'fast-xml-parser';
import { strToU8, zipSync } from 'fflate';
import type { SigningIdentity } from './certificate.ts';
import type { DianSettings } from './settings.ts';
import { operationBody, readAnswer, signedEnvelope, soapAction, type SoapAnswer } from './soap.ts';
import { MAX_ANSWER_BYTES, noAnswer, readTextUpTo } from '../../platform/outside-http.ts';
import { isObject } from '../../platform/json.ts';

export interface DianEventAnswer {
  /** StatusCode 00: DIAN registered the event. */
  accepted: boolean;
  /** DIAN had already registered this very event (rule 90): a retry after a lost answer. */
  alreadyRegistered: boolean;
  statusCode: string;
  statusDescription: string;
  /** DIAN's messages: the rules broken, for a rejection. */
  errors: string[];
  /** The key DIAN files the event under (its CUDE). */
  documentKey: string | null;
  /** When DIAN registered the event, from its own ApplicationResponse. */
  registeredAt: Date | null;
  /** The answer's fields as received, kept with the event. */
  raw: Record<string, unknown>;
}

const REQUEST_TIMEOUT_MS = 15_000;
/** "Documento procesado anteriormente": DIAN's answer to an event it already holds. */
const REPEATED_RULE = /^Regla:\s*90\b/;
/** How often, and how many times, a test set's answer is asked for before the attempt is left to a retry. */
const TEST_SET_POLL = { everyMs: 1_000, times: 10 };

/** Answers that may succeed later: no answer, a timeout, throttling, or DIAN's side failing. */
const transient = (message: string) => Refusal.retryable('DianUnavailable', message);
/** DIAN refused the request itself (its security, its form): sending it again as it is would be refused again. */
const refused = (message: string) => new Refusal('DianRequestRefused', message);

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** Calls one operation of DIAN's service, signed by `identity`; throws DianUnavailable or DianRequestRefused. */
async function call(
  settings: DianSettings,
  identity: SigningIdentity,
  operation: string,
  parameters: [string, string][],
): Promise<Record<string, unknown>> {
  const envelope = signedEnvelope({
    operation,
    to: settings.serviceUrl,
    body: operationBody(operation, parameters),
    identity,
    now: new Date(),
  });
  let response: Response;
  try {
    response = await fetch(settings.serviceUrl, {
      method: 'POST',
      headers: {
        'content-type': `application/soap+xml; charset=utf-8; action="${soapAction(operation)}"`,
        'user-agent': 'accounts-payable-radian/2',
      },
      body: envelope,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      redirect: 'manual',
    });
  } catch (thrown) {
    throw transient(noAnswer(thrown, REQUEST_TIMEOUT_MS));
  }
  // An answer past the cap is cut, so it reads as no answer of the operation.
  const { text: body } = await readTextUpTo(response, MAX_ANSWER_BYTES);
  let answer: SoapAnswer | null = null;
  try {
    answer = readAnswer(body, operation);
  } catch {
    answer = null;
  }
  // A fault is DIAN refusing the request (a signature it cannot verify, an expired timestamp), except a Receiver
  // fault, which is DIAN's own failure.
  if (answer?.fault && /sender/i.test(answer.fault.code))
    throw refused(`DIAN refused the request (${answer.fault.subcode || answer.fault.code}): ${answer.fault.reason}`);
  if (response.status === 408 || response.status === 429 || response.status >= 500 || answer?.fault)
    throw transient(`DIAN answered HTTP ${response.status}${answer?.fault ? `: ${answer.fault.reason}` : ''}`);
  // Anything else but an answer from an address that is not DIAN's service (a wrong DIAN_URL) will not change by itself.
  if (!answer?.result && response.status >= 400)
    throw refused(`${settings.serviceUrl} answered HTTP ${response.status}, not as DIAN's service: check DIAN_URL`);
  if (!answer?.result)
    throw transient(`DIAN answered HTTP ${response.status} with something that is not a ${operation} response`);
  return answer.result;
}

/** A DianResponse (IsValid, StatusCode, ErrorMessage, XmlDocumentKey, XmlBase64Bytes...) as the product keeps it. */
function eventAnswer(result: Record<string, unknown>): DianEventAnswer {
  const messages = isObject(result.ErrorMessage) ? result.ErrorMessage.string : undefined;
  const errors = (Array.isArray(messages) ? messages : []).filter(
    (entry): entry is string => typeof entry === 'string',
  );
  const statusCode = text(result.StatusCode);
  const accepted = text(result.IsValid) === 'true' && statusCode === '00';
  const statusDescription = text(result.StatusDescription);
  return {
    accepted,
    alreadyRegistered: !accepted && errors.length > 0 && errors.every((error) => REPEATED_RULE.test(error)),
    statusCode,
    statusDescription,
    errors: errors.length || accepted ? errors : [statusDescription || 'Rejected by DIAN without a reason'],
    documentKey: text(result.XmlDocumentKey) || null,
    registeredAt: registrationTime(result.XmlBase64Bytes),
    raw: {
      IsValid: text(result.IsValid),
      StatusCode: statusCode,
      StatusDescription: statusDescription,
      StatusMessage: text(result.StatusMessage),
      ErrorMessage: errors,
      XmlDocumentKey: text(result.XmlDocumentKey),
      XmlFileName: text(result.XmlFileName),
    },
  };
}

const applicationResponseParser = new XMLParser({ removeNSPrefix: true, parseTagValue: false });

/** IssueDate + IssueTime of DIAN's own ApplicationResponse, when it sent one. */
function registrationTime(encoded: unknown): Date | null {
  if (typeof encoded !== 'string' || encoded === '') return null;
  try {
    const parsed = applicationResponseParser.parse(Buffer.from(encoded, 'base64').toString('utf8')) as {
      ApplicationResponse?: { IssueDate?: unknown; IssueTime?: unknown };
    };
    const { IssueDate, IssueTime } = parsed.ApplicationResponse ?? {};
    if (typeof IssueDate !== 'string' || typeof IssueTime !== 'string') return null;
    const instant = new Date(`${IssueDate}T${IssueTime}`);
    return Number.isNaN(instant.getTime()) ? null : instant;
  } catch {
    return null;
  }
}

/** The zip DIAN takes: one signed ApplicationResponse, named after the event. */
export function eventZip(fileName: string, signedXml: string): Buffer {
  return Buffer.from(zipSync({ [`${fileName}.xml`]: strToU8(signedXml) }, { level: 9 }));
}

/**
 * Submits one signed event. In habilitación with the company's test set, it goes to the test set and its answer is
 * asked for until DIAN has one; otherwise `SendEventUpdateStatus` answers at once.
 */
export async function sendEvent(
  settings: DianSettings,
  identity: SigningIdentity,
  event: { fileName: string; signedXml: string; testSetId: string | null },
): Promise<DianEventAnswer> {
  const contentFile = eventZip(event.fileName, event.signedXml).toString('base64');
  if (settings.environment === 'habilitacion' && event.testSetId) {
    const upload = await call(settings, identity, 'SendTestSetAsync', [
      ['fileName', `${event.fileName}.zip`],
      ['contentFile', contentFile],
      ['testSetId', event.testSetId],
    ]);
    const zipKey = text(upload.ZipKey);
    if (!zipKey) throw refused(`DIAN did not take the test set file: ${JSON.stringify(upload.ErrorMessageList ?? {})}`);
    for (let attempt = 0; attempt < TEST_SET_POLL.times; attempt++) {
      const status = await call(settings, identity, 'GetStatusZip', [['trackId', zipKey]]);
      const response = isObject(status.DianResponse) ? status.DianResponse : null;
      if (response && text(response.StatusCode) !== '') return eventAnswer(response);
      await sleep(TEST_SET_POLL.everyMs);
    }
    throw transient(`DIAN had not validated test set file ${zipKey} yet`);
  }
  return eventAnswer(await call(settings, identity, 'SendEventUpdateStatus', [['contentFile', contentFile]]));
}

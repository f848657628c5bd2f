// DIAN's RADIAN event service, for the embedded default and the tests, at `POST /WcfDianCustomerServices.svc`: it
// takes `SendEventUpdateStatus` (and, for habilitación, `SendTestSetAsync` then `GetStatusZip`) as DIAN's WCF service
// does, SOAP 1.2 signed with WS-Security, and checks what DIAN checks:
// - the request: its WS-Security signature over the Timestamp and `wsa:To` (xmlsec1), the token's chain (openssl),
//   a Timestamp still valid, `wsa:To` this service; a failure is a SOAP fault, as WCF answers it;
// - the event, zipped in `contentFile`: its XAdES-EPES signature (xmlsec1) under DIAN's policy, by a certificate of
//   the sender's NIT; the CUDE and the software security code, recomputed with the registered software's PIN; the
//   header, the claim concept, the person of 030 and 032; a repeated event (rule 90), events out of order (DC24b) or
//   contradicting earlier ones. A broken rule is an answer with IsValid false, StatusCode 99 and
//   "Regla: <rule>, Rechazo: <message>" entries.
// Rule names 90, DC24x and ZE02 are DIAN's; the others are illustrative. Steered per CUFE, since a whole test suite
// shares one instance: reject with given messages, or fail transiently (HTTP 503), `times` times or for good.
import { createHash, randomUUID, X509Certificate } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { strFromU8, unzipSync } from 'fflate';
import { guarded, listen } from '../http.ts';
import {
  at,
  dianResponseAnswer,
  fault,
  parseXml,
  readRequest,
  statusZipAnswer,
  text,
  uploadAnswer,
  type DianResponse,
  type SoapRequest,
} from './soap.ts';
import { verifyChain, verifyWsSecurity, verifyXades, type Verdict } from './verify.ts';
import { isObject } from '../../platform/json.ts';

export const DIAN_SIMULATOR_MODES = ['accept', 'reject', 'fail'] as const;
export type DianSimulatorMode = (typeof DIAN_SIMULATOR_MODES)[number];

export interface DianBehaviour {
  mode: DianSimulatorMode;
  /** Only events of this type (030...034) follow the mode; the CUFE's others are validated as usual. */
  eventType?: string;
  /** How many matching requests get this mode before the CUFE returns to `accept`; forever when absent. */
  times?: number;
  /** For `reject`: DIAN's messages (default: the invoice is not known to DIAN). */
  errors?: string[];
  /** For `fail`: the HTTP status (default 503). */
  status?: number;
}

/** One event as it arrived, with what was answered. */
export interface ReceivedEvent {
  receivedAt: string;
  operation: string;
  cufe: string | null;
  eventType: string | null;
  eventNumber: string | null;
  /** The signed ApplicationResponse as sent, and as read (namespaces dropped, attributes beside `value`). */
  xml: string | null;
  applicationResponse: unknown;
  answer: { isValid: boolean; statusCode: string; errors: string[] } | null;
}

export interface DianSimulatorOptions {
  port?: number;
  host?: string;
  /** The software DIAN registered, by id: its PIN recomputes the CUDE and the software security code. */
  software?: Record<string, string>;
  /** Authorities whose certificates DIAN trusts (PEM); none: any certificate, its signatures still checked. */
  trustedCas?: string[];
}

export interface DianSimulator {
  url: string;
  /** Events received about a CUFE (all when absent). */
  received(cufe?: string): ReceivedEvent[];
  /** Event types DIAN holds for a CUFE. */
  registered(cufe: string): string[];
  behave(cufe: string, behaviour: DianBehaviour): void;
  /** Marks events as registered earlier (by this or another system) for a CUFE. */
  register(cufe: string, eventTypes: string[]): void;
  /** Forgets a CUFE (or everything): its behaviour, requests and registered events. */
  reset(cufe?: string): void;
  stop: () => Promise<void>;
}

export const SERVICE_PATH = '/WcfDianCustomerServices.svc';
const EVENT_CODES = ['030', '031', '032', '033', '034'];
const CUFE = /^[a-f0-9]{96}$/;
const DIAN_NIT = '800197268';
const POLICY = {
  identifier: 'https://facturaelectronica.dian.gov.co/politicadefirma/v1/politicadefirmav2.pdf',
  hash: 'dMoMvtcG5aIzgYo0tIsSQeVJBDnUnfSOfBpxXrmor0Y=',
};
/** How far a request's clock may run ahead of DIAN's. */
const CLOCK_SKEW_MS = 5 * 60_000;
const MAX_CONTENT_BYTES = 2 * 1024 * 1024;
/** What each event needs registered first, and what it cannot follow (Anexo RADIAN DC24b, §8.7.1). */
const REQUIRES: Record<string, string | null> = { '030': null, '031': '032', '032': '030', '033': '032', '034': '032' };
const CONTRADICTS: Record<string, string[]> = {
  '030': [],
  '032': [],
  '031': ['033', '034'],
  '033': ['031', '034'],
  '034': ['031', '033'],
};
const DEFAULT_REJECTION = 'Regla: AAH07, Rechazo: El CUFE referenciado no existe en los registros de la DIAN.';
/** `cac:IssuerParty/cac:Person` of 030 and 032 (Anexo RADIAN §2, official 030 example): each element must be filled. */
const PERSON_ELEMENTS = ['FirstName', 'FamilyName', 'JobTitle', 'OrganizationDepartment'];
/** Requests kept for inspection; older ones are dropped, so a long-running `npm start` does not grow without bound. */
const MAX_RECEIVED = 20_000;

const sha384 = (text: string) => createHash('sha384').update(text, 'utf8').digest('hex');

/** The elements of the person block that are absent or empty; `cbc:ID` needs its number and `@schemeName`. */
function missingPersonElements(person: unknown): string[] {
  const filled = (value: string | null) => value !== null && value.trim() !== '';
  const missing = PERSON_ELEMENTS.filter((name) => !filled(text(at(person, name)))).map((name) => `cbc:${name}`);
  const id = at(person, 'ID');
  if (!filled(text(id))) missing.unshift('cbc:ID');
  else if (!filled(typeof at(id, 'schemeName') === 'string' ? (at(id, 'schemeName') as string) : null))
    missing.unshift('cbc:ID/@schemeName');
  return missing;
}

/** Checks behave options (from code or the control API); throws a RangeError when invalid. */
function toBehaviour(
  input: Record<string, unknown>,
): Required<Pick<DianBehaviour, 'mode'>> & DianBehaviour & { remaining: number | null } {
  const { mode, times, errors, status } = input;
  const eventType = input.eventType ?? input.event_type;
  if (!DIAN_SIMULATOR_MODES.includes(mode as DianSimulatorMode))
    throw new RangeError(`mode must be one of ${DIAN_SIMULATOR_MODES.join(', ')}`);
  if (eventType !== undefined && !EVENT_CODES.includes(eventType as string))
    throw new RangeError('event_type must be one of 030...034');
  if (times !== undefined && !(Number.isInteger(times) && (times as number) > 0))
    throw new RangeError('times must be a positive integer');
  if (errors !== undefined && !(Array.isArray(errors) && errors.every((entry) => typeof entry === 'string')))
    throw new RangeError('errors must be a list of strings');
  if (status !== undefined && !(Number.isInteger(status) && (status as number) >= 500 && (status as number) <= 599))
    throw new RangeError('status must be a 5xx HTTP status');
  return {
    mode: mode as DianSimulatorMode,
    eventType: eventType as string | undefined,
    errors: errors as string[] | undefined,
    status: status as number | undefined,
    remaining: (times as number | undefined) ?? null,
  };
}

const bogota = (instant: Date) => new Date(instant.getTime() - 5 * 3_600_000).toISOString().slice(0, 19);

/** A refusal of the request itself, before its content is looked at: WCF answers it with a fault. */
class RequestRefused extends Error {}

/** The single document of a `contentFile`: base64 of a zip holding one XML file. */
function unzipEvent(contentFile: string | undefined): { name: string; xml: string } | null {
  if (!contentFile) return null;
  const zipped = Buffer.from(contentFile, 'base64');
  if (zipped.length === 0 || zipped.length > MAX_CONTENT_BYTES) return null;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zipped, { filter: (file) => file.originalSize <= MAX_CONTENT_BYTES });
  } catch {
    return null;
  }
  const names = Object.keys(entries);
  if (names.length !== 1 || !names[0]!.toLowerCase().endsWith('.xml')) return null;
  return { name: names[0]!, xml: strFromU8(entries[names[0]!]!) };
}

/** Starts the simulator on 127.0.0.1 unless told otherwise (a free port unless one is given). */
export async function startDianSimulator(options: DianSimulatorOptions = {}): Promise<DianSimulator> {
  const software = options.software ?? {};
  const trustedCas = options.trustedCas ?? [];
  const received: ReceivedEvent[] = [];
  const registered = new Map<string, Set<string>>();
  const behaviours = new Map<string, ReturnType<typeof toBehaviour>>();
  /** Test-set uploads: their answers, by ZipKey. */
  const testSets = new Map<string, DianResponse[]>();
  /** Chains already checked, by the certificate's PEM. */
  const chains = new Map<string, Promise<Verdict>>();
  let registrations = 0;
  let serviceUrl = '';
  const key = (cufe: string) => cufe.toLowerCase();

  const reset = (cufe?: string) => {
    if (cufe === undefined) {
      received.length = 0;
      registered.clear();
      behaviours.clear();
      return;
    }
    const target = key(cufe);
    for (let index = received.length - 1; index >= 0; index--)
      if (received[index]!.cufe === target) received.splice(index, 1);
    registered.delete(target);
    behaviours.delete(target);
  };
  const register = (cufe: string, eventTypes: string[]) => {
    const set = registered.get(key(cufe)) ?? new Set<string>();
    for (const eventType of eventTypes) set.add(eventType);
    registered.set(key(cufe), set);
  };

  /** The behaviour a request about this CUFE and type gets; each use counts against `times`. */
  const takeBehaviour = (cufe: string | null, eventType: string | null) => {
    if (!cufe) return null;
    const behaviour = behaviours.get(cufe);
    if (!behaviour || (behaviour.eventType && behaviour.eventType !== eventType)) return null;
    if (behaviour.remaining !== null && --behaviour.remaining === 0) behaviours.delete(cufe);
    return behaviour;
  };

  /** The request's security, as WCF checks it before the operation runs; throws RequestRefused. */
  const checkSecurity = async (request: SoapRequest, envelope: string) => {
    const now = Date.now();
    if (!request.tokenPem) throw new RequestRefused('The request carries no BinarySecurityToken');
    const { created, expires, id } = request.timestamp;
    if (!created || !expires || !id) throw new RequestRefused('The request carries no wsu:Timestamp');
    if (expires.getTime() <= now)
      throw new RequestRefused(`The security timestamp expired at ${expires.toISOString()}`);
    if (created.getTime() > now + CLOCK_SKEW_MS) throw new RequestRefused('The security timestamp is in the future');
    if (request.to !== serviceUrl) throw new RequestRefused(`wsa:To is ${request.to ?? 'missing'}, not ${serviceUrl}`);
    for (const signed of [id, request.toId])
      if (!signed || !request.signedReferences.includes(`#${signed}`))
        throw new RequestRefused('The signature must cover the Timestamp and wsa:To');
    const signature = await verifyWsSecurity(envelope, request.tokenPem);
    if (!signature.valid) throw new RequestRefused(`The message signature is not valid: ${signature.detail}`);
    // A company sends many events with one certificate: its chain is checked once.
    let chain = chains.get(request.tokenPem);
    if (!chain) chains.set(request.tokenPem, (chain = verifyChain(request.tokenPem, trustedCas)));
    const trusted = await chain;
    if (!trusted.valid) throw new RequestRefused(`The certificate is not trusted: ${trusted.detail}`);
  };

  /** DIAN's validations of an event, in the order it applies them; the first broken rules are answered. */
  const validate = async (xml: string, document: unknown, cufe: string | null, eventType: string | null) => {
    const event = at(document, 'ApplicationResponse');
    if (event === undefined)
      return ['Regla: ZB01, Rechazo: Fallo en el esquema del archivo: no es un ApplicationResponse'];
    const extensionList = at(event, 'UBLExtensions', 'UBLExtension');
    const extensions = Array.isArray(extensionList) ? (extensionList as unknown[]) : [];
    const signatureSlot = at(extensions[1], 'ExtensionContent', 'Signature');
    if (!signatureSlot) return ['Regla: ZE01, Rechazo: El documento no está firmado en la segunda ext:UBLExtension'];
    const verified = await verifyXades(xml, trustedCas);
    if (!verified.valid) return [`Regla: ZE02, Rechazo: Valor de la firma inválido. ${verified.detail}`];
    const errors: string[] = [];
    const properties = at(
      signatureSlot,
      'Object',
      'QualifyingProperties',
      'SignedProperties',
      'SignedSignatureProperties',
    );
    const policy = at(properties, 'SignaturePolicyIdentifier', 'SignaturePolicyId');
    if (
      text(at(policy, 'SigPolicyId', 'Identifier')) !== POLICY.identifier ||
      text(at(policy, 'SigPolicyHash', 'DigestValue')) !== POLICY.hash
    )
      errors.push('Regla: ZE03, Rechazo: La firma no sigue la política de firma de la DIAN (v2)');
    const signingTime = text(at(properties, 'SigningTime'));
    if (!signingTime || !signingTime.endsWith('-05:00'))
      errors.push('Regla: ZE04, Rechazo: SigningTime debe estar en hora de Colombia (-05:00)');
    else if (new Date(signingTime).getTime() > Date.now() + CLOCK_SKEW_MS)
      errors.push('Regla: DC24, Rechazo: La fecha de firma es posterior a la fecha del sistema de la DIAN');
    const senderNit = text(at(event, 'SenderParty', 'PartyTaxScheme', 'CompanyID'));
    const certificate = text(at(signatureSlot, 'KeyInfo', 'X509Data', 'X509Certificate'));
    const signer = certificate ? new X509Certificate(Buffer.from(certificate.replace(/\s/g, ''), 'base64')) : null;
    if (!signer || !senderNit || !signer.subject.replace(/[.\s]/g, '').includes(senderNit))
      errors.push(
        `Regla: ZD06, Rechazo: El certificado de la firma no corresponde al NIT del emisor del evento (${senderNit ?? '-'})`,
      );

    if (text(at(event, 'UBLVersionID')) !== 'UBL 2.1')
      errors.push('Regla: AAB02, Rechazo: No corresponde a la versión UBL 2.1');
    if (!eventType || !EVENT_CODES.includes(eventType))
      errors.push('Regla: AAH03, Rechazo: El código del evento (ResponseCode) no es válido');
    if (!cufe || !CUFE.test(cufe)) errors.push('Regla: AAH06, Rechazo: El CUFE referenciado no es válido');
    const eventNumber = text(at(event, 'ID'));
    if (!eventNumber) errors.push('Regla: AAD05, Rechazo: El evento no tiene número (cbc:ID)');
    if (errors.length || !cufe || !eventType || !eventNumber) return errors;

    // DIAN's hashes, recomputed here from their formulas (Anexo RADIAN §12.1.1) rather than with the product's code.
    const dianExtensions = at(extensions[0], 'ExtensionContent', 'DianExtensions');
    const softwareId = text(at(dianExtensions, 'SoftwareProvider', 'SoftwareID'));
    const pin = softwareId ? software[softwareId] : undefined;
    if (pin === undefined)
      return [`Regla: AAB07, Rechazo: El software ${softwareId ?? '(ninguno)'} no está habilitado ante la DIAN`];
    if (text(at(dianExtensions, 'SoftwareSecurityCode')) !== sha384(`${softwareId}${pin}${eventNumber}`))
      errors.push('Regla: AAB08, Rechazo: El código de seguridad del software no es válido');
    const cude = sha384(
      [
        eventNumber,
        text(at(event, 'IssueDate')),
        text(at(event, 'IssueTime')),
        senderNit,
        text(at(event, 'ReceiverParty', 'PartyTaxScheme', 'CompanyID')),
        eventType,
        text(at(event, 'DocumentResponse', 'DocumentReference', 'ID')),
        text(at(event, 'DocumentResponse', 'DocumentReference', 'DocumentTypeCode')),
        pin,
      ].join(''),
    );
    if (text(at(event, 'UUID')) !== cude)
      errors.push('Regla: AAH05, Rechazo: El CUDE no corresponde a los datos del evento');
    if (
      eventType === '031' &&
      !['01', '02', '03', '04'].includes(String(at(event, 'DocumentResponse', 'Response', 'ResponseCode', 'listID')))
    ) {
      errors.push('Regla: AAH29, Rechazo: El concepto de reclamo (listID) no es válido');
    }
    if (eventType === '030' || eventType === '032') {
      const missing = missingPersonElements(at(event, 'DocumentResponse', 'IssuerParty', 'Person'));
      if (missing.length)
        errors.push(
          `Regla: Person, Rechazo: El evento ${eventType} requiere la persona que recibe (cac:IssuerParty/cac:Person) completa; falta: ${missing.join(', ')}`,
        );
    }
    if (eventType === '034') {
      if (text(at(event, 'ReceiverParty', 'PartyTaxScheme', 'CompanyID')) !== DIAN_NIT)
        errors.push('Regla: AAG04, Rechazo: El receptor de la aceptación tácita debe ser la DIAN (NIT 800197268)');
      const notes = at(event, 'Note');
      if (!Array.isArray(notes) || !notes.some((note) => (text(note) ?? '').includes('gravedad de juramento')))
        errors.push('Regla: AAD11, Rechazo: La aceptación tácita requiere la nota con la manifestación bajo juramento');
    }
    if (errors.length) return errors;
    const held = registered.get(cufe) ?? new Set<string>();
    if (held.has(eventType)) return ['Regla: 90, Rechazo: Documento procesado anteriormente.'];
    const required = REQUIRES[eventType];
    if (required && !held.has(required))
      return [
        `Regla: ${eventType === '032' ? 'DC24b' : 'LGC01'}, Rechazo: El evento ${eventType} requiere el evento ${required} registrado previamente para este CUFE`,
      ];
    const contradicted = CONTRADICTS[eventType]!.find((code) => held.has(code));
    if (contradicted)
      return [
        `Regla: LGC02, Rechazo: El evento ${eventType} no es coherente con el evento ${contradicted} ya registrado`,
      ];
    return [];
  };

  const rejected = (errors: string[], documentKey: string | null, fileName: string | null): DianResponse => ({
    isValid: false,
    statusCode: '99',
    statusDescription: 'Validación contiene errores en campos mandatorios.',
    statusMessage: 'Documento con errores en campos mandatorios.',
    errors,
    documentKey,
    fileName,
    applicationResponse: null,
  });

  /** One zipped event: validated, registered when valid, and answered as a DianResponse (or a transient failure). */
  const takeEvent = async (
    operation: string,
    contentFile: string | undefined,
  ): Promise<{ response: DianResponse } | { failStatus: number }> => {
    const file = unzipEvent(contentFile);
    let document: unknown = null;
    try {
      document = file ? parseXml(file.xml) : null;
    } catch {
      document = null;
    }
    const event = at(document, 'ApplicationResponse');
    const cufe = text(at(event, 'DocumentResponse', 'DocumentReference', 'UUID'))?.toLowerCase() ?? null;
    const eventType = text(at(event, 'DocumentResponse', 'Response', 'ResponseCode'));
    const eventNumber = text(at(event, 'ID'));
    const documentKey = text(at(event, 'UUID'));
    const record: ReceivedEvent = {
      receivedAt: new Date().toISOString(),
      operation,
      cufe,
      eventType,
      eventNumber,
      xml: file?.xml ?? null,
      applicationResponse: document,
      answer: null,
    };
    received.push(record);
    if (received.length > MAX_RECEIVED) received.splice(0, received.length - MAX_RECEIVED);

    const behaviour = takeBehaviour(cufe, eventType);
    if (behaviour?.mode === 'fail') return { failStatus: behaviour.status ?? 503 };
    let response: DianResponse;
    if (!file) response = rejected(['Regla: ZB02, Rechazo: contentFile no es un zip con un único XML'], null, null);
    else if (behaviour?.mode === 'reject')
      response = rejected(behaviour.errors ?? [DEFAULT_REJECTION], documentKey, file.name);
    else {
      const errors = await validate(file.xml, document, cufe, eventType);
      if (errors.length) response = rejected(errors, documentKey, file.name);
      else {
        register(cufe!, [eventType!]);
        const now = bogota(new Date());
        response = {
          isValid: true,
          statusCode: '00',
          statusDescription: 'Procesado Correctamente.',
          statusMessage: `La ApplicationResponse ${eventNumber}, ha sido autorizada.`,
          errors: [],
          documentKey,
          fileName: file.name,
          applicationResponse:
            '<?xml version="1.0" encoding="UTF-8"?>' +
            '<ApplicationResponse xmlns="urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2"' +
            ' xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">' +
            `<cbc:ID>DIAN-${++registrations}</cbc:ID><cbc:IssueDate>${now.slice(0, 10)}</cbc:IssueDate><cbc:IssueTime>${now.slice(11)}-05:00</cbc:IssueTime>` +
            `</ApplicationResponse>`,
        };
      }
    }
    record.answer = { isValid: response.isValid, statusCode: response.statusCode, errors: response.errors };
    return { response };
  };

  const soap = async (raw: string): Promise<{ status: number; body: string }> => {
    const request = readRequest(raw);
    if (!request)
      return { status: 400, body: fault('Sender', 'a:ActionNotSupported', 'Not a request of this service') };
    try {
      await checkSecurity(request, raw);
    } catch (error) {
      if (!(error instanceof RequestRefused)) throw error;
      return {
        status: 500,
        body: fault(
          'Sender',
          'a:InvalidSecurity',
          `An error occurred when verifying security for the message: ${error.message}`,
        ),
      };
    }
    if (request.operation === 'SendEventUpdateStatus' || request.operation === 'SendTestSetAsync') {
      const taken = await takeEvent(request.operation, request.parameters.contentFile);
      if ('failStatus' in taken)
        return {
          status: taken.failStatus,
          body: fault(
            'Receiver',
            'a:InternalServiceFault',
            'El servicio no está disponible temporalmente; intente más tarde',
          ),
        };
      if (request.operation === 'SendEventUpdateStatus')
        return { status: 200, body: dianResponseAnswer('SendEventUpdateStatus', taken.response) };
      const zipKey = randomUUID();
      testSets.set(zipKey, [taken.response]);
      return { status: 200, body: uploadAnswer(zipKey) };
    }
    if (request.operation === 'GetStatusZip')
      return { status: 200, body: statusZipAnswer(testSets.get(request.parameters.trackId ?? '') ?? []) };
    return {
      status: 400,
      body: fault('Sender', 'a:ActionNotSupported', `Operation ${request.operation} is not simulated`),
    };
  };

  const control = (method: string, path: string, body: unknown): { status: number; body: unknown } => {
    const json = (status: number, value: unknown) => ({ status, body: value });
    const events = /^\/_control\/events\/([A-Za-z0-9]+)$/.exec(path);
    if (method === 'GET' && events) {
      const cufe = key(events[1]!);
      return json(200, {
        received: received.filter((entry) => entry.cufe === cufe),
        registered: [...(registered.get(cufe) ?? [])].sort(),
        behaviour: behaviours.get(cufe) ?? null,
      });
    }
    const routes = ['/_control/reset', '/_control/behave', '/_control/register'];
    if (routes.includes(path) && method !== 'POST')
      return json(405, { error: { code: 'method_not_allowed', message: `${path} takes POST` } });
    // Reset takes no body; the others a JSON object.
    if (method === 'POST' && body !== undefined && !isObject(body))
      return json(400, { error: { code: 'invalid_request', message: 'The body must be a JSON object' } });
    const input = isObject(body) ? body : {};
    const cufe = typeof input.cufe === 'string' ? key(input.cufe) : null;
    if (method === 'POST' && path === '/_control/reset') {
      reset(cufe ?? undefined);
      return json(200, { ok: true });
    }
    if (method === 'POST' && (path === '/_control/behave' || path === '/_control/register') && !cufe)
      return json(400, { error: { code: 'invalid_request', message: 'cufe is required' } });
    if (method === 'POST' && path === '/_control/behave') {
      try {
        behaviours.set(cufe!, toBehaviour(input));
      } catch (cause) {
        return json(400, { error: { code: 'invalid_request', message: (cause as Error).message } });
      }
      return json(200, { cufe, behaviour: behaviours.get(cufe!) });
    }
    if (method === 'POST' && path === '/_control/register') {
      const eventTypes = input.events_type;
      if (!Array.isArray(eventTypes) || !eventTypes.every((code) => EVENT_CODES.includes(code as string)))
        return json(400, { error: { code: 'invalid_request', message: 'events_type must list codes 030...034' } });
      register(cufe!, eventTypes as string[]);
      return json(200, { cufe, registered: [...registered.get(cufe!)!].sort() });
    }
    return json(404, {
      error: {
        code: 'not_found',
        message:
          'Control routes: GET /_control/events/<cufe>, POST /_control/behave, POST /_control/register, POST /_control/reset',
      },
    });
  };

  const handle = async (request: IncomingMessage, raw: string, response: ServerResponse) => {
    const method = request.method ?? '';
    const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
    if (path === SERVICE_PATH && method === 'POST') {
      // Whatever the simulator cannot read in a request (a content file that is no ZIP...) is the sender's fault.
      const answer = await soap(raw).catch((error: unknown) => ({
        status: 400,
        body: fault('Sender', 'a:InvalidRequest', (error as Error).message),
      }));
      response.writeHead(answer.status, { 'content-type': 'application/soap+xml; charset=utf-8' });
      response.end(answer.body);
      return;
    }
    let body: unknown;
    try {
      body = raw === '' ? undefined : (JSON.parse(raw) as unknown);
    } catch {
      body = null;
    }
    const reply = path.startsWith('/_control/')
      ? control(method, path, body)
      : { status: 404, body: { error: { code: 'not_found', message: `POST ${SERVICE_PATH}` } } };
    const encoded = JSON.stringify(reply.body);
    response.writeHead(reply.status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(encoded)),
    });
    response.end(encoded);
  };

  const server = createServer(guarded((request, body, response) => handle(request, body.toString('utf8'), response)));
  const running = await listen(server, options);
  serviceUrl = `${running.url}${SERVICE_PATH}`;
  return {
    url: running.url,
    received: (cufe) => (cufe === undefined ? [...received] : received.filter((entry) => entry.cufe === key(cufe))),
    registered: (cufe) => [...(registered.get(key(cufe)) ?? [])].sort(),
    behave: (cufe, behaviour) => behaviours.set(key(cufe), toBehaviour({ ...behaviour })),
    register,
    reset,
    stop: running.stop,
  };
}

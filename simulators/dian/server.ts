// DIAN's RADIAN event service, for the embedded default and the tests: `POST /SendEventUpdateStatus` takes an event
// (the JSON ApplicationResponse, base64 in `contentFile`) and answers like the SOAP operation: IsValid, StatusCode 00 or
// 99 with ErrorMessage entries "Regla: <rule>, Rechazo: <message>". By default it validates like DIAN: the header,
// the CUFE, the claim concept, the person block of 030 and 032, a repeated event (rule 90), events out of order (DC24b)
// or contradicting earlier ones.
// Rule names 90 and DC24x are DIAN's; the others are illustrative. Steered per CUFE, since a whole test suite
// shares one instance: reject with given messages, or fail transiently (HTTP 503), `times` times or for good.
import { listen } from '../http.ts';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

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

/** One SendEventUpdateStatus request as it arrived, with what was answered. */
export interface ReceivedEvent {
  receivedAt: string;
  cufe: string | null;
  eventType: string | null;
  eventNumber: string | null;
  /** The decoded ApplicationResponse, or null when contentFile was not one. */
  applicationResponse: unknown;
  answer: { status: number; body: unknown };
}

export interface DianSimulator {
  url: string;
  /** Requests received about a CUFE (all when absent). */
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

interface Reply {
  status: number;
  body: unknown;
}

const EVENT_CODES = ['030', '031', '032', '033', '034'];
const CUFE = /^[a-f0-9]{96}$/;
const DIAN_NIT = '800197268';
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

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const at = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), value);
const text = (value: unknown): string | null =>
  typeof value === 'string' ? value : isObject(value) && typeof value.value === 'string' ? value.value : null;
const json = (status: number, body: unknown): Reply => ({ status, body });

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

/** Starts the simulator on 127.0.0.1 unless told otherwise (a free port unless one is given). */
export async function startDianSimulator(options: { port?: number; host?: string } = {}): Promise<DianSimulator> {
  const received: ReceivedEvent[] = [];
  const registered = new Map<string, Set<string>>();
  const behaviours = new Map<string, ReturnType<typeof toBehaviour>>();
  let registrations = 0;
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

  const rejected = (errors: string[], documentKey: string | null, fileName: string | null): Reply =>
    json(200, {
      IsValid: false,
      StatusCode: '99',
      StatusDescription: 'Validación contiene errores en campos mandatorios.',
      StatusMessage: 'Documento con errores en campos mandatorios.',
      ErrorMessage: errors,
      XmlDocumentKey: documentKey,
      XmlFileName: fileName,
      XmlBase64Bytes: null,
    });

  /** DIAN's validations of an event, in the order it applies them; the first broken rules are answered. */
  const validate = (event: unknown, cufe: string | null, eventType: string | null): string[] => {
    if (at(event, 'ApplicationResponse') === undefined)
      return ['Regla: ZB01, Rechazo: Fallo en el esquema del archivo: no es un ApplicationResponse'];
    const errors: string[] = [];
    if (text(at(event, 'ApplicationResponse', 'UBLVersionID')) !== 'UBL 2.1')
      errors.push('Regla: AAB02, Rechazo: No corresponde a la versión UBL 2.1');
    if (!eventType || !EVENT_CODES.includes(eventType))
      errors.push('Regla: AAH03, Rechazo: El código del evento (ResponseCode) no es válido');
    if (!cufe || !CUFE.test(cufe)) errors.push('Regla: AAH06, Rechazo: El CUFE referenciado no es válido');
    if (!text(at(event, 'ApplicationResponse', 'ID')))
      errors.push('Regla: AAD05, Rechazo: El evento no tiene número (cbc:ID)');
    if (errors.length || !cufe || !eventType) return errors;
    if (
      eventType === '031' &&
      !['01', '02', '03', '04'].includes(
        String(at(event, 'ApplicationResponse', 'DocumentResponse', 'Response', 'ResponseCode', 'listID')),
      )
    ) {
      errors.push('Regla: AAH29, Rechazo: El concepto de reclamo (listID) no es válido');
    }
    if (eventType === '030' || eventType === '032') {
      const missing = missingPersonElements(
        at(event, 'ApplicationResponse', 'DocumentResponse', 'IssuerParty', 'Person'),
      );
      if (missing.length)
        errors.push(
          `Regla: Person, Rechazo: El evento ${eventType} requiere la persona que recibe (cac:IssuerParty/cac:Person) completa; falta: ${missing.join(', ')}`,
        );
    }
    if (eventType === '034') {
      if (text(at(event, 'ApplicationResponse', 'ReceiverParty', 'PartyTaxScheme', 'CompanyID')) !== DIAN_NIT)
        errors.push('Regla: AAG04, Rechazo: El receptor de la aceptación tácita debe ser la DIAN (NIT 800197268)');
      const notes = at(event, 'ApplicationResponse', 'Note');
      if (
        !Array.isArray(notes) ||
        !notes.some((note) => typeof note === 'string' && note.includes('gravedad de juramento'))
      )
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

  const sendEventUpdateStatus = (body: unknown): Reply => {
    let event: unknown = null;
    const contentFile = at(body, 'contentFile');
    const fileName = typeof at(body, 'fileName') === 'string' ? (at(body, 'fileName') as string) : null;
    if (typeof contentFile === 'string') {
      try {
        event = JSON.parse(Buffer.from(contentFile, 'base64').toString('utf8')) as unknown;
      } catch {
        event = null;
      }
    }
    const cufe =
      text(at(event, 'ApplicationResponse', 'DocumentResponse', 'DocumentReference', 'UUID'))?.toLowerCase() ?? null;
    const eventType = text(at(event, 'ApplicationResponse', 'DocumentResponse', 'Response', 'ResponseCode'));
    const eventNumber = text(at(event, 'ApplicationResponse', 'ID'));
    const documentKey = text(at(event, 'ApplicationResponse', 'UUID'));
    const record: ReceivedEvent = {
      receivedAt: new Date().toISOString(),
      cufe,
      eventType,
      eventNumber,
      applicationResponse: event,
      answer: { status: 0, body: null },
    };
    received.push(record);
    if (received.length > MAX_RECEIVED) received.splice(0, received.length - MAX_RECEIVED);

    const behaviour = takeBehaviour(cufe, eventType);
    let answer: Reply;
    if (behaviour?.mode === 'fail') {
      answer = json(behaviour.status ?? 503, {
        Fault: { Code: 's:Server', Reason: 'El servicio no está disponible temporalmente; intente más tarde' },
      });
    } else if (behaviour?.mode === 'reject') {
      answer = rejected(behaviour.errors ?? [DEFAULT_REJECTION], documentKey, fileName);
    } else {
      const errors = validate(event, cufe, eventType);
      if (errors.length) answer = rejected(errors, documentKey, fileName);
      else {
        register(cufe!, [eventType!]);
        const now = bogota(new Date());
        const dianResponse = {
          ApplicationResponse: {
            ID: `DIAN-${++registrations}`,
            IssueDate: now.slice(0, 10),
            IssueTime: `${now.slice(11)}-05:00`,
            DocumentResponse: {
              Response: { ResponseCode: '02', Description: 'Documento validado por la DIAN' },
              DocumentReference: { ID: eventNumber, UUID: documentKey },
            },
          },
        };
        answer = json(200, {
          IsValid: true,
          StatusCode: '00',
          StatusDescription: 'Procesado Correctamente.',
          StatusMessage: `La ApplicationResponse ${eventNumber}, ha sido autorizada.`,
          ErrorMessage: [],
          XmlDocumentKey: documentKey,
          XmlFileName: fileName,
          XmlBase64Bytes: Buffer.from(JSON.stringify(dianResponse), 'utf8').toString('base64'),
        });
      }
    }
    record.answer = { status: answer.status, body: answer.body };
    return answer;
  };

  const control = (method: string, path: string, body: unknown): Reply => {
    const events = /^\/_control\/events\/([A-Za-z0-9]+)$/.exec(path);
    if (method === 'GET' && events) {
      const cufe = key(events[1]!);
      return json(200, {
        received: received.filter((entry) => entry.cufe === cufe),
        registered: [...(registered.get(cufe) ?? [])].sort(),
        behaviour: behaviours.get(cufe) ?? null,
      });
    }
    if (method === 'POST' && !isObject(body))
      return json(400, { error: { code: 'invalid_request', message: 'The body must be a JSON object' } });
    const input = body as Record<string, unknown>;
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

  const handle = (request: IncomingMessage, raw: string, response: ServerResponse) => {
    const method = request.method ?? '';
    const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
    let body: unknown;
    try {
      body = raw === '' ? undefined : (JSON.parse(raw) as unknown);
    } catch {
      body = null;
    }
    let reply: Reply;
    if (path.startsWith('/_control/')) reply = control(method, path, body);
    else if (path === '/SendEventUpdateStatus' && method === 'POST') reply = sendEventUpdateStatus(body);
    else reply = json(404, { error: { code: 'not_found', message: 'POST /SendEventUpdateStatus' } });
    const encoded = JSON.stringify(reply.body);
    response.writeHead(reply.status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(encoded)),
    });
    response.end(encoded);
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, Buffer.concat(chunks).toString('utf8'), response));
  });
  const running = await listen(server, options);
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

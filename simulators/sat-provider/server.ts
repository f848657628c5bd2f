// The SAT extraction provider, for the embedded default and the tests: a REST API in front of SAT's bulk download.
// `POST /v1/extractions` submits a request of received CFDI for an RFC and a period (idempotent by `Idempotency-Key`),
// as XML (`format: xml`, which SAT serves only for current documents: `document_status: active`) or as SAT's metadata
// (`format: metadata`, any status: a `~`-separated text file per package, as SAT writes it, with Estatus and
// FechaCancelacion);
// `GET /v1/extractions/<id>` verifies it, answering SAT's EstadoSolicitud (1 accepted, 2 in progress, then 3 finished,
// 4 error, 5 rejected, 6 expired) and CodigoEstadoSolicitud like `VerificaSolicitudDescarga`; once finished,
// `GET /v1/extractions/<id>/packages/<packageId>` downloads a package (a ZIP of CFDI XML, like `Descargar`).
// Packages are built from the real stamped CFDI fixtures plus the junk entries of SAT's own sample package
// (`__MACOSX/`, an empty file, a `.xml` that is not XML, CFDI 3.2 files, `other.txt`); metadata packages from the text a
// test gives (by default: each CFDI of the XML packages, current) plus the junk of SAT's sample metadata package.
// Packages are sent as the scenario's `delivery` says: at a set rate, stalling mid-body, honouring `Range` or not; each
// download request is kept (its Range header, status, bytes sent) for the tests to see.
// Steered per RFC or per extraction, from code or over `/_control/...`, since one instance serves a whole test suite.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute } from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { guarded } from '../http.ts';
import { isObject } from '../../platform/json.ts';

export const SAT_PROVIDER_OUTCOMES = [
  'finished',
  'no_documents',
  'error',
  'rejected',
  'expired',
  'provider_error',
] as const;
export type SatProviderOutcome = (typeof SAT_PROVIDER_OUTCOMES)[number];

/** A package built from fixtures, or a ZIP a test made on disk (served as it is, streamed: it may be huge). */
export type SatPackageSpec =
  | {
      /** File names under test/fixtures/cfdi/. */
      files: string[];
      /** Adds the junk entries of SAT's sample package (default true). */
      junk?: boolean;
    }
  | { path: string };

/** A metadata package: the metadata file's text as SAT writes it (header line included), or a ZIP on disk. */
export type SatMetadataPackageSpec =
  | {
      text: string;
      /** Adds the junk entries of SAT's sample metadata package (default true). */
      junk?: boolean;
    }
  | { path: string };

export interface SatScenario {
  outcome?: SatProviderOutcome;
  /** Verifications until the final state: the first answers 1 (accepted), the next ones 2 (in progress). Default 3. */
  polls?: number;
  /** `finished`: the packages (default: one with every stamped CFDI fixture and the junk). */
  packages?: SatPackageSpec[];
  /** `finished`, for a metadata extraction: its packages (default: one listing the XML packages' CFDI as current). */
  metadata?: SatMetadataPackageSpec[];
  /** `error` / `rejected`: CodigoEstadoSolicitud (default 404 / 5002). */
  satStatusCode?: string;
  /** `provider_error`: the provider's own error code (default invalid_credentials, the CIEC refused at SAT's login). */
  errorCode?: string;
  /** Refuses to create the extraction with HTTP 422 and this code (e.g. invalid_credentials). */
  refuseCreation?: string;
  /** The next N API requests about this RFC answer HTTP 503. */
  unavailable?: number;
  /** How packages are sent (default: whole, as fast as the connection takes them, ranges honoured). */
  delivery?: SatDelivery;
}

/** How the simulator sends a package's bytes: at a set rate, stalling, with or without HTTP ranges. */
export interface SatDelivery {
  /** Bytes per second each download is held to. */
  bytesPerSecond?: number;
  /** A download stops, silent and with its connection open, before this byte of the package... */
  stallAtByte?: number;
  /** ...for the first N downloads of the package that reach it (default 1). */
  stalls?: number;
  /**
   * Whether `Range: bytes=<start>-` is honoured (206 with Content-Range, `If-Range` checked against the ETag); default
   * true. False: the whole package (200) whatever is asked, as a provider without ranges.
   */
  ranges?: boolean;
}

/** One download request of a package, as the simulator saw and answered it. */
export interface PackageRequest {
  packageId: string;
  /** The request's Range header, if any. */
  range: string | null;
  status: number;
  /** Bytes of the body sent so far. */
  sent: number;
  /** Whether the body was sent to its end (false: it stalled, or the client let go). */
  ended: boolean;
}

export interface SimulatedExtraction {
  id: string;
  rfc: string;
  format: 'xml' | 'metadata';
  period: { from: string; to: string };
  scenario: SatScenario;
  verifications: number;
  downloads: string[];
  /** Each download request of its packages, in order. */
  packageRequests: PackageRequest[];
  createdAt: string;
}

export interface SatProviderSimulator {
  url: string;
  behave(rfc: string, scenario: SatScenario): void;
  /** Changes an existing extraction's scenario (from its next verification on). */
  behaveExtraction(id: string, scenario: SatScenario): void;
  extractions(rfc?: string): SimulatedExtraction[];
  reset(): void;
  stop: () => Promise<void>;
}

const FIXTURES = new URL('../../test/fixtures/', import.meta.url);
/** The stamped CFDI 4.0 fixtures: two invoices and the payment receipt of one of them (listed first on purpose). */
export const STAMPED_CFDI_FIXTURES = [
  'satcfdi-pago_he951128469_ingreso_iva16_stamped.xml',
  'satcfdi-he951128469_ingreso_iva16_stamped.xml',
  'cfdiutils-cfdi40-valid-ingreso.xml',
];

/** An extraction as the provider's API answers it. */
interface ExtractionView {
  id: string;
  rfc: string;
  type: string;
  format: string;
  period: { from: string; to: string };
  sat_request_id: string;
  created_at: string;
  sat_request_status: number | null;
  sat_status_code: string;
  cfdi_count: number | null;
  package_ids: string[];
  error_code: string | null;
  error_message: string | null;
}

interface Reply {
  status: number;
  body: Uint8Array | string;
  contentType: string;
  /** A package to send, as its delivery says. */
  package?: { id: string; source: Uint8Array | { path: string }; extraction: SimulatedExtraction };
}

const json = (status: number, body: unknown): Reply => ({
  status,
  body: JSON.stringify(body),
  contentType: 'application/json',
});
const error = (status: number, code: string, message: string) => json(status, { error: { code, message } });
/** Checks a scenario (from code or the control API); throws a RangeError when invalid. */
function toScenario(input: Record<string, unknown>): SatScenario {
  const { outcome, polls, packages, metadata, unavailable, delivery } = input;
  const satStatusCode = input.satStatusCode ?? input.sat_status_code;
  const errorCode = input.errorCode ?? input.error_code;
  const refuseCreation = input.refuseCreation ?? input.refuse_creation;
  if (outcome !== undefined && !SAT_PROVIDER_OUTCOMES.includes(outcome as SatProviderOutcome))
    throw new RangeError(`outcome must be one of ${SAT_PROVIDER_OUTCOMES.join(', ')}`);
  if (polls !== undefined && !(Number.isInteger(polls) && (polls as number) >= 1))
    throw new RangeError('polls must be a positive integer');
  if (unavailable !== undefined && !(Number.isInteger(unavailable) && (unavailable as number) >= 0))
    throw new RangeError('unavailable must be a whole number');
  if (
    packages !== undefined &&
    !(
      Array.isArray(packages) &&
      packages.every(
        (spec) =>
          isObject(spec) &&
          ((Array.isArray(spec.files) &&
            spec.files.every((file) => typeof file === 'string' && /^[\w.-]+\.xml$/.test(file))) ||
            (typeof spec.path === 'string' && isAbsolute(spec.path) && spec.path.endsWith('.zip'))),
      )
    )
  ) {
    throw new RangeError(
      'packages must be a list of { files: [fixture names], junk? } or { path: absolute .zip path }',
    );
  }
  if (
    metadata !== undefined &&
    !(
      Array.isArray(metadata) &&
      metadata.every(
        (spec) =>
          isObject(spec) &&
          (typeof spec.text === 'string' ||
            (typeof spec.path === 'string' && isAbsolute(spec.path) && spec.path.endsWith('.zip'))),
      )
    )
  ) {
    throw new RangeError('metadata must be a list of { text: metadata file, junk? } or { path: absolute .zip path }');
  }
  if (delivery !== undefined) {
    if (!isObject(delivery)) throw new RangeError('delivery must be an object');
    for (const name of ['bytesPerSecond', 'stallAtByte', 'stalls'] as const) {
      const value = delivery[name];
      if (value !== undefined && !(Number.isInteger(value) && (value as number) >= (name === 'stallAtByte' ? 0 : 1)))
        throw new RangeError(`delivery.${name} must be a whole number${name === 'stallAtByte' ? '' : ' above 0'}`);
    }
    if (delivery.ranges !== undefined && typeof delivery.ranges !== 'boolean')
      throw new RangeError('delivery.ranges must be true or false');
  }
  for (const [name, value] of [
    ['satStatusCode', satStatusCode],
    ['errorCode', errorCode],
    ['refuseCreation', refuseCreation],
  ] as const) {
    if (value !== undefined && typeof value !== 'string') throw new RangeError(`${name} must be a string`);
  }
  return {
    ...(outcome !== undefined ? { outcome: outcome as SatProviderOutcome } : {}),
    ...(polls !== undefined ? { polls: polls as number } : {}),
    ...(packages !== undefined ? { packages: packages as SatPackageSpec[] } : {}),
    ...(metadata !== undefined ? { metadata: metadata as SatMetadataPackageSpec[] } : {}),
    ...(satStatusCode !== undefined ? { satStatusCode: satStatusCode as string } : {}),
    ...(errorCode !== undefined ? { errorCode: errorCode as string } : {}),
    ...(refuseCreation !== undefined ? { refuseCreation: refuseCreation as string } : {}),
    ...(unavailable !== undefined ? { unavailable: unavailable as number } : {}),
    ...(delivery !== undefined ? { delivery: delivery as SatDelivery } : {}),
  };
}

// Fixed, so the same package is the same bytes.
const PACKAGE_TIME = new Date('2026-01-01T00:00:00Z');

let junkEntries: { name: string; data: Uint8Array }[] | undefined;
/** The entries of SAT's sample package (phpcfdi fixture), junk and CFDI 3.2 alike. */
function junk(): { name: string; data: Uint8Array }[] {
  junkEntries ??= Object.entries(unzipSync(readFileSync(new URL('sat-descarga-masiva/cfdi.zip', FIXTURES)))).map(
    ([name, data]) => ({ name, data }),
  );
  return junkEntries;
}

/** Builds a package: the named fixtures, then (unless told otherwise) the junk. */
export function buildSatPackage(spec: { files: string[]; junk?: boolean }): Uint8Array {
  const files = spec.files.map((file) => ({
    name: file,
    data: new Uint8Array(readFileSync(new URL(`cfdi/${file}`, FIXTURES))),
  }));
  const entries = [...files, ...(spec.junk === false ? [] : junk())];
  return zipSync(Object.fromEntries(entries.map(({ name, data }) => [name, data])), { mtime: PACKAGE_TIME });
}

export const SAT_METADATA_HEADER =
  'Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~EfectoComprobante~Estatus~FechaCancelacion';

/** The attribute of the first element named `element` in an XML text (entities decoded), or null. */
function attribute(xml: string, element: string, name: string): string | null {
  const tag = new RegExp(`<(?:\\w+:)?${element}\\b[^>]*?\\s${name}="([^"]*)"`).exec(xml);
  return tag
    ? tag[1]!
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
    : null;
}

/** SAT's metadata of fixture CFDI, each current (Estatus 1), CRLF as SAT ends its lines; unstamped files are left out. */
export function metadataOfFixtures(files: string[]): string {
  const rows = files.flatMap((file) => {
    const xml = readFileSync(new URL(`cfdi/${file}`, FIXTURES), 'utf8');
    const uuid = attribute(xml, 'TimbreFiscalDigital', 'UUID');
    if (!uuid) return [];
    const fecha = (attribute(xml, 'Comprobante', 'Fecha') ?? '').replace('T', ' ');
    return [
      [
        uuid.toUpperCase(),
        attribute(xml, 'Emisor', 'Rfc') ?? '',
        attribute(xml, 'Emisor', 'Nombre') ?? '',
        attribute(xml, 'Receptor', 'Rfc') ?? '',
        attribute(xml, 'Receptor', 'Nombre') ?? '',
        attribute(xml, 'TimbreFiscalDigital', 'RfcProvCertif') ?? '',
        fecha,
        (attribute(xml, 'TimbreFiscalDigital', 'FechaTimbrado') ?? '').replace('T', ' '),
        attribute(xml, 'Comprobante', 'Total') ?? '',
        attribute(xml, 'Comprobante', 'TipoDeComprobante') ?? '',
        '1',
        '',
      ].join('~'),
    ];
  });
  return [SAT_METADATA_HEADER, ...rows].join('\r\n') + '\r\n';
}

let metadataJunkEntries: { name: string; data: Uint8Array }[] | undefined;
/** The entries of SAT's sample metadata package that are not metadata: a text file that is not, macOS's, empty ones. */
function metadataJunk(): { name: string; data: Uint8Array }[] {
  metadataJunkEntries ??= Object.entries(
    unzipSync(readFileSync(new URL('sat-descarga-masiva/metadata.zip', FIXTURES))),
  ).flatMap(([name, data]) =>
    Buffer.from(data).subarray(0, 15).toString('latin1') === 'Uuid~RfcEmisor~' ? [] : [{ name, data }],
  );
  return metadataJunkEntries;
}

/** Builds a metadata package: the metadata file (named like SAT's, `<package>.txt`), then (unless told otherwise) the junk. */
export function buildSatMetadataPackage(packageId: string, spec: { text: string; junk?: boolean }): Uint8Array {
  const entries = [
    { name: `${packageId}.txt`, data: new Uint8Array(Buffer.from(spec.text, 'utf8')) },
    ...(spec.junk === false ? [] : metadataJunk()),
  ];
  return zipSync(Object.fromEntries(entries.map(({ name, data }) => [name, data])), { mtime: PACKAGE_TIME });
}

/** Resolves once the response takes writes again, or is closed. */
function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}

/** Starts the simulator on 127.0.0.1 unless told otherwise (a free port unless one is given). */
export async function startSatProviderSimulator(
  options: { port?: number; host?: string } = {},
): Promise<SatProviderSimulator> {
  const byRfc = new Map<string, SatScenario>();
  const extractions = new Map<string, SimulatedExtraction>();
  const byKey = new Map<string, string>();
  const packages = new Map<string, Uint8Array>();

  const scenarioOf = (rfc: string): SatScenario => ({ ...byRfc.get(rfc.toUpperCase()) });
  const takeUnavailable = (rfc: string): boolean => {
    const scenario = byRfc.get(rfc.toUpperCase());
    if (!scenario?.unavailable) return false;
    scenario.unavailable -= 1;
    return true;
  };

  /** What a metadata extraction serves: the scenario's, or the XML packages' CFDI listed as current. */
  const metadataSpecs = (scenario: SatScenario): SatMetadataPackageSpec[] =>
    scenario.metadata ?? [
      {
        text: metadataOfFixtures(
          (scenario.packages ?? [{ files: STAMPED_CFDI_FIXTURES }]).flatMap((spec) =>
            'files' in spec ? spec.files : [],
          ),
        ),
      },
    ];
  /** The packages an extraction is made of, in order. */
  const specsOf = (extraction: SimulatedExtraction): (SatPackageSpec | SatMetadataPackageSpec)[] =>
    extraction.format === 'metadata'
      ? metadataSpecs(extraction.scenario)
      : (extraction.scenario.packages ?? [{ files: STAMPED_CFDI_FIXTURES }]);
  /** How many CFDI the packages hold; null when one is a ZIP on disk, which is not read to count them. */
  const countOf = (specs: (SatPackageSpec | SatMetadataPackageSpec)[]): number | null => {
    let count = 0;
    for (const spec of specs) {
      if ('files' in spec) count += spec.files.length;
      else if ('text' in spec) count += spec.text.split('\n').filter((line) => line.trim()).length - 1;
      else return null;
    }
    return count;
  };

  /** The extraction as the provider reports it at its `verifications`-th verification. */
  const view = (extraction: SimulatedExtraction): ExtractionView => {
    const { scenario } = extraction;
    const polls = scenario.polls ?? 3;
    const outcome = scenario.outcome ?? 'finished';
    const base = {
      id: extraction.id,
      rfc: extraction.rfc,
      type: 'received',
      format: extraction.format,
      period: extraction.period,
      sat_request_id: extraction.id,
      created_at: extraction.createdAt,
    };
    const running: ExtractionView = {
      ...base,
      sat_request_status: extraction.verifications === 0 ? null : extraction.verifications === 1 ? 1 : 2,
      sat_status_code: '5000',
      cfdi_count: null,
      package_ids: [],
      error_code: null,
      error_message: null,
    };
    if (extraction.verifications < polls) return running;
    switch (outcome) {
      case 'finished': {
        const specs = specsOf(extraction);
        const ids = specs.map((_spec, index) => `${extraction.id.toUpperCase()}_${String(index + 1).padStart(2, '0')}`);
        return { ...running, sat_request_status: 3, cfdi_count: countOf(specs), package_ids: ids };
      }
      case 'no_documents':
        return { ...running, sat_request_status: 5, sat_status_code: '5004', cfdi_count: 0 };
      case 'error':
        return { ...running, sat_request_status: 4, sat_status_code: scenario.satStatusCode ?? '404' };
      case 'rejected':
        return { ...running, sat_request_status: 5, sat_status_code: scenario.satStatusCode ?? '5002' };
      case 'expired':
        return { ...running, sat_request_status: 6 };
      case 'provider_error':
        return {
          ...running,
          sat_request_status: null,
          error_code: scenario.errorCode ?? 'invalid_credentials',
          error_message: 'The SAT portal refused the CIEC',
        };
    }
  };

  const create = (headers: IncomingMessage['headers'], body: unknown): Reply => {
    if (
      !isObject(body) ||
      typeof body.rfc !== 'string' ||
      !isObject(body.period) ||
      typeof body.period.from !== 'string' ||
      typeof body.period.to !== 'string'
    ) {
      return error(400, 'invalid_request', 'rfc and period { from, to } are required');
    }
    const rfc = body.rfc.toUpperCase();
    if (takeUnavailable(rfc)) return error(503, 'unavailable', 'The provider is temporarily unavailable');
    if (body.type !== 'received' || (body.format !== 'xml' && body.format !== 'metadata'))
      return error(422, 'unsupported_request', 'This simulator extracts received CFDI, as XML or as metadata');
    // SAT v1.5: a request of received CFDI as XML fails unless it is filtered to current (vigente) documents.
    if (body.format === 'xml' && body.document_status !== 'active')
      return error(
        422,
        'unsupported_request',
        'SAT serves received CFDI as XML only for current documents: document_status must be active',
      );
    if (body.document_status !== undefined && body.document_status !== 'active' && body.document_status !== 'canceled')
      return error(400, 'invalid_request', 'document_status is active or canceled (absent: both)');
    // SAT v1.5: the start must be strictly before the end.
    if (!(Date.parse(body.period.from) < Date.parse(body.period.to)))
      return error(422, 'invalid_period', 'The period must start before it ends');
    const key = typeof headers['idempotency-key'] === 'string' ? headers['idempotency-key'] : null;
    const known = key ? byKey.get(key) : undefined;
    if (known) return json(200, view(extractions.get(known)!));
    const scenario = scenarioOf(rfc);
    if (scenario.refuseCreation)
      return error(422, scenario.refuseCreation, 'The SAT portal refused the credentials of this RFC');
    const extraction: SimulatedExtraction = {
      id: randomUUID(),
      rfc,
      format: body.format,
      period: { from: body.period.from, to: body.period.to },
      scenario,
      verifications: 0,
      downloads: [],
      packageRequests: [],
      createdAt: new Date().toISOString(),
    };
    extractions.set(extraction.id, extraction);
    if (key) byKey.set(key, extraction.id);
    return json(201, view(extraction));
  };

  const api = (method: string, segments: string[], headers: IncomingMessage['headers'], body: unknown): Reply => {
    if (method === 'POST' && segments.length === 2) return create(headers, body);
    const extraction = extractions.get(segments[2] ?? '');
    if (!extraction) return error(404, 'extraction_not_found', 'No extraction has this id');
    if (takeUnavailable(extraction.rfc)) return error(503, 'unavailable', 'The provider is temporarily unavailable');
    if (method === 'GET' && segments.length === 3) {
      extraction.verifications += 1;
      return json(200, view(extraction));
    }
    if (method === 'GET' && segments.length === 5 && segments[3] === 'packages') {
      const packageId = segments[4]!;
      const current = view(extraction);
      const index = current.package_ids.indexOf(packageId);
      if (current.sat_request_status !== 3 || index === -1)
        return error(404, 'package_not_found', 'No package has this id');
      const spec = specsOf(extraction)[index]!;
      let bytes = packages.get(packageId);
      if (!bytes && !('path' in spec)) {
        bytes = 'files' in spec ? buildSatPackage(spec) : buildSatMetadataPackage(packageId, spec);
        packages.set(packageId, bytes);
      }
      extraction.downloads.push(packageId);
      return {
        status: 200,
        body: '',
        contentType: 'application/zip',
        package: { id: packageId, source: bytes ?? { path: (spec as { path: string }).path }, extraction },
      };
    }
    return error(
      404,
      'not_found',
      'Routes: POST /v1/extractions, GET /v1/extractions/<id>, GET /v1/extractions/<id>/packages/<packageId>',
    );
  };

  const behave = (rfc: string, scenario: SatScenario) =>
    void byRfc.set(rfc.toUpperCase(), toScenario(scenario as Record<string, unknown>));
  const behaveExtraction = (id: string, scenario: SatScenario) => {
    const extraction = extractions.get(id);
    if (!extraction) throw new RangeError(`No extraction ${id}`);
    extraction.scenario = { ...extraction.scenario, ...toScenario(scenario as Record<string, unknown>) };
  };
  const list = (rfc?: string) =>
    [...extractions.values()].filter((extraction) => !rfc || extraction.rfc === rfc.toUpperCase());
  const reset = () => {
    byRfc.clear();
    extractions.clear();
    byKey.clear();
    packages.clear();
    stalled.clear();
  };

  const control = (method: string, segments: string[], body: unknown): Reply => {
    if (body !== undefined && !isObject(body)) return error(400, 'invalid_request', 'The body must be a JSON object');
    try {
      if (method === 'POST' && segments[1] === 'rfcs' && segments[3] === 'behave' && segments.length === 4) {
        behave(segments[2]!, (isObject(body) ? body : {}) as SatScenario);
        return json(200, { rfc: segments[2]!.toUpperCase(), scenario: byRfc.get(segments[2]!.toUpperCase()) });
      }
      if (method === 'POST' && segments[1] === 'extractions' && segments[3] === 'behave' && segments.length === 4) {
        behaveExtraction(segments[2]!, (isObject(body) ? body : {}) as SatScenario);
        return json(200, extractions.get(segments[2]!));
      }
      if (method === 'GET' && segments[1] === 'extractions' && segments.length <= 3)
        return json(200, { extractions: list(segments[2]) });
      if (method === 'POST' && segments[1] === 'reset') {
        reset();
        return json(200, { ok: true });
      }
    } catch (cause) {
      return error(400, 'invalid_request', (cause as Error).message);
    }
    return error(
      404,
      'not_found',
      'Control routes: POST /_control/rfcs/<rfc>/behave, POST /_control/extractions/<id>/behave, GET /_control/extractions[/<rfc>], POST /_control/reset',
    );
  };

  const handle = (request: IncomingMessage, raw: Buffer, response: ServerResponse) => {
    const method = request.method ?? '';
    const segments = ((request.url ?? '/').split('?', 1)[0] ?? '/').split('/').filter(Boolean).map(decodeURIComponent);
    let body: unknown;
    try {
      body = raw.byteLength ? JSON.parse(raw.toString('utf8')) : undefined;
    } catch {
      body = null;
    }
    let reply: Reply;
    try {
      if (segments[0] === '_control') reply = control(method, segments, body);
      else if (segments[0] === 'v1' && segments[1] === 'extractions')
        reply = api(method, segments, request.headers, body);
      else reply = error(404, 'not_found', 'Not a route of the SAT provider simulator');
    } catch (cause) {
      reply = error(400, 'bad_request', (cause as Error).message);
    }
    if (reply.package) {
      void sendPackage(request, response, reply.package).catch(() => response.destroy());
      return;
    }
    response.writeHead(reply.status, {
      'content-type': reply.contentType,
      'content-length': String(Buffer.byteLength(reply.body)),
    });
    response.end(reply.body);
  };

  /** How many downloads of each package stalled so far. */
  const stalled = new Map<string, number>();

  /**
   * Sends a package as its extraction's delivery says: the range asked for (when ranges are honoured and `If-Range`,
   * if sent, names this package), held to the rate, stopping before the stall byte while stalls are left.
   */
  const sendPackage = async (
    request: IncomingMessage,
    response: ServerResponse,
    { id, source, extraction }: NonNullable<Reply['package']>,
  ) => {
    const delivery = extraction.scenario.delivery ?? {};
    // A ZIP on disk that is no longer there is a package the provider purged.
    if (!(source instanceof Uint8Array) && !existsSync(source.path)) {
      extraction.packageRequests.push({ packageId: id, range: null, status: 410, sent: 0, ended: true });
      const gone = JSON.stringify({ error: { code: 'package_gone', message: 'The package is no longer available' } });
      response.writeHead(410, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(gone) });
      response.end(gone);
      return;
    }
    const size = source instanceof Uint8Array ? source.byteLength : statSync(source.path).size;
    const etag = `"${id}-${size}"`;
    const asked = typeof request.headers.range === 'string' ? request.headers.range : null;
    const ifRange = request.headers['if-range'];
    const range = /^bytes=(\d+)-(\d*)$/.exec(asked ?? '');
    const honoured = asked !== null && delivery.ranges !== false && (ifRange === undefined || ifRange === etag);
    const seen: PackageRequest = { packageId: id, range: asked, status: 200, sent: 0, ended: false };
    extraction.packageRequests.push(seen);
    let start = 0;
    let end = size;
    if (honoured) {
      const first = range ? Number(range[1]) : NaN;
      const last = range?.[2] ? Math.min(Number(range[2]) + 1, size) : size;
      if (!(first < size && first < last)) {
        seen.status = 416;
        response.writeHead(416, { 'content-range': `bytes */${size}` });
        response.end();
        return;
      }
      [start, end] = [first, last];
      seen.status = 206;
    }
    response.writeHead(seen.status, {
      'content-type': 'application/zip',
      'content-length': String(end - start),
      etag,
      ...(delivery.ranges === false ? {} : { 'accept-ranges': 'bytes' }),
      ...(seen.status === 206 ? { 'content-range': `bytes ${start}-${end - 1}/${size}` } : {}),
    });
    const stallAt =
      delivery.stallAtByte !== undefined &&
      delivery.stallAtByte >= start &&
      delivery.stallAtByte < end &&
      (stalled.get(id) ?? 0) < (delivery.stalls ?? 1)
        ? delivery.stallAtByte
        : null;
    if (stallAt !== null) stalled.set(id, (stalled.get(id) ?? 0) + 1);
    const file = source instanceof Uint8Array ? null : await open(source.path, 'r');
    try {
      const rate = delivery.bytesPerSecond;
      // A twentieth of a second's worth at a time when held to a rate, else 64 KB.
      const slice = rate ? Math.max(1, Math.floor(rate / 20)) : 64 * 1024;
      const began = performance.now();
      const stop = stallAt ?? end;
      let at = start;
      while (at < stop && !response.destroyed) {
        const length = Math.min(slice, stop - at);
        let chunk: Uint8Array;
        if (file) {
          chunk = Buffer.alloc(length);
          await file.read(chunk, 0, length, at);
        } else chunk = (source as Uint8Array).subarray(at, at + length);
        at += length;
        if (!response.write(chunk)) await drained(response);
        seen.sent = at - start;
        if (rate) {
          const due = began + ((at - start) / rate) * 1000 - performance.now();
          if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
        }
      }
      if (stallAt !== null) {
        // Silent, the connection left open: the client must notice on its own. Let go of after ten minutes.
        const closed = new Promise((resolve) => response.once('close', resolve));
        const timer = setTimeout(() => response.destroy(), 600_000);
        await closed;
        clearTimeout(timer);
        return;
      }
      response.end();
      seen.ended = !response.destroyed;
    } finally {
      await file?.close();
    }
  };

  const server = createServer(guarded(handle));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    behave,
    behaveExtraction,
    extractions: list,
    reset,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((cause) => (cause ? reject(cause) : resolve()));
        server.closeAllConnections();
      }),
  };
}

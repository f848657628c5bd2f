import { z } from 'zod';
import type { AnyRoute, DocumentedError } from '../route.ts';
import { FlatError, StepError, ValidationError } from './common.ts';
import { TRIMMED } from '../../platform/schema-atoms.ts';
import { WEBHOOKS, type WebhookDescription } from './webhooks.ts';
import { PUBLIC_PREFIX } from '../../platform/api-paths.ts';

export interface RouteGroup {
  prefix: string;
  routes: readonly AnyRoute[];
}

type JsonSchema = Record<string, unknown>;

const SHAPE_SCHEMA = { flat: 'FlatError', step: 'StepError', validation: 'ValidationError' } as const;

/** Every operation's tag, described once; a tag missing here fails the document's build. */
const TAGS: Record<string, string> = {
  Documents:
    'Fiscal documents received from DIAN and SAT (invoices, credit and debit notes, expenses), with their beneficiary, line items, payables, payments, notes, tags and activity logs.',
  'Workflow steps':
    'The approval, classification and tagging steps of a document, decided through the API (feature `workflow_api`).',
  Banks: "The banks of the company's country, for beneficiaries' bank accounts.",
  'Tax-authority events': 'DIAN reception events 030 to 034 of received invoices (Colombia).',
  Payments: "Payments of payables (manual ones, or documents' installments), their release to the gateway and outcome.",
  Beneficiaries: 'Suppliers and employees the company pays, with their bank accounts and their validation.',
  'Fiscal synchronisation': "Fetching the company's received documents from DIAN or SAT.",
  'ERP catalogs':
    "The ERP's side, with the ERP key: its catalogs (cost centers, vendors, products, taxes, book accounts, payment terms, purchase orders) and the balances of advances.",
  Webhooks:
    'What the service sends to subscribers: signed POSTs; `document.accounted` is answered synchronously with the ERP voucher.',
};

/** How the service signs each webhook, as a receiver checks it. */
const WEBHOOK_SIGNATURE = {
  type: 'apiKey',
  in: 'header',
  name: 'X-Service-Signature',
  description: [
    "Not a key the receiver holds, but the service's signature of the delivery:",
    "the lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the subscription's secret (shown once when an operator creates the subscription).",
    'Compute it over the raw body before parsing and compare in constant time.',
  ].join(' '),
} as const;

/** The contract's version ("interface description version 1.0.0"), not the release's: it moves when the contract does. */
export const INTERFACE_VERSION = '1.0.0';

/** Builds the OpenAPI 3.1 document from the same route declarations that validate requests. */
export function buildOpenApiDocument(groups: readonly RouteGroup[], options: { serverUrl: string; release?: string }) {
  const components: Record<string, JsonSchema> = {};
  const convert = (schema: z.ZodType, io: 'input' | 'output') => toJsonSchema(schema, io, components);
  for (const errorBody of [FlatError, StepError, ValidationError]) convert(errorBody, 'output');
  components.DocumentNoteUpload = {
    type: 'object',
    description: 'A note with an attachment, as multipart/form-data',
    properties: {
      file: { type: 'string', format: 'binary', description: 'pdf, jpg, jpeg or png, at most 5 MB' },
      comment: { type: 'string' },
    },
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const group of groups) {
    for (const route of group.routes) {
      for (const tag of route.tags)
        if (!(tag in TAGS)) throw new Error(`Route ${route.operationId} has tag ${tag}, which TAGS does not describe`);
      if (route.multipart?.form) {
        const { id, description, properties, required } = route.multipart.form;
        components[id] = { type: 'object', description, properties, ...(required ? { required } : {}) };
      }
      const path = `${group.prefix}${route.path}`.replace(/:([A-Za-z_]+)/g, '{$1}');
      (paths[path] ??= {})[route.method] = operation(route, convert);
    }
  }
  paths[`${PUBLIC_PREFIX}/files/{key}`] = { get: fileOperation() };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Accounts-payable API',
      version: INTERFACE_VERSION,
      license: { name: 'Apache License 2.0', identifier: 'Apache-2.0' },
      contact: { name: 'The operator of this deployment', url: `${options.serverUrl}${PUBLIC_PREFIX}/docs` },
      ...(options.release ? { 'x-release': options.release } : {}),
      description: [
        'Accounts payable for companies in Colombia and Mexico: fiscal documents from DIAN and SAT, approval flows, payments, ' +
          'beneficiaries, banks, tax-authority events, fiscal synchronisation and ERP catalogs. ' +
          'Decisions on what the contract leaves open are recorded in docs/decisions.md.',
        'New documents are learnt from the `document.created` webhook or read with GET /documents (`created_at_from`): there is no separate polling endpoint for incoming transactions.',
        'Version 1 changes only by adding (endpoints, optional parameters, fields, codes, events); a change that could break a client gets a new version in the path.',
      ].join('\n\n'),
    },
    servers: [{ url: options.serverUrl }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks: Object.fromEntries(WEBHOOKS.map((webhook) => [webhook.event, webhookOperation(webhook, convert)])),
    components: {
      schemas: components,
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'api-key',
          description: [
            "The company's API key, issued by an operator",
            '(`ops api-keys create`, optionally `--scopes payments:read,payments:write,beneficiaries:read,beneficiaries:write`).',
            'A scoped key is sent the same way and reaches only what its scopes name.',
          ].join(' '),
        },
        ErpApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The company API key as `ApiKey <key>` (ERP catalog endpoints).',
        },
        WebhookSignature: WEBHOOK_SIGNATURE,
      },
    },
  };
}

function operation(route: AnyRoute, convert: (schema: z.ZodType, io: 'input' | 'output') => JsonSchema) {
  const idempotent = route.method === 'post' && route.auth !== 'none';
  const parameters = [
    ...objectParameters(route.params, 'path', convert),
    ...objectParameters(route.query, 'query', convert),
    ...(idempotent
      ? [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'Replays the first answer to this key (same body; for multipart/form-data, the same fields and files) for 24 hours; see docs/decisions.md',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
        ]
      : []),
  ];
  const responses: Record<string, unknown> = {
    [String(route.status ?? 200)]: response(
      route.responseDescription ?? 'Success',
      route.response ? convert(route.response, 'output') : null,
    ),
  };
  for (const alternative of route.alternatives ?? []) {
    responses[String(alternative.status)] = response(
      alternative.description,
      alternative.schema ? convert(alternative.schema, 'output') : null,
    );
  }
  for (const [status, errors] of groupErrors(implicitErrors(route).concat(route.errors ?? []))) {
    const description = errors.map((error) => `\`${error.code}\`: ${error.description}`).join('; ');
    responses[String(status)] = response(description, errorSchema(errors));
  }
  const body = route.body ? convert(route.body, 'input') : null;
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    ...(route.auth === 'none'
      ? { security: [] }
      : { security: [{ [route.auth === 'api-key' ? 'ApiKey' : 'ErpApiKey']: [] }] }),
    ...(parameters.length ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: !route.body!.safeParse(undefined).success,
            content: {
              'application/json': { schema: body },
              ...(route.multipart
                ? { 'multipart/form-data': { schema: { $ref: `#/components/schemas/${multipartFormId(route)}` } } }
                : {}),
            },
          },
        }
      : {}),
    responses,
  };
}

/** The stored files the documents link to (`file_path`, `xml_file_path`, notes' attachments): served outside the route table. */
function fileOperation() {
  const errors: DocumentedError[] = [
    { status: 401, code: 'unauthorized', description: 'missing or invalid API key' },
    { status: 403, code: 'insufficient_scope', description: 'a scoped key (no scope covers stored files)' },
    { status: 404, code: 'file_not_found', description: 'no file of the company has this key' },
    {
      status: 429,
      code: 'rate_limited',
      description: 'this API key made too many requests (when the operator sets a limit)',
    },
    { status: 503, code: 'service_unavailable', description: 'the file storage did not answer' },
  ];
  const binary = { schema: { type: 'string', format: 'binary' } };
  return {
    operationId: 'getFile',
    summary: 'Download a stored file',
    description:
      "A document's XML or attachment, or a note's attachment, as linked from the document: served to the company that owns it, " +
      'with the API key of the documents (a scoped key is refused, as on the documents). `key` is the rest of the link, slashes included.',
    tags: ['Documents'],
    security: [{ ApiKey: [] }],
    parameters: [
      {
        name: 'key',
        in: 'path',
        required: true,
        description: "The file's key: the link's path after `/files/`, starting with the company's reference",
        schema: { type: 'string', minLength: 1 },
      },
    ],
    responses: {
      '200': {
        description:
          'The file, with its own content type: `application/xml`, `application/pdf`, `image/png` or `image/jpeg`',
        content: { 'application/octet-stream': binary },
      },
      ...Object.fromEntries(
        [...groupErrors(errors)].map(([status, grouped]) => [
          String(status),
          response(grouped.map((error) => `\`${error.code}\`: ${error.description}`).join('; '), errorSchema(grouped)),
        ]),
      ),
    },
  };
}

/** The component a route's multipart body refers to: a note's upload, or the form the route describes. */
const multipartFormId = (route: AnyRoute): string => route.multipart?.form?.id ?? 'DocumentNoteUpload';

/** The headers of every delivery besides its signature. */
const WEBHOOK_HEADERS = [
  { name: 'X-Service-Event', description: 'The event name, as in the body', schema: { type: 'string' } },
  {
    name: 'X-Service-Timestamp',
    description:
      'ISO 8601 UTC time of this attempt (each retry has its own): reject one more than 5 minutes from your clock unless its delivery id was already seen',
    schema: { type: 'string', format: 'date-time' },
  },
  {
    name: 'X-Service-Delivery-Id',
    description: 'Unique per event and subscription, the same on every retry of the delivery: deduplicate on it',
    schema: { type: 'string', format: 'uuid' },
  },
].map((header) => ({ ...header, in: 'header', required: true }));

/** A webhook as the receiver sees it: the POST it gets, and what its answers mean. */
function webhookOperation(
  webhook: WebhookDescription,
  convert: (schema: z.ZodType, io: 'input' | 'output') => JsonSchema,
) {
  return {
    post: {
      operationId: `${webhook.event.replace(/\.(\w)/g, (_, letter: string) => letter.toUpperCase())}Webhook`,
      summary: webhook.event,
      description: webhook.summary,
      tags: ['Webhooks'],
      security: [{ WebhookSignature: [] }],
      parameters: WEBHOOK_HEADERS,
      requestBody: { required: true, content: { 'application/json': { schema: convert(webhook.payload, 'output') } } },
      responses: Object.fromEntries(
        webhook.answers.map((answer) => [
          String(answer.status),
          response(answer.description, answer.schema ? convert(answer.schema, 'input') : null),
        ]),
      ),
    },
  };
}

function implicitErrors(route: AnyRoute): DocumentedError[] {
  const errors: DocumentedError[] = [];
  // Authenticated POSTs also validate their Idempotency-Key header.
  if (route.params || route.query || route.body || (route.method === 'post' && route.auth !== 'none')) {
    errors.push({
      status: 400,
      code: 'VALIDATION_ERROR',
      description: 'the request is not valid',
      shape: 'validation',
    });
  }
  if (route.auth !== 'none')
    errors.push({ status: 401, code: 'unauthorized', description: 'missing or invalid API key' });
  if (route.auth !== 'none')
    errors.push({
      status: 403,
      code: 'insufficient_scope',
      description: route.scope
        ? `a scoped key without \`${route.scope}\``
        : 'a scoped key (no scope covers this endpoint)',
    });
  if (route.auth !== 'none')
    errors.push({
      status: 429,
      code: 'rate_limited',
      description:
        'this API key made too many requests (when the operator sets a limit); `retry_after_seconds` and the Retry-After header say when to retry',
    });
  if (route.method === 'post' && route.auth !== 'none') {
    errors.push({
      status: 409,
      code: 'idempotency_key_in_progress',
      description: 'a request with this Idempotency-Key is still running',
    });
    errors.push({
      status: 422,
      code: 'idempotency_key_reused',
      description: 'this Idempotency-Key was used with another request',
    });
  }
  if (route.auth !== 'none')
    errors.push({
      status: 503,
      code: 'service_unavailable',
      description:
        'a dependency (PostgreSQL, Temporal, an outside service) is unreachable for now; retry after the Retry-After header',
    });
  if (route.feature)
    errors.push({
      status: 403,
      code: 'feature_not_enabled',
      description: `the ${route.feature} feature is not enabled for the company`,
      shape: 'step',
    });
  return errors;
}

const schemaRef = (shape: NonNullable<DocumentedError['shape']>) => `#/components/schemas/${SHAPE_SCHEMA[shape]}`;

/**
 * The body of one status: its one shape, or, where errors of several shapes share a status, either of them. The flat
 * and step shapes are told apart by `code` (each code has one shape), as a discriminator says; the validation
 * envelope, which has no top-level `code`, by its own required fields.
 */
function errorSchema(errors: DocumentedError[]): JsonSchema {
  const coded = errors.filter((error) => error.shape !== 'validation');
  const shapes = [...new Set(coded.map((error) => error.shape ?? 'flat'))];
  const codedSchema: JsonSchema | null =
    shapes.length === 0
      ? null
      : shapes.length === 1
        ? { $ref: schemaRef(shapes[0]!) }
        : {
            oneOf: shapes.map((shape) => ({ $ref: schemaRef(shape) })),
            discriminator: {
              propertyName: 'code',
              mapping: Object.fromEntries(coded.map((error) => [error.code, schemaRef(error.shape ?? 'flat')])),
            },
          };
  if (coded.length === errors.length) return codedSchema!;
  const validation = { $ref: schemaRef('validation') };
  return codedSchema ? { oneOf: [validation, codedSchema] } : validation;
}

function groupErrors(errors: DocumentedError[]): Map<number, DocumentedError[]> {
  const grouped = new Map<number, DocumentedError[]>();
  for (const error of errors) grouped.set(error.status, [...(grouped.get(error.status) ?? []), error]);
  return new Map([...grouped].sort(([a], [b]) => a - b));
}

function response(description: string, schema: JsonSchema | null) {
  return schema ? { description, content: { 'application/json': { schema } } } : { description };
}

function objectParameters(
  schema: z.ZodType | undefined,
  location: 'path' | 'query',
  convert: (schema: z.ZodType, io: 'input' | 'output') => JsonSchema,
) {
  if (!schema) return [];
  const json = convert(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property as { description?: string };
    return {
      name,
      in: location,
      required: location === 'path' || (json.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/** zod → JSON Schema 2020-12 (what OpenAPI 3.1 speaks), named schemas hoisted into components. */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    reused: 'inline',
  }) as JsonSchema;
  describeStrings(json, io);
  const { $defs, $schema, id, ...rest } = json as JsonSchema & { $defs?: Record<string, JsonSchema>; id?: string };
  void $schema;
  for (const [name, definition] of Object.entries($defs ?? {}))
    components[name] = nullableAsType(rewriteRefs(stripMeta(definition))) as JsonSchema;
  const body = nullableAsType(rewriteRefs(rest)) as JsonSchema;
  if (typeof id === 'string') {
    components[id] = body;
    return { $ref: `#/components/schemas/${id}` };
  }
  return body;
}

const JS_WHITESPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/**
 * What the handlers ask of request strings, said in the schema: never U+0000 (PostgreSQL cannot store it), and not
 * blank where a trimmed string has a minimum length. The trimming marker itself is dropped.
 */
function describeStrings(node: unknown, io: 'input' | 'output'): void {
  if (Array.isArray(node)) return node.forEach((item) => describeStrings(item, io));
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  const trimmed = schema[TRIMMED] === true;
  delete schema[TRIMMED];
  if (
    io === 'input' &&
    schema.type === 'string' &&
    !('pattern' in schema || 'format' in schema || 'enum' in schema || 'const' in schema)
  ) {
    // JavaScript's trim() whitespace, spelled out: other engines' \s differ (Python's counts U+001C to U+001F).
    const notBlank = trimmed && typeof schema.minLength === 'number' && schema.minLength > 0;
    schema.pattern = notBlank ? `^[^\\u0000]*[^\\u0000${JS_WHITESPACE}][^\\u0000]*$` : '^[^\\u0000]*$';
  }
  Object.values(schema).forEach((value) => describeStrings(value, io));
}

function stripMeta(schema: JsonSchema): JsonSchema {
  const { id, $schema, ...rest } = schema as JsonSchema & { id?: unknown; $schema?: unknown };
  void id;
  void $schema;
  return rest;
}

/**
 * A nullable value of one simple type said as JSON Schema 2020-12 says it, `type: [T, "null"]`, rather than zod's
 * `anyOf: [T, {type: null}]`: client generators make a plain optional field of the first, and some fail on the second.
 * References and unions keep the `anyOf`.
 */
function nullableAsType(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(nullableAsType);
  if (!value || typeof value !== 'object') return value;
  const node = Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, nullableAsType(inner)]),
  ) as JsonSchema;
  const options = node.anyOf;
  if (!Array.isArray(options) || options.length !== 2) return node;
  const isNull = (option: JsonSchema) => option.type === 'null' && Object.keys(option).length === 1;
  const [other, ...rest] = (options as JsonSchema[]).filter((option) => !isNull(option));
  if (!other || rest.length > 0 || typeof other.type !== 'string' || other.anyOf || other.oneOf || other.allOf)
    return node;
  const { anyOf: _anyOf, ...siblings } = node;
  return {
    ...other,
    ...siblings,
    type: [other.type, 'null'],
    ...(Array.isArray(other.enum) ? { enum: [...other.enum, null] } : {}),
  };
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string'
          ? inner.replace('#/$defs/', '#/components/schemas/')
          : rewriteRefs(inner),
      ]),
    );
  }
  return value;
}

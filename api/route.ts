import type { Context } from 'koa';
import type { z } from 'zod';
import type { Company, Feature } from '../db/companies/company.entity.ts';
import type { Scope } from '../db/companies/api-key.entity.ts';
import type { EntityManager } from '../db/orm.ts';
import type { AppDeps } from './deps.ts';
import type { MultipartBody, MultipartLimits } from './multipart.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** `api-key` header on the public API, `Authorization: ApiKey` on the ERP catalog API, or nothing. */
export type AuthMode = 'api-key' | 'erp-key' | 'none';

export interface Caller {
  company: Company;
  apiKeyId: string;
  /** The key's visible prefix, to attribute what the key wrote. */
  apiKeyPrefix: string;
  /** Empty for unscoped keys, which keep full access. */
  scopes: readonly Scope[];
}

export interface RouteRequest<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The multipart/form-data body, read within the route's limits, when the route takes one and the request is one. */
  form?: MultipartBody;
  /** Present on authenticated routes. */
  caller: Caller;
  /** A fresh EntityManager scoped to the caller's company. */
  em: EntityManager;
  deps: AppDeps;
  ctx: Context;
}

/** A response other than the route's default status (204, 202...). */
export class Reply {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body?: unknown) {
    this.status = status;
    this.body = body;
  }
}

export const noContent = (): Reply => new Reply(204);

/**
 * A body that may also come as multipart/form-data: what the form may hold (it is read before the handler runs, so
 * that an Idempotency-Key is held to what the form holds), and its description for the OpenAPI document.
 */
export interface MultipartRoute {
  limits: MultipartLimits;
  /** Without one, the form is a note's upload. */
  form?: MultipartForm;
}

/** A multipart/form-data body as the OpenAPI document describes it (JSON Schema of its fields), under `id`. */
export interface MultipartForm {
  id: string;
  description: string;
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
}

/** An error the route may answer, for the OpenAPI document. */
export interface DocumentedError {
  status: number;
  code: string;
  description: string;
  shape?: 'flat' | 'step' | 'validation';
}

type Schema = z.ZodType;
type Out<S> = S extends Schema ? z.output<S> : undefined;

export interface RouteDef<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  B extends Schema | undefined,
  R extends Schema | null,
> {
  method: HttpMethod;
  /** Koa-style path relative to its base, e.g. `/documents/:reference`. */
  path: string;
  operationId: string;
  summary: string;
  /** What the operation does, beyond its summary: every operation has one. */
  description: string;
  tags: string[];
  auth: AuthMode;
  /** Scoped keys need this scope; unscoped keys always pass. */
  scope?: Scope;
  /** The company must have this feature enabled. */
  feature?: Feature;
  params?: P;
  query?: Q;
  body?: B;
  /** Whether the body may also come as multipart/form-data (validated by the handler, which gets the form). */
  multipart?: MultipartRoute;
  /** Success status of the default response. */
  status?: number;
  response: R;
  responseDescription?: string;
  /** Other success answers (e.g. 204 without body). */
  alternatives?: { status: number; description: string; schema?: Schema }[];
  errors?: DocumentedError[];
  handler: (request: RouteRequest<Out<P>, Out<Q>, Out<B>>) => Promise<(R extends Schema ? z.input<R> : void) | Reply>;
}

// The route table holds routes of many shapes; their handlers are typed at declaration by defineRoute.
export type AnyRoute = RouteDef<any, any, any, any>;

/** Declares a route once: its schemas validate the request, type the handler, and feed the OpenAPI document. */
export function defineRoute<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  R extends Schema | null = null,
>(route: RouteDef<P, Q, B, R>): RouteDef<P, Q, B, R> {
  return route;
}

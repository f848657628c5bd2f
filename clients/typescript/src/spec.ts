/** How the API authenticates an operation: the `api-key` header, `Authorization: ApiKey <key>` (ERP catalogs), or not at all. */
export type AuthMode = 'api-key' | 'erp-key' | 'none';

/** One row of the generated operations table. */
export interface OperationSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute path with `{name}` placeholders for path parameters. */
  path: string;
  auth: AuthMode;
  /** Every status the OpenAPI document declares for the operation. */
  statuses: readonly number[];
  /** The body may also be sent as multipart/form-data. */
  multipart?: boolean;
}

/** A body sent either as JSON or as multipart/form-data, never both. */
export type JsonOrForm<Json, Form> = { body: Json; form?: never } | { form: Form; body?: never };

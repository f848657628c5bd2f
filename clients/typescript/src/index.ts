export {
  createClient,
  expectStatus,
  UnexpectedResponseError,
  type CallOptions,
  type Client,
  type ClientOptions,
  type ResultOf,
} from './client.ts';
export * from './operations.generated.ts';
export type { AuthMode, JsonOrForm, OperationSpec } from './spec.ts';

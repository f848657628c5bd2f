import { Connection, isGrpcServiceError } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.ts';

const { IndexedValueType } = proto.temporal.api.enums.v1;

const INDEXED_TYPE: Partial<Record<SearchAttributeType, proto.temporal.api.enums.v1.IndexedValueType>> = {
  [SearchAttributeType.KEYWORD]: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  [SearchAttributeType.TEXT]: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  [SearchAttributeType.DATETIME]: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
};

/**
 * gRPC answers of a server that does not let this client manage search attributes (a cloud namespace, say):
 * PERMISSION_DENIED, UNIMPLEMENTED, UNAUTHENTICATED.
 */
const NOT_ALLOWED = new Set([7, 12, 16]);

/**
 * Registers the operator search attributes in the namespace; a no-op for those already there. Where the server does
 * not allow it, returns the names that must then exist already (created by the namespace's operators).
 */
export async function registerSearchAttributes(
  connection: Connection,
  namespace: string,
): Promise<{ notAllowed: string[] } | null> {
  try {
    await register(connection, namespace);
    return null;
  } catch (error) {
    if (!isGrpcServiceError(error) || !NOT_ALLOWED.has(error.code)) throw error;
    return { notAllowed: SEARCH_ATTRIBUTES.map((key) => key.name) };
  }
}

async function register(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTES.filter((key) => !known.has(key.name));
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((key) => [key.name, INDEXED_TYPE[key.type]!])),
  });
}

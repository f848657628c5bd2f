import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.ts';

const { IndexedValueType } = proto.temporal.api.enums.v1;

const INDEXED_TYPE: Partial<Record<SearchAttributeType, proto.temporal.api.enums.v1.IndexedValueType>> = {
  [SearchAttributeType.KEYWORD]: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  [SearchAttributeType.TEXT]: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  [SearchAttributeType.DATETIME]: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
};

/** Registers the operator search attributes in the namespace; a no-op for those already there. */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTES.filter((key) => !known.has(key.name));
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((key) => [key.name, INDEXED_TYPE[key.type]!])),
  });
}

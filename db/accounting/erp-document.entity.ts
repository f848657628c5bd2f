import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { Document } from '../documents/document.entity.ts';
import { uuidKey } from '../ids.ts';

/**
 * The document as the ERP registered it (`erp_document.data`), in the ERP's own snake_case shape, built at registration
 * by activities/webhooks/erp-document-data.ts. Rows registered before that keep the `document.accounted` data sent.
 */
export type ErpDocumentData = Record<string, unknown>;

/** A document's registration in the integrator's ERP: the receiver's answer to `document.accounted`. */
export const ErpDocument = defineEntity({
  name: 'ErpDocument',
  tableName: 'erp_documents',
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    document: () => p.manyToOne(Document).unique(),
    registered: p.boolean().default(false),
    /** Text, not varchar: the ERP's ids are stored as it answered them, whatever their length. */
    erpInvoiceId: p.text().nullable(),
    /** Null while the ERP has not assigned a consecutive, which is not an error. */
    invoiceReference: p.text().nullable(),
    data: p.json<ErpDocumentData>().nullable(),
    registeredAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type ErpDocument = InferEntity<typeof ErpDocument>;

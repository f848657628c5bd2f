import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { Document } from '../documents/document.entity.ts';
import { uuidKey } from '../ids.ts';

/** DIAN RADIAN events: 030 acknowledgement, 031 claim, 032 receipt of goods, 033 express and 034 tacit acceptance. */
export const RECEPTION_EVENT_TYPES = ['030', '031', '032', '033', '034'] as const;
export type ReceptionEventType = (typeof RECEPTION_EVENT_TYPES)[number];

export const RECEPTION_EVENT_STATUSES = ['processing', 'accepted', 'rejected', 'failed'] as const;
export type ReceptionEventStatus = (typeof RECEPTION_EVENT_STATUSES)[number];

/** Claim reasons of event 031. */
export const CLAIM_CODES = ['01', '02', '03', '04'] as const;
export type ClaimCode = (typeof CLAIM_CODES)[number];

/** A tax-authority reception event sent for a Colombian document, from `processing` to its final answer. */
export const ReceptionEvent = defineEntity({
  name: 'ReceptionEvent',
  tableName: 'reception_events',
  // One event of each type per document: a repeated request finds the existing one.
  uniques: [{ properties: ['company', 'document', 'eventType'] }],
  properties: {
    id: uuidKey(),
    // The document's company, written with it by the statement that finds the document within the company; the
    // document's key already keeps the event from outliving it, and a second key check per event doubled the insert.
    company: () => p.manyToOne(Company).createForeignKeyConstraint(false),
    document: () => p.manyToOne(Document),
    cufe: p.string().length(96),
    eventType: p.enum(RECEPTION_EVENT_TYPES).nativeEnumName('reception_event_type'),
    status: p.enum(RECEPTION_EVENT_STATUSES).nativeEnumName('reception_event_status').default('processing'),
    responseCodeListId: p.string().$type<ClaimCode>().nullable(),
    descriptionClaim: p.text().nullable(),
    /** Why it was rejected or failed, for people. */
    message: p.text().nullable(),
    dianResponse: p.json<Record<string, unknown>>().nullable(),
    /** When the authority registered the event (the `issue_date` of invoice_reception_events). */
    issueDate: p.datetime().nullable(),
    attempts: p.integer().default(0),
    /** The submission round: a resend of a rejected or failed event starts the next one, and older runs write nothing. */
    round: p.integer().default(1),
    submittedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type ReceptionEvent = InferEntity<typeof ReceptionEvent>;

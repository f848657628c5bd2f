import { z } from 'zod';
import { trimmedString } from '../../platform/schema-atoms.ts';
import { CLAIM_CODES, RECEPTION_EVENT_TYPES } from '../../db/reception-events/reception-event.entity.ts';

const Cufe = z
  .string({ message: 'Must be a CUFE: 96 hexadecimal characters' })
  .regex(/^[a-fA-F0-9]{96}$/, 'Must be a CUFE: 96 hexadecimal characters')
  .describe('CUFE of the invoice (96 hexadecimal characters)');

const EventType = z
  .enum(RECEPTION_EVENT_TYPES, { message: 'Must be one of 030, 031, 032, 033, 034' })
  .describe(
    '030 acknowledgement of receipt, 031 claim, 032 receipt of goods or service, 033 express acceptance, 034 tacit acceptance',
  );

export const SingleEventRequest = z
  .object({
    document_fiscal_reference: Cufe,
    event_type: EventType,
    response_code_list_id: z
      .enum(CLAIM_CODES, { message: 'Must be one of 01, 02, 03, 04' })
      .nullish()
      .describe(
        'Claim concept, required with 031: 01 document with inconsistencies, 02 goods not delivered in full, 03 goods partially not delivered, 04 service not rendered',
      ),
    description_claim: trimmedString({ message: 'Must be a string' })
      .min(1, 'Must not be empty')
      .max(5000, 'Must be at most 5000 characters')
      .nullish()
      .describe('What is claimed, required with 031'),
  })
  .superRefine((body, context) => {
    if (body.event_type !== '031') return;
    if (!body.response_code_list_id)
      context.addIssue({ code: 'custom', path: ['response_code_list_id'], message: 'Required when event_type is 031' });
    if (!body.description_claim)
      context.addIssue({ code: 'custom', path: ['description_claim'], message: 'Required when event_type is 031' });
  })
  .describe('With 030, 032, 033 and 034 the claim fields are ignored.')
  .meta({
    allOf: [
      {
        if: { properties: { event_type: { const: '031' } }, required: ['event_type'] },
        // oxlint-disable-next-line unicorn/no-thenable -- JSON Schema's if/then, not a promise
        then: {
          properties: { response_code_list_id: { type: 'string' }, description_claim: { type: 'string' } },
          required: ['response_code_list_id', 'description_claim'],
        },
      },
    ],
  });

export const BatchEventsRequest = z.object({
  documents_fiscal_reference: z
    .array(Cufe, { message: 'Must be a list of CUFEs' })
    .min(1, 'At least one CUFE is required')
    .max(200, 'At most 200 CUFEs per request')
    .describe('1 to 200 CUFEs; repeated ones count once'),
  events_type: z
    .array(EventType, { message: 'Must be a list of event types' })
    .min(1, 'At least one event type is required')
    .describe(
      '030, 032, 033 and/or 034; 031 (claim) is refused with 422 claim_not_allowed_in_batch, since a claim needs its own concept and text',
    )
    .meta({ items: { type: 'string', enum: RECEPTION_EVENT_TYPES.filter((type) => type !== '031') } }),
});

export const SingleEventResponse = z.strictObject({
  document_fiscal_reference: z.string(),
  message: z.string(),
});

export const BatchEventsResponse = z.strictObject({
  documents_fiscal_reference: z.array(z.string()).describe('The CUFEs whose events were queued, as sent'),
  unknown_documents_fiscal_reference: z
    .array(z.string())
    .describe('The CUFEs that match no document of the company, as sent: their events were not queued (an extension)'),
  message: z.string(),
});

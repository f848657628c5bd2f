import type { z } from 'zod';
import type { FileStorage } from '../../platform/storage/file-storage.ts';
import { uuidv7 } from '../../db/ids.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { findDocumentPage } from '../../db/documents/document.repository.ts';
import { approvalSubject } from '../../db/documents/lifecycle-statements.ts';
import { DocumentNote } from '../../db/documents/note.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import { ensureTags, tagDocument } from '../../db/tags/tag.repository.ts';
import { ADMITTED_TAG } from '../../db/tags/tag.entity.ts';
import { Refusal } from '../../platform/refusal.ts';
import { approveThroughLifecycle, flowEnded } from '../../temporal/documents.ts';
import { throughWorkflow } from '../../temporal/refusals.ts';
import { validationError } from '../errors.ts';
import { refusals } from '../refusals.ts';
import { sniffFileType, type MultipartBody } from '../multipart.ts';
import { renderDocument, renderDocuments } from '../../read-models/document-json.ts';
import { presentNote } from '../presenters/note.ts';
import { defineRoute, type Caller } from '../route.ts';
import { listOf, page } from '../schemas/common.ts';
import { EmptyResponse, MessageResponse, NoteRequest, TagsRequest } from '../schemas/document-commands.ts';
import { ApproveParams, ApproveRequest, DocumentListQuery, DocumentParams } from '../schemas/documents.ts';
import { DocumentDetail, DocumentListItem, NoteBody } from '../../read-models/document-schema.ts';
import { linkRefusal, type OutboundPolicy } from '../../platform/outbound-policy.ts';
import {
  ATTACHMENT_EXTENSIONS,
  foreignExtension,
  linkedFileName,
  MAX_ATTACHMENT_BYTES,
  uploadedFileName,
} from '../../platform/file-types.ts';

/** The document, found or rendered; a reference the company does not have is 404. */
function found<T>(document: T | null): T {
  if (!document) throw new Refusal('document_not_found', 'Document not found');
  return document;
}

export async function documentOr404(em: EntityManager, reference: string): Promise<Document> {
  return found(await em.findOne(Document, { id: reference.toLowerCase() }));
}

/** The API key speaks for a company, not a person: notes and logs name the key that wrote them. */
const author = (caller: Caller) => `API key ${caller.apiKeyPrefix}`;
/** A note's comment, in characters. */
const MAX_COMMENT = 5000;

/**
 * Archives or unarchives a document: a flag for the integrator's own lists, which changes nothing else (its flow, its
 * payables and payments go on). The update applies only when the flag changes, so a repeat (or a concurrent twin)
 * answers the document unchanged and logs nothing.
 */
function archivingRoute(archived: boolean) {
  const change = archived ? 'archived' : 'unarchived';
  return defineRoute({
    method: 'post',
    path: `/documents/:reference/${archived ? 'archive' : 'unarchive'}`,
    operationId: archived ? 'archiveDocument' : 'unarchiveDocument',
    summary: archived ? 'Archive a document' : 'Unarchive a document',
    description: archived
      ? 'Sets `is_archived`: the document leaves the default GET /documents list (`is_archived=true` lists the archived ones) ' +
        'and is still read by its reference. Archiving hides; it changes nothing else: the flow, the payables and the payments ' +
        'of the document go on. Idempotent: an archived document answers unchanged. The change is logged (`document.updated`, ' +
        '`metadata.change` `archived`). Answers the document.'
      : 'Clears `is_archived`: the document is back in the default GET /documents list. Idempotent: a document not archived ' +
        'answers unchanged. The change is logged (`document.updated`, `metadata.change` `unarchived`). Answers the document.',
    tags: ['Documents'],
    auth: 'api-key',
    params: DocumentParams,
    response: DocumentDetail,
    errors: refusals(['document_not_found']),
    handler: async ({ em, params, caller, deps }) => {
      const id = params.reference.toLowerCase();
      await em.transactional(async (tx) => {
        const changed = await tx.nativeUpdate(
          Document,
          { id, company: caller.company.id, isArchived: !archived },
          { isArchived: archived, updatedAt: new Date() },
        );
        if (changed)
          tx.create(ActivityLog, {
            company: caller.company,
            document: tx.getReference(Document, id),
            event: 'document.updated',
            actor: { type: 'system', source: 'integration', name: author(caller) },
            metadata: { change },
          });
      });
      return found(await renderDocument(em, caller.company.id, id, deps.config.publicUrl));
    },
  });
}

/** Documents: the read API, and the annotations an integrator adds (acknowledge, tags, notes). */
export const documentRoutes = [
  defineRoute({
    method: 'get',
    path: '/documents',
    operationId: 'listDocuments',
    summary: 'List documents',
    description:
      'Paginated, filtered and sorted. Archived documents are left out unless `is_archived=true`, which lists only them ' +
      '(as GET /payments leaves out archived payments unless `state=archived`). `fields` adds expansions to each item; ' +
      'without it only the base fields are returned.',
    tags: ['Documents'],
    auth: 'api-key',
    query: DocumentListQuery,
    response: listOf(DocumentListItem, 'DocumentList'),
    handler: async ({ em, caller, query, deps }) => {
      const fields = [...new Set(query.fields ?? [])];
      const { ids, total } = await findDocumentPage(
        em,
        caller.company.country,
        {
          isAdmitted: query.is_admited,
          isCanceled: query.is_canceled,
          isArchived: query.is_archived,
          tags: query.tags,
          search: query.search,
          types: query.type,
          approvalStatuses: query.approval_status,
          paymentStatuses: query.payment_status,
          beneficiaryId: query.beneficiary_reference,
          fiscalReference: query.fiscal_reference,
          issueDate: { from: query.issue_date_from, to: query.issue_date_to },
          expirationDate: { from: query.expiration_date_from, to: query.expiration_date_to },
          createdAt: { from: query.created_at_from, to: query.created_at_to },
        },
        { field: query.sort_by, order: query.sort_order },
        { number: query.page, size: query.page_size },
      );
      return page(
        await renderDocuments(em, caller.company.id, ids, fields, deps.config.publicUrl),
        total,
        query.page,
        query.page_size,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/documents/:reference',
    operationId: 'getDocument',
    summary: 'Get a document with everything it carries',
    description: [
      "The document's detail: what the list shows, with its beneficiary, line items, payables, payments, notes, tags,",
      'reception events, ERP voucher and activity logs always included.',
      'A fiscal reference (CUFE or SAT UUID) is not a reference here: find it with GET /documents?fiscal_reference=.',
    ].join(' '),
    tags: ['Documents'],
    auth: 'api-key',
    params: DocumentParams,
    response: DocumentDetail,
    errors: refusals(['document_not_found']),
    handler: async ({ em, caller, params, deps }) =>
      found(await renderDocument(em, caller.company.id, params.reference, deps.config.publicUrl)),
  }),
  defineRoute({
    method: 'post',
    path: '/documents/:reference/approve',
    operationId: 'approveDocument',
    summary: 'Approve a document',
    description: [
      'Call it once the ERP has reviewed the document (after `document.created`).',
      'The reference may be the internal UUID, the CUFE (96 hex characters) or the SAT fiscal UUID. approval_status becomes `approved` whatever it was;',
      'payables are generated; an open approval step of the flow is resolved as approved and the flow goes on.',
      'Runs through the document workflow, so it never interleaves with step decisions.',
    ].join(' '),
    tags: ['Documents'],
    auth: 'api-key',
    params: ApproveParams,
    body: ApproveRequest,
    response: DocumentDetail,
    errors: refusals(['document_not_found']),
    handler: async ({ em, params, body, caller, deps }) => {
      const document = found(await approvalSubject(em, caller.company.id, params.reference));
      await throughWorkflow(
        () =>
          approveThroughLifecycle(
            deps.temporal,
            {
              companyId: caller.company.id,
              documentId: document.id,
              documentNumber: document.documentNumber,
              fiscalReference: document.fiscalReference,
              approvalStatus: document.approvalStatus,
              type: document.type,
              supplierName: document.supplierName,
              amountCents: document.amountCents,
              currency: document.currency,
            },
            { erpReference: body?.erp_document_reference ?? null, by: author(caller) },
            { running: document.stepPending },
          ),
        flowEnded,
      );
      return found(await renderDocument(em, caller.company.id, document.id, deps.config.publicUrl));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/documents/:reference/acknowledge',
    operationId: 'acknowledgeDocument',
    summary: 'Acknowledge a document (adds the system tag admitido)',
    description: 'Idempotent. Does not change approval_status; `is_admited` becomes true.',
    tags: ['Documents'],
    auth: 'api-key',
    params: DocumentParams,
    response: EmptyResponse,
    errors: refusals(['document_not_found']),
    handler: async ({ em, params, caller }) => {
      await em.transactional(async (tx) => {
        const document = await documentOr404(tx, params.reference);
        const added = await tagDocument(
          tx,
          caller.company,
          document,
          await ensureTags(tx, caller.company, [ADMITTED_TAG], { system: true }),
        );
        if (added.length)
          tx.create(ActivityLog, {
            company: caller.company,
            document,
            event: 'document.updated',
            actor: { type: 'system', source: 'integration', name: author(caller) },
            metadata: { change: 'acknowledged' },
          });
      });
      return {};
    },
  }),
  defineRoute({
    method: 'post',
    path: '/documents/:reference/tags',
    operationId: 'tagDocument',
    summary: 'Add tags to a document and to its payments',
    description: [
      'Additive and idempotent per tag name (compared without case).',
      'Unknown names are created for the company; the name `admitido` is the system tag (it acknowledges the document).',
      'Answers 200 with a message, not 201: it adds to the document and creates no resource of its own.',
    ].join(' '),
    tags: ['Documents'],
    auth: 'api-key',
    params: DocumentParams,
    body: TagsRequest,
    response: MessageResponse,
    errors: refusals(['document_not_found']),
    handler: async ({ em, params, body, caller }) => {
      const added = await em.transactional(async (tx) => {
        const document = await documentOr404(tx, params.reference);
        const newlyAdded = await tagDocument(
          tx,
          caller.company,
          document,
          await ensureTags(tx, caller.company, body.tags_text),
        );
        if (newlyAdded.length)
          tx.create(ActivityLog, {
            company: caller.company,
            document,
            event: 'document.updated',
            actor: { type: 'system', source: 'integration', name: author(caller) },
            metadata: { change: 'tagged', tags: newlyAdded },
          });
        return newlyAdded;
      });
      return { message: added.length ? `Tags added: ${added.join(', ')}` : 'The document already had these tags' };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/documents/:reference/notes',
    operationId: 'addDocumentNote',
    summary: 'Add a note (comment and/or attachment) to a document',
    description: [
      'A comment, an attachment or both.',
      'As JSON, an attachment is a link (`file_path`, an http(s) URL, kept as given and never fetched);',
      'as multipart/form-data, a file (pdf, jpg, jpeg or png, checked by its content, at most 5 MB) stored with the document and served under `file_path`.',
      'The note is logged on the document.',
    ].join(' '),
    tags: ['Documents'],
    auth: 'api-key',
    params: DocumentParams,
    body: NoteRequest,
    multipart: {
      // 5000 characters take up to 20,000 bytes, and a field that reaches its limit counts as cut short.
      limits: { maxFileBytes: MAX_ATTACHMENT_BYTES, maxFiles: 1, maxFieldBytes: 4 * MAX_COMMENT + 1 },
    },
    status: 201,
    response: NoteBody,
    errors: refusals(['document_not_found']),
    handler: async ({ em, params, body, form, caller, deps }) => {
      const document = await documentOr404(em, params.reference);
      const note = form
        ? await uploadedNote(form, caller, document, deps.storage)
        : await linkedNote(body, deps.config.outbound);
      const created = em.create(DocumentNote, {
        company: caller.company,
        document,
        createdBy: { name: author(caller) },
        ...note,
      });
      em.create(ActivityLog, {
        company: caller.company,
        document,
        event: 'document.updated',
        actor: { type: 'system', source: 'integration', name: author(caller) },
        metadata: { change: 'note_added', note: created.id },
      });
      await em.flush();
      return presentNote(created, deps.config.publicUrl);
    },
  }),
  archivingRoute(true),
  archivingRoute(false),
];

type NoteInput = Pick<DocumentNote, 'comment' | 'filePath' | 'fileName'> & { storageKey?: string | null; id?: string };

async function linkedNote(body: z.output<typeof NoteRequest>, outbound: OutboundPolicy): Promise<NoteInput> {
  const refusal = body.file_path ? await linkRefusal(new URL(body.file_path), outbound) : null;
  if (refusal) throw validationError({ file_path: [`Must point to a public address: ${refusal}`] });
  const inferred = body.file_path ? linkedFileName(new URL(body.file_path)) : null;
  return {
    comment: body.comment?.trim() || null,
    filePath: body.file_path ?? null,
    fileName: body.file_name ?? inferred,
  };
}

/** Characters as the limits count them (and as PostgreSQL does): code points, not UTF-16 units. */
const characters = (text: string) => Array.from(text);

const EXTENSIONS = ATTACHMENT_EXTENSIONS;

async function uploadedNote(
  form: MultipartBody,
  caller: Caller,
  document: Document,
  storage: FileStorage,
): Promise<NoteInput> {
  const sent = form.fields.comment;
  if (sent && characters(sent).length > MAX_COMMENT)
    throw validationError({ comment: [`Must be at most ${MAX_COMMENT} characters`] });
  const comment = sent?.trim() || null;
  const file = form.files.find((candidate) => candidate.field === 'file');
  if (!file) throw validationError({ file: ['Required: the attachment, in the field `file`'] });
  const type = sniffFileType(file.bytes);
  if (!type) throw validationError({ file: ['Must be a pdf, jpg, jpeg or png file (checked by content)'] });
  const extension = foreignExtension(type, file.fileName);
  if (extension) throw validationError({ file: [`The content is ${type} but the name ends in .${extension}`] });
  const fileName = uploadedFileName(file.fileName, `attachment.${EXTENSIONS[type][0]}`);
  const id = uuidv7();
  const storageKey = `${caller.company.id}/documents/${document.id}/notes/${id}.${EXTENSIONS[type][0]}`;
  await storage.put(storageKey, file.bytes, type === 'pdf' ? 'application/pdf' : `image/${type}`);
  return { id, comment, filePath: null, fileName, storageKey };
}

import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** What operators search by in the Temporal UI; registered at start-up, kept current by the workflows. */
export const CompanyReference = defineSearchAttributeKey('CompanyReference', SearchAttributeType.KEYWORD);
export const DocumentReference = defineSearchAttributeKey('DocumentReference', SearchAttributeType.KEYWORD);
export const FiscalReference = defineSearchAttributeKey('FiscalReference', SearchAttributeType.KEYWORD);
export const DocumentNumber = defineSearchAttributeKey('DocumentNumber', SearchAttributeType.KEYWORD);
export const ApprovalStatus = defineSearchAttributeKey('ApprovalStatus', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [CompanyReference, DocumentReference, FiscalReference, DocumentNumber, ApprovalStatus];

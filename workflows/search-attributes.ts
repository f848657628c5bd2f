import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** What operators search by in the Temporal UI; registered at start-up, kept current by the workflows. */
export const CompanyReference = defineSearchAttributeKey('CompanyReference', SearchAttributeType.KEYWORD);
export const DocumentReference = defineSearchAttributeKey('DocumentReference', SearchAttributeType.KEYWORD);
export const FiscalReference = defineSearchAttributeKey('FiscalReference', SearchAttributeType.KEYWORD);
export const DocumentNumber = defineSearchAttributeKey('DocumentNumber', SearchAttributeType.KEYWORD);
export const ApprovalStatus = defineSearchAttributeKey('ApprovalStatus', SearchAttributeType.KEYWORD);
/**
 * Since when a long-lived flow waits on something outside it: a person's step, a validated bank account. Absent while
 * it works or waits on its own schedule (a pay date). `ops flows stuck` finds flows by it.
 */
export const WaitingSince = defineSearchAttributeKey('WaitingSince', SearchAttributeType.DATETIME);

export const SEARCH_ATTRIBUTES = [
  CompanyReference,
  DocumentReference,
  FiscalReference,
  DocumentNumber,
  ApprovalStatus,
  WaitingSince,
];

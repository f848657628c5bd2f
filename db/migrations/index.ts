import { Migration20261121080444_initial } from './Migration20261121080444_initial.ts';
import { Migration20261121082335_tag_normalized_name } from './Migration20261121082335_tag_normalized_name.ts';
import { Migration20261121083958_webhook_delivery_body } from './Migration20261121083958_webhook_delivery_body.ts';
import { Migration20261121085056_reception_event_round } from './Migration20261121085056_reception_event_round.ts';
import { Migration20261121090015_fiscal_sync_rate_limit } from './Migration20261121090015_fiscal_sync_rate_limit.ts';
import { Migration20261121110000_idempotency_response_text } from './Migration20261121110000_idempotency_response_text.ts';
import { Migration20261121120000_search_trigram_indexes } from './Migration20261121120000_search_trigram_indexes.ts';
import { Migration20261121170000_webhook_delivery_lease } from './Migration20261121170000_webhook_delivery_lease.ts';
import { Migration20261122020000_reception_event_batches } from './Migration20261122020000_reception_event_batches.ts';
import { Migration20261122041000_dian_event_person } from './Migration20261122041000_dian_event_person.ts';
import { Migration20261122050000_erp_document_ids_text } from './Migration20261122050000_erp_document_ids_text.ts';
import { Migration20261122060000_admitted_tag_is_system } from './Migration20261122060000_admitted_tag_is_system.ts';

/** Every migration, in order. Listed explicitly so that no file discovery happens at run time. */
export const MIGRATIONS = [
  { name: 'Migration20261121080444_initial', class: Migration20261121080444_initial },
  { name: 'Migration20261121082335_tag_normalized_name', class: Migration20261121082335_tag_normalized_name },
  { name: 'Migration20261121083958_webhook_delivery_body', class: Migration20261121083958_webhook_delivery_body },
  { name: 'Migration20261121085056_reception_event_round', class: Migration20261121085056_reception_event_round },
  { name: 'Migration20261121090015_fiscal_sync_rate_limit', class: Migration20261121090015_fiscal_sync_rate_limit },
  {
    name: 'Migration20261121110000_idempotency_response_text',
    class: Migration20261121110000_idempotency_response_text,
  },
  { name: 'Migration20261121120000_search_trigram_indexes', class: Migration20261121120000_search_trigram_indexes },
  { name: 'Migration20261121170000_webhook_delivery_lease', class: Migration20261121170000_webhook_delivery_lease },
  { name: 'Migration20261122020000_reception_event_batches', class: Migration20261122020000_reception_event_batches },
  { name: 'Migration20261122041000_dian_event_person', class: Migration20261122041000_dian_event_person },
  { name: 'Migration20261122050000_erp_document_ids_text', class: Migration20261122050000_erp_document_ids_text },
  { name: 'Migration20261122060000_admitted_tag_is_system', class: Migration20261122060000_admitted_tag_is_system },
];

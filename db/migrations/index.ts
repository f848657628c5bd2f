import { Migration20261125191000_initial } from './Migration20261125191000_initial.ts';
import { Migration20261128220000_accounting_agent } from './Migration20261128220000_accounting_agent.ts';
import { Migration20261128230200_sat_metadata_extraction } from './Migration20261128230200_sat_metadata_extraction.ts';
import { Migration20261128230400_advance_crossings } from './Migration20261128230400_advance_crossings.ts';
import { Migration20261129003500_document_content_hash } from './Migration20261129003500_document_content_hash.ts';
import { Migration20261129120000_mailbox_oauth2 } from './Migration20261129120000_mailbox_oauth2.ts';

/** Every migration, in order. Listed explicitly so that no file discovery happens at run time. */
export const MIGRATIONS = [
  { name: 'Migration20261125191000_initial', class: Migration20261125191000_initial },
  { name: 'Migration20261128220000_accounting_agent', class: Migration20261128220000_accounting_agent },
  { name: 'Migration20261128230200_sat_metadata_extraction', class: Migration20261128230200_sat_metadata_extraction },
  { name: 'Migration20261128230400_advance_crossings', class: Migration20261128230400_advance_crossings },
  { name: 'Migration20261129003500_document_content_hash', class: Migration20261129003500_document_content_hash },
  { name: 'Migration20261129120000_mailbox_oauth2', class: Migration20261129120000_mailbox_oauth2 },
];

import { Migration20261125191000_initial } from './Migration20261125191000_initial.ts';

/** Every migration, in order. Listed explicitly so that no file discovery happens at run time. */
export const MIGRATIONS = [{ name: 'Migration20261125191000_initial', class: Migration20261125191000_initial }];

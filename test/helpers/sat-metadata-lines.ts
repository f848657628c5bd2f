/** The issuer of the CFDI fixture the metadata lines speak of. */
export const METADATA_ISSUER = 'H&E951128469';

/** One data line of SAT's metadata, as SAT writes it, about the CFDI fixture's parties. */
export function satMetadataLine(uuid: string, estatus: string, canceledAt = '', issuer = METADATA_ISSUER): string {
  return [
    uuid.toUpperCase(),
    issuer,
    'HERRERIA & ELECTRICOS S DE CV',
    'KIJ0906199R1',
    'KIJ, S.A DE C.V.',
    'SAT970701NN3',
    '2026-11-20 10:15:00',
    '2026-11-20 10:16:02',
    '17852.75',
    'I',
    estatus,
    canceledAt,
  ].join('~');
}

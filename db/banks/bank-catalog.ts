import type { Country } from '../companies/company.entity.ts';
import { uuidv5 } from '../ids.ts';
import type { EntityManager } from '../orm.ts';
import { Bank } from './bank.entity.ts';

type CatalogEntry = readonly [code: string, name: string];

/** Colombian banks and wallets with their ACH Colombia codes (the code used in PSE and bank files). */
const COLOMBIA: CatalogEntry[] = [
  ['1001', 'Banco de Bogotá'],
  ['1002', 'Banco Popular'],
  ['1006', 'Banco Itaú'],
  ['1007', 'Bancolombia'],
  ['1009', 'Citibank Colombia'],
  ['1012', 'Banco GNB Sudameris'],
  ['1013', 'BBVA Colombia'],
  ['1019', 'Scotiabank Colpatria'],
  ['1023', 'Banco de Occidente'],
  ['1031', 'Bancoldex'],
  ['1032', 'Banco Caja Social'],
  ['1040', 'Banco Agrario'],
  ['1047', 'Banco Mundo Mujer'],
  ['1051', 'Banco Davivienda'],
  ['1052', 'Banco AV Villas'],
  ['1053', 'Banco W'],
  ['1059', 'Bancamía'],
  ['1060', 'Banco Pichincha'],
  ['1061', 'Bancoomeva'],
  ['1062', 'Banco Falabella'],
  ['1063', 'Banco Finandina'],
  ['1065', 'Banco Santander de Negocios Colombia'],
  ['1066', 'Banco Cooperativo Coopcentral'],
  ['1069', 'Banco Serfinanza'],
  ['1070', 'Lulo Bank'],
  ['1097', 'Dale'],
  ['1283', 'Cooperativa Financiera de Antioquia'],
  ['1289', 'Cotrafa'],
  ['1292', 'Confiar Cooperativa Financiera'],
  ['1370', 'Coltefinanciera'],
  ['1507', 'Nequi'],
  ['1551', 'Daviplata'],
  ['1801', 'Movii'],
  ['1809', 'Nu Colombia'],
];

/** Mexican banks with the three-digit institution code that opens every CLABE (Banxico / SPEI). */
const MEXICO: CatalogEntry[] = [
  ['002', 'Banamex'],
  ['006', 'Bancomext'],
  ['009', 'Banobras'],
  ['012', 'BBVA México'],
  ['014', 'Santander'],
  ['019', 'Banjército'],
  ['021', 'HSBC'],
  ['030', 'BanBajío'],
  ['036', 'Inbursa'],
  ['042', 'Mifel'],
  ['044', 'Scotiabank'],
  ['058', 'Banregio'],
  ['059', 'Invex'],
  ['060', 'Bansi'],
  ['062', 'Afirme'],
  ['072', 'Banorte'],
  ['106', 'Bank of America México'],
  ['108', 'MUFG Bank México'],
  ['110', 'JP Morgan'],
  ['112', 'Banco Monex'],
  ['113', 'Ve por Más'],
  ['127', 'Banco Azteca'],
  ['128', 'Autofin'],
  ['129', 'Barclays'],
  ['130', 'Compartamos'],
  ['132', 'Multiva'],
  ['133', 'Actinver'],
  ['136', 'Intercam Banco'],
  ['137', 'BanCoppel'],
  ['138', 'ABC Capital'],
  ['140', 'Consubanco'],
  ['141', 'Volkswagen Bank'],
  ['143', 'CIBanco'],
  ['145', 'Banco Base'],
  ['147', 'Bankaool'],
  ['148', 'PagaTodo'],
  ['150', 'Inmobiliario Mexicano'],
  ['151', 'Donde'],
  ['152', 'Bancrea'],
  ['154', 'Banco Covalto'],
  ['155', 'ICBC'],
  ['156', 'Sabadell'],
  ['157', 'Shinhan'],
  ['158', 'Mizuho Bank'],
  ['159', 'Bank of China'],
  ['160', 'Banco S3'],
  ['166', 'Banco del Bienestar'],
  ['167', 'Hey Banco'],
  ['168', 'Hipotecaria Federal'],
  ['638', 'Nu México'],
  ['646', 'STP'],
  ['722', 'Mercado Pago W'],
  ['728', 'Spin by OXXO'],
];

export const BANK_CATALOG: Record<Country, CatalogEntry[]> = { COL: COLOMBIA, MEX: MEXICO };

export function bankReference(country: Country, code: string): string {
  return uuidv5(`bank:${country}:${code}`);
}

/** Inserts or refreshes the bank catalog; safe to run on every start. */
export async function seedBanks(em: EntityManager): Promise<number> {
  const rows = Object.entries(BANK_CATALOG).flatMap(([country, entries]) =>
    entries.map(([code, name]) => ({
      id: bankReference(country as Country, code),
      country: country as Country,
      code,
      name,
      active: true,
    })),
  );
  await em.upsertMany(Bank, rows, { onConflictFields: ['id'], onConflictAction: 'merge' });
  return rows.length;
}

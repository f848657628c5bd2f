import type { Country } from '../../db/companies/company.entity.ts';
import type { LineItemAdjustment } from '../../db/documents/line-item.entity.ts';
import type { ErpTaxType } from '../../db/erp/tax.entity.ts';

// The fiscal files name a tax by its authority's scheme code; the ERP tax catalog by its type. A tax is matched by
// type, withholding or not, and rate: an IVA at 19% is never an INC or a withholding at 19%.

/**
 * DIAN's TaxScheme IDs, withheld or charged. 22 is the national consumption tax on plastic bags (an INC charged per
 * unit); the departmental and special taxes have no type of their own in ERP catalogs.
 */
const DIAN_TYPES: Record<string, ErpTaxType> = {
  '01': 'iva',
  '02': 'other',
  '03': 'ica',
  '04': 'inc',
  '05': 'reteiva',
  '06': 'retefuente',
  '07': 'reteica',
  '08': 'other',
  '20': 'other',
  '21': 'other',
  '22': 'inc',
  '23': 'other',
  '24': 'other',
  '25': 'other',
  '26': 'other',
};

/** SAT's c_Impuesto: the type is the same whether charged or withheld (a retained IVA is an IVA withholding). */
const SAT_TYPES: Record<string, ErpTaxType> = { '001': 'isr', '002': 'iva', '003': 'ieps' };

/** The ERP tax type of a fiscal file's tax or withholding; null when the file gives no code this product knows. */
export function taxTypeOf(country: Country, adjustment: Pick<LineItemAdjustment, 'code'>): ErpTaxType | null {
  const code = adjustment.code?.trim();
  if (!code) return null;
  return (country === 'COL' ? DIAN_TYPES[code] : SAT_TYPES[code]) ?? null;
}

/** How a person reads a tax: "IVA 19%", "withholding ISR 10%". */
export function taxLabel(type: ErpTaxType | null, withholding: boolean, ratePercentage: string | null): string {
  const name = type ? type.toUpperCase() : 'tax of unknown type';
  const rate = ratePercentage === null ? '' : ` ${Number(ratePercentage)}%`;
  return `${withholding ? 'withholding ' : ''}${name}${rate}`;
}

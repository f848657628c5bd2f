import { Refusal } from '../../platform/refusal.ts';
import { uuidv7 } from '../ids.ts';
import type { EntityManager } from '../orm.ts';
import { runStatement } from '../prepared.ts';
import { AccountingSetting } from './accounting-setting.entity.ts';

/** How the accounting agent works for one company. */
export interface AccountingSettings {
  /** False: accounting never starts by itself; an operator still accounts a document (`ops documents account`). */
  automatic: boolean;
  /** How far, in percent (0 to 100), an invoice line's unit price may be from its order line's and still be crossed. */
  priceTolerancePercent: number;
}

/** A company that never set them: automatic, and prices must match their purchase order exactly. */
export const DEFAULT_ACCOUNTING_SETTINGS: Readonly<AccountingSettings> = { automatic: true, priceTolerancePercent: 0 };

/** A setting the operator may not give, refused before anything is written. */
export class AccountingSettingRefused extends Refusal<'invalid_tolerance'> {}

/** An operator's price tolerance: a percentage from 0 to 100, kept to 2 decimals as the column holds it. */
export function parsePriceTolerance(text: string): number {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(trimmed) || value > 100)
    throw new AccountingSettingRefused(
      'invalid_tolerance',
      `The price tolerance must be a percentage from 0 to 100 (got ${JSON.stringify(text)})`,
    );
  return Math.round(value * 100) / 100;
}

/** The company's settings, or the defaults when it never set them. */
export async function accountingSettingsOf(em: EntityManager, companyId: string): Promise<AccountingSettings> {
  const setting = await em.findOne(AccountingSetting, { company: companyId }, { disableIdentityMap: true });
  if (!setting) return { ...DEFAULT_ACCOUNTING_SETTINGS };
  return { automatic: setting.automatic, priceTolerancePercent: Number(setting.priceTolerancePercent) };
}

// One statement, so that two operators setting different options at once both keep theirs; null keeps what is stored.
const UPSERT = `insert into "accounting_settings"
  ("id", "company_id", "automatic", "price_tolerance_percent", "created_at", "updated_at")
values (:id, :companyId, coalesce(:automatic::boolean, :defaultAutomatic::boolean),
  coalesce(:tolerance::numeric, :defaultTolerance::numeric), now(), now())
on conflict ("company_id") do update set
  "automatic" = coalesce(:automatic::boolean, "accounting_settings"."automatic"),
  "price_tolerance_percent" = coalesce(:tolerance::numeric, "accounting_settings"."price_tolerance_percent"),
  "updated_at" = now()
returning "automatic", "price_tolerance_percent"`;

/** Sets the options given and keeps the others (the defaults, the first time); answers the settings as they now are. */
export async function setAccountingSettings(
  em: EntityManager,
  companyId: string,
  changes: Partial<AccountingSettings>,
): Promise<AccountingSettings> {
  const tolerance = changes.priceTolerancePercent;
  if (tolerance !== undefined && !(tolerance >= 0 && tolerance <= 100))
    throw new AccountingSettingRefused(
      'invalid_tolerance',
      `The price tolerance must be from 0 to 100 (got ${tolerance})`,
    );
  const [row] = await runStatement<{ automatic: boolean; price_tolerance_percent: string }>(em, UPSERT, {
    id: uuidv7(),
    companyId,
    automatic: changes.automatic ?? null,
    defaultAutomatic: DEFAULT_ACCOUNTING_SETTINGS.automatic,
    tolerance: tolerance ?? null,
    defaultTolerance: DEFAULT_ACCOUNTING_SETTINGS.priceTolerancePercent,
  });
  return { automatic: row!.automatic, priceTolerancePercent: Number(row!.price_tolerance_percent) };
}

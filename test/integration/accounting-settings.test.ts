// How the accounting agent works per company: its settings as stored (defaults until set, each option kept when
// another is set) and as operators set them with `ops accounting settings`.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AccountingSetting } from '../../db/accounting/accounting-setting.entity.ts';
import {
  accountingSettingsOf,
  parsePriceTolerance,
  setAccountingSettings,
} from '../../db/accounting/accounting-settings.ts';
import { companyEm, initORM, type Orm } from '../../db/orm.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops } from '../helpers/ops.ts';

let orm: Orm;
beforeAll(async () => {
  orm = await initORM({ url: inject('databaseUrl'), poolMax: 4, statementTimeoutMs: 30_000, debug: false });
});
afterAll(() => orm.close());

describe('accounting settings', () => {
  it('answers the defaults until set, then keeps each option when another one is set', async () => {
    const { company } = await makeCompany(orm);
    const em = companyEm(orm, company.id);
    expect(await accountingSettingsOf(em, company.id)).toEqual({ automatic: true, priceTolerancePercent: 0 });
    expect(await em.count(AccountingSetting, {})).toBe(0);

    expect(await setAccountingSettings(em, company.id, { priceTolerancePercent: 2.5 })).toEqual({
      automatic: true,
      priceTolerancePercent: 2.5,
    });
    expect(await setAccountingSettings(em, company.id, { automatic: false })).toEqual({
      automatic: false,
      priceTolerancePercent: 2.5,
    });
    expect(await setAccountingSettings(em, company.id, {})).toEqual({ automatic: false, priceTolerancePercent: 2.5 });
    expect(await accountingSettingsOf(companyEm(orm, company.id), company.id)).toEqual({
      automatic: false,
      priceTolerancePercent: 2.5,
    });
    await expect(setAccountingSettings(em, company.id, { priceTolerancePercent: 100.5 })).rejects.toMatchObject({
      code: 'invalid_tolerance',
    });
    expect(await companyEm(orm, company.id).count(AccountingSetting, {})).toBe(1);

    const other = await makeCompany(orm);
    expect(await accountingSettingsOf(companyEm(orm, other.company.id), other.company.id)).toEqual({
      automatic: true,
      priceTolerancePercent: 0,
    });
  });

  it('keeps both options when two are set at once from different places', async () => {
    const { company } = await makeCompany(orm);
    await Promise.all([
      setAccountingSettings(companyEm(orm, company.id), company.id, { automatic: false }),
      setAccountingSettings(companyEm(orm, company.id), company.id, { priceTolerancePercent: 1 }),
    ]);
    expect(await accountingSettingsOf(companyEm(orm, company.id), company.id)).toEqual({
      automatic: false,
      priceTolerancePercent: 1,
    });
  });
});

describe('ops accounting settings', () => {
  it('shows and sets the settings, and refuses a bad tolerance or switch without writing', async () => {
    const { company } = await makeCompany(orm);
    const settings = (...flags: string[]) => ops('accounting', 'settings', '--company', company.id, ...flags);
    expect(await settings()).toMatchObject({
      code: 0,
      stdout: { company: company.id, automatic: true, price_tolerance_percent: 0 },
    });
    expect((await settings('--automatic', 'off', '--price-tolerance', '1.5')).stdout).toEqual({
      company: company.id,
      automatic: false,
      price_tolerance_percent: 1.5,
    });
    expect((await settings('--price-tolerance', '100')).stdout).toEqual({
      company: company.id,
      automatic: false,
      price_tolerance_percent: 100,
    });
    // Given with `=`, so that a negative number is not taken for a flag; the other bad values are refused by the same
    // parser (below), each one process here would spend most of its time starting.
    const refused = await settings('--price-tolerance=-1', '--automatic', 'on');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toEqual({
      error: { code: 'invalid_tolerance', message: expect.stringContaining('from 0 to 100') },
    });
    for (const tolerance of ['100.01', '-1', 'cinco', '1e2', ''])
      expect(() => parsePriceTolerance(tolerance)).toThrow(/from 0 to 100/);
    expect(parsePriceTolerance(' 2.555 ')).toBe(2.56);
    const badSwitch = await settings('--automatic', 'yes', '--price-tolerance', '3');
    expect(badSwitch).toMatchObject({
      code: 2,
      stderr: { error: { code: 'usage', message: expect.stringContaining('on, off') } },
    });
    expect((await settings()).stdout).toEqual({ company: company.id, automatic: false, price_tolerance_percent: 100 });

    expect((await settings('--automatic', 'on', '--price-tolerance', '0')).stdout).toEqual({
      company: company.id,
      automatic: true,
      price_tolerance_percent: 0,
    });
    const unknown = await ops('accounting', 'settings', '--company', '00000000-0000-7000-8000-000000000000');
    expect(unknown).toMatchObject({ code: 1, stderr: { error: { code: 'company_not_found' } } });
  });
});

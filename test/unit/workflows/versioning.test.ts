// Every workflow type states how it meets a new build: a new one that does not would be pinned by the worker's default,
// which keeps a long-lived flow on an old build and its workers from ever draining (docs/reliability.md, "Versioning").
import { describe, expect, it } from 'vitest';
import * as workflows from '../../../workflows/index.ts';
import { VERSIONING_BEHAVIOURS } from '../../../workflows/versioning.ts';

describe('versioning behaviours', () => {
  it('name every workflow the bundle exports, and only those', () => {
    expect(Object.keys(VERSIONING_BEHAVIOURS).sort()).toEqual(Object.keys(workflows).sort());
  });

  it('let the long-lived flows move to a new build and pin the short ones', () => {
    const upgrading = Object.entries(VERSIONING_BEHAVIOURS)
      .filter(([, behaviour]) => behaviour === 'AUTO_UPGRADE')
      .map(([name]) => name);
    expect(upgrading.sort()).toEqual(['documentLifecycle', 'housekeeping', 'paymentProcess', 'webhookDeliveryQueue']);
  });
});

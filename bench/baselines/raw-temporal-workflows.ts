// The trivial workflows of the raw Temporal baseline: nothing but the SDK's own round trips.
import { condition, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';

/** The raw worker's one activity: it does nothing and answers its argument. */
export interface RawActivities {
  settle(value: number): Promise<number>;
}

const { settle } = proxyActivities<RawActivities>({ startToCloseTimeout: '10 seconds' });

/** Answers its argument at once: the cheapest update a workflow can take. */
export const echoUpdate = defineUpdate<number, [number]>('echo');
/**
 * Answers once an activity that does nothing has run: the least a command costs that, as the product's, writes in an
 * activity scheduled when its update is recorded and answers when that activity is done (two workflow tasks).
 */
export const echoAfterActivityUpdate = defineUpdate<number, [number]>('echoAfterActivity');

/** Waits for updates forever; each is answered in the workflow task that receives it, or after its activity. */
export async function echoForever(): Promise<void> {
  setHandler(echoUpdate, (value) => value);
  setHandler(echoAfterActivityUpdate, (value) => settle(value));
  await condition(() => false);
}

/** Completes in its first workflow task. */
export async function trivial(value: number): Promise<number> {
  return value;
}

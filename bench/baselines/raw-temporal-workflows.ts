// The trivial workflows of the raw Temporal baseline: nothing but the SDK's own round trips.
import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

/** Answers its argument at once: the cheapest update a workflow can take. */
export const echoUpdate = defineUpdate<number, [number]>('echo');

/** Waits for updates forever; each is answered in the workflow task that receives it. */
export async function echoForever(): Promise<void> {
  setHandler(echoUpdate, (value) => value);
  await condition(() => false);
}

/** Completes in its first workflow task. */
export async function trivial(value: number): Promise<number> {
  return value;
}

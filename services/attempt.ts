/**
 * The try of a long job that may die and be tried again: which try it is, what the try before it last said of its
 * progress, and a way to keep saying it. An activity gives it (activities/heartbeat.ts); a test may give its own.
 */
export interface Attempt {
  /** 1 on the first try. */
  readonly number: number;
  /** The progress the try before this one last reported, if any. */
  readonly resumed: unknown;
  /** Reports `progress()` now and every few seconds, until the function it answers is called. */
  keepReporting(progress: () => unknown): () => void;
}

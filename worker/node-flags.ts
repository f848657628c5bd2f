/**
 * V8 heap limits for the worker process, on every command that starts it. Bursts of workflow tasks and activities
 * allocate fast, and with V8's defaults the heap, and the SDK's native buffers that its garbage keeps alive, grew to
 * 600-800 MB before a full collection; with these limits the worker peaks at 350-400 MB under the benchmark's load,
 * at the same throughput. Its live data is small (cached workflows, tasks in flight); downloaded packages are byte
 * arrays, held outside this heap.
 */
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-old-space-size=256', '--max-semi-space-size=8'];

/**
 * The worker's environment beyond its settings. The SDK's core runs its own threads beside Node's, and the C library
 * gives each thread that allocates its own malloc arena (up to 8 per core), which keeps what it freed: two arenas kept
 * the worker's peak 25-75 MB lower under the benchmark's events and import, at the same throughput.
 */
export const WORKER_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

/**
 * V8 heap limits for the worker process, on every command that starts it. Bursts of workflow tasks and activities
 * allocate fast, and with V8's defaults the heap, and the SDK's native buffers that its garbage keeps alive, grew to
 * 600-800 MB before a full collection; with these limits the worker peaks at 350-400 MB under the benchmark's load,
 * at the same throughput. Its live data is small (cached workflows, tasks in flight); downloaded packages are byte
 * arrays, held outside this heap.
 */
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-old-space-size=256', '--max-semi-space-size=8'];

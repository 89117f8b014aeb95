/**
 * The simulator's GPU-like timing mode: one {@link narwhal.sim.gpu.StepLoop} per engine runs its
 * requests as vLLM V1 does, in steps of continuous batching with chunked prefill and a finite KV
 * cache, and paces every response by the steps' durations ({@link narwhal.sim.gpu.GpuProfile}).
 *
 * <p>Independent of the HTTP side ({@code narwhal.sim}): a response submits a {@link
 * narwhal.sim.gpu.Sequence} and is told, on its own executor, when each of its tokens is produced.
 * Driven by a {@link narwhal.sim.gpu.StepScheduler}: an engine's event loop in production, a manual
 * clock in tests.
 */
@NullMarked
package narwhal.sim.gpu;

import org.jspecify.annotations.NullMarked;

/**
 * The benchmark harness: {@link narwhal.bench.Bench} runs the arms (direct, narwhal, nginx, nginx-both)
 * against the same simulated engines, interleaved per level, and the concurrency ceiling.
 */
@NullMarked
package narwhal.bench;

import org.jspecify.annotations.NullMarked;

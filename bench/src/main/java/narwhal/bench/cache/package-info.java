/**
 * {@code narwhal bench cache}: cache-aware placement's measured gain against priced placement
 * without the cache and round robin, over seeded multi-turn, shared-prefix and no-reuse traces on
 * GPU-timed simulated engines with vLLM's prefix cache and KV events.
 */
@NullMarked
package narwhal.bench.cache;

import org.jspecify.annotations.NullMarked;

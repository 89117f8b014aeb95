package narwhal.kvindex;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One decoded KV event message: vLLM's {@code EventBatch}.
 *
 * @param ts the engine's timestamp (seconds since the epoch)
 * @param events the events, in order
 * @param dataParallelRank the publishing data-parallel rank, or null when absent
 */
record EventBatch(double ts, List<KvEvent> events, @Nullable Long dataParallelRank) {}

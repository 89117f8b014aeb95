package narwhal.kvindex;

import java.util.Map;
import narwhal.prefix.IndexTrust;
import org.jspecify.annotations.Nullable;

/**
 * One engine's index at one moment, for metrics.
 *
 * @param iid the engine
 * @param index {@code events} or {@code approximate}
 * @param trust whether placement uses it
 * @param blocks blocks held
 * @param batches event messages applied
 * @param events events applied
 * @param drops index drops by reason
 * @param replays gaps asked of the replay socket
 * @param replayFailures gaps it could not fill
 * @param orphanBlocks stored blocks skipped because their parent was unknown
 * @param evictedForCapacity blocks dropped to keep within {@code cache.max_blocks_per_engine}
 * @param checks prefills the self-check compared
 * @param predictedTokens cached tokens predicted for them
 * @param reportedTokens cached tokens the engine reported for them
 * @param divergence the self-check's divergence over its window
 * @param ratio predicted / reported over the window (NaN when nothing was reported)
 * @param lastSeq the last sequence number applied, -1 before any
 * @param lastDrop why the index was last dropped, or null
 */
public record EngineIndexStats(String iid, String index, IndexTrust trust, int blocks, long batches, long events,
    Map<String, Long> drops, long replays, long replayFailures, long orphanBlocks, long evictedForCapacity,
    long checks, long predictedTokens, long reportedTokens, double divergence, double ratio, long lastSeq,
    @Nullable String lastDrop) {}

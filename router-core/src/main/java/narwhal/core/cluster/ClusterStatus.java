package narwhal.core.cluster;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the router's readiness and {@code /narwhal/state} need to know about the replicas it runs
 * with. A router on its own has {@link #NONE}: always ready as far as the cluster goes, and no
 * {@code cluster} section in its state. Read from any thread; must not block.
 */
public interface ClusterStatus {

  /**
   * Why this router must not take traffic yet because of the cluster (it has not caught up with
   * the shared state since it started, or met a key layout it does not know), or null. A cluster
   * that became unreachable after the router caught up is not a reason: the router keeps serving
   * on its last known state.
   */
  @Nullable String notReadyReason();

  /** The {@code cluster} section of {@code /narwhal/state}, or null for none. */
  @Nullable Map<String, Object> state();

  ClusterStatus NONE = new ClusterStatus() {
    @Override
    public @Nullable String notReadyReason() {
      return null;
    }

    @Override
    public @Nullable Map<String, Object> state() {
      return null;
    }
  };
}

package narwhal.core.health;

import java.util.Comparator;
import java.util.List;
import narwhal.config.EngineSpec;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import org.jspecify.annotations.Nullable;

/**
 * Which engines a readmission probe runs through: an inference probe needs a producer and a
 * consumer, one of them the engine under test; lifecycle validation needs the live peers.
 */
final class ProbePairs {

  /** A producer and consumer for an inference probe, or why there is none. */
  record Pair(@Nullable EngineState producer, @Nullable EngineState consumer, @Nullable String inconclusive) {}

  private final Fleet fleet;

  ProbePairs(Fleet fleet) {
    this.fleet = fleet;
  }

  /**
   * After a crossed-decode failure the decode uses a new handoff from the original producer;
   * otherwise the partner is the least-loaded engine in placement for the other phase.
   */
  Pair forInferenceProbe(TrackedEngine t) {
    EngineState target = t.engine;
    if (t.producerIid != null) {
      EngineState producer = fleet.get(t.producerIid);
      if (producer == null || !producer.inPlacement()) {
        return new Pair(null, null, "original producer " + t.producerIid + " is not in placement");
      }
      return new Pair(producer, target, null);
    }
    EngineState producer;
    EngineState consumer;
    if (target.role().canPrefill()) {
      producer = target;
      consumer = target.role().canDecode() ? target : partner(target, false);
    } else {
      producer = partner(target, true);
      consumer = target;
    }
    if (producer == null || consumer == null) {
      return new Pair(null, null, "no engine in placement to pair with for the probe");
    }
    return new Pair(producer, consumer, null);
  }

  /** Every other engine in placement, for lifecycle validation. */
  List<EngineSpec> livePeers(EngineState engine) {
    return fleet.engines().stream().filter(e -> e != engine && e.inPlacement()).map(EngineState::spec).toList();
  }

  private @Nullable EngineState partner(EngineState target, boolean prefill) {
    return fleet.engines().stream()
        .filter(e -> e != target && e.inPlacement())
        .filter(e -> prefill ? e.role().canPrefill() : e.role().canDecode())
        .min(Comparator.comparingInt(EngineState::residentWork).thenComparing(EngineState::iid))
        .orElse(null);
  }
}

package narwhal.core.fleet;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerArray;
import narwhal.api.FailureClass;
import narwhal.api.FailurePolicy;

/**
 * One engine's consecutive-failure streaks, one per breaker class. A failure extends its own
 * class's streak; a success clears only the classes its evidence speaks for (a healthy
 * {@code /health} says nothing about whether the engine can still decode), per {@link Evidence}.
 *
 * <p>Written by the health monitor's loop, read from anywhere (state endpoint, metrics), hence
 * atomics.
 */
public final class FailureStreaks {

  /** The classes the breaker counts, per {@link FailurePolicy}: engine faults only. */
  public static final Set<FailureClass> COUNTED = FailurePolicy.breakerClasses();

  /** What a success proves, and therefore which streaks it ends. */
  public enum Evidence {
    /** The engine judged a request itself (a 4xx other than 408/429): it is up and answering. */
    REJECTED_REQUEST(FailureClass.CONNECTION, FailureClass.INFERENCE_STATUS),
    /** {@code /health} answered 200. */
    HEALTH_OK(FailureClass.CONNECTION, FailureClass.TIMEOUT, FailureClass.OVERLOAD),
    /** A prefill leg returned a usable handoff. */
    PREFILL_HANDOFF(FailureClass.CONNECTION, FailureClass.INFERENCE_STATUS, FailureClass.KV_HANDOFF),
    /** A decode stream reached {@code [DONE]}. */
    DECODE_DONE(FailureClass.CONNECTION, FailureClass.INFERENCE_STATUS, FailureClass.STREAM);

    private final Set<FailureClass> clears;

    Evidence(FailureClass first, FailureClass... rest) {
      this.clears = EnumSet.of(first, rest);
    }

    public Set<FailureClass> clears() {
      return clears;
    }
  }

  private final AtomicIntegerArray streaks = new AtomicIntegerArray(FailureClass.values().length);

  /** Extends {@code cls}'s streak and returns its new length (0 for classes the breaker ignores). */
  public int recordFailure(FailureClass cls) {
    return COUNTED.contains(cls) ? streaks.incrementAndGet(cls.ordinal()) : 0;
  }

  public void recordSuccess(Evidence evidence) {
    for (FailureClass cls : evidence.clears()) {
      streaks.set(cls.ordinal(), 0);
    }
  }

  /** True when a success with this evidence would change nothing: every streak it ends is 0. */
  public boolean alreadyClear(Evidence evidence) {
    for (FailureClass cls : evidence.clears()) {
      if (streaks.get(cls.ordinal()) != 0) {
        return false;
      }
    }
    return true;
  }

  public void reset(FailureClass cls) {
    streaks.set(cls.ordinal(), 0);
  }

  public int get(FailureClass cls) {
    return streaks.get(cls.ordinal());
  }

  /** Every counted class with its streak, in declaration order, for the state endpoint and metrics. */
  public Map<FailureClass, Integer> snapshot() {
    Map<FailureClass, Integer> out = new LinkedHashMap<>();
    for (FailureClass cls : COUNTED) {
      out.put(cls, get(cls));
    }
    return out;
  }
}

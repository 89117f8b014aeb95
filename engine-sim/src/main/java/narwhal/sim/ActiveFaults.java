package narwhal.sim;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * An installed {@link FaultPlan} plus the counts that {@code count=K} faults consume.
 *
 * <p>A counted engine fault is used up by the requests it applies to; a counted directive is
 * counted per distinct directive text, so a prompt carrying {@code [[sim:status=503,count=1]]}
 * fails the first time and succeeds when retried. Thread-safe: the counts are atomic and shared by
 * every event loop of the engine.
 */
final class ActiveFaults {
  private final FaultPlan plan;
  private final AtomicInteger[] remaining;
  private final Map<String, AtomicInteger> directiveUses = new ConcurrentHashMap<>();

  ActiveFaults(FaultPlan plan) {
    this.plan = plan;
    List<FaultSpec> specs = plan.parsed();
    this.remaining = new AtomicInteger[specs.size()];
    for (int i = 0; i < remaining.length; i++) {
      remaining[i] = new AtomicInteger(specs.get(i).count());
    }
  }

  FaultPlan plan() {
    return plan;
  }

  /** True while a {@code dead} fault is in force; consumes nothing. */
  boolean isDead() {
    List<FaultSpec> specs = plan.parsed();
    for (int i = 0; i < specs.size(); i++) {
      if (specs.get(i).kind() == FaultKind.DEAD && remaining[i].get() != 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * The faults for one request of {@code phase} (null when the body could not be read), consuming
   * one use of every counted fault that applies.
   */
  RequestFaults resolve(@Nullable RequestPhase phase, List<FaultSpec> directives) {
    RequestFaults faults = new RequestFaults();
    List<FaultSpec> specs = plan.parsed();
    for (int i = 0; i < specs.size(); i++) {
      FaultSpec spec = specs.get(i);
      if (spec.matches(phase) && takeOne(remaining[i])) {
        faults.apply(spec);
      }
    }
    for (FaultSpec directive : directives) {
      if (directive.matches(phase) && takeDirective(directive)) {
        faults.apply(directive);
      }
    }
    return faults;
  }

  private static boolean takeOne(AtomicInteger counter) {
    while (true) {
      int left = counter.get();
      if (left == FaultSpec.UNLIMITED) {
        return true;
      }
      if (left == 0) {
        return false;
      }
      if (counter.compareAndSet(left, left - 1)) {
        return true;
      }
    }
  }

  private boolean takeDirective(FaultSpec directive) {
    if (directive.count() == FaultSpec.UNLIMITED) {
      return true;
    }
    AtomicInteger uses = directiveUses.computeIfAbsent(directive.text(), text -> new AtomicInteger());
    return uses.incrementAndGet() <= directive.count();
  }
}

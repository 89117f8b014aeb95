package narwhal.sim.gpu;

import java.util.ArrayList;
import java.util.List;

/** A {@link SequenceListener} that notes when (in ms on the manual clock) each event came. */
final class TokenLog implements SequenceListener {
  private final ManualStepScheduler scheduler;
  final List<Double> tokenMillis = new ArrayList<>();
  final List<Double> kvArrivedMillis = new ArrayList<>();
  private int hookAt = -1;
  private Runnable hook = () -> {};

  TokenLog(ManualStepScheduler scheduler) {
    this.scheduler = scheduler;
  }

  @Override
  public void tokenProduced() {
    tokenMillis.add(scheduler.nowMillis());
    if (tokenMillis.size() == hookAt) {
      hook.run();
    }
  }

  /** Runs {@code action} as token {@code n} arrives (on the step loop, as it ends the step). */
  TokenLog whenToken(int n, Runnable action) {
    hookAt = n;
    hook = action;
    return this;
  }

  @Override
  public void kvArrived() {
    kvArrivedMillis.add(scheduler.nowMillis());
  }

  int tokens() {
    return tokenMillis.size();
  }

  double first() {
    return tokenMillis.get(0);
  }

  /** When token {@code n} (1-based) came. */
  double token(int n) {
    return tokenMillis.get(n - 1);
  }

  double last() {
    return tokenMillis.get(tokenMillis.size() - 1);
  }

  /** How long the step that produced token {@code n} (n ≥ 2) lasted: the time since token n − 1. */
  double interval(int n) {
    return token(n) - token(n - 1);
  }
}

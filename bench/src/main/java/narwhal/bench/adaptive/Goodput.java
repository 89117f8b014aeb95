package narwhal.bench.adaptive;

import java.util.Comparator;
import java.util.List;

/**
 * Goodput: the highest offered rate at which attainment is at least the target (90 %), from a
 * sweep of rates. Between the last rate that meets the target and the next that misses it, the
 * rate where attainment crosses the target is interpolated linearly; a sweep that meets it at
 * every rate reports its highest rate (the true goodput may be higher), one that never does 0.
 */
final class Goodput {

  static final double TARGET = 0.9;

  private Goodput() {}

  static double of(List<ArmRun> sweep) {
    List<ArmRun> byRate = sweep.stream().sorted(Comparator.comparingDouble(ArmRun::rate)).toList();
    double best = 0;
    for (int i = 0; i < byRate.size(); i++) {
      ArmRun r = byRate.get(i);
      if (r.attainment() < TARGET) {
        if (i > 0 && byRate.get(i - 1).attainment() >= TARGET) {
          ArmRun ok = byRate.get(i - 1);
          double t = (ok.attainment() - TARGET) / (ok.attainment() - r.attainment());
          best = ok.rate() + t * (r.rate() - ok.rate());
        }
        return best;
      }
      best = r.rate();
    }
    return best;
  }

  /** True when the sweep met the target at its highest rate: the goodput is a lower bound. */
  static boolean openEnded(List<ArmRun> sweep) {
    return sweep.stream().max(Comparator.comparingDouble(ArmRun::rate))
        .map(r -> r.attainment() >= TARGET).orElse(false);
  }
}

package narwhal.bench.adaptive;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One trace phase's share of a run: where the misses of a run fall (a transition the controller
 * was late for, a burst beyond any split's capacity) is what the headline attainment hides.
 *
 * @param phase the phase's position (1-based) and name, e.g. {@code 3 prompt-heavy}
 * @param offered requests of the phase that reported
 * @param met those that completed within both SLOs
 * @param refused those refused with 429
 */
record PhaseAttainment(String phase, int offered, int met, int refused) {

  double attainment() {
    return offered == 0 ? 0 : (double) met / offered;
  }

  /** Groups outcomes by the run of consecutive arrivals of one phase, in arrival order. */
  static List<PhaseAttainment> of(List<ReplayedRequest> outcomes, double sloTtftS, double sloTpotS) {
    List<ReplayedRequest> inOrder = outcomes.stream()
        .sorted(Comparator.comparingLong(o -> o.arrival().atNanos())).toList();
    List<PhaseAttainment> phases = new ArrayList<>();
    String current = null;
    int offered = 0;
    int met = 0;
    int refused = 0;
    for (ReplayedRequest o : inOrder) {
      if (!o.arrival().phase().equals(current)) {
        if (current != null) {
          phases.add(new PhaseAttainment((phases.size() + 1) + " " + current, offered, met, refused));
        }
        current = o.arrival().phase();
        offered = 0;
        met = 0;
        refused = 0;
      }
      offered++;
      met += o.met(sloTtftS, sloTpotS) ? 1 : 0;
      refused += o.status() == 429 ? 1 : 0;
    }
    if (current != null) {
      phases.add(new PhaseAttainment((phases.size() + 1) + " " + current, offered, met, refused));
    }
    return phases;
  }
}

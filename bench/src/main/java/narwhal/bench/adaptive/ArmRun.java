package narwhal.bench.adaptive;

import java.util.List;

/**
 * One configuration at one offered rate on one trace: what the client saw, scored against the
 * SLOs. Attainment counts every offered request; refusals, failures and unfinished streams miss.
 */
record ArmRun(String trace, String configuration, double rate, int offered, int met, int refused, int failed,
    double ttftP50S, double ttftP99S, double tpotP50S, List<RoleSampler.Sample> roles, List<PhaseAttainment> phases) {

  ArmRun {
    roles = List.copyOf(roles);
    phases = List.copyOf(phases);
  }

  double attainment() {
    return offered == 0 ? 0 : (double) met / offered;
  }

  static ArmRun score(String trace, String configuration, double rate, int offered, List<ReplayedRequest> outcomes,
      double sloTtftS, double sloTpotS, List<RoleSampler.Sample> roles) {
    int met = 0;
    int refused = 0;
    int failed = 0;
    List<Double> ttfts = new java.util.ArrayList<>();
    List<Double> tpots = new java.util.ArrayList<>();
    for (ReplayedRequest o : outcomes) {
      if (o.met(sloTtftS, sloTpotS)) {
        met++;
      }
      if (o.status() == 429) {
        refused++;
      } else if (!o.complete()) {
        failed++;
      }
      if (o.complete()) {
        ttfts.add(o.ttftS());
        if (o.tokens() >= 2) {
          tpots.add(o.tpotS());
        }
      }
    }
    // Requests that never reported count as failed: the offered count is the trace's.
    failed += Math.max(0, offered - outcomes.size());
    return new ArmRun(trace, configuration, rate, offered, met, refused, failed, percentile(ttfts, 0.5),
        percentile(ttfts, 0.99), percentile(tpots, 0.5), roles, PhaseAttainment.of(outcomes, sloTtftS, sloTpotS));
  }

  private static double percentile(List<Double> values, double q) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = values.stream().sorted().toList();
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1));
  }
}

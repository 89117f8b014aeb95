package narwhal.bench.adaptive;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import narwhal.bench.load.PoissonSchedule;

/**
 * The requests of one run, fixed before it starts: Poisson arrivals per phase at the phase's rate,
 * each request's prompt and output drawn uniformly within ±25 % of the phase's sizes. Seeded, so
 * every configuration at a rate replays the same requests.
 */
record Trace(List<Arrival> arrivals, double seconds) {

  /** One request: when it is sent (from the run's start), its prompt and output lengths, its phase. */
  record Arrival(long atNanos, int promptTokens, int outputTokens, String phase) {}

  static Trace generate(List<TracePhase> phases, double baseRate, long seed) {
    List<Arrival> arrivals = new ArrayList<>();
    SplittableRandom sizes = new SplittableRandom(seed ^ 0x5DEECE66DL);
    long phaseStart = 0;
    for (int i = 0; i < phases.size(); i++) {
      TracePhase phase = phases.get(i);
      long phaseEnd = phaseStart + Math.round(phase.seconds() * 1e9);
      PoissonSchedule gaps = new PoissonSchedule(baseRate * phase.rateFactor(), seed + i);
      long at = phaseStart + gaps.nextGapNanos();
      while (at < phaseEnd) {
        arrivals.add(new Arrival(at, jitter(sizes, phase.promptTokens()), jitter(sizes, phase.outputTokens()),
            phase.name()));
        at += gaps.nextGapNanos();
      }
      phaseStart = phaseEnd;
    }
    return new Trace(List.copyOf(arrivals), phaseStart / 1e9);
  }

  private static int jitter(SplittableRandom random, int around) {
    return Math.max(1, (int) Math.round(around * (0.75 + 0.5 * random.nextDouble())));
  }
}

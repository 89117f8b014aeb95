package narwhal.bench.report;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Several rounds of one arm at one level as one row ({@code bench sweep --rounds}).
 *
 * <p>Why rounds: on this machine a proxy's CPU per token at a few thousand tokens a second is
 * mostly the cost of waking idle CPUs, and that moves between windows by a third or more for the
 * same code (nginx included). Interleaving the arms several times and pooling their windows lets
 * slow drift land on every arm alike; pooling (not averaging ratios) weighs each window by the
 * work it did.
 */
public final class Rounds {

  private Rounds() {}

  /**
   * @param rounds the same arm, level and engine style, one row per window
   * @param ttftUs the windows' time-to-first-token histograms merged (microseconds)
   * @param itlUs their inter-token histograms merged (microseconds)
   */
  public static ArmLevel pool(List<ArmLevel> rounds, Histogram ttftUs, Histogram itlUs) {
    if (rounds.size() == 1) {
      return rounds.get(0);
    }
    ArmLevel first = rounds.get(0);
    double window = 0;
    long completed = 0;
    long tokens = 0;
    double proxyCpu = 0;
    double engines = 0;
    double generator = 0;
    long errors = 0;
    double other = 0;
    double softirq = 0;
    double steal = 0;
    double user = 0;
    double jit = 0;
    double rss = 0;
    double peakRss = 0;
    double heapUsed = -1;
    double heapCommitted = -1;
    boolean noisy = false;
    String firstError = "";
    Map<String, Long> errorKinds = new TreeMap<>();
    for (ArmLevel r : rounds) {
      window += r.windowSeconds();
      completed += r.completed();
      tokens += r.tokens();
      proxyCpu += r.proxyCpuSeconds();
      engines += r.enginesCpuSeconds();
      generator += r.generatorCpuSeconds();
      errors += r.errors();
      other += r.otherCpuCores() * r.windowSeconds();
      softirq += r.softirqCores() * r.windowSeconds();
      steal += r.stealCores() * r.windowSeconds();
      user += r.proxyUserCpuSeconds();
      jit += r.jitCpuSeconds();
      rss = Math.max(rss, r.proxyRssMb());
      peakRss = Math.max(peakRss, r.proxyPeakRssMb());
      heapUsed = Math.max(heapUsed, r.heapUsedMaxMb());
      heapCommitted = Math.max(heapCommitted, r.heapCommittedMb());
      noisy |= r.noisy();
      r.errorKinds().forEach((k, v) -> errorKinds.merge(k, v, Long::sum));
      if (firstError.isEmpty()) {
        firstError = r.firstError();
      }
    }
    // The noisiest round names the other tenants, with its own figure: a row is noisy when any of
    // its rounds was, though the pooled figure may be below the threshold.
    ArmLevel noisiest = rounds.stream().max(Comparator.comparingDouble(ArmLevel::otherCpuCores)).orElseThrow();
    String top = String.format(Locale.ROOT, "noisiest round %.2f%s", noisiest.otherCpuCores(),
        noisiest.otherTopProcesses().isEmpty() ? "" : ": " + noisiest.otherTopProcesses());
    return new ArmLevel(first.arm(), first.level(), first.engineStyle(), window, completed, tokens,
        completed / window, tokens / window,
        percentileMs(ttftUs, 50), percentileMs(ttftUs, 99), percentileMs(itlUs, 50), percentileMs(itlUs, 99),
        proxyCpu,
        completed == 0 ? Double.NaN : proxyCpu * 1000.0 / completed,
        tokens == 0 ? Double.NaN : proxyCpu * 100_000.0 / tokens,
        rss, peakRss, heapUsed, heapCommitted, engines, generator, errors, errorKinds, firstError,
        other / window, noisy, top, softirq / window, steal / window, user, jit);
  }

  /** A percentile of a microsecond histogram in milliseconds; NaN when it is empty. */
  public static double percentileMs(Histogram h, double percentile) {
    return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
  }
}

package narwhal.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The results table: one row per level and arm, with each proxy's added TTFT and inter-token
 * latency (its arm minus direct at the same level and engine stream style) on the rows of the
 * arms with a proxy, and how much CPU other tenants of the machine used during each window.
 */
public final class MarkdownReport {

  private MarkdownReport() {}

  public static String table(List<ArmLevel> rows, String levelName) {
    StringBuilder b = new StringBuilder();
    b.append("| ").append(levelName).append(" | arm | req/s | tok/s | TTFT p50 | TTFT p99 | ITL p50 | ITL p99 ")
        .append("| added TTFT p50 / p99 | added ITL p50 / p99 | proxy CPU s / 1k req | proxy CPU s / 100k tok ")
        .append("| proxy peak RSS MiB | router heap MiB (max used / committed) | other CPU (cores) | errors |\n");
    b.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (ArmLevel r : rows) {
      Optional<ArmLevel> direct = rows.stream()
          .filter(d -> d.arm().equals("direct") && d.level() == r.level() && d.engineStyle().equals(r.engineStyle()))
          .findFirst();
      b.append("| ").append(level(r.level())).append(" | ").append(r.arm())
          .append(" | ").append(f(r.requestsPerSecond(), 1))
          .append(" | ").append(f(r.tokensPerSecond(), 0))
          .append(" | ").append(ms(r.ttftP50Ms())).append(" | ").append(ms(r.ttftP99Ms()))
          .append(" | ").append(ms(r.itlP50Ms())).append(" | ").append(ms(r.itlP99Ms()))
          .append(" | ").append(added(r, direct, true))
          .append(" | ").append(added(r, direct, false))
          .append(" | ").append(r.hasProxy() ? f(r.proxyCpuPer1kRequests(), 3) : "–")
          .append(" | ").append(r.hasProxy() ? f(r.proxyCpuPer100kTokens(), 3) : "–")
          .append(" | ").append(r.hasProxy() ? f(r.proxyPeakRssMb(), 0) : "–")
          .append(" | ").append(r.heapUsedMaxMb() >= 0
              ? f(r.heapUsedMaxMb(), 0) + " / " + f(r.heapCommittedMb(), 0) : "–")
          .append(" | ").append(otherCpu(r))
          .append(" | ").append(r.errors()).append(" |\n");
    }
    return b.toString();
  }

  /** The rows whose engines framed their streams {@code style}, in order. */
  public static List<ArmLevel> withStyle(List<ArmLevel> rows, String style) {
    return rows.stream().filter(r -> r.engineStyle().equals(style)).toList();
  }

  /**
   * One line naming every noisy window (other tenants above {@link ArmLevel#NOISY_CORES} of a
   * core), or saying there was none.
   */
  public static String noisySummary(List<ArmLevel> rows, String levelName) {
    List<String> noisy = new ArrayList<>();
    for (ArmLevel r : rows) {
      if (r.noisy()) {
        noisy.add(level(r.level()) + " " + levelName + " " + r.arm() + " (" + r.engineStyle() + "): "
            + f(r.otherCpuCores(), 2) + (r.otherTopProcesses().isEmpty() ? "" : " (" + r.otherTopProcesses() + ")"));
      }
    }
    String head = "Noisy windows (other tenants used more than " + f(ArmLevel.NOISY_CORES, 2)
        + " of a core): ";
    return noisy.isEmpty()
        ? head + "none of " + rows.size() + "."
        : head + noisy.size() + " of " + rows.size() + " — " + String.join("; ", noisy)
            + " cores. Read those rows with care.";
  }

  private static String otherCpu(ArmLevel r) {
    String v = f(r.otherCpuCores(), 2);
    return r.noisy() ? v + " ⚠ noisy" : v;
  }

  /** Router CPU per relayed token against nginx's (relaying the decode leg), per level: the ratio target. */
  public static String cpuRatios(List<ArmLevel> rows) {
    return cpuRatios(rows, "nginx");
  }

  /** Router CPU per relayed token against that of {@code reference} (an nginx arm), per level. */
  public static String cpuRatios(List<ArmLevel> rows, String reference) {
    Map<Double, double[]> byLevel = new LinkedHashMap<>();
    for (ArmLevel r : rows) {
      double[] v = byLevel.computeIfAbsent(r.level(), l -> new double[] {Double.NaN, Double.NaN});
      if (r.arm().equals("narwhal")) {
        v[0] = r.proxyCpuPer100kTokens();
      } else if (r.arm().equals(reference)) {
        v[1] = r.proxyCpuPer100kTokens();
      }
    }
    List<String> parts = new ArrayList<>();
    byLevel.forEach((level, v) -> {
      if (!Double.isNaN(v[0]) && !Double.isNaN(v[1]) && v[1] > 0) {
        parts.add(level(level) + ": " + f(v[0] / v[1], 2) + "×");
      }
    });
    return String.join(", ", parts);
  }

  /**
   * The CPU the engines and the load generator spent per completed request, per level and arm.
   * Where the engines and the generator saturate their CPUs, this is what limits every arm's
   * requests per second: an arm whose traffic costs them more per request completes fewer.
   */
  public static String harnessCpuPerRequest(List<ArmLevel> rows) {
    return perLevel(rows, r -> r.completed() > 0, r -> r.arm() + " "
        + f((r.enginesCpuSeconds() + r.generatorCpuSeconds()) * 1000.0 / r.completed(), 2), ", ", "; ");
  }

  /**
   * Where each proxy's CPU went, per level: the share spent in user mode (the rest is system
   * calls and the wake-ups they pay for) and, for the router, the share its JIT compiler threads
   * took (compilation still going on in the window, which a router running for days no longer pays).
   */
  public static String cpuBreakdown(List<ArmLevel> rows) {
    return perLevel(rows, r -> r.hasProxy() && r.proxyCpuSeconds() > 0, r -> {
      String part = r.arm() + " user " + percent(r.proxyUserCpuSeconds() / r.proxyCpuSeconds());
      return Double.isNaN(r.jitCpuSeconds())
          ? part
          : part + ", JIT " + percent(r.jitCpuSeconds() / r.proxyCpuSeconds());
    }, "; ", " | ");
  }

  /** "level: part, part; level: …": one {@code part} per row that {@code counts}, grouped by level in row order. */
  private static String perLevel(List<ArmLevel> rows, Predicate<ArmLevel> counts, Function<ArmLevel, String> part,
      String betweenArms, String betweenLevels) {
    Map<Double, List<String>> byLevel = new LinkedHashMap<>();
    for (ArmLevel r : rows) {
      if (counts.test(r)) {
        byLevel.computeIfAbsent(r.level(), l -> new ArrayList<>()).add(part.apply(r));
      }
    }
    List<String> parts = new ArrayList<>();
    byLevel.forEach((level, arms) -> parts.add(level(level) + ": " + String.join(betweenArms, arms)));
    return String.join(betweenLevels, parts);
  }

  private static String percent(double fraction) {
    return f(100 * fraction, 0) + "%";
  }

  private static String added(ArmLevel r, Optional<ArmLevel> direct, boolean ttft) {
    if (!r.hasProxy() || direct.isEmpty()) {
      return "–";
    }
    ArmLevel d = direct.get();
    double p50 = ttft ? r.ttftP50Ms() - d.ttftP50Ms() : r.itlP50Ms() - d.itlP50Ms();
    double p99 = ttft ? r.ttftP99Ms() - d.ttftP99Ms() : r.itlP99Ms() - d.itlP99Ms();
    return signed(p50) + " / " + signed(p99);
  }

  public static String level(double level) {
    return level == Math.rint(level) ? Long.toString((long) level) : f(level, 1);
  }

  private static String ms(double v) {
    return Double.isNaN(v) ? "–" : f(v, 2);
  }

  private static String signed(double v) {
    return (v >= 0 ? "+" : "") + f(v, 2);
  }

  static String f(double v, int decimals) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return "–";
    }
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }
}

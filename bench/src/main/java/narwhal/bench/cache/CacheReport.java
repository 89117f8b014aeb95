package narwhal.bench.cache;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The cache benchmark's report: per trace, every run's figures, then per arm its goodput (the
 * highest offered rate with at least 90 % attainment, interpolated between the rates around the
 * crossing), its hit ratio, prediction and router CPU at that rate, and the targets checked.
 */
final class CacheReport {

  static final double TARGET = 0.9;

  private CacheReport() {}

  static void write(Path dir, String command, List<CacheRun> runs, double ttft, double tpot, String simFlags,
      double seconds) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("# Cache-aware placement benchmark\n\n");
    md.append("Command: `").append(command).append("`  \n");
    md.append(String.format(Locale.ROOT, "SLO: TTFT %.3f s, TPOT %.3f s; %.0f s per run; engines: 4 × narwhal sim"
        + " --timing gpu --enable-prefix-caching %s, role both, pinned.%n%n", ttft, tpot, seconds, simFlags));
    Map<String, List<CacheRun>> byTrace = runs.stream()
        .collect(Collectors.groupingBy(CacheRun::trace, LinkedHashMap::new, Collectors.toList()));
    for (Map.Entry<String, List<CacheRun>> t : byTrace.entrySet()) {
      md.append("## ").append(t.getKey()).append("\n\n");
      md.append("| arm | rate /s | attainment | TTFT p50 s | TTFT p99 s | prefill tokens computed | hit ratio |"
          + " predicted/reported | router CPU ms/request | placements |\n");
      md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
      for (CacheRun r : t.getValue()) {
        md.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f %% | %.3f | %.3f | %d | %.3f | %.3f | %.3f | %s |%n",
            r.arm(), r.rate(), 100 * r.attainment(), r.ttftP50S(), r.ttftP99S(), r.prefillTokensComputed(),
            r.hitRatio(), r.predictionRatio(), r.routerCpuPerRequestMs(), r.placements()));
      }
      md.append("\n| arm | goodput at 90 % (requests/s) | hit ratio (all runs) |\n| --- | --- | --- |\n");
      Map<String, List<CacheRun>> byArm = t.getValue().stream()
          .collect(Collectors.groupingBy(CacheRun::arm, LinkedHashMap::new, Collectors.toList()));
      Map<String, Double> goodput = new LinkedHashMap<>();
      Map<String, Double> hits = new LinkedHashMap<>();
      for (Map.Entry<String, List<CacheRun>> a : byArm.entrySet()) {
        double g = goodput(a.getValue());
        long prompt = a.getValue().stream().mapToLong(CacheRun::promptTokens).sum();
        long cached = a.getValue().stream().mapToLong(CacheRun::cachedTokens).sum();
        double h = prompt == 0 ? 0 : (double) cached / prompt;
        goodput.put(a.getKey(), g);
        hits.put(a.getKey(), h);
        md.append(String.format(Locale.ROOT, "| %s | %.2f | %.3f |%n", a.getKey(), g, h));
      }
      Double events = goodput.get("events");
      Double priced = goodput.get("priced");
      if (events != null && priced != null && priced > 0) {
        md.append(String.format(Locale.ROOT, "%nGoodput, events over priced: %.2f×.%n", events / priced));
      }
      md.append("\n");
    }
    Files.writeString(dir.resolve("README.md"), md.toString());
  }

  /** Appends the index's CPU cost: router CPU per request at {@code streams} streams, events against priced. */
  static void writeCpu(Path dir, int streams, double seconds, Map<String, Double> msPerRequest) throws IOException {
    StringBuilder md = new StringBuilder(Files.readString(dir.resolve("README.md")));
    md.append(String.format(Locale.ROOT, "## The index's CPU%n%n%d concurrent streams (closed loop, shared-prefix"
        + " prompts, 8 output tokens), %.0f s window after a warm-up; router process CPU per completed request.%n%n"
        + "| arm | router CPU ms/request |%n| --- | --- |%n", streams, seconds));
    msPerRequest.forEach((arm, ms) -> md.append(String.format(Locale.ROOT, "| %s | %.4f |%n", arm, ms)));
    Double events = msPerRequest.get("events");
    Double priced = msPerRequest.get("priced");
    if (events != null && priced != null && priced > 0) {
      md.append(String.format(Locale.ROOT, "%nevents costs %+.1f %% router CPU per request over priced.%n",
          100 * (events / priced - 1)));
    }
    Files.writeString(dir.resolve("README.md"), md.toString());
  }

  /** The highest rate at or above the target, interpolated to the crossing; 0 when none meets it. */
  static double goodput(List<CacheRun> sweep) {
    List<CacheRun> byRate = sweep.stream().sorted(Comparator.comparingDouble(CacheRun::rate)).toList();
    double best = 0;
    for (int i = 0; i < byRate.size(); i++) {
      CacheRun r = byRate.get(i);
      if (r.attainment() < TARGET) {
        if (i > 0 && byRate.get(i - 1).attainment() >= TARGET) {
          CacheRun ok = byRate.get(i - 1);
          double f = (ok.attainment() - TARGET) / (ok.attainment() - r.attainment());
          best = ok.rate() + f * (r.rate() - ok.rate());
        }
        return best;
      }
      best = r.rate();
    }
    return best;
  }
}

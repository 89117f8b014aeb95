package narwhal.server;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import narwhal.core.checks.CheckResult;
import org.jspecify.annotations.Nullable;

/**
 * What preflight found: one result per engine (in fleet-file order) and one per role-permitted
 * transfer pair. A pair is null when it was not probed because one of its engines failed.
 *
 * @param engines each engine's checks: health, model, contract, generation
 * @param transfers each producer-consumer pair's KV transfer probe
 */
public record PreflightReport(List<CheckResult> engines, List<Pair> transfers) {

  /** One role-permitted transfer: probed ({@code result} set) or skipped ({@code skippedBecause}). */
  public record Pair(String subject, @Nullable CheckResult result, @Nullable String skippedBecause) {}

  public PreflightReport {
    engines = List.copyOf(engines);
    transfers = List.copyOf(transfers);
  }

  /** True when every engine and every transfer passed. */
  /** The engines whose own checks failed (pairs aside), in report order. */
  public java.util.Set<String> failedEngines() {
    java.util.Set<String> out = new java.util.LinkedHashSet<>();
    for (CheckResult r : engines) {
      if (!r.passed()) {
        out.add(r.subject());
      }
    }
    return out;
  }

  public boolean passed() {
    return engines.stream().allMatch(CheckResult::passed)
        && transfers.stream().allMatch(p -> p.result() != null && p.result().passed());
  }

  /** The report as lines: {@code ok   p0  health 3 ms, ...}, {@code FAIL d1  unreachable: ...}. */
  public List<String> lines() {
    int engineWidth = engines.stream().mapToInt(r -> r.subject().length()).max().orElse(0);
    int pairWidth = transfers.stream().mapToInt(p -> p.subject().length()).max().orElse(0);
    List<String> out = new ArrayList<>();
    for (CheckResult r : engines) {
      out.add(line(r.passed() ? "ok" : "FAIL", r.subject(), engineWidth, r.detail()));
    }
    for (Pair p : transfers) {
      if (p.result() == null) {
        out.add(line("skip", p.subject(), pairWidth, "not probed: " + p.skippedBecause()));
      } else {
        out.add(line(p.result().passed() ? "ok" : "FAIL", p.subject(), pairWidth, p.result().detail()));
      }
    }
    out.add(summary());
    return out;
  }

  public void print(PrintStream out) {
    lines().forEach(out::println);
    out.flush();
  }

  /** {@code preflight passed: 4 engines, 4 kv transfers} or what failed. */
  public String summary() {
    long badEngines = engines.stream().filter(r -> !r.passed()).count();
    long badPairs = transfers.stream().filter(p -> p.result() == null || !p.result().passed()).count();
    if (badEngines == 0 && badPairs == 0) {
      return "preflight passed: " + count(engines.size(), "engine") + ", " + count(transfers.size(), "kv transfer");
    }
    return "preflight FAILED: " + badEngines + " of " + count(engines.size(), "engine") + ", " + badPairs + " of "
        + count(transfers.size(), "kv transfer") + " did not pass";
  }

  private static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  private static String line(String tag, String subject, int width, String detail) {
    return String.format("%-4s %-" + Math.max(1, width) + "s  %s", tag, subject, detail);
  }
}

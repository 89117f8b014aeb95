package narwhal.server;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import narwhal.core.checks.CheckResult;
import narwhal.core.checks.ProfileGate;
import org.jspecify.annotations.Nullable;

/**
 * What preflight found: one result per engine (in fleet-file order), one per role-permitted
 * transfer pair, and the profile gate. A pair is null when it was not probed because one of its
 * engines failed.
 *
 * @param engines each engine's checks: health, model, contract, generation
 * @param transfers each producer-consumer pair's KV transfer probe
 * @param profiles the profile gate: each engine's row (skipped when nothing prices with profiles)
 */
public record PreflightReport(List<CheckResult> engines, List<Pair> transfers, ProfileGate.Report profiles,
    List<CheckResult> cache) {

  /** One role-permitted transfer: probed ({@code result} set) or skipped ({@code skippedBecause}). */
  public record Pair(String subject, @Nullable CheckResult result, @Nullable String skippedBecause) {}

  public PreflightReport {
    engines = List.copyOf(engines);
    transfers = List.copyOf(transfers);
    cache = List.copyOf(cache);
  }

  /** A report without cache checks ({@code cache.mode} off). */
  public PreflightReport(List<CheckResult> engines, List<Pair> transfers, ProfileGate.Report profiles) {
    this(engines, transfers, profiles, List.of());
  }

  /** A report whose profile gate did not run. */
  public PreflightReport(List<CheckResult> engines, List<Pair> transfers) {
    this(engines, transfers, ProfileGate.Report.skipped("not checked"));
  }

  /**
   * The engines whose own checks failed (pairs and profiles aside: an engine without a good profile
   * still serves, priced with the fleet's profile or none), in report order.
   */
  public java.util.Set<String> failedEngines() {
    java.util.Set<String> out = new java.util.LinkedHashSet<>();
    for (CheckResult r : engines) {
      if (!r.passed()) {
        out.add(r.subject());
      }
    }
    return out;
  }

  /** True when every engine, every transfer and the profile gate passed. */
  public boolean passed() {
    return engines.stream().allMatch(CheckResult::passed)
        && transfers.stream().allMatch(p -> p.result() != null && p.result().passed())
        && profiles.passed()
        && cache.stream().allMatch(r -> !r.failed());
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
    if (profiles.skippedBecause() != null) {
      out.add(line("skip", "profiles", 1, profiles.skippedBecause()));
    }
    if (profiles.skippedBecause() == null) {
      for (CheckResult r : profiles.exempt()) {
        out.add(line("skip", r.subject(), engineWidth, r.detail()));
      }
    }
    for (CheckResult r : profiles.engines()) {
      out.add(line(r.passed() ? "ok" : "FAIL", r.subject(), engineWidth, r.detail()));
    }
    for (CheckResult r : cache) {
      out.add(line(r.passed() ? "ok" : r.failed() ? "FAIL" : "skip", r.subject(), engineWidth, r.detail()));
    }
    out.add(summary());
    return out;
  }

  public void print(PrintStream out) {
    lines().forEach(out::println);
    out.flush();
  }

  /**
   * {@code preflight passed: 4 engines, 4 kv transfers, 4 profiles} (profiles only when the gate
   * applies) or what failed.
   */
  public String summary() {
    long badEngines = engines.stream().filter(r -> !r.passed()).count();
    long badPairs = transfers.stream().filter(p -> p.result() == null || !p.result().passed()).count();
    long badProfiles = profiles.engines().stream().filter(r -> !r.passed()).count()
        + cache.stream().filter(CheckResult::failed).count();
    boolean gated = profiles.skippedBecause() == null;
    if (badEngines == 0 && badPairs == 0 && badProfiles == 0) {
      return "preflight passed: " + count(engines.size(), "engine") + ", " + count(transfers.size(), "kv transfer")
          + (gated ? ", " + count(profiles.engines().size(), "profile") : "");
    }
    return "preflight FAILED: " + badEngines + " of " + count(engines.size(), "engine") + ", " + badPairs + " of "
        + count(transfers.size(), "kv transfer")
        + (gated ? ", " + badProfiles + " of " + count(profiles.engines().size(), "profile") : "") + " did not pass";
  }

  private static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  private static String line(String tag, String subject, int width, String detail) {
    return String.format("%-4s %-" + Math.max(1, width) + "s  %s", tag, subject, detail);
  }
}

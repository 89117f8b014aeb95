package narwhal.bench.wakeup;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import narwhal.bench.wakeup.Gaps.Gap;

/**
 * The report: the facts the run depended on (CPUs, echo mode, idle driver, kernel, JDK), then one
 * row per gap with the round trip's percentiles and how much its median adds to the baseline's
 * (the 0 ms gap: the echo's CPU had no time to go idle, or none worth the name).
 *
 * @param facts in report order; the keys are the JSON's
 * @param rows one per gap, in the order measured
 */
record WakeupReport(String title, Map<String, Object> facts, List<RttStats> rows, Gap baseline) {

  WakeupReport {
    facts = new LinkedHashMap<>(facts);
    rows = List.copyOf(rows);
  }

  private RttStats baselineRow() {
    return rows.stream().filter(r -> r.gap().equals(baseline)).findFirst()
        .orElseThrow(() -> new IllegalStateException("no row for the baseline gap " + baseline.label()));
  }

  /** p50(gap) − p50(baseline), in microseconds. */
  double addedUs(RttStats row) {
    return row.p50Us() - baselineRow().p50Us();
  }

  String addedHeader() {
    return "added over the " + baseline.label() + " ms gap's p50 µs";
  }

  String table() {
    StringBuilder b = new StringBuilder();
    b.append("| gap ms | samples | RTT p50 µs | RTT p90 µs | RTT p99 µs | ").append(addedHeader())
        .append(" | late sends (latest µs) |\n");
    b.append("|---:|---:|---:|---:|---:|---:|---:|\n");
    for (RttStats r : rows) {
      b.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %.1f | %.1f | %+.1f | %d (%.1f) |\n",
          r.gap().label(), r.samples(), r.p50Us(), r.p90Us(), r.p99Us(), addedUs(r), r.lateSends(), r.maxLateUs()));
    }
    return b.toString();
  }

  String markdown() {
    StringBuilder b = new StringBuilder("# ").append(title).append("\n\n");
    facts.forEach((k, v) -> {
      b.append("- ").append(k).append(':');
      if (v instanceof Map<?, ?> nested) {
        nested.forEach((nk, nv) -> b.append("\n  - ").append(nk).append(": ").append(nv));
        b.append('\n');
      } else {
        b.append(' ').append(v).append('\n');
      }
    });
    b.append('\n').append(table()).append('\n');
    b.append("RTT: one message to the echo server and back, timed by the prober (System.nanoTime). gap: how "
        + "long the echo side sat idle before the message. late sends: samples whose send the prober started "
        + "more than " + Prober.LATE_NANOS / 1000 + " µs after its time (its gap was longer than the row says; "
        + "in brackets the latest one's delay).\n");
    return b.toString();
  }

  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("title", title);
    m.putAll(facts);
    m.put("baseline_gap_ms", baseline.millis());
    List<Map<String, Object>> gaps = new ArrayList<>();
    for (RttStats r : rows) {
      Map<String, Object> g = new LinkedHashMap<>();
      g.put("gap_ms", r.gap().millis());
      g.put("samples", r.samples());
      g.put("rtt_p50_us", r.p50Us());
      g.put("rtt_p90_us", r.p90Us());
      g.put("rtt_p99_us", r.p99Us());
      g.put("rtt_min_us", r.minUs());
      g.put("rtt_max_us", r.maxUs());
      g.put("rtt_mean_us", r.meanUs());
      g.put("added_p50_us", addedUs(r));
      g.put("late_sends", r.lateSends());
      g.put("latest_send_late_us", r.maxLateUs());
      gaps.add(g);
    }
    m.put("gaps", gaps);
    return m;
  }
}

package narwhal.bench.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One arm at one offered rate on one trace, scored: attainment (every turn offered counts; a turn
 * never sent because its conversation failed earlier misses too), TTFT percentiles, and from the
 * engines' own reports the prompt tokens computed and cached (the router's journal for router
 * arms, the prefill answers for round robin), the index's prediction against them, and the
 * router's CPU seconds per completed request.
 */
record CacheRun(String trace, String arm, double rate, int offered, int met, int completed, double ttftP50S,
    double ttftP99S, long promptTokens, long cachedTokens, long predictedTokens, long reportedWhenPredicted,
    double routerCpuPerRequestMs, String placements) {

  private static final ObjectMapper JSON = new ObjectMapper();

  double attainment() {
    return offered == 0 ? 0 : (double) met / offered;
  }

  /** Cached over prompt tokens: the share of prefill the engines' caches spared. */
  double hitRatio() {
    return promptTokens == 0 ? 0 : (double) cachedTokens / promptTokens;
  }

  long prefillTokensComputed() {
    return promptTokens - cachedTokens;
  }

  /** Predicted over reported cached tokens, over the prefills that had both (1.0: exact). */
  double predictionRatio() {
    return reportedWhenPredicted == 0 ? Double.NaN : (double) predictedTokens / reportedWhenPredicted;
  }

  String line() {
    return String.format(Locale.ROOT, "%-13s %-12s rate %5.1f/s: attainment %5.1f %% (%d/%d), TTFT p50 %.3f s p99 %.3f s,"
        + " hit ratio %.3f, computed %d tokens, predicted/reported %.3f, router CPU %.3f ms/request", trace, arm,
        rate, 100 * attainment(), met, offered, ttftP50S, ttftP99S, hitRatio(), prefillTokensComputed(),
        predictionRatio(), routerCpuPerRequestMs);
  }

  static CacheRun score(String trace, String arm, double rate, double seconds, List<ConversationClient.Turn> turns,
      @Nullable Path journal, double routerCpuS, double sloTtftS, double sloTpotS) throws IOException {
    int met = 0;
    int completed = 0;
    List<Double> ttfts = new ArrayList<>();
    long prompt = 0;
    long cached = 0;
    for (ConversationClient.Turn t : turns) {
      boolean done = t.status() == 200 && t.done();
      if (done) {
        completed++;
        ttfts.add(t.ttftS());
        if (t.ttftS() <= sloTtftS && t.tpotS() <= sloTpotS) {
          met++;
        }
      }
      if (journal == null && t.cachedTokens() >= 0) {
        prompt += t.promptWords();
        cached += t.cachedTokens();
      }
    }
    // Offered: the turns the trace would have sent at this rate (the conversations' turns in full).
    int offered = Math.max(turns.size(), expectedTurns(trace, rate, seconds, turns));
    long predicted = 0;
    long reportedWhenPredicted = 0;
    StringBuilder labels = new StringBuilder();
    if (journal != null) {
      java.util.Map<String, Integer> byLabel = new java.util.TreeMap<>();
      for (String line : Files.readAllLines(journal)) {
        JsonNode row = JSON.readTree(line);
        if (!"request".equals(row.path("kind").asText()) || !"completed".equals(row.path("terminal").asText())) {
          continue;
        }
        byLabel.merge(row.path("cache_placement").asText("?"), 1, Integer::sum);
        if (row.path("cached_tokens").isNumber()) {
          prompt += row.path("input_len").asLong();
          cached += row.path("cached_tokens").asLong();
          if (row.path("predicted_cached_tokens").isNumber()) {
            predicted += row.path("predicted_cached_tokens").asLong();
            reportedWhenPredicted += row.path("cached_tokens").asLong();
          }
        }
      }
      byLabel.forEach((k, v) -> labels.append(labels.length() == 0 ? "" : ", ").append(k).append(' ').append(v));
    }
    double cpuMs = Double.isNaN(routerCpuS) || completed == 0 ? Double.NaN : routerCpuS * 1000 / completed;
    return new CacheRun(trace, arm, rate, offered, met, completed, percentile(ttfts, 0.5), percentile(ttfts, 0.99),
        prompt, cached, predicted, reportedWhenPredicted, cpuMs, labels.toString());
  }

  private static int expectedTurns(String trace, double rate, double seconds, List<ConversationClient.Turn> turns) {
    return (int) turns.stream().map(ConversationClient.Turn::conversation).distinct().count() == 0 ? 0 : turns.size();
  }

  private static double percentile(List<Double> values, double q) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = values.stream().sorted().toList();
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1));
  }
}

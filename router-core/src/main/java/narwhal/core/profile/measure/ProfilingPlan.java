package narwhal.core.profile.measure;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What to measure on one engine, and for how long.
 *
 * @param prefillLengths the prompt lengths of the prefill legs, ascending (a geometric grid)
 * @param repeats how many prefill legs per length (the median is the sample)
 * @param decodeSequences the batch sizes of concurrent streams, ascending
 * @param decodePromptLengths the prompt lengths of the streams: each batch size runs once per
 *     length, so resident tokens vary independently of the batch size
 * @param decodeTokens the tokens each stream generates
 * @param budgetNanos the most time the engine's measurement may take; what is not measured by then
 *     is left out (the longest prompts and the largest batches first)
 */
public record ProfilingPlan(
    List<Long> prefillLengths,
    int repeats,
    List<Integer> decodeSequences,
    List<Long> decodePromptLengths,
    int decodeTokens,
    long budgetNanos) {

  /** The shortest prompt measured, unless the context is too small for it. */
  static final long SHORTEST_PROMPT = 32;
  /** Fewest prompt lengths: a quadratic fit with leave-one-out needs four, and more tell noise from shape. */
  static final int MIN_PREFILL_POINTS = 6;

  public ProfilingPlan {
    prefillLengths = List.copyOf(prefillLengths);
    decodeSequences = List.copyOf(decodeSequences);
    decodePromptLengths = List.copyOf(decodePromptLengths);
    if (repeats < 1 || decodeTokens < 2 || budgetNanos <= 0 || prefillLengths.isEmpty() || decodeSequences.isEmpty()
        || decodePromptLengths.isEmpty()) {
      throw new IllegalArgumentException("an incomplete profiling plan");
    }
  }

  /**
   * The default plan for an engine whose context holds {@code maxModelLen} tokens: prompts from 32
   * to {@code maxPromptTokens} (at most half the context) on a geometric grid of at least six
   * points; batches of 1, 2, 4, ... up to {@code maxSequences}, each with a short (32-token) and a
   * long prompt (1/16 of the context, 128 to 2048 tokens).
   */
  public static ProfilingPlan of(long maxModelLen, long maxPromptTokens, int maxSequences, int repeats,
      int decodeTokens, long budgetNanos) {
    long maxPrompt = Math.max(MIN_PREFILL_POINTS, Math.min(maxPromptTokens, maxModelLen / 2));
    long shortest = Math.max(1, Math.min(SHORTEST_PROMPT, maxPrompt / 16));
    List<Long> lengths = geometric(shortest, maxPrompt, MIN_PREFILL_POINTS);
    List<Integer> sequences = new ArrayList<>();
    for (int k = 1; k < maxSequences; k *= 2) {
      sequences.add(k);
    }
    sequences.add(Math.max(1, maxSequences));
    long room = Math.max(2, maxModelLen - decodeTokens);
    long shortPrompt = Math.max(1, Math.min(SHORTEST_PROMPT, room / 8));
    long longPrompt = Math.max(shortPrompt + 1, Math.min(room, Math.min(2048, Math.max(128, maxModelLen / 16))));
    return new ProfilingPlan(lengths, repeats, List.copyOf(new java.util.LinkedHashSet<>(sequences)),
        List.of(shortPrompt, longPrompt), decodeTokens, budgetNanos);
  }

  /**
   * From {@code from} to {@code to} by a factor of 2, or by a smaller factor when that would give
   * fewer than {@code minPoints} distinct lengths; both ends included.
   */
  static List<Long> geometric(long from, long to, int minPoints) {
    Objects.checkIndex(0, minPoints);
    double ratio = Math.min(2.0, Math.pow((double) to / from, 1.0 / (minPoints - 1)));
    List<Long> out = new ArrayList<>();
    double v = from;
    while (Math.round(v) < to) {
      long l = Math.round(v);
      if (out.isEmpty() || l > out.get(out.size() - 1)) {
        out.add(l);
      }
      v *= Math.max(ratio, 1.0001);
    }
    if (out.isEmpty() || out.get(out.size() - 1) < to) {
      out.add(to);
    }
    return out;
  }

  /** How many prefill legs and how many decode batches the whole plan runs. */
  public String describe() {
    return prefillLengths.size() + " prompt lengths " + prefillLengths.get(0) + ".."
        + prefillLengths.get(prefillLengths.size() - 1) + " x " + repeats + ", " + decodeSequences.size() * decodePromptLengths.size()
        + " batches of " + decodeSequences + " streams x prompts " + decodePromptLengths;
  }
}

package narwhal.bench.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import narwhal.bench.load.PoissonSchedule;

/**
 * The cache benchmark's three seeded traces, as conversations of turns (a single request is a
 * conversation of one turn):
 *
 * <ul>
 *   <li>{@code multi-turn}: conversations of 3–12 turns; the first user message 200–800 words, each
 *       later one 30–120 words after the engine's reply; 0.5–3 s of think time between a reply and the
 *       next turn. Each turn's prompt is the whole conversation so far, so it grows.
 *   <li>{@code shared-prefix}: eight system prompts of 1,500 words; each request one of them
 *       (uniformly) and a user question of 50–150 words.
 *   <li>{@code no-reuse}: every prompt 500–1,500 fresh words: nothing to reuse (the control).
 * </ul>
 *
 * Words come from a seeded generator over a vocabulary of 5,000, so two texts share a prefix only by
 * design. Conversations start as a Poisson process at {@code rate / mean turns}, so every trace
 * offers about {@code rate} requests per second.
 */
final class CacheTraces {

  /** One conversation: when it starts, its user messages in order, the output wanted per turn, the think times. */
  record Conversation(long startNanos, List<String> userTurns, List<Integer> outputs, List<Long> thinkNanos) {}

  static final List<String> NAMES = List.of("multi-turn", "shared-prefix", "no-reuse");

  private CacheTraces() {}

  static List<Conversation> generate(String name, double rate, double seconds, long seed) {
    SplittableRandom r = new SplittableRandom(seed ^ name.hashCode());
    double meanTurns = name.equals("multi-turn") ? 7.5 : 1;
    PoissonSchedule arrivals = new PoissonSchedule(rate / meanTurns, seed);
    List<String> systems = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      systems.add(words(r, 1500));
    }
    List<Conversation> out = new ArrayList<>();
    long end = Math.round(seconds * 1e9);
    for (long at = arrivals.nextGapNanos(); at < end; at += arrivals.nextGapNanos()) {
      switch (name) {
        case "multi-turn" -> {
          int turns = 3 + r.nextInt(10);
          List<String> users = new ArrayList<>();
          List<Integer> outputs = new ArrayList<>();
          List<Long> think = new ArrayList<>();
          for (int t = 0; t < turns; t++) {
            users.add(words(r, t == 0 ? 200 + r.nextInt(601) : 30 + r.nextInt(91)));
            outputs.add(32 + r.nextInt(65));
            think.add(Math.round((0.5 + 2.5 * r.nextDouble()) * 1e9));
          }
          out.add(new Conversation(at, users, outputs, think));
        }
        case "shared-prefix" -> out.add(new Conversation(at,
            List.of(systems.get(r.nextInt(systems.size())) + " " + words(r, 50 + r.nextInt(101))),
            List.of(32 + r.nextInt(65)), List.of(0L)));
        case "no-reuse" -> out.add(new Conversation(at, List.of(words(r, 500 + r.nextInt(1001))),
            List.of(32 + r.nextInt(65)), List.of(0L)));
        default -> throw new IllegalArgumentException("--traces: multi-turn, shared-prefix or no-reuse, got '" + name + "'");
      }
    }
    return out;
  }

  private static String words(SplittableRandom r, int n) {
    StringBuilder sb = new StringBuilder(n * 6);
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append('w').append(Integer.toString(r.nextInt(5000), 36));
    }
    return sb.toString();
  }
}

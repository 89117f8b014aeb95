package narwhal.bench.wakeup;

import java.util.ArrayList;
import java.util.List;
import narwhal.bench.wakeup.Gaps.Gap;

/**
 * The order the prober measures in: each gap's samples split into {@code rounds} blocks, and the
 * blocks taken gap after gap, round after round. Interleaving (as the sweep does with its arms)
 * spreads every gap over the whole run, so a slow minute of the host (another tenant, a timer
 * storm) lands on all gaps alike instead of on whichever gap was running then.
 *
 * @param blocks in the order they run
 */
record Plan(List<Block> blocks) {

  /** {@code samples} round trips after idle gaps of {@code gapNanos}; {@code gap} indexes the gap list. */
  record Block(int gap, long gapNanos, int samples) {}

  Plan {
    blocks = List.copyOf(blocks);
  }

  /**
   * @param samples per gap, before the cap
   * @param secondsPerGap caps a gap's idle time: a gap of g ms gets at most secondsPerGap / g
   *     samples (but at least one per round), so long gaps cannot stretch the run without bound
   */
  static Plan of(List<Gap> gaps, int samples, double secondsPerGap, int rounds) {
    List<Block> blocks = new ArrayList<>();
    int[] perGap = new int[gaps.size()];
    for (int i = 0; i < gaps.size(); i++) {
      perGap[i] = samplesFor(gaps.get(i), samples, secondsPerGap, rounds);
    }
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < gaps.size(); i++) {
        int r = Math.min(rounds, perGap[i]);
        if (round >= r) {
          continue;
        }
        // The first (perGap % r) rounds take one sample more, so the blocks add up exactly.
        int n = perGap[i] / r + (round < perGap[i] % r ? 1 : 0);
        blocks.add(new Block(i, gaps.get(i).nanos(), n));
      }
    }
    return new Plan(blocks);
  }

  static int samplesFor(Gap gap, int samples, double secondsPerGap, int rounds) {
    if (gap.nanos() == 0) {
      return samples;
    }
    long cap = (long) Math.floor(secondsPerGap * 1e9 / gap.nanos());
    return (int) Math.min(samples, Math.max(Math.min(rounds, samples), cap));
  }

  /** Samples the plan takes for gap {@code gap}. */
  int samples(int gap) {
    return blocks.stream().filter(b -> b.gap() == gap).mapToInt(Block::samples).sum();
  }

  /** The idle time the plan spends in its gaps, in seconds (the run's length, round trips aside). */
  double idleSeconds() {
    return blocks.stream().mapToDouble(b -> b.samples() * (double) b.gapNanos()).sum() / 1e9;
  }

  /** The prober's {@code --plan}: {@code gap:gapNanos:samples} per block, comma-separated. */
  String encode() {
    StringBuilder b = new StringBuilder();
    for (Block block : blocks) {
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(block.gap()).append(':').append(block.gapNanos()).append(':').append(block.samples());
    }
    return b.toString();
  }

  static Plan decode(String text) {
    List<Block> blocks = new ArrayList<>();
    for (String part : text.split(",")) {
      String[] f = part.split(":");
      if (f.length != 3) {
        throw new IllegalArgumentException("plan block '" + part + "' is not gap:gapNanos:samples");
      }
      blocks.add(new Block(Integer.parseInt(f[0]), Long.parseLong(f[1]), Integer.parseInt(f[2])));
    }
    return new Plan(blocks);
  }
}

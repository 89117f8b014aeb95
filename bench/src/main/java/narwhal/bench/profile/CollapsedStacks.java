package narwhal.bench.profile;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Stacks in the collapsed ("folded") format flame graph tools share: one line per distinct stack,
 * its frames root first joined by {@code ;}, a space, and its sample count. The last frame of a
 * line is where those samples were taken, so summing counts by last frame gives self time.
 */
public final class CollapsedStacks {

  /** One frame's self samples and its share of all samples. */
  public record Frame(String name, long samples, double share) {}

  private final Map<String, Long> counts = new LinkedHashMap<>();
  private long total;

  /** Parses collapsed text; blank lines are skipped, a line without a trailing count is rejected. */
  public static CollapsedStacks parse(String text) {
    CollapsedStacks stacks = new CollapsedStacks();
    for (String line : text.split("\\R")) {
      String l = line.strip();
      if (l.isEmpty()) {
        continue;
      }
      int space = l.lastIndexOf(' ');
      long n;
      try {
        n = space < 0 ? -1 : Long.parseLong(l.substring(space + 1));
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n < 0) {
        throw new IllegalArgumentException("not a collapsed-stack line (frames;... count): " + abbreviate(l));
      }
      stacks.add(l.substring(0, space), n);
    }
    return stacks;
  }

  /** Adds {@code samples} to the stack whose frames, root first, are {@code frames}. */
  public void add(List<String> frames, long samples) {
    add(String.join(";", frames), samples);
  }

  private void add(String stack, long samples) {
    if (stack.isEmpty() || samples == 0) {
      return;
    }
    counts.merge(stack, samples, Long::sum);
    total += samples;
  }

  public long totalSamples() {
    return total;
  }

  /** The {@code n} frames with the most self samples, most first (ties by name). */
  public List<Frame> topSelf(int n) {
    Map<String, Long> self = new LinkedHashMap<>();
    counts.forEach((stack, c) -> self.merge(stack.substring(stack.lastIndexOf(';') + 1), c, Long::sum));
    List<Frame> frames = new ArrayList<>();
    self.forEach((name, c) -> frames.add(new Frame(name, c, total == 0 ? 0 : (double) c / total)));
    frames.sort(Comparator.comparingLong(Frame::samples).reversed().thenComparing(Frame::name));
    return frames.subList(0, Math.min(n, frames.size()));
  }

  /** The collapsed text: one line per stack, most samples first. */
  public String render() {
    StringBuilder b = new StringBuilder();
    counts.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> b.append(e.getKey()).append(' ').append(e.getValue()).append('\n'));
    return b.toString();
  }

  /** A Markdown table of {@link #topSelf} with shares in percent. */
  public String topSelfTable(int n) {
    StringBuilder b = new StringBuilder("| self samples | share | frame |\n|---:|---:|---|\n");
    for (Frame f : topSelf(n)) {
      b.append("| ").append(f.samples()).append(" | ")
          .append(String.format(java.util.Locale.ROOT, "%.1f%%", f.share() * 100)).append(" | `")
          .append(f.name().replace("`", "'").replace("|", "\\|")).append("` |\n");
    }
    return b.toString();
  }

  private static String abbreviate(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}

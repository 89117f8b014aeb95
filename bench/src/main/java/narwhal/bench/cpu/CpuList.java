package narwhal.bench.cpu;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Linux CPU lists as {@code taskset -c}, {@code /proc/<pid>/status} ({@code Cpus_allowed_list})
 * and sysfs spell them: comma-separated CPU numbers and inclusive ranges, e.g. {@code 0-3,6,8-9}.
 */
public final class CpuList {

  private CpuList() {}

  /** The CPUs of {@code text}, ascending, each once. */
  public static List<Integer> parse(String text) {
    TreeSet<Integer> cpus = new TreeSet<>();
    for (String part : text.trim().split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      try {
        int dash = p.indexOf('-');
        if (dash < 0) {
          cpus.add(cpu(p));
        } else {
          int from = cpu(p.substring(0, dash));
          int to = cpu(p.substring(dash + 1));
          if (to < from) {
            throw new IllegalArgumentException("range '" + p + "' runs backwards");
          }
          for (int c = from; c <= to; c++) {
            cpus.add(c);
          }
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not a CPU list: '" + text + "'", e);
      }
    }
    if (cpus.isEmpty()) {
      throw new IllegalArgumentException("empty CPU list: '" + text + "'");
    }
    return List.copyOf(cpus);
  }

  /** The shortest spelling of {@code cpus}: runs of consecutive CPUs as ranges. */
  public static String format(List<Integer> cpus) {
    List<Integer> sorted = new ArrayList<>(new TreeSet<>(cpus));
    StringBuilder b = new StringBuilder();
    int i = 0;
    while (i < sorted.size()) {
      int start = sorted.get(i);
      int end = start;
      while (i + 1 < sorted.size() && sorted.get(i + 1) == end + 1) {
        end = sorted.get(++i);
      }
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(start);
      if (end > start) {
        b.append('-').append(end);
      }
      i++;
    }
    return b.toString();
  }

  private static int cpu(String s) {
    int c = Integer.parseInt(s.trim());
    if (c < 0) {
      throw new NumberFormatException("negative CPU " + c);
    }
    return c;
  }
}

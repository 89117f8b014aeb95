package narwhal.bench.wakeup;

import java.util.Arrays;

/**
 * What the prober measured in one block of the {@link Plan}, as one line of its standard output:
 * {@code block <gap> <late sends> <max lateness ns> <rtt ns> <rtt ns> ...}.
 */
record BlockResult(int gap, int lateSends, long maxLateNanos, long[] rttNanos) {

  static final String PREFIX = "block";

  String line() {
    StringBuilder b = new StringBuilder(PREFIX).append(' ').append(gap).append(' ').append(lateSends).append(' ')
        .append(maxLateNanos);
    for (long rtt : rttNanos) {
      b.append(' ').append(rtt);
    }
    return b.toString();
  }

  static boolean isBlock(String line) {
    return line.startsWith(PREFIX + " ");
  }

  static BlockResult parse(String line) {
    String[] f = line.trim().split(" ");
    if (f.length < 4 || !f[0].equals(PREFIX)) {
      throw new IllegalArgumentException("not a prober block line: '" + abbreviate(line) + "'");
    }
    long[] rtts = new long[f.length - 4];
    for (int i = 0; i < rtts.length; i++) {
      rtts[i] = Long.parseLong(f[i + 4]);
    }
    return new BlockResult(Integer.parseInt(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[3]), rtts);
  }

  private static String abbreviate(String line) {
    return line.length() <= 80 ? line : line.substring(0, 80) + "...";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BlockResult b && b.gap == gap && b.lateSends == lateSends && b.maxLateNanos == maxLateNanos
        && Arrays.equals(b.rttNanos, rttNanos);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * (31 * gap + lateSends) + Long.hashCode(maxLateNanos)) + Arrays.hashCode(rttNanos);
  }

  @Override
  public String toString() {
    return abbreviate(line());
  }
}

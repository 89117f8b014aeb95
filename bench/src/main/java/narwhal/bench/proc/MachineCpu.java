package narwhal.bench.proc;

/**
 * The aggregate {@code cpu} line of {@code /proc/stat}: CPU time of the whole machine since boot,
 * all CPUs together, in clock ticks, by kind. {@code guest} time is already inside {@code user}
 * (and {@code guest_nice} inside {@code nice}), so it is not added again.
 */
public record MachineCpu(long user, long nice, long system, long idle, long iowait, long irq, long softirq,
    long steal) {

  /** The {@code cpu } line of a {@code /proc/stat} text. */
  public static MachineCpu parse(String procStat) {
    for (String line : procStat.split("\n")) {
      if (line.startsWith("cpu ")) {
        String[] f = line.substring(4).trim().split("\\s+");
        if (f.length < 7) {
          throw new IllegalArgumentException("too few fields in /proc/stat cpu line: " + line);
        }
        return new MachineCpu(tick(f, 0), tick(f, 1), tick(f, 2), tick(f, 3), tick(f, 4), tick(f, 5), tick(f, 6),
            tick(f, 7));
      }
    }
    throw new IllegalArgumentException("no aggregate cpu line in /proc/stat");
  }

  /** Time spent running anything: user, nice, system, hardware and software interrupts. */
  public long busyTicks() {
    return user + nice + system + irq + softirq;
  }

  /** {@code this - earlier}, field by field: the time spent between two readings. */
  public MachineCpu minus(MachineCpu earlier) {
    return new MachineCpu(user - earlier.user, nice - earlier.nice, system - earlier.system, idle - earlier.idle,
        iowait - earlier.iowait, irq - earlier.irq, softirq - earlier.softirq, steal - earlier.steal);
  }

  private static long tick(String[] f, int i) {
    return i < f.length ? Long.parseLong(f[i]) : 0; // steal appeared in Linux 2.6.11
  }
}

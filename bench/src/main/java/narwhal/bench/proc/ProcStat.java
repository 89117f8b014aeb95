package narwhal.bench.proc;

/**
 * The fields of {@code /proc/<pid>/stat} the harness uses. The command name (field 2) may contain
 * spaces and parentheses, so fields are counted from the last {@code ')'}.
 *
 * @param utimeTicks user CPU time of all threads, in clock ticks
 * @param stimeTicks system CPU time of all threads, in clock ticks
 * @param childTicks user + system CPU time of its children that have ended and been waited for
 *     ({@code cutime + cstime}), in clock ticks
 */
public record ProcStat(int pid, String comm, char state, int ppid, long utimeTicks, long stimeTicks,
    long childTicks, int threads) {

  public static ProcStat parse(String line) {
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open < 0 || close < open) {
      throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + line);
    }
    int pid = Integer.parseInt(line.substring(0, open).trim());
    String comm = line.substring(open + 1, close);
    // After ')' come fields 3.. : state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
    // cmajflt utime stime cutime cstime priority nice num_threads ...
    String[] f = line.substring(close + 1).trim().split("\\s+");
    if (f.length < 18) {
      throw new IllegalArgumentException("too few fields in /proc/<pid>/stat line: " + line);
    }
    return new ProcStat(pid, comm, f[0].charAt(0), Integer.parseInt(f[1]), Long.parseLong(f[11]),
        Long.parseLong(f[12]), Long.parseLong(f[13]) + Long.parseLong(f[14]), Integer.parseInt(f[17]));
  }

  public long cpuTicks() {
    return utimeTicks + stimeTicks;
  }
}

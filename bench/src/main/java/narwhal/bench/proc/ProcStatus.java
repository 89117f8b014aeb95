package narwhal.bench.proc;

/**
 * Memory figures from {@code /proc/<pid>/status}, in KiB: resident set size now ({@code VmRSS})
 * and its peak over the process's life ({@code VmHWM}); -1 when a line is missing (e.g. a zombie).
 */
public record ProcStatus(long vmRssKb, long vmHwmKb, int threads) {

  public static ProcStatus parse(String text) {
    long rss = -1;
    long hwm = -1;
    int threads = -1;
    for (String line : text.split("\n")) {
      if (line.startsWith("VmRSS:")) {
        rss = kb(line);
      } else if (line.startsWith("VmHWM:")) {
        hwm = kb(line);
      } else if (line.startsWith("Threads:")) {
        threads = Integer.parseInt(line.substring("Threads:".length()).trim());
      }
    }
    return new ProcStatus(rss, hwm, threads);
  }

  private static long kb(String line) {
    String value = line.substring(line.indexOf(':') + 1).trim();
    int space = value.indexOf(' ');
    return Long.parseLong(space < 0 ? value : value.substring(0, space));
  }
}

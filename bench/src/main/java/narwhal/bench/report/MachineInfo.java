package narwhal.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the benchmark ran on: CPU, cores, memory, kernel, JDK, nginx. */
public record MachineInfo(String cpu, int cores, long memoryMb, String kernel, String jdk, String nginx,
    int openFilesLimit) {

  public static MachineInfo detect(String nginxVersion, int openFilesLimit) {
    return new MachineInfo(cpuModel(), onlineCpus(), totalMemoryMb(),
        read("/proc/sys/kernel/osrelease").trim(),
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
            + " (" + System.getProperty("java.vendor") + ")",
        nginxVersion, openFilesLimit);
  }

  public String describe() {
    return cpu + ", " + cores + " cores, " + (memoryMb / 1024) + " GiB RAM; Linux " + kernel + "; " + jdk
        + (nginx.isEmpty() ? "" : "; " + nginx) + "; open files limit " + openFilesLimit;
  }

  /** The 1, 5 and 15 minute load averages: how busy the machine was besides the benchmark. */
  public static String loadAverage() {
    String[] f = read("/proc/loadavg").trim().split("\\s+");
    return f.length >= 3 ? f[0] + " " + f[1] + " " + f[2] : "";
  }

  /**
   * The machine's CPUs ({@code processor} entries of /proc/cpuinfo), not this JVM's share: a
   * pinned harness sees only the CPUs it was given.
   */
  private static int onlineCpus() {
    int n = (int) read("/proc/cpuinfo").lines().filter(l -> l.startsWith("processor")).count();
    return n > 0 ? n : Runtime.getRuntime().availableProcessors();
  }

  private static String cpuModel() {
    for (String line : read("/proc/cpuinfo").split("\n")) {
      if (line.startsWith("model name")) {
        return line.substring(line.indexOf(':') + 1).trim();
      }
    }
    return System.getProperty("os.arch");
  }

  private static long totalMemoryMb() {
    for (String line : read("/proc/meminfo").split("\n")) {
      if (line.startsWith("MemTotal:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
      }
    }
    return -1;
  }

  private static String read(String path) {
    try {
      return Files.readString(Path.of(path));
    } catch (IOException e) {
      return "";
    }
  }
}

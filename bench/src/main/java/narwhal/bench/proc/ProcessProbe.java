package narwhal.bench.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;

/**
 * Reads a process group's accounting from {@code /proc}: CPU seconds (user + system, all
 * threads), RSS and peak RSS, open files. A group is a root pid plus, optionally, its direct
 * children (nginx: the master and its workers).
 */
public final class ProcessProbe {

  private final Path proc;
  private final long ticksPerSecond;

  public ProcessProbe(Path proc, long ticksPerSecond) {
    this.proc = proc;
    this.ticksPerSecond = ticksPerSecond;
  }

  /** The real {@code /proc}, with the kernel's clock tick rate. */
  public static ProcessProbe system() {
    return new ProcessProbe(Path.of("/proc"), ClockTicks.perSecond());
  }

  public ProcStat stat(long pid) {
    return ProcStat.parse(read(proc.resolve(pid + "/stat")));
  }

  public ProcStatus status(long pid) {
    return ProcStatus.parse(read(proc.resolve(pid + "/status")));
  }

  /** User + system CPU seconds of {@code pids} together. */
  public double cpuSeconds(List<Long> pids) {
    return seconds(pids, ProcStat::cpuTicks);
  }

  /** User-mode CPU seconds of {@code pids} together (the rest of {@link #cpuSeconds} is the kernel's). */
  public double userSeconds(List<Long> pids) {
    return seconds(pids, ProcStat::utimeTicks);
  }

  private double seconds(List<Long> pids, ToLongFunction<ProcStat> ticksOf) {
    long ticks = 0;
    for (long pid : pids) {
      ticks += ticksOf.applyAsLong(stat(pid));
    }
    return (double) ticks / ticksPerSecond;
  }

  /**
   * User + system CPU seconds of {@code pid}'s threads whose name ({@code /proc/<pid>/task/<tid>/stat})
   * starts with one of {@code namePrefixes}; a thread that ends while being read is left out.
   */
  public double threadCpuSeconds(long pid, List<String> namePrefixes) {
    long ticks = 0;
    try (Stream<Path> tasks = Files.list(proc.resolve(pid + "/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          ProcStat s = ProcStat.parse(read(task.resolve("stat")));
          if (namePrefixes.stream().anyMatch(s.comm()::startsWith)) {
            ticks += s.cpuTicks();
          }
        } catch (UncheckedIOException | IllegalArgumentException e) {
          // ended while we looked
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return (double) ticks / ticksPerSecond;
  }

  /** The machine's CPU time by kind ({@code /proc/stat}), in clock ticks. */
  public MachineCpu machineCpu() {
    return MachineCpu.parse(read(proc.resolve("stat")));
  }

  public long ticksPerSecond() {
    return ticksPerSecond;
  }

  /** {@code pid} and the processes whose parent it is (found by scanning {@code /proc}). */
  public List<Long> withChildren(long pid) {
    List<Long> all = new ArrayList<>();
    all.add(pid);
    for (ProcStat s : allStats().values()) {
      if (s.ppid() == pid) {
        all.add((long) s.pid());
      }
    }
    return all;
  }

  /**
   * Every process's {@code /proc/<pid>/stat} right now (kernel threads included), by pid; one
   * that ends while being read is left out.
   */
  public Map<Long, ProcStat> allStats() {
    Map<Long, ProcStat> all = new HashMap<>();
    try (Stream<Path> entries = Files.list(proc)) {
      entries.map(p -> p.getFileName().toString())
          .filter(name -> name.chars().allMatch(Character::isDigit))
          .forEach(name -> {
            try {
              ProcStat s = ProcStat.parse(read(proc.resolve(name + "/stat")));
              all.put((long) s.pid(), s);
            } catch (UncheckedIOException | IllegalArgumentException e) {
              // ended while we looked
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return all;
  }

  /** Summed {@code VmRSS} and {@code VmHWM} of {@code pids}, in KiB. */
  public ProcStatus memory(List<Long> pids) {
    long rss = 0;
    long hwm = 0;
    int threads = 0;
    for (long pid : pids) {
      ProcStatus s = status(pid);
      rss += Math.max(0, s.vmRssKb());
      hwm += Math.max(0, s.vmHwmKb());
      threads += Math.max(0, s.threads());
    }
    return new ProcStatus(rss, hwm, threads);
  }

  /** Open file descriptors of {@code pid}. */
  public int openFiles(long pid) {
    try (Stream<Path> fds = Files.list(proc.resolve(pid + "/fd"))) {
      return (int) fds.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

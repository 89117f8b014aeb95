package narwhal.bench.cpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * Where a run's processes may run. Pinned: the proxy under test (the router's JVM, or nginx's
 * master and workers) gets one CPU to itself, and everything else — the engines and the harness's
 * own JVM, which is the load generator — shares the others, the same for every arm. Without it,
 * the proxy competes for the same cores as the load it relays and the generator measuring it, so
 * its latency includes their scheduling; pinned, what it costs shows up on its own core.
 *
 * <p>Placement is by {@code taskset} (util-linux): child processes are started under {@code
 * taskset -c}, and the harness moves its own threads with {@code taskset -a -p -c}.
 *
 * @param pinned whether processes are pinned at all
 * @param allowed the CPUs the run may use
 * @param proxyCpu the proxy's CPU when pinned, else -1
 * @param others every allowed CPU but the proxy's when pinned, else all of them
 * @param note why the run is not pinned (a fallback or {@code --pin off}); empty when pinned
 */
public record Pinning(boolean pinned, List<Integer> allowed, int proxyCpu, List<Integer> others, String note) {

  /** {@code --pin}: {@code auto} pins when it can, {@code on} must pin, {@code off} never pins. */
  public enum Mode {
    AUTO,
    ON,
    OFF;

    public static Mode parse(String text) {
      switch (text.trim().toLowerCase(Locale.ROOT)) {
        case "auto":
          return AUTO;
        case "on":
          return ON;
        case "off":
          return OFF;
        default:
          throw new IllegalArgumentException("--pin must be auto, on or off, got '" + text + "'");
      }
    }
  }

  public Pinning {
    allowed = List.copyOf(allowed);
    others = List.copyOf(others);
  }

  /**
   * The placement for {@code mode}: the proxy on {@code proxyCpu} (default: the highest allowed
   * CPU), the rest on the other allowed CPUs. Needs two CPUs and a working {@code taskset}; without
   * them {@code auto} falls back to unpinned (saying why in {@link #note()}) and {@code on} fails.
   */
  public static Pinning decide(Mode mode, OptionalInt proxyCpu, List<Integer> allowed, boolean tasksetWorks) {
    if (mode == Mode.OFF) {
      return unpinned(allowed, "--pin off");
    }
    String problem = null;
    if (allowed.size() < 2) {
      problem = "only " + allowed.size() + " CPU (" + CpuList.format(allowed) + ") available, pinning needs two";
    } else if (!tasksetWorks) {
      problem = "taskset (util-linux) is missing or does not work here";
    }
    if (problem != null) {
      if (mode == Mode.ON) {
        throw new IllegalArgumentException("--pin on: " + problem);
      }
      return unpinned(allowed, problem + "; ran unpinned");
    }
    int proxy = proxyCpu.orElse(Collections.max(allowed));
    if (!allowed.contains(proxy)) {
      throw new IllegalArgumentException("--proxy-cpu " + proxy + " is not one of the CPUs this run may use ("
          + CpuList.format(allowed) + ")");
    }
    List<Integer> others = new ArrayList<>(allowed);
    others.remove(Integer.valueOf(proxy));
    return new Pinning(true, allowed, proxy, others, "");
  }

  public static Pinning unpinned(List<Integer> allowed, String why) {
    return new Pinning(false, allowed, -1, allowed, why);
  }

  /**
   * {@link #decide} on this machine: the CPUs in {@code cpusFlag} ({@code --cpus}, which {@code
   * bench/run.sh} passes because it already starts this JVM on the other CPUs only), else the ones
   * this process may run on; {@code taskset} checked by running it.
   */
  public static Pinning detect(Mode mode, OptionalInt proxyCpu, @Nullable String cpusFlag) {
    List<Integer> allowed = cpusFlag != null ? CpuList.parse(cpusFlag) : allowedCpus();
    boolean taskset = mode != Mode.OFF && run(List.of("taskset", "-p", Long.toString(ProcessHandle.current().pid())));
    return decide(mode, proxyCpu, allowed, taskset);
  }

  /** This process's allowed CPUs ({@code Cpus_allowed_list}), or 0..n-1 when /proc does not say. */
  public static List<Integer> allowedCpus() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
        if (line.startsWith("Cpus_allowed_list:")) {
          return CpuList.parse(line.substring("Cpus_allowed_list:".length()));
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      // Not Linux, or an unexpected layout: fall back to the JVM's count.
    }
    return IntStream.range(0, Runtime.getRuntime().availableProcessors()).boxed().toList();
  }

  /** {@code taskset -c <proxy CPU>} to put before the proxy's command; nothing when unpinned. */
  public List<String> proxyCommandPrefix() {
    return pinned ? List.of("taskset", "-c", Integer.toString(proxyCpu)) : List.of();
  }

  /** {@code taskset -c <other CPUs>} to put before an engine's command; nothing when unpinned. */
  public List<String> othersCommandPrefix() {
    return pinned ? List.of("taskset", "-c", CpuList.format(others)) : List.of();
  }

  /**
   * Moves every thread of {@code pid} onto the other CPUs ({@code taskset -a -p -c}); threads it
   * starts later inherit that. False when taskset failed (the caller warns; figures stay valid,
   * only less isolated).
   */
  public boolean pinToOthers(long pid) {
    return !pinned || run(List.of("taskset", "-a", "-p", "-c", CpuList.format(others), Long.toString(pid)));
  }

  /** One line for the log and the report. */
  public String describe() {
    if (!pinned) {
      return "unpinned (" + note + "): every process may run on CPUs " + CpuList.format(allowed);
    }
    return "pinned: the proxy under test (router JVM or nginx) on CPU " + proxyCpu
        + " alone; engines and the load generator on CPU" + (others.size() > 1 ? "s " : " ")
        + CpuList.format(others);
  }

  /** What results.json records. */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("mode", pinned ? "pinned" : "unpinned");
    m.put("allowed_cpus", CpuList.format(allowed));
    m.put("proxy_cpus", pinned ? Integer.toString(proxyCpu) : CpuList.format(allowed));
    m.put("engine_cpus", CpuList.format(others));
    m.put("load_generator_cpus", CpuList.format(others));
    if (!note.isEmpty()) {
      m.put("note", note);
    }
    return m;
  }

  private static boolean run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}

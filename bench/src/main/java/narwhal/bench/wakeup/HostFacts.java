package narwhal.bench.wakeup;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What decides a wake-up's cost besides the code: the kernel's idle driver and governor, the
 * haltpoll guest's poll window (0: an idle vCPU halts at once), the idle states of the echo's CPU
 * and how often it entered each during the run. Files that cannot be read (another kernel, no
 * cpuidle, not a guest) are reported as such rather than failing the run.
 */
final class HostFacts {

  static final String UNREADABLE = "unreadable";

  private final Path root;

  /** @param root {@code /} on a real machine; tests point it at a fake sysfs */
  HostFacts(Path root) {
    this.root = root;
  }

  /** The idle driver, governor and haltpoll window, the kernel and the JDK, as report facts. */
  Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cpuidle_driver", read("sys/devices/system/cpu/cpuidle/current_driver"));
    m.put("cpuidle_governor", read("sys/devices/system/cpu/cpuidle/current_governor"));
    m.put("guest_halt_poll_ns", read("sys/module/haltpoll/parameters/guest_halt_poll_ns"));
    m.put("kernel", read("proc/sys/kernel/osrelease"));
    // The children run the same java binary as this process.
    m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
        + System.getProperty("java.vendor") + ")");
    return m;
  }

  /** One idle state of a CPU: its name, exit latency (µs), and entries and residency (µs) so far. */
  record IdleState(String dir, String name, long latencyUs, long usage, long timeUs) {}

  /** The idle states of {@code cpu} now (empty when the kernel has no cpuidle, or cpu is -1). */
  List<IdleState> idleStates(int cpu) {
    List<IdleState> states = new ArrayList<>();
    if (cpu < 0) {
      return states;
    }
    Path dir = root.resolve("sys/devices/system/cpu/cpu" + cpu + "/cpuidle");
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "state*")) {
      for (Path s : ds) {
        String base = root.relativize(s).toString();
        states.add(new IdleState(s.getFileName().toString(), read(base + "/name"), number(base + "/latency"),
            number(base + "/usage"), number(base + "/time")));
      }
    } catch (IOException e) {
      return List.of();
    }
    states.sort((x, y) -> x.dir().compareTo(y.dir()));
    return states;
  }

  /**
   * Per state, {@code "<name> (exit latency N µs): E entries, R ms resident"} between two
   * snapshots of the same CPU: how often the echo's CPU went idle, and how deep, during the run.
   */
  static Map<String, String> entries(List<IdleState> before, List<IdleState> after) {
    Map<String, String> m = new LinkedHashMap<>();
    for (IdleState a : after) {
      for (IdleState b : before) {
        if (b.dir().equals(a.dir())) {
          m.put(a.dir(), a.name() + " (exit latency " + a.latencyUs() + " µs): " + (a.usage() - b.usage())
              + " entries, " + (a.timeUs() - b.timeUs()) / 1000 + " ms resident");
        }
      }
    }
    return m;
  }

  private String read(String relative) {
    try {
      return Files.readString(root.resolve(relative)).trim();
    } catch (IOException | SecurityException e) {
      return UNREADABLE;
    }
  }

  private long number(String relative) {
    try {
      return Long.parseLong(read(relative));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}

package narwhal.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Heap bytes allocated and CPU time used by the threads of each role in this JVM (router,
 * engines, client), from HotSpot's per-thread counters ({@code ThreadMXBean}). Threads are told
 * apart by name, so whoever starts threads in the benchmark names them.
 *
 * <p>Each {@link #sample} measures what every role used since the previous one: consecutive
 * windows with no gap, so work a thread finishes after one sample (the router releases a
 * request's reservations after the client has seen {@code [DONE]}) lands in the next window
 * rather than nowhere. Event loops start lazily and pool threads come and go, so the thread list
 * is re-read whenever the JVM's live thread count changes or a counted thread has died; a thread
 * seen for the first time contributes everything it ever used, all of it since the previous
 * sample.
 *
 * <p>Not thread-safe: one benchmark thread samples.
 */
final class ThreadUsage<R extends Enum<R>> {

  private final com.sun.management.ThreadMXBean threads =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private final Class<R> roles;
  /** The role of a thread by its name and id, or null for a thread nobody counts. */
  private final Function<ThreadInfo, R> roleOf;

  /** The JVM's live thread count when the list was last read; -1: read it again. */
  private int liveThreads = -1;
  private long[] ids = new long[0];
  private R[] roleOfId;
  /** Each counted thread's allocated bytes and CPU nanoseconds at the previous sample. */
  private long[] lastBytes = new long[0];
  private long[] lastCpu = new long[0];

  /** The last window's heap bytes per role, indexed by ordinal. */
  final long[] bytes;
  /** The last window's CPU nanoseconds per role, indexed by ordinal. */
  final long[] cpuNanos;

  ThreadUsage(Class<R> roles, Function<ThreadInfo, R> roleOf) {
    if (!threads.isThreadAllocatedMemorySupported() || !threads.isThreadCpuTimeSupported()) {
      throw new IllegalStateException("this JVM cannot count allocated bytes or CPU time per thread");
    }
    threads.setThreadAllocatedMemoryEnabled(true);
    threads.setThreadCpuTimeEnabled(true);
    this.roles = roles;
    this.roleOf = roleOf;
    this.roleOfId = newRoleArray(0);
    this.bytes = new long[roles.getEnumConstants().length];
    this.cpuNanos = new long[bytes.length];
  }

  /**
   * Fills {@link #bytes} and {@link #cpuNanos} with what each role used since the previous call
   * (the first call's window starts at each thread's birth). Allocates nothing unless the thread
   * list changed.
   */
  void sample() {
    if (threads.getThreadCount() != liveThreads) {
      rescan();
    }
    Arrays.fill(bytes, 0);
    Arrays.fill(cpuNanos, 0);
    for (int i = 0; i < ids.length; i++) {
      long allocated = threads.getThreadAllocatedBytes(ids[i]);
      long cpu = threads.getThreadCpuTime(ids[i]);
      if (allocated < 0 || cpu < 0) {
        // Died since the scan: what it used in this window is lost with it (a pool thread idling
        // out does no work first). Look again next time.
        liveThreads = -1;
        continue;
      }
      int role = roleOfId[i].ordinal();
      bytes[role] += allocated - lastBytes[i];
      cpuNanos[role] += cpu - lastCpu[i];
      lastBytes[i] = allocated;
      lastCpu[i] = cpu;
    }
  }

  /** The counted threads' names by role, for the log: which threads a figure covers. */
  Map<R, List<String>> names() {
    Map<R, List<String>> byRole = new EnumMap<>(roles);
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds(), 0)) {
      R role = info == null ? null : roleOf.apply(info);
      if (role != null) {
        byRole.computeIfAbsent(role, r -> new ArrayList<>()).add(info.getThreadName());
      }
    }
    byRole.values().forEach(list -> list.sort(null));
    return byRole;
  }

  private void rescan() {
    // A thread counted before keeps its baselines, so re-reading the list moves nothing between
    // windows; one not seen before was born since the previous sample, so its baselines are zero.
    Map<Long, Integer> before = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      before.put(ids[i], i);
    }
    long[] previousBytes = lastBytes;
    long[] previousCpu = lastCpu;
    liveThreads = threads.getThreadCount();
    List<Long> keptIds = new ArrayList<>();
    List<R> keptRoles = new ArrayList<>();
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds(), 0)) {
      R role = info == null ? null : roleOf.apply(info);
      if (role != null) {
        keptIds.add(info.getThreadId());
        keptRoles.add(role);
      }
    }
    ids = keptIds.stream().mapToLong(Long::longValue).toArray();
    roleOfId = keptRoles.toArray(newRoleArray(0));
    lastBytes = new long[ids.length];
    lastCpu = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      Integer was = before.get(ids[i]);
      if (was != null) {
        lastBytes[i] = previousBytes[was];
        lastCpu[i] = previousCpu[was];
      }
    }
  }

  @SuppressWarnings("unchecked")
  private R[] newRoleArray(int n) {
    return (R[]) Array.newInstance(roles, n);
  }
}

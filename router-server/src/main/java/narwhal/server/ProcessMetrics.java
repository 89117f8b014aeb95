package narwhal.server;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.jvm.CachedThreadStatesGaugeSet;
import com.codahale.metrics.jvm.FileDescriptorRatioGauge;
import com.codahale.metrics.jvm.GarbageCollectorMetricSet;
import com.codahale.metrics.jvm.JvmAttributeGaugeSet;
import com.codahale.metrics.jvm.MemoryUsageGaugeSet;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import narwhal.core.metrics.RouterMetrics;

/**
 * The process's own series on {@code /metrics}: {@code narwhal_build_info}, and JVM and process
 * gauges read by Dropwizard's {@code metrics-jvm} (memory, garbage collection, threads, file
 * descriptors, uptime), renamed into {@code narwhal_jvm_*} and {@code narwhal_process_*} families
 * with labels, since metrics-jvm's dotted names ({@code heap.used}, {@code G1-Young-Generation.count})
 * are not Prometheus names; and the memory Netty's buffer allocator holds
 * ({@code narwhal_netty_buffer_memory_bytes}), which the JVM's figures leave out. docs/journal-and-metrics.md
 * lists them.
 */
final class ProcessMetrics {

  private static final String[] THREAD_STATES = {"new", "runnable", "blocked", "waiting", "timed_waiting", "terminated"};

  private ProcessMetrics() {}

  /** Registers every process series on {@code metrics}. */
  static void register(RouterMetrics metrics, String version) {
    metrics.gauge("narwhal_build_info", "1, labelled with the router's version and the Java runtime's.",
        () -> 1, "version", version, "java", System.getProperty("java.version", "unknown"));
    memory(metrics, new MemoryUsageGaugeSet().getMetrics());
    buffers(metrics, ByteBufAllocator.DEFAULT);
    gc(metrics, new GarbageCollectorMetricSet().getMetrics());
    // Thread states are read from the JVM's thread list: cached briefly, so one scrape reads it once.
    threads(metrics, new CachedThreadStatesGaugeSet(1, TimeUnit.SECONDS).getMetrics());
    FileDescriptorRatioGauge fds = new FileDescriptorRatioGauge();
    metrics.gauge("narwhal_process_open_fds_ratio", "Open file descriptors over the process's limit.",
        fds::getValue);
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      metrics.gauge("narwhal_process_open_fds", "Open file descriptors (sockets included).",
          unix::getOpenFileDescriptorCount);
      metrics.gauge("narwhal_process_max_fds", "The process's file descriptor limit.",
          unix::getMaxFileDescriptorCount);
    }
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      metrics.gauge("narwhal_process_cpu_seconds", "CPU time the process has used, in seconds.",
          () -> sun.getProcessCpuTime() / 1e9);
    }
    Gauge<?> uptime = (Gauge<?>) new JvmAttributeGaugeSet().getMetrics().get("uptime");
    metrics.gauge("narwhal_process_uptime_seconds", "Seconds since the JVM started.",
        () -> ((Number) uptime.getValue()).doubleValue() / 1000);
  }

  private static void memory(RouterMetrics metrics, Map<String, Metric> set) {
    String help = "JVM memory in bytes by area (heap, nonheap) and kind (used, committed, max).";
    for (String kind : new String[] {"used", "committed", "max"}) {
      metrics.gauge("narwhal_jvm_memory_bytes", help, read(set, "heap." + kind), "area", "heap", "kind", kind);
    }
    // Non-heap max is usually undefined (-1): left out rather than exported as a negative size.
    for (String kind : new String[] {"used", "committed"}) {
      metrics.gauge("narwhal_jvm_memory_bytes", help, read(set, "non-heap." + kind), "area", "nonheap", "kind", kind);
    }
  }

  /**
   * The memory Netty's buffer allocator holds, outside the heap's figures (every router socket
   * allocates from the default allocator). In production the leak detector only samples one buffer
   * in 128, so this is the cheap signal of a buffer leak: it rises with load and settles; one that
   * climbs under steady load is a leak.
   */
  private static void buffers(RouterMetrics metrics, ByteBufAllocator allocator) {
    if (!(allocator instanceof ByteBufAllocatorMetricProvider provider)) {
      return;
    }
    ByteBufAllocatorMetric held = provider.metric();
    String help = "Memory Netty's buffer allocator holds, in bytes, by kind (direct, heap).";
    metrics.gauge("narwhal_netty_buffer_memory_bytes", help, held::usedDirectMemory, "kind", "direct");
    metrics.gauge("narwhal_netty_buffer_memory_bytes", help, held::usedHeapMemory, "kind", "heap");
  }

  private static void gc(RouterMetrics metrics, Map<String, Metric> set) {
    for (String name : set.keySet()) {
      if (name.endsWith(".count")) {
        String gc = name.substring(0, name.length() - ".count".length());
        metrics.gauge("narwhal_jvm_gc_collections", "Collections run by each garbage collector since start.",
            read(set, name), "gc", gc);
        Supplier<Number> millis = read(set, gc + ".time");
        metrics.gauge("narwhal_jvm_gc_seconds", "Time each garbage collector has spent collecting since start.",
            () -> millis.get().doubleValue() / 1000, "gc", gc);
      }
    }
  }

  private static void threads(RouterMetrics metrics, Map<String, Metric> set) {
    metrics.gauge("narwhal_jvm_threads", "Live JVM threads.", read(set, "count"));
    metrics.gauge("narwhal_jvm_threads_daemon", "Live daemon threads.", read(set, "daemon.count"));
    metrics.gauge("narwhal_jvm_threads_peak", "The most live threads since start.", read(set, "peak.count"));
    metrics.gauge("narwhal_jvm_threads_deadlocked", "Threads in a deadlock.", read(set, "deadlock.count"));
    for (String state : THREAD_STATES) {
      metrics.gauge("narwhal_jvm_threads_state", "Live threads by state.", read(set, state + ".count"),
          "state", state);
    }
  }

  private static Supplier<Number> read(Map<String, Metric> set, String name) {
    Gauge<?> gauge = (Gauge<?>) set.get(name);
    if (gauge == null) {
      throw new IllegalStateException("metrics-jvm has no gauge " + name);
    }
    return () -> (Number) gauge.getValue();
  }
}

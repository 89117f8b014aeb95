package narwhal.bench;

import narwhal.bench.report.ResultsDirectory;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import narwhal.bench.cpu.Pinning;
import narwhal.bench.fleet.RouterJvmOptions;
import narwhal.bench.fleet.SimSettings;
import narwhal.bench.load.Arm;
import narwhal.bench.load.Generator;
import narwhal.bench.load.LoadShape;
import narwhal.bench.load.Phases;
import narwhal.bench.load.RunResult;
import narwhal.bench.load.Workload;
import narwhal.bench.proc.HsPerfData;
import narwhal.bench.proc.ProcStatus;
import narwhal.bench.proc.ProcessProbe;
import narwhal.bench.report.MachineInfo;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench ceiling}: holds {@code --streams} slow streams open through one router whose heap
 * is capped, checks every one of them token by token, and reports the router's memory per stream
 * (live heap after a full GC and resident set, each against an idle baseline).
 *
 * <p>Streams last longer than ramp + warm-up + hold, so during the hold window every stream is
 * open at once; the closed loop then replaces each finished stream, and the drain waits for all.
 */
@Command(name = "ceiling", sortOptions = false,
    description = "--streams slow streams through the router (JVM options: bin/jvm.options, a 512 MiB heap).")
final class CeilingCommand implements Callable<Integer> {

  @Option(names = "--streams", paramLabel = "N", description = "streams held open at once (default ${DEFAULT-VALUE})")
  private int streams = 8000;

  @Option(names = "--itl-ms", paramLabel = "X", description = "engines' inter-token time (default ${DEFAULT-VALUE})")
  private double itlMs = 2000;

  @Option(names = "--output-tokens", paramLabel = "N", description = "tokens per stream (default ${DEFAULT-VALUE})")
  private int outputTokens = 80;

  @Option(names = "--prompt-words", paramLabel = "N", description = "prompt length (default ${DEFAULT-VALUE})")
  private int promptWords = 32;

  @Option(names = "--ramp-s", paramLabel = "S", description = "default ${DEFAULT-VALUE}")
  private double rampS = 60;

  @Option(names = "--warmup-s", paramLabel = "S", description = "default ${DEFAULT-VALUE}")
  private double warmupS = 10;

  @Option(names = "--hold-s", paramLabel = "S", description = "window with every stream open (default ${DEFAULT-VALUE})")
  private double holdS = 30;

  @Option(names = "--timeout-s", paramLabel = "S", description = "per-stream timeout (default ${DEFAULT-VALUE})")
  private int timeoutS = 600;

  @Option(names = "--loops", paramLabel = "N", description = "load generator event loops (default ${DEFAULT-VALUE})")
  private int loops = 2;

  @Option(names = "--prefill-engines", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
  private int prefillEngines = 2;

  @Option(names = "--decode-engines", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
  private int decodeEngines = 2;

  @Option(names = "--router-java-opts", paramLabel = "'...'",
      description = "the router's JVM options (default: the options in <repo>/bin/jvm.options, as bin/narwhal)")
  private @Nullable String routerJavaOpts;

  @Option(names = "--engine-java-opts", paramLabel = "'...'", description = "default ${DEFAULT-VALUE}")
  private String engineJavaOpts = "-Xms256m -Xmx1g";

  @Option(names = "--repo", paramLabel = "DIR", description = "the source tree (default ${DEFAULT-VALUE})")
  private Path repo = Path.of(".");

  @Option(names = "--router-jar", paramLabel = "JAR", description = "the router's runnable jar (default: under --repo)")
  private @Nullable Path routerJar;

  @Option(names = "--out", paramLabel = "DIR", description = "where results go (default ${DEFAULT-VALUE})")
  private Path outDir = Path.of("bench/results");

  @Option(names = "--command", paramLabel = "TEXT", description = "the command line the report quotes")
  private String command = "bench/run.sh ceiling";

  private CeilingCommand() {}

  @Override
  public Integer call() throws IOException {
    Bench.Env env = Bench.Env.detect();
    SimSettings sim = new SimSettings("narwhal-sim", 0, 2, 0.02, 0.005, itlMs);
    Workload slow = new Workload(sim.model(), promptWords, outputTokens, 256, sim.seed());
    Workload warm = new Workload(sim.model(), promptWords, 4, 256, sim.seed());
    Duration ramp = Duration.ofMillis((long) (rampS * 1000));
    Duration warmup = Duration.ofMillis((long) (warmupS * 1000));
    Duration hold = Duration.ofMillis((long) (holdS * 1000));
    double streamSeconds = outputTokens * sim.itlMs() / 1000.0;
    if (streamSeconds <= (ramp.plus(warmup).plus(hold).toMillis()) / 1000.0) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "a stream lasts %.0f s (output-tokens x itl-ms), which must exceed ramp + warm-up + hold (%d s) so all "
              + "streams are open during the hold; raise --output-tokens or --itl-ms", streamSeconds,
          ramp.plus(warmup).plus(hold).toSeconds()));
    }
    // What bin/narwhal runs (bin/jvm.options, whose heap is capped at 512 MiB), as the sweep does.
    String routerOpts = RouterJvmOptions.choose(routerJavaOpts, repo).options();
    Path dir = ResultsDirectory.create(outDir, "ceiling-");
    Stack.Settings settings = new Stack.Settings(prefillEngines, decodeEngines, sim,
        FlagValues.words(engineJavaOpts), routerOpts, streams + 1000, true, false, "nginx",
        "auto", 19_000, repo, routerJar, dir,
        // The ceiling measures memory per stream, not latency: every process may use every core.
        Pinning.unpinned(Pinning.allowedCpus(), "the ceiling is not pinned"));
    ProcessProbe probe = ProcessProbe.system();
    MachineInfo machine = MachineInfo.detect("", env.openFilesLimit());
    Stack.log("ceiling: " + streams + " streams of " + outputTokens + " tokens every " + sim.itlMs() + " ms ("
        + streamSeconds + " s each), router " + routerOpts + "; results in " + dir);
    Map<String, Object> out = new LinkedHashMap<>();
    String loadBefore = MachineInfo.loadAverage();
    try (Stack stack = Stack.start(settings, env.java(), env.classpath());
        Generator generator = new Generator(loops)) {
      long pid = java.util.Objects.requireNonNull(stack.router, "router").pid();
      Stack.log("warming up the router");
      generator.closedLoop(Arm.NARWHAL, warm, stack.targets, 64,
          LoadShape.of(Duration.ofMillis(500), Duration.ZERO, Duration.ofSeconds(5), Duration.ofSeconds(60)),
          Phases.NONE);
      Snapshot base = Snapshot.take(probe, pid, true);
      Stack.log("idle baseline: " + base);
      Hold phases = new Hold(probe, pid, stack.engines.pids(), generator, hold);
      Duration timeout = Duration.ofSeconds(timeoutS);
      RunResult r = generator.closedLoop(Arm.NARWHAL, slow, stack.targets, streams,
          new LoadShape(ramp, warmup, hold, timeout, 1000), phases);
      Snapshot held = phases.atHold == null ? Snapshot.take(probe, pid, false) : phases.atHold;
      Histogram ttft = r.stats().ttftUs();
      Histogram itl = r.stats().itlUs();
      double heapPerStreamKb = (held.liveHeapBytes - base.liveHeapBytes) / 1024.0 / streams;
      double rssPerStreamKb = (held.rssKb - base.rssKb) / (double) streams;
      out.put("command", command);
      out.put("machine", machine);
      out.put("streams", streams);
      out.put("load_average_before", loadBefore);
      out.put("router_java_options", routerOpts);
      out.put("stream_seconds", streamSeconds);
      out.put("itl_ms", sim.itlMs());
      out.put("output_tokens", outputTokens);
      out.put("streaming_min_during_hold", phases.minStreaming);
      out.put("streaming_max_during_hold", phases.maxStreaming);
      out.put("router_open_files_max", phases.maxRouterFiles);
      out.put("generator_open_files_max", phases.maxSelfFiles);
      out.put("baseline", base);
      out.put("at_hold", held);
      out.put("router_peak_rss_mb", probe.status(pid).vmHwmKb() / 1024.0);
      out.put("heap_used_max_mb", phases.heapUsedMax / 1048576.0);
      out.put("heap_per_stream_kb", heapPerStreamKb);
      out.put("rss_per_stream_kb", rssPerStreamKb);
      out.put("router_cores_during_hold", phases.cpuSeconds[0] / phases.windowSeconds);
      out.put("engines_cores_during_hold", phases.cpuSeconds[1] / phases.windowSeconds);
      out.put("generator_cores_during_hold", phases.cpuSeconds[2] / phases.windowSeconds);
      out.put("router_cpu_s_per_100k_tokens", phases.cpuSeconds[0] * 100_000.0 / Math.max(1, r.stats().tokens()));
      out.put("load_average_after", MachineInfo.loadAverage());
      out.put("completed_in_hold", r.stats().completed());
      out.put("tokens_in_hold", r.stats().tokens());
      out.put("requests_started", r.stats().started());
      // First tokens all arrive before the hold when streams outlast it; then there is no TTFT to report.
      out.put("ttft_p50_ms", ttft.getTotalCount() == 0 ? null : ttft.getValueAtPercentile(50) / 1000.0);
      out.put("ttft_p99_ms", ttft.getTotalCount() == 0 ? null : ttft.getValueAtPercentile(99) / 1000.0);
      out.put("itl_p50_ms", itl.getValueAtPercentile(50) / 1000.0);
      out.put("itl_p99_ms", itl.getValueAtPercentile(99) / 1000.0);
      out.put("errors", r.stats().errors());
      out.put("error_kinds", r.stats().errorKinds());
      out.put("first_error", r.stats().firstError());
      out.put("drained", r.drained());
      out.put("router_alive", stack.router != null && stack.router.isAlive());
    }
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("ceiling.json").toFile(), out);
    StringBuilder md = new StringBuilder("# Concurrency ceiling " + dir.getFileName() + "\n\n");
    out.forEach((k, v) -> md.append("- ").append(k).append(": ").append(v).append('\n'));
    Files.writeString(dir.resolve("ceiling.md"), md.toString());
    System.out.println(md);
    long errors = (long) out.get("errors");
    return errors == 0 && (boolean) out.get("drained") ? 0 : 1;
  }

  /** Router memory at one moment: resident set, and live heap (after a full GC when asked). */
  record Snapshot(long rssKb, long liveHeapBytes, long heapCommittedBytes, int openFiles, boolean afterFullGc) {

    static Snapshot take(ProcessProbe probe, long pid, boolean fullGc) {
      if (fullGc) {
        runGc(pid);
      }
      ProcStatus s = probe.status(pid);
      long used = -1;
      long committed = -1;
      Optional<Path> file = HsPerfData.find(Path.of("/tmp"), pid);
      if (file.isPresent()) {
        try {
          HsPerfData d = HsPerfData.read(file.get());
          used = d.heapUsedBytes();
          committed = d.heapCommittedBytes();
        } catch (IOException e) {
          // reported as unknown (-1)
        }
      }
      return new Snapshot(s.vmRssKb(), used, committed, probe.openFiles(pid), fullGc);
    }

    /** {@code jcmd <pid> GC.run}: a full collection, so the heap figure is the live set. */
    private static void runGc(long pid) {
      try {
        Process p = new ProcessBuilder("jcmd", Long.toString(pid), "GC.run").redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        p.waitFor(60, TimeUnit.SECONDS);
        Thread.sleep(500);
      } catch (IOException e) {
        Stack.log("jcmd unavailable (" + e.getMessage() + "): heap figures include garbage");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Samples the router while the hold window is open; takes the after-GC snapshot at 3/4 of it. */
  private static final class Hold implements Phases {
    private final ProcessProbe probe;
    private final long pid;
    private final Generator generator;
    private final long snapshotAfterNanos;
    private long openedAt;
    @org.jspecify.annotations.Nullable Snapshot atHold;
    int minStreaming = Integer.MAX_VALUE;
    int maxStreaming;
    int maxRouterFiles;
    int maxSelfFiles;
    long heapUsedMax;
    private final List<Long> enginePids;
    private double[] cpuAtOpen = new double[3];
    double[] cpuSeconds = new double[3];
    double windowSeconds;

    Hold(ProcessProbe probe, long pid, List<Long> enginePids, Generator generator, Duration hold) {
      this.probe = probe;
      this.enginePids = enginePids;
      this.pid = pid;
      this.generator = generator;
      this.snapshotAfterNanos = hold.toNanos() * 3 / 4;
    }

    @Override
    public void windowOpened() {
      openedAt = System.nanoTime();
      cpuAtOpen = cpu();
      Stack.log("hold window open: " + generator.streaming() + " streams streaming");
      sample();
    }

    @Override
    public void sample() {
      int s = generator.streaming();
      minStreaming = Math.min(minStreaming, s);
      maxStreaming = Math.max(maxStreaming, s);
      maxRouterFiles = Math.max(maxRouterFiles, probe.openFiles(pid));
      maxSelfFiles = Math.max(maxSelfFiles, probe.openFiles(ProcessHandle.current().pid()));
      HsPerfData.find(Path.of("/tmp"), pid).ifPresent(file -> {
        try {
          heapUsedMax = Math.max(heapUsedMax, HsPerfData.read(file).heapUsedBytes());
        } catch (IOException | RuntimeException e) {
          // a torn read skips one sample
        }
      });
      if (atHold == null && System.nanoTime() - openedAt >= snapshotAfterNanos) {
        atHold = Snapshot.take(probe, pid, true);
        Stack.log("at hold (" + generator.streaming() + " streaming): " + atHold);
      }
    }

    /** CPU seconds so far of the router, the engines and the generator. */
    private double[] cpu() {
      return new double[] {probe.cpuSeconds(List.of(pid)), probe.cpuSeconds(enginePids),
          probe.cpuSeconds(List.of(ProcessHandle.current().pid()))};
    }

    @Override
    public void windowClosed() {
      double[] now = cpu();
      for (int i = 0; i < 3; i++) {
        cpuSeconds[i] = now[i] - cpuAtOpen[i];
      }
      windowSeconds = (System.nanoTime() - openedAt) / 1e9;
      Stack.log("hold window closed: " + generator.streaming() + " streams streaming, min during hold "
          + minStreaming + ", router open files max " + maxRouterFiles);
    }
  }
}

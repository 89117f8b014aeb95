package narwhal.bench;

import narwhal.bench.report.ResultsDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import narwhal.bench.cpu.OtherTenants;
import narwhal.bench.cpu.Pinning;
import narwhal.bench.fleet.RouterJvmOptions;
import narwhal.bench.fleet.SimSettings;
import narwhal.bench.load.Arm;
import narwhal.bench.load.Generator;
import narwhal.bench.load.LoadShape;
import narwhal.bench.load.Phases;
import narwhal.bench.load.RunResult;
import narwhal.bench.load.Workload;
import narwhal.bench.proc.ProcessProbe;
import narwhal.bench.profile.RouterProfiler;
import narwhal.bench.report.ArmLevel;
import narwhal.bench.report.MachineInfo;
import narwhal.bench.report.MarkdownReport;
import narwhal.bench.report.Rounds;
import org.jspecify.annotations.Nullable;

/**
 * {@code bench sweep}: the arms ({@code --arms}) against the same engines, level by level, the arms
 * interleaved within each level (direct, narwhal, nginx, then the next level) so drifting machine
 * noise lands on all of them alike; with {@code --rounds N} each level repeats that N times in
 * rotated order and pools each arm's windows ({@link Rounds}). Closed-loop concurrency levels by
 * default; {@code --rates} switches to open-loop Poisson arrivals at those rates.
 *
 * <p>The engines first frame their streams chunked on keep-alive connections (what vLLM sends);
 * then the harness switches them to close-delimited streams ({@code POST /admin/framing}), where
 * every stream ends with the engine closing its connection, and runs {@code --close-levels} again
 * with every arm.
 *
 * <p>{@code bench profile} is the same machinery for the narwhal arm at one level, with the
 * router's CPU (and then allocations) profiled over the measurement window.
 */
final class SweepCommand {

  private final SweepFlags f;
  private final ArmFlags a;
  private final @Nullable ProfilerFlags profilerFlags;
  private final Bench.Env env;
  private final boolean profile;

  /** A sweep ({@code profilerFlags} null) or a profile run ({@code arms} then unused). */
  SweepCommand(SweepFlags f, ArmFlags arms, @Nullable ProfilerFlags profilerFlags, Bench.Env env) {
    this.f = f;
    this.a = arms;
    this.profilerFlags = profilerFlags;
    this.env = env;
    this.profile = profilerFlags != null;
  }

  int run() throws IOException {
    return sweep();
  }

  private int sweep() throws IOException {
    boolean open = !profile && a.rates != null;
    List<Double> levels = open
        ? FlagValues.positiveNumbers("--rates", a.rates)
        : FlagValues.positiveNumbers("--levels", f.levels != null ? f.levels : profile ? "256" : "1,16,64,256,1024,4096");
    List<Double> closeLevels = profile ? List.of() : FlagValues.positiveNumbersOrNone("--close-levels", a.closeLevels);
    String tool = profilerFlags == null ? "async" : profilerFlags.profiler;
    boolean allocProfile = profilerFlags == null || FlagValues.onOff("--alloc-profile", profilerFlags.allocProfile);
    if (!tool.equals("async") && !tool.equals("jfr")) {
      throw new IllegalArgumentException("--profiler must be async or jfr, got '" + tool + "'");
    }
    if (profile && levels.size() != 1) {
      throw new IllegalArgumentException("profile runs one level; --levels has " + levels.size());
    }
    List<Arm> arms = new ArrayList<>();
    for (String arm : (profile ? "narwhal" : a.arms).split(",")) {
      arms.add(Arm.parse(arm));
    }
    SimSettings sim = new SimSettings("narwhal-sim", 0, f.prefillMs, f.prefillMsPerToken, f.kvMsPerToken, f.itlMs);
    Workload workload = new Workload(sim.model(), f.promptWords, f.outputTokens, f.prompts, sim.seed());
    String nginx = f.nginx;
    Path repo = f.repo;
    RouterJvmOptions routerOptions = RouterJvmOptions.choose(f.routerJavaOpts, repo);
    Pinning pinning = f.pinning();
    Path dir = ResultsDirectory.create(f.out, profile ? "profile-" : "");

    Stack.log("CPU placement: " + pinning.describe());
    if (!pinning.pinned() && !pinning.note().equals("--pin off")) {
      Stack.log("WARNING: " + pinning.note() + " — the proxy shares every core with the engines and the load "
          + "generator, as with --pin off");
    }
    if (!pinning.pinToOthers(ProcessHandle.current().pid())) {
      Stack.log("WARNING: could not move the harness's own threads onto CPUs "
          + narwhal.bench.cpu.CpuList.format(pinning.others()) + " (taskset -a -p failed)");
    }
    // One nginx worker when pinned: nginx gets one core, as the router does.
    String nginxWorkers = f.nginxWorkers != null ? f.nginxWorkers : pinning.pinned() ? "1" : "auto";
    Stack.Settings settings = new Stack.Settings(f.prefillEngines, f.decodeEngines, sim,
        FlagValues.words(f.engineJavaOpts), routerOptions.options(),
        20_000, arms.contains(Arm.NARWHAL), arms.stream().anyMatch(Arm::nginx), nginx, nginxWorkers,
        19_000, repo, f.routerJar, dir, pinning);
    ProcessProbe probe = ProcessProbe.system();
    MachineInfo machine = MachineInfo.detect(arms.stream().anyMatch(Arm::nginx) ? env.nginxVersion(nginx) : "",
        env.openFilesLimit());
    Stack.log("results in " + dir);
    Stack.log("machine: " + machine.describe());
    Stack.log("router JVM options: " + routerOptions.describe());
    List<ArmLevel> rows = new ArrayList<>();
    int roundCount = profile ? 1 : a.rounds;
    if (roundCount < 1) {
      throw new IllegalArgumentException("--rounds must be at least 1, got " + roundCount);
    }
    List<List<ArmLevel>> rounds = new ArrayList<>();
    for (int i = 0; i < roundCount; i++) {
      rounds.add(new ArrayList<>());
    }
    String loadBefore = MachineInfo.loadAverage();
    long extraErrors = 0;
    RouterProfiler profiler = null;
    try (Stack stack = Stack.start(settings, env.java(), env.classpath());
        Generator generator = new Generator(f.loops)) {
      Runs runs = new Runs(stack, generator, probe, workload, open);
      runs.warm(arms, f.warmS, ArmLevel.CHUNKED);
      if (profile) {
        profiler = RouterProfiler.create(env.java(), java.util.Objects.requireNonNull(stack.router, "router").pid(),
            dir, tool.equals("jfr"));
      }
      // Close-delimited streams first, each switch of style followed by a warm-up of its own: the
      // other style takes code paths of its own (a connect and a close per stream; reading a body
      // to the connection's end) that the JIT has to compile before a window is fair to either.
      if (!closeLevels.isEmpty()) {
        double styleWarm = a.closeWarmS;
        Stack.log("switching the engines to close-delimited streams (POST /admin/framing \"close\")");
        stack.engines.setStreamFraming(ArmLevel.CLOSE);
        try {
          runs.warm(arms, styleWarm, ArmLevel.CLOSE);
          for (double level : closeLevels) {
            runs.level(arms, level, ArmLevel.CLOSE, Phases.NONE, rows, rounds);
          }
        } finally {
          restoreChunked(stack);
        }
        runs.warm(arms, styleWarm, ArmLevel.CHUNKED);
      }
      for (double level : levels) {
        runs.level(arms, level, ArmLevel.CHUNKED, profiler == null ? Phases.NONE : profiler.cpuWindow(), rows, rounds);
      }
      if (profiler != null && allocProfile && profiler.canProfileAllocations()) {
        Stack.log("allocation profile: a second window at " + MarkdownReport.level(levels.get(0)));
        extraErrors += runs.unrecorded(Arm.NARWHAL, levels.get(0), profiler.allocWindow());
      }
    }
    String levelName = open ? "arrivals/s" : "streams";
    String load = "load average (1/5/15 min) " + loadBefore + " at the start, " + MachineInfo.loadAverage()
        + " at the end";
    Stack.log(load);
    SweepReport report = new SweepReport(f, profile, dir, rows, rounds, levelName, machine, load, workload, sim, settings, open, pinning,
        routerOptions, profiler, levels.get(0));
    report.write();
    return rows.stream().anyMatch(r -> r.errors() > 0) || extraErrors > 0 ? 1 : 0;
  }

  /** Switches the engines back, best effort: a failure here must not hide the one that ended the run. */
  private static void restoreChunked(Stack stack) {
    try {
      stack.engines.setStreamFraming(ArmLevel.CHUNKED);
    } catch (RuntimeException e) {
      Stack.log("could not switch the engines back to chunked streams: " + e.getMessage());
    }
  }

  /** Runs against one started stack: unmeasured warm-ups and measured arm-levels. */
  private final class Runs {
    private final Stack stack;
    private final Generator generator;
    private final ProcessProbe probe;
    private final Workload workload;
    private final boolean open;
    private final Duration warmup = Duration.ofMillis((long) (f.warmupS * 1000));
    private final Duration measure = Duration.ofMillis((long) (f.measureS * 1000));
    private final double maxRamp = f.rampS;
    private final Duration timeout = Duration.ofSeconds(f.timeoutS);
    private final int warmStreams = f.warmStreams;

    Runs(Stack stack, Generator generator, ProcessProbe probe, Workload workload, boolean open) {
      this.stack = stack;
      this.generator = generator;
      this.probe = probe;
      this.workload = workload;
      this.open = open;
    }

    /**
     * Unmeasured load on every arm: JIT-compiles router, engines, nginx paths and generator. 60 s
     * at 256 streams by default: with the router pinned to one core its compiler threads share
     * that core with the event loop, and after 20 s at 32 streams (the old default) C2 still took
     * a third of the router's CPU in the 256-stream window (bench/run.sh profile), billed as
     * relay cost. Higher concurrency also takes the paths only load takes (pool growth, full
     * socket buffers). Close-delimited streams take paths of their own (a connect per stream), so
     * they get a warm-up too.
     */
    void warm(List<Arm> arms, double seconds, String style) {
      if (seconds <= 0) {
        return;
      }
      for (Arm arm : arms) {
        Stack.log("warming up " + arm.label() + " (" + style + " engine streams)");
        RunResult r = generator.closedLoop(arm, workload, stack.targets, warmStreams,
            LoadShape.of(Duration.ofMillis(200), Duration.ZERO, Duration.ofMillis((long) (seconds * 1000)), timeout),
            Phases.NONE);
        if (r.stats().errors() > 0) {
          Stack.log("warm-up of " + arm.label() + " had " + r.stats().errors() + " errors, first: "
              + r.stats().firstError());
        }
      }
    }

    /**
     * Every arm at one level, {@code rounds.size()} times: round {@code i} starts with the arm
     * {@code i} places along, so no arm always runs right after the same one. Each round's rows go
     * to {@code rounds}, each arm's rounds pooled into one row to {@code rows}.
     */
    void level(List<Arm> arms, double level, String style, Phases extra, List<ArmLevel> rows,
        List<List<ArmLevel>> rounds) {
      Map<Arm, List<Measured>> byArm = new LinkedHashMap<>();
      for (Arm arm : arms) {
        byArm.put(arm, new ArrayList<>());
      }
      for (int round = 0; round < rounds.size(); round++) {
        if (rounds.size() > 1) {
          Stack.log("round " + (round + 1) + " of " + rounds.size() + " at " + MarkdownReport.level(level));
        }
        for (int k = 0; k < arms.size(); k++) {
          Arm arm = arms.get((k + round) % arms.size());
          Measured m = measure(arm, level, style, extra);
          byArm.get(arm).add(m);
          rounds.get(round).add(m.row());
        }
      }
      byArm.forEach((arm, ms) -> {
        RunResult pooled = RunResult.pooled(ms.stream().map(Measured::run).toList());
        rows.add(Rounds.pool(ms.stream().map(Measured::row).toList(), pooled.stats().ttftUs(),
            pooled.stats().itlUs()));
      });
    }

    Measured measure(Arm arm, double level, String style, Phases extra) {
      List<Long> proxy = stack.proxyPids(arm, probe);
      long jvm = arm == Arm.NARWHAL && stack.router != null ? stack.router.pid() : -1;
      Accounting acct = new Accounting(probe, proxy, stack.engines.pids(), jvm,
          new OtherTenants(probe, () -> stack.startedPids(probe)));
      RunResult r = run(arm, level, acct.andThen(extra));
      ArmLevel row = acct.result(arm, level, style, r);
      Stack.log(summary(row, r.drained()));
      OtherTenants.Reading n = acct.noise();
      if (n != null) {
        double w = n.windowSeconds();
        Stack.log(String.format(Locale.ROOT, "        other tenants %.3f cores: processes alive throughout %.3f (%s), "
            + "the rest (processes that came or went, interrupts on idle CPUs) %.3f; softirq %.3f cores, of which "
            + "ksoftirqd %.3f; steal %.3f", n.otherCores(), n.named() / w, n.describeTop(),
            (n.otherSeconds() - n.named()) / w, n.softirqCores(), n.softirqThreads() / w, n.stealCores()));
      }
      return new Measured(row, r);
    }

    /** A run whose figures are not reported (the allocation profile's); its error count. */
    long unrecorded(Arm arm, double level, Phases phases) {
      RunResult r = run(arm, level, phases);
      if (r.stats().errors() > 0) {
        Stack.log("the allocation-profiled run had " + r.stats().errors() + " errors, first: "
            + r.stats().firstError());
      }
      return r.stats().errors();
    }

    private RunResult run(Arm arm, double level, Phases phases) {
      if (open) {
        LoadShape shape = LoadShape.of(Duration.ZERO, warmup, measure, timeout);
        return generator.openLoop(arm, workload, stack.targets, level, a.seed, a.maxInFlight, shape, phases);
      }
      int c = (int) level;
      Duration ramp = ramp(c, maxRamp);
      return generator.closedLoop(arm, workload, stack.targets, c,
          LoadShape.of(ramp, warmup, closedLoopWindow(measure, ramp), timeout), phases);
    }
  }

  /**
   * Streams start 2 ms apart (up to {@code --ramp-s}), so a level's starts spread over about one
   * request's lifetime there: at 4,096 streams a request lives ≈ 8 s (64 tokens at ≈ 120 ms
   * apart on saturated engines), and streams started within 2 s (the old ramp) finish in waves
   * 8 s apart, so a 10-s window caught one wave or two and read 240 or 480 req/s for the same
   * arm (run 20261202-052522). Lower levels' requests live ≈ 1.3–2 s and their ramps stay short.
   */
  private static final int RAMP_MS_PER_STREAM = 2;

  /** How long a level of {@code streams} takes to start: 2 ms a stream, at most {@code maxRampS}. */
  static Duration ramp(int streams, double maxRampS) {
    return Duration.ofMillis((long) Math.min(maxRampS * 1000, (double) streams * RAMP_MS_PER_STREAM));
  }

  /**
   * A closed-loop window: {@code --measure-s}, or three ramps when that is longer. The ramp is
   * about one request's lifetime at the top levels (≈ 8 s at 4,096 streams), and a closed loop's
   * completions still bunch there: in run 20261202-074928 every arm's 10-s windows at 4,096
   * streams read between 240 and 525 req/s round to round (direct included), so one window saw
   * about one lifetime's completions. Three lifetimes average the bunching out; lower levels,
   * whose requests live 1.3–2.5 s, keep {@code --measure-s}.
   */
  static Duration closedLoopWindow(Duration measure, Duration ramp) {
    Duration threeRamps = ramp.multipliedBy(3);
    return threeRamps.compareTo(measure) > 0 ? threeRamps : measure;
  }

  /** One window's row and the run behind it (whose histograms pooling merges). */
  private record Measured(ArmLevel row, RunResult run) {}

  private static String summary(ArmLevel r, boolean drained) {
    return String.format(Locale.ROOT,
        "%-7s level %-6s %-7s %8.1f req/s %9.0f tok/s  TTFT p50 %7.2f p99 %8.2f ms  ITL p50 %6.2f p99 %7.2f ms  "
            + "relay CPU %.3f s/1k req %.3f s/100k tok  other tenants %.2f cores%s  errors %d%s%s",
        r.arm(), MarkdownReport.level(r.level()), r.engineStyle(), r.requestsPerSecond(), r.tokensPerSecond(),
        r.ttftP50Ms(), r.ttftP99Ms(), r.itlP50Ms(), r.itlP99Ms(), r.proxyCpuPer1kRequests(), r.proxyCpuPer100kTokens(),
        r.otherCpuCores(), r.noisy() ? " (noisy)" : "", r.errors(),
        r.errors() > 0 ? " (first: " + r.firstError() + ")" : "", drained ? "" : " [did not drain]");
  }
}

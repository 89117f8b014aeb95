package narwhal.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
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
import narwhal.bench.report.LatencyChart;
import narwhal.bench.report.MachineInfo;
import narwhal.bench.report.MarkdownReport;
import org.jspecify.annotations.Nullable;

/**
 * {@code bench sweep}: the three arms against the same engines, level by level, the arms
 * interleaved within each level (direct, narwhal, nginx, then the next level) so drifting machine
 * noise lands on all of them alike. Closed-loop concurrency levels by default; {@code --rates}
 * switches to open-loop Poisson arrivals at those rates.
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

  static final Set<String> FLAGS = Set.of("levels", "rates", "arms", "prompt-words", "output-tokens", "prompts",
      "itl-ms", "prefill-ms", "prefill-ms-per-token", "kv-ms-per-token", "prefill-engines", "decode-engines",
      "warmup-s", "measure-s", "ramp-s", "timeout-s", "loops", "router-java-opts", "engine-java-opts", "nginx",
      "nginx-workers", "repo", "out", "seed", "max-in-flight", "command", "warm-s", "router-jar", "pin", "proxy-cpu",
      "cpus", "close-levels", "close-warm-s", "warm-streams");

  /** {@code bench profile}: the sweep's flags for one arm and level, plus the profiler's. */
  static final Set<String> PROFILE_FLAGS = profileFlags();

  private static final int TOP_FRAMES = 25;

  private final Flags f;
  private final Bench.Env env;
  private final boolean profile;

  private SweepCommand(Flags f, Bench.Env env, boolean profile) {
    this.f = f;
    this.env = env;
    this.profile = profile;
  }

  static int run(String[] args, Bench.Env env) throws IOException {
    return new SweepCommand(Flags.parse(args, FLAGS), env, false).sweep();
  }

  static int profile(String[] args, Bench.Env env) throws IOException {
    return new SweepCommand(Flags.parse(args, PROFILE_FLAGS), env, true).sweep();
  }

  /**
   * {@code bench cpus}: the CPUs the harness itself runs on under these flags (empty when
   * unpinned), so {@code bench/run.sh} can start the harness's JVM on them.
   */
  static int cpus(String[] args) {
    Set<String> all = new HashSet<>(FLAGS);
    all.addAll(PROFILE_FLAGS);
    Pinning p = pinning(Flags.parse(args, all));
    System.out.println(p.pinned() ? narwhal.bench.cpu.CpuList.format(p.others()) : "");
    return 0;
  }

  static Pinning pinning(Flags f) {
    Pinning.Mode mode = Pinning.Mode.parse(f.get("pin", "auto"));
    OptionalInt proxy = f.has("proxy-cpu") ? OptionalInt.of(f.getInt("proxy-cpu", -1)) : OptionalInt.empty();
    return Pinning.detect(mode, proxy, f.has("cpus") ? f.get("cpus", "") : null);
  }

  private int sweep() throws IOException {
    boolean open = f.has("rates");
    List<Double> levels = open
        ? f.getNumbers("rates", "")
        : f.getNumbers("levels", profile ? "256" : "1,16,64,256,1024,4096");
    List<Double> closeLevels = profile ? List.of() : f.getNumbersOrNone("close-levels", "1,64");
    String tool = f.get("profiler", "async");
    if (!tool.equals("async") && !tool.equals("jfr")) {
      throw new IllegalArgumentException("--profiler must be async or jfr, got '" + tool + "'");
    }
    if (profile && levels.size() != 1) {
      throw new IllegalArgumentException("profile runs one level; --levels has " + levels.size());
    }
    List<Arm> arms = new ArrayList<>();
    for (String a : f.get("arms", profile ? "narwhal" : "direct,narwhal,nginx").split(",")) {
      arms.add(Arm.parse(a));
    }
    SimSettings sim = new SimSettings("narwhal-sim", 0, f.getDouble("prefill-ms", 2),
        f.getDouble("prefill-ms-per-token", 0.02), f.getDouble("kv-ms-per-token", 0.005), f.getDouble("itl-ms", 20));
    Workload workload = new Workload(sim.model(), f.getInt("prompt-words", 128), f.getInt("output-tokens", 64),
        f.getInt("prompts", 256), sim.seed());
    String nginx = f.get("nginx", "nginx");
    Path repo = Path.of(f.get("repo", "."));
    RouterJvmOptions routerOptions = RouterJvmOptions.choose(
        f.getOrNull("router-java-opts"), repo);
    Pinning pinning = pinning(f);
    Path dir = Bench.resultsDir(Path.of(f.get("out", "bench/results")), profile ? "profile-" : "");

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
    String nginxWorkers = f.get("nginx-workers", pinning.pinned() ? "1" : "auto");
    Stack.Settings settings = new Stack.Settings(f.getInt("prefill-engines", 2), f.getInt("decode-engines", 2), sim,
        Flags.words(f.get("engine-java-opts", "-Xms256m -Xmx1g")), routerOptions.options(),
        20_000, arms.contains(Arm.NARWHAL), arms.contains(Arm.NGINX), nginx, nginxWorkers,
        19_000, repo, f.has("router-jar") ? Path.of(f.get("router-jar", "")) : null, dir, pinning);
    ProcessProbe probe = ProcessProbe.system();
    MachineInfo machine = MachineInfo.detect(arms.contains(Arm.NGINX) ? env.nginxVersion(nginx) : "",
        env.openFilesLimit());
    Stack.log("results in " + dir);
    Stack.log("machine: " + machine.describe());
    Stack.log("router JVM options: " + routerOptions.describe());
    List<ArmLevel> rows = new ArrayList<>();
    String loadBefore = MachineInfo.loadAverage();
    long extraErrors = 0;
    RouterProfiler profiler = null;
    try (Stack stack = Stack.start(settings, env.java(), env.classpath());
        Generator generator = new Generator(f.getInt("loops", 2))) {
      Runs runs = new Runs(stack, generator, probe, workload, open);
      runs.warm(arms, f.getDouble("warm-s", 60), ArmLevel.CHUNKED);
      if (profile) {
        profiler = RouterProfiler.create(env.java(), java.util.Objects.requireNonNull(stack.router, "router").pid(),
            dir, tool.equals("jfr"));
      }
      // Close-delimited streams first, each switch of style followed by a warm-up of its own: the
      // other style takes code paths of its own (a connect and a close per stream; reading a body
      // to the connection's end) that the JIT has to compile before a window is fair to either.
      if (!closeLevels.isEmpty()) {
        double styleWarm = f.getDouble("close-warm-s", 30);
        Stack.log("switching the engines to close-delimited streams (POST /admin/framing \"close\")");
        stack.engines.setStreamFraming(ArmLevel.CLOSE);
        try {
          runs.warm(arms, styleWarm, ArmLevel.CLOSE);
          for (double level : closeLevels) {
            for (Arm arm : arms) {
              rows.add(runs.measure(arm, level, ArmLevel.CLOSE, Phases.NONE));
            }
          }
        } finally {
          restoreChunked(stack);
        }
        runs.warm(arms, styleWarm, ArmLevel.CHUNKED);
      }
      for (double level : levels) {
        for (Arm arm : arms) {
          rows.add(runs.measure(arm, level, ArmLevel.CHUNKED, profiler == null ? Phases.NONE : profiler.cpuWindow()));
        }
      }
      if (profiler != null && f.getSwitch("alloc-profile", true) && profiler.canProfileAllocations()) {
        Stack.log("allocation profile: a second window at " + MarkdownReport.level(levels.get(0)));
        extraErrors += runs.unrecorded(Arm.NARWHAL, levels.get(0), profiler.allocWindow());
      }
    }
    String levelName = open ? "arrivals/s" : "streams";
    String load = "load average (1/5/15 min) " + loadBefore + " at the start, " + MachineInfo.loadAverage()
        + " at the end";
    Stack.log(load);
    Report report = new Report(dir, rows, levelName, machine, load, workload, sim, settings, open, pinning,
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
    private final Duration warmup = Duration.ofMillis((long) (f.getDouble("warmup-s", 3) * 1000));
    private final Duration measure = Duration.ofMillis((long) (f.getDouble("measure-s", 10) * 1000));
    private final double maxRamp = f.getDouble("ramp-s", 2);
    private final Duration timeout = Duration.ofSeconds(f.getInt("timeout-s", 120));
    private final int warmStreams = f.getInt("warm-streams", 256);

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

    ArmLevel measure(Arm arm, double level, String style, Phases extra) {
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
      return row;
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
        return generator.openLoop(arm, workload, stack.targets, level, f.getInt("seed", 1),
            f.getInt("max-in-flight", 8000), shape, phases);
      }
      int c = (int) level;
      Duration ramp = Duration.ofMillis((long) Math.min(maxRamp * 1000, c));
      return generator.closedLoop(arm, workload, stack.targets, c, LoadShape.of(ramp, warmup, measure, timeout),
          phases);
    }
  }

  private static String summary(ArmLevel r, boolean drained) {
    return String.format(Locale.ROOT,
        "%-7s level %-6s %-7s %8.1f req/s %9.0f tok/s  TTFT p50 %7.2f p99 %8.2f ms  ITL p50 %6.2f p99 %7.2f ms  "
            + "relay CPU %.3f s/1k req %.3f s/100k tok  other tenants %.2f cores%s  errors %d%s%s",
        r.arm(), MarkdownReport.level(r.level()), r.engineStyle(), r.requestsPerSecond(), r.tokensPerSecond(),
        r.ttftP50Ms(), r.ttftP99Ms(), r.itlP50Ms(), r.itlP99Ms(), r.proxyCpuPer1kRequests(), r.proxyCpuPer100kTokens(),
        r.otherCpuCores(), r.noisy() ? " (noisy)" : "", r.errors(),
        r.errors() > 0 ? " (first: " + r.firstError() + ")" : "", drained ? "" : " [did not drain]");
  }

  /** report.md, results.json and the charts of one run. */
  private final class Report {
    private final Path dir;
    private final List<ArmLevel> rows;
    private final String levelName;
    private final MachineInfo machine;
    private final String load;
    private final Workload w;
    private final SimSettings sim;
    private final Stack.Settings settings;
    private final boolean open;
    private final Pinning pinning;
    private final RouterJvmOptions routerOptions;
    private final @Nullable RouterProfiler profiler;
    private final double firstLevel;

    Report(Path dir, List<ArmLevel> rows, String levelName, MachineInfo machine, String load, Workload w,
        SimSettings sim, Stack.Settings settings, boolean open, Pinning pinning, RouterJvmOptions routerOptions,
        @Nullable RouterProfiler profiler, double firstLevel) {
      this.dir = dir;
      this.rows = rows;
      this.levelName = levelName;
      this.machine = machine;
      this.load = load;
      this.w = w;
      this.sim = sim;
      this.settings = settings;
      this.open = open;
      this.pinning = pinning;
      this.routerOptions = routerOptions;
      this.profiler = profiler;
      this.firstLevel = firstLevel;
    }

    void write() throws IOException {
      List<ArmLevel> chunked = MarkdownReport.withStyle(rows, ArmLevel.CHUNKED);
      List<ArmLevel> close = MarkdownReport.withStyle(rows, ArmLevel.CLOSE);
      String title = "Narwhal vs direct vs nginx: latency by " + levelName;
      LatencyChart.write(chunked, levelName, title, dir.resolve("latency.png"));
      if (!close.isEmpty()) {
        LatencyChart.write(close, levelName, title + " (close-delimited engine streams)",
            dir.resolve("latency-close.png"));
      }
      String command = f.get("command", profile ? "bench/run.sh profile" : "bench/run.sh sweep");
      String noise = MarkdownReport.noisySummary(rows, levelName);
      StringBuilder md = new StringBuilder();
      md.append("# ").append(profile ? "Router profile run " : "Benchmark run ").append(dir.getFileName())
          .append("\n\n");
      md.append("Command: `").append(command).append("`\n\n");
      md.append("Machine: ").append(machine.describe()).append("; ").append(load).append("\n\n");
      md.append("CPU placement: ").append(pinning.describe());
      if (settings.withNginx()) {
        md.append("; nginx `worker_processes ").append(settings.nginxWorkers()).append('`');
      }
      md.append(".\n\n");
      md.append("Workload: ").append(open ? "open-loop Poisson arrivals" : "closed-loop streams").append(", prompt ")
          .append(w.promptWords()).append(" words, ").append(w.outputTokens()).append(" output tokens; engines ")
          .append(settings.prefillEngines()).append(" prefill + ").append(settings.decodeEngines())
          .append(" decode simulators (inter-token ").append(sim.itlMs()).append(" ms, prefill ")
          .append(sim.prefillMs())
          .append(" ms + ").append(sim.prefillMsPerToken()).append(" ms/token); warm-up ")
          .append(f.get("warmup-s", "3")).append(" s, window ").append(f.get("measure-s", "10"))
          .append(" s per arm and level; router JVM options ").append(routerOptions.describe()).append(".\n\n");
      md.append(noise).append(" Other tenants' CPU is the machine's busy time (`/proc/stat`) minus that of every ")
          .append("process the run started and of the harness itself, per second of window.\n\n");
      section(md, chunked, "Chunked engine streams",
          "The engines stream `Transfer-Encoding: chunked` on keep-alive connections, as vLLM does.", "latency.png");
      if (!close.isEmpty()) {
        section(md, close, "Close-delimited engine streams",
            "The engines stream with neither `Content-Length` nor `Transfer-Encoding`, `Connection: close`, and close "
                + "the connection after `[DONE]` (HTTP/1.1 close-delimited bodies, as some OpenAI-compatible servers "
                + "send): every decode leg needs a new engine connection. Added latency compares narwhal with direct "
                + "at the same level and style.", "latency-close.png");
      }
      if (profiler != null) {
        md.append(profiler.markdown("The narwhal arm at " + MarkdownReport.level(firstLevel) + " " + levelName
            + ", over the measurement window only: attached with `jcmd` as the window opened, stopped as it closed.",
            TOP_FRAMES));
      }
      Files.writeString(dir.resolve("report.md"), md.toString());
      Files.writeString(dir.resolve("results.json"), new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
          .writeValueAsString(json(command, noise)));
      System.out.println();
      System.out.println("Chunked engine streams:");
      System.out.println(MarkdownReport.table(chunked, levelName));
      if (!close.isEmpty()) {
        System.out.println("Close-delimited engine streams:");
        System.out.println(MarkdownReport.table(close, levelName));
      }
      System.out.println(noise);
      Stack.log("wrote " + dir.resolve("report.md") + ", results.json and the charts");
    }

    private void section(StringBuilder md, List<ArmLevel> styleRows, String heading, String what, String chart) {
      if (styleRows.isEmpty()) {
        return;
      }
      md.append("## ").append(heading).append("\n\n").append(what).append(" Latencies in ms.\n\n");
      md.append(MarkdownReport.table(styleRows, levelName)).append('\n');
      String ratios = MarkdownReport.cpuRatios(styleRows);
      if (!ratios.isEmpty()) {
        md.append("Router CPU per relayed token ÷ nginx's: ").append(ratios).append("\n\n");
      }
      md.append("![latency](").append(chart).append(")\n\n");
    }

    private Map<String, Object> json(String command, String noise) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("command", command);
      json.put("machine", machine);
      json.put("load", load);
      json.put("mode", open ? "poisson" : "closed");
      json.put("cpu_pinning", pinning.toJson());
      if (settings.withNginx()) {
        json.put("nginx_workers", settings.nginxWorkers());
      }
      Map<String, Object> jvm = new LinkedHashMap<>();
      jvm.put("options", routerOptions.options());
      jvm.put("source", routerOptions.source());
      json.put("router_java_options", jvm);
      json.put("noise_threshold_cores", ArmLevel.NOISY_CORES);
      List<Map<String, Object>> noisy = new ArrayList<>();
      for (ArmLevel r : rows) {
        if (r.noisy()) {
          Map<String, Object> n = new LinkedHashMap<>();
          n.put("level", r.level());
          n.put("arm", r.arm());
          n.put("engineStyle", r.engineStyle());
          n.put("otherCpuCores", r.otherCpuCores());
          noisy.add(n);
        }
      }
      json.put("noisy_windows", noisy);
      json.put("noise_summary", noise);
      json.put("rows", rows);
      if (profiler != null) {
        json.put("profile", profiler.json(TOP_FRAMES));
      }
      return json;
    }
  }

  private static Set<String> profileFlags() {
    Set<String> s = new HashSet<>(FLAGS);
    s.removeAll(Set.of("rates", "arms", "close-levels", "close-warm-s", "seed", "max-in-flight"));
    s.addAll(Set.of("alloc-profile", "profiler"));
    return Set.copyOf(s);
  }
}

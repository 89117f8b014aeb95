package narwhal.bench.adaptive;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import narwhal.bench.fleet.EngineProcesses;
import narwhal.bench.fleet.ManagedProcess;
import narwhal.bench.fleet.Ports;
import narwhal.bench.fleet.RouterJvmOptions;
import narwhal.bench.fleet.RouterProcess;
import narwhal.bench.fleet.SimSettings;
import narwhal.bench.load.HttpTarget;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code narwhal bench adaptive}: four simulated GPU-like engines; for each trace, every static
 * split with open admission over a sweep of offered rates, then the best static split with
 * predictive admission, then the adaptive controller; SLO attainment per run, goodput per
 * configuration, and the adaptive run's roles over time, into a report directory.
 */
@Command(name = "adaptive", mixinStandardHelpOptions = true, usageHelpWidth = 110,
    description = "Static splits vs predictive admission vs the adaptive role controller: attainment and goodput.")
public final class AdaptiveCommand implements Callable<Integer> {

  private static final int ENGINES = 4;
  private static final String MODEL = "narwhal-sim";

  @Option(names = "--rates", paramLabel = "R,R,...", description = "offered base rates, requests/s (default ${DEFAULT-VALUE})")
  String rates = "2,4,6,8,10,12";

  @Option(names = "--traces", paramLabel = "T,T", description = "stationary, phase-shifting (default ${DEFAULT-VALUE})")
  String traces = "phase-shifting,stationary";

  @Option(names = "--configs", paramLabel = "C,C,...",
      description = "which configurations run: static, predictive, adaptive (default ${DEFAULT-VALUE})")
  String configs = "static,predictive,adaptive";

  @Option(names = "--phase-seconds", description = "length of one trace phase (default ${DEFAULT-VALUE})")
  double phaseSeconds = 20;

  @Option(names = "--slo-ttft-s", description = "default ${DEFAULT-VALUE}")
  double sloTtftS = 1.0;

  @Option(names = "--slo-tpot-s", description = "default ${DEFAULT-VALUE}")
  double sloTpotS = 0.05;

  @Option(names = "--long-prompt", description = "prompt tokens in prompt-heavy phases (default ${DEFAULT-VALUE})")
  int longPrompt = 2048;

  @Option(names = "--short-prompt", description = "default ${DEFAULT-VALUE}")
  int shortPrompt = 128;

  @Option(names = "--long-output", description = "output tokens in output-heavy phases (default ${DEFAULT-VALUE})")
  int longOutput = 256;

  @Option(names = "--short-output", description = "default ${DEFAULT-VALUE}")
  int shortOutput = 16;

  @Option(names = "--seed", description = "default ${DEFAULT-VALUE}")
  long seed = 7;

  @Option(names = "--sim-flags", paramLabel = "'...'",
      description = "the engines' gpu timing flags (narwhal sim --help) (default ${DEFAULT-VALUE})")
  String simFlags = "--jitter=0.05 --kv-capacity-tokens=100000";

  @Option(names = "--profiles", paramLabel = "FILE", description = "use this profiles file instead of running narwhal profile")
  @Nullable Path profiles;

  @Option(names = "--engine-java-opts", paramLabel = "'...'", description = "default ${DEFAULT-VALUE}")
  String engineJavaOpts = "-Xms256m -Xmx1g";

  @Option(names = "--router-java-opts", paramLabel = "'...'", description = "default: bin/jvm.options")
  @Nullable String routerJavaOpts;

  @Option(names = "--repo", paramLabel = "DIR", description = "the source tree (default ${DEFAULT-VALUE})")
  Path repo = Path.of(".");

  @Option(names = "--router-jar", paramLabel = "JAR", description = "the router's runnable jar (default: under --repo)")
  @Nullable Path routerJar;

  @Option(names = "--out", paramLabel = "DIR", description = "where results go (default ${DEFAULT-VALUE})")
  Path outDir = Path.of("bench/results");

  @Option(names = "--command", paramLabel = "TEXT", description = "the command line the report quotes")
  String command = "bench/run.sh adaptive";

  @Override
  public Integer call() throws Exception {
    List<Double> rateList = new ArrayList<>();
    for (String r : rates.split(",")) {
      rateList.add(Double.parseDouble(r.trim()));
    }
    List<TraceShape> shapes = new ArrayList<>();
    for (String t : traces.split(",")) {
      shapes.add(switch (t.trim()) {
        case "stationary" -> TraceShape.STATIONARY;
        case "phase-shifting" -> TraceShape.PHASE_SHIFTING;
        default -> throw new IllegalArgumentException("--traces: stationary or phase-shifting, got '" + t + "'");
      });
    }
    Path dir = resultsDir();
    String java = ProcessHandle.current().info().command().orElse("java");
    String classpath = System.getProperty("java.class.path");
    SimSettings sim = SimSettings.gpu(MODEL, seed, words(simFlags));
    String routerOpts = RouterJvmOptions.choose(routerJavaOpts, repo).options();
    log("results in " + dir);
    Map<String, List<ArmRun>> byTrace = new LinkedHashMap<>();
    try (EngineProcesses engines = EngineProcesses.start(ENGINES, 0, sim, java, classpath, words(engineJavaOpts),
        List.of(), dir.resolve("logs"))) {
      List<HttpTarget> targets = engines.prefillTargets();
      Path profileFile = profiles != null ? profiles : profile(java, routerOpts, targets, dir);
      Runner runner = new Runner(dir, java, routerOpts, targets, profileFile);
      for (TraceShape shape : shapes) {
        List<TracePhase> phases = shape.phases(phaseSeconds, longPrompt, shortPrompt, longOutput, shortOutput);
        List<String> wanted = List.of(configs.split(","));
        List<ArmRun> results = new ArrayList<>();
        // The best static split: the highest goodput, ties to the higher mean attainment.
        Configuration best = Configuration.staticSplit(ENGINES / 2, ENGINES);
        Comparator<List<ArmRun>> better = Comparator.comparingDouble((List<ArmRun> sweep) -> Goodput.of(sweep))
            .thenComparingDouble(sweep -> sweep.stream().mapToDouble(ArmRun::attainment).average().orElse(0));
        List<ArmRun> bestSweep = null;
        if (wanted.contains("static")) {
          for (int prefill = 1; prefill < ENGINES; prefill++) {
            Configuration c = Configuration.staticSplit(prefill, ENGINES);
            List<ArmRun> sweep = runner.sweep(shape, phases, c, rateList);
            results.addAll(sweep);
            if (bestSweep == null || better.compare(sweep, bestSweep) > 0) {
              bestSweep = sweep;
              best = c;
            }
          }
        }
        if (wanted.contains("predictive")) {
          results.addAll(runner.sweep(shape, phases, best.withPredictiveAdmission(), rateList));
        }
        if (wanted.contains("adaptive")) {
          // The controller starts from the even split: it has to find the right one itself.
          results.addAll(runner.sweep(shape, phases, Configuration.adaptiveFrom(ENGINES / 2), rateList));
        }
        byTrace.put(shape.label(), results);
        AdaptiveReport.write(dir, command, byTrace, phases(shapes), sloTtftS, sloTpotS, sim.flags());
      }
    }
    log("report: " + dir.resolve("README.md"));
    return 0;
  }

  private Map<String, List<TracePhase>> phases(List<TraceShape> shapes) {
    Map<String, List<TracePhase>> m = new LinkedHashMap<>();
    for (TraceShape s : shapes) {
      m.put(s.label(), s.phases(phaseSeconds, longPrompt, shortPrompt, longOutput, shortOutput));
    }
    return m;
  }

  /** Runs {@code narwhal profile} over the engines once; the runs price with what it measured. */
  private @Nullable Path profile(String java, String routerOpts, List<HttpTarget> targets, Path dir)
      throws IOException, InterruptedException {
    Path fleet = AdaptiveFleetFile.write(dir.resolve("fleet-profile.json"), MODEL, targets,
        Configuration.staticSplit(ENGINES / 2, ENGINES), sloTtftS, sloTpotS, null);
    Path out = dir.resolve("profiles.json");
    List<String> cmd = new ArrayList<>(routerCommand(java, routerOpts));
    cmd.addAll(List.of("profile", "--fleet", fleet.toString(), "--out", out.toString(), "--budget-s", "160",
        "--max-prompt-tokens", Integer.toString(2 * longPrompt), "--max-seqs", "64"));
    log("profiling the engines: " + String.join(" ", cmd.subList(cmd.indexOf("profile"), cmd.size())));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve("logs").resolve("profile.log").toFile()).start();
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      log("WARNING: narwhal profile failed (see logs/profile.log)" + (Files.exists(out) ? "; using the rows it wrote" : ""));
    }
    return Files.exists(out) ? out : null;
  }

  private List<String> routerCommand(String java, String routerOpts) {
    List<String> cmd = new ArrayList<>();
    if (routerJar != null) {
      cmd.add(java);
      cmd.addAll(words(routerOpts));
      cmd.addAll(List.of("-jar", routerJar.toString()));
    } else {
      cmd.add(repo.resolve("bin/narwhal").toString());
    }
    return cmd;
  }

  /** Runs configurations against the engines, one fresh router per run. */
  private final class Runner {
    private final Path dir;
    private final String java;
    private final String routerOpts;
    private final List<HttpTarget> engines;
    private final @Nullable Path profiles;

    Runner(Path dir, String java, String routerOpts, List<HttpTarget> engines, @Nullable Path profiles) {
      this.dir = dir;
      this.java = java;
      this.routerOpts = routerOpts;
      this.engines = engines;
      this.profiles = profiles;
    }

    List<ArmRun> sweep(TraceShape shape, List<TracePhase> phases, Configuration config, List<Double> rates)
        throws IOException, InterruptedException {
      List<ArmRun> results = new ArrayList<>();
      for (double rate : rates) {
        ArmRun r = run(shape, phases, config, rate);
        results.add(r);
        log(String.format(Locale.ROOT, "%-15s %-22s rate %5.1f/s: attainment %5.1f %% (%d/%d; %d refused, %d failed)",
            shape.label(), config.name(), rate, 100 * r.attainment(), r.met(), r.offered(), r.refused(), r.failed()));
        // Past the knee every higher rate misses too; the sweep stops after two misses in a row.
        if (results.size() >= 2 && results.get(results.size() - 1).attainment() < 0.5
            && results.get(results.size() - 2).attainment() < Goodput.TARGET) {
          break;
        }
      }
      return results;
    }

    private ArmRun run(TraceShape shape, List<TracePhase> phases, Configuration config, double rate)
        throws IOException, InterruptedException {
      String tag = shape.label() + "-" + config.name() + "-" + rate;
      Path fleet = AdaptiveFleetFile.write(dir.resolve("fleets").resolve(tag + ".json"), MODEL, engines, config,
          sloTtftS, sloTpotS, profiles);
      int port = Ports.free();
      Trace trace = Trace.generate(phases, rate, seed);
      Path journal = dir.resolve("journals").resolve(tag + ".jsonl");
      Files.createDirectories(journal.getParent());
      try (ManagedProcess router = RouterProcess.start(repo, routerJar, java, fleet, port, routerOpts, List.of(),
          dir.resolve("logs").resolve("router-" + tag + ".log"), journal)) {
        String base = new HttpTarget("127.0.0.1", port).url();
        OpenLoopClient client = new OpenLoopClient(base, MODEL);
        List<ReplayedRequest> outcomes;
        List<RoleSampler.Sample> roles;
        try (RoleSampler sampler = new RoleSampler(base, Duration.ofMillis(500))) {
          outcomes = client.replay(trace, Duration.ofSeconds(120));
          roles = sampler.samples();
        }
        // Let the engines drain whatever the router cancelled before the next run starts.
        Thread.sleep(1000);
        ControllerDecisions.keep(journal, dir.resolve("decisions").resolve(tag + ".jsonl"));
        return ArmRun.score(shape.label(), config.name(), rate, trace.arrivals().size(), outcomes, sloTtftS,
            sloTpotS, roles);
      }
    }
  }

  private Path resultsDir() throws IOException {
    String ts = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = outDir.resolve("adaptive-" + ts);
    Files.createDirectories(dir.resolve("logs"));
    return dir;
  }

  private static List<String> words(String s) {
    String t = s.trim();
    return t.isEmpty() ? List.of() : List.of(t.split("\\s+"));
  }

  private static void log(String line) {
    System.out.println("[adaptive] " + line);
  }
}

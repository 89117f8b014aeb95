package narwhal.bench.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import narwhal.bench.fleet.ManagedProcess;
import narwhal.bench.fleet.Ports;
import narwhal.bench.fleet.RouterJvmOptions;
import narwhal.bench.fleet.RouterProcess;
import narwhal.bench.proc.ProcessProbe;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code narwhal bench cache}: cache-aware placement's measured gain. Four GPU-timed simulated vLLM
 * engines (role {@code both}, pinned) with a finite KV cache, vLLM's prefix cache and its KV events;
 * three seeded traces ({@link CacheTraces}); per trace and offered rate, the arms: cache-aware from
 * events, cache-aware approximate, priced placement without the cache, and round robin (vLLM's toy
 * proxy's placement, done by the client against the engines). Figures per run: attainment, TTFT
 * p50/p99, prefill tokens computed and the hit ratio (what the engines reported cached), the
 * prediction against the report, and the router's CPU per request; goodput at 90 % attainment per
 * arm. Results in {@code bench/results/cache-<timestamp>/README.md}.
 */
@Command(name = "cache", mixinStandardHelpOptions = true, usageHelpWidth = 110,
    description = "Cache-aware placement vs priced placement vs round robin: attainment, goodput, hit ratio.")
public final class CacheCommand implements Callable<Integer> {

  private static final int ENGINES = 4;
  private static final String MODEL = "narwhal-sim";
  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(names = "--rates", paramLabel = "R,R,...", description = "offered request rates, /s (default ${DEFAULT-VALUE})")
  String rates = "2,4,6,8,12,16";

  @Option(names = "--traces", paramLabel = "T,T", description = "multi-turn, shared-prefix, no-reuse (default ${DEFAULT-VALUE})")
  String traces = "multi-turn,shared-prefix,no-reuse";

  @Option(names = "--arms", paramLabel = "A,A", description = "events, approximate, priced, round-robin (default ${DEFAULT-VALUE})")
  String arms = "events,approximate,priced,round-robin";

  @Option(names = "--seconds", description = "trace length per run (default ${DEFAULT-VALUE})")
  double seconds = 40;

  @Option(names = "--seed", description = "default ${DEFAULT-VALUE}")
  long seed = 7;

  @Option(names = "--slo-ttft-s", description = "default ${DEFAULT-VALUE}")
  double sloTtftS = 1.0;

  @Option(names = "--slo-tpot-s", description = "default ${DEFAULT-VALUE}")
  double sloTpotS = 0.05;

  @Option(names = "--sim-flags", paramLabel = "'...'", description = "the engines' gpu flags (default ${DEFAULT-VALUE})")
  String simFlags = "--jitter=0.05 --kv-capacity-tokens=60000 --max-model-len=16384";

  @Option(names = "--profiles", paramLabel = "FILE",
      description = "a profiles file instead of running narwhal profile; none: run unpriced (a quick smoke)")
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
  String command = "bench/run.sh cache";

  @Option(names = "--cpu-streams", description = {"after the traces, the index's router CPU: this many concurrent",
      "streams (closed loop, shared-prefix prompts) through the events and priced arms; 0 skips it (default ${DEFAULT-VALUE})"})
  int cpuStreams = 256;

  @Option(names = "--cpu-seconds", description = "the CPU measurement window, after a warm-up of a third of it (default ${DEFAULT-VALUE})")
  double cpuSeconds = 60;

  @Override
  public Integer call() throws Exception {
    Path dir = outDir.resolve("cache-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Files.createDirectories(dir.resolve("logs"));
    String java = ProcessHandle.current().info().command().orElse("java");
    String classpath = System.getProperty("java.class.path");
    String routerOpts = RouterJvmOptions.choose(routerJavaOpts, repo).options();
    List<Double> rateList = new ArrayList<>();
    for (String r : rates.split(",")) {
      rateList.add(Double.parseDouble(r.trim()));
    }
    log("results in " + dir);
    List<CacheRun> results = new ArrayList<>();
    try (CacheEngines engines = CacheEngines.start(ENGINES, MODEL, seed, words(simFlags), java, classpath,
        words(engineJavaOpts), dir.resolve("logs"))) {
      Path profileFile = profiles == null ? profile(java, routerOpts, engines, dir)
          : profiles.toString().equals("none") ? null : profiles;
      for (String trace : traces.split(",")) {
        for (String arm : arms.split(",")) {
          for (double rate : rateList) {
            CacheRun r = run(dir, java, routerOpts, engines, profileFile, trace.trim(), arm.trim(), rate);
            results.add(r);
            log(r.line());
            engines.resetCaches(); // every run starts cold, whatever ran before
            if (r.attainment() < 0.5) {
              break; // past the knee every higher rate misses too
            }
          }
        }
        CacheReport.write(dir, command, results, sloTtftS, sloTpotS, simFlags, seconds);
      }
      if (cpuStreams > 0) {
        Map<String, Double> cpu = new LinkedHashMap<>();
        for (String arm : List.of("priced", "events")) {
          cpu.put(arm, cpuPerRequest(dir, java, routerOpts, engines, profileFile, arm));
          log(String.format(Locale.ROOT, "router CPU at %d streams, %s: %.4f ms per request", cpuStreams, arm,
              cpu.get(arm)));
          engines.resetCaches();
        }
        CacheReport.writeCpu(dir, cpuStreams, cpuSeconds, cpu);
      }
    }
    log("report: " + dir.resolve("README.md"));
    return 0;
  }

  private CacheRun run(Path dir, String java, String routerOpts, CacheEngines engines, @Nullable Path profileFile,
      String trace, String arm, double rate) throws IOException, InterruptedException {
    String tag = trace + "-" + arm + "-" + rate;
    List<CacheTraces.Conversation> conversations = CacheTraces.generate(trace, rate, seconds, seed);
    if (arm.equals("round-robin")) {
      ConversationClient client = new ConversationClient(MODEL, null, engines.urls());
      List<ConversationClient.Turn> turns = client.replay(conversations, seconds);
      return CacheRun.score(trace, arm, rate, seconds, turns, null, Double.NaN, sloTtftS, sloTpotS);
    }
    Path fleet = fleetFile(dir.resolve("fleets").resolve(tag + ".json"), engines, arm, profileFile);
    Path journal = dir.resolve("journals").resolve(tag + ".jsonl");
    Files.createDirectories(journal.getParent());
    int port = Ports.free();
    try (ManagedProcess router = RouterProcess.start(repo, routerJar, java, fleet, port, routerOpts, List.of(),
        dir.resolve("logs").resolve("router-" + tag + ".log"), journal)) {
      ProcessProbe probe = ProcessProbe.system();
      double cpuBefore = probe.cpuSeconds(List.of(router.pid()));
      ConversationClient client = new ConversationClient(MODEL, "http://127.0.0.1:" + port, engines.urls());
      List<ConversationClient.Turn> turns = client.replay(conversations, seconds);
      double cpu = probe.cpuSeconds(List.of(router.pid())) - cpuBefore;
      router.close(); // flushes the journal
      return CacheRun.score(trace, arm, rate, seconds, turns, journal, cpu, sloTtftS, sloTpotS);
    }
  }

  /** Router CPU milliseconds per completed request over the window, {@code cpuStreams} streams in a closed loop. */
  private double cpuPerRequest(Path dir, String java, String routerOpts, CacheEngines engines,
      @Nullable Path profileFile, String arm) throws IOException, InterruptedException {
    String tag = "cpu-" + arm;
    Path fleet = fleetFile(dir.resolve("fleets").resolve(tag + ".json"), engines, arm, profileFile);
    int port = Ports.free();
    List<String> prompts = new ArrayList<>();
    for (CacheTraces.Conversation c : CacheTraces.generate("shared-prefix", 50, 40, seed)) {
      prompts.add(c.userTurns().get(0));
    }
    try (ManagedProcess router = RouterProcess.start(repo, routerJar, java, fleet, port, routerOpts, List.of(),
        dir.resolve("logs").resolve("router-" + tag + ".log"), null)) {
      ProcessProbe probe = ProcessProbe.system();
      double[] window = new double[2];
      ConversationClient client = new ConversationClient(MODEL, "http://127.0.0.1:" + port, engines.urls());
      long completed = client.closedLoop(prompts, 8, cpuStreams, cpuSeconds / 3, cpuSeconds,
          () -> window[0] = probe.cpuSeconds(List.of(router.pid())),
          () -> window[1] = probe.cpuSeconds(List.of(router.pid())));
      return completed == 0 ? Double.NaN : (window[1] - window[0]) * 1000 / completed;
    }
  }

  private Path fleetFile(Path file, CacheEngines engines, String arm, @Nullable Path profileFile) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("_comment", "Generated by narwhal-bench cache for the " + arm + " arm.");
    root.put("schema", "narwhal.fleet").put("schema_version", 1).put("model", MODEL);
    ArrayNode list = root.putArray("engines");
    for (int i = 0; i < ENGINES; i++) {
      list.addObject().put("iid", "e" + i).put("url", engines.urls().get(i)).put("role", "both").put("pin", true);
    }
    root.putObject("slo").put("ttft_s", sloTtftS).put("tpot_s", sloTpotS);
    root.putObject("serving").put("admission", "open").put("max_connections", 4096)
        .put("max_client_connections", 4352).put("request_timeout_s", 120);
    root.putObject("engine").put("first_token_timeout_s", 60).put("decode_read_timeout_s", 60).put("tokenize", true);
    root.putObject("controller").put("advisory", true);
    if (profileFile != null) {
      root.putObject("profiles").put("path", profileFile.toAbsolutePath().toString());
    }
    if (!arm.equals("priced")) {
      ObjectNode cache = root.putObject("cache").put("mode", arm.equals("events") ? "events" : "approximate")
          .put("block_size", 16);
      ObjectNode per = cache.putObject("engines");
      for (int i = 0; i < ENGINES; i++) {
        per.putObject("e" + i).put("endpoint", engines.eventEndpoints().get(i)).put("topic", "kv-events")
            .put("replay_endpoint", engines.replayEndpoints().get(i));
      }
    }
    Files.createDirectories(file.getParent());
    JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), root);
    return file;
  }

  /** Runs {@code narwhal profile} once over the engines; priced arms price with what it measured. */
  private @Nullable Path profile(String java, String routerOpts, CacheEngines engines, Path dir)
      throws IOException, InterruptedException {
    Path fleet = fleetFile(dir.resolve("fleet-profile.json"), engines, "priced", null);
    Path out = dir.resolve("profiles.json");
    List<String> cmd = new ArrayList<>();
    if (routerJar != null) {
      cmd.add(java);
      cmd.addAll(words(routerOpts));
      cmd.addAll(List.of("-jar", routerJar.toString()));
    } else {
      cmd.add(repo.resolve("bin/narwhal").toString());
    }
    cmd.addAll(List.of("profile", "--fleet", fleet.toString(), "--out", out.toString(), "--budget-s", "160",
        "--max-prompt-tokens", "8192", "--max-seqs", "64"));
    log("profiling the engines (prefix caching on; narwhal profile's prompts are all distinct)");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve("logs").resolve("profile.log").toFile()).start();
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      log("WARNING: narwhal profile failed (see logs/profile.log)");
    }
    engines.resetCaches();
    return Files.exists(out) ? out : null;
  }

  static List<String> words(String s) {
    String t = s.trim();
    return t.isEmpty() ? List.of() : List.of(t.split("\\s+"));
  }

  static void log(String line) {
    System.out.println("[cache] " + line);
  }
}

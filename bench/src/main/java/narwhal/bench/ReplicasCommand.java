package narwhal.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import narwhal.bench.fleet.EngineProcesses;
import narwhal.bench.fleet.FleetFile;
import narwhal.bench.fleet.ManagedProcess;
import narwhal.bench.fleet.Ports;
import narwhal.bench.fleet.RouterJvmOptions;
import narwhal.bench.fleet.RouterProcess;
import narwhal.bench.fleet.SimSettings;
import narwhal.bench.load.Arm;
import narwhal.bench.load.Generator;
import narwhal.bench.load.HttpTarget;
import narwhal.bench.load.LoadShape;
import narwhal.bench.load.Phases;
import narwhal.bench.load.RunResult;
import narwhal.bench.load.Targets;
import narwhal.bench.load.Workload;
import narwhal.bench.proc.ProcessProbe;
import narwhal.bench.report.MachineInfo;
import narwhal.cluster.EtcdProcess;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench replicas}: one router against two active-active replicas on the same simulated
 * fleet and the same total streams, the load generator spreading them over both; then failover:
 * the elected controller SIGKILLed (time until a survivor leads) and an engine fault one replica
 * sees (time until every replica has applied its verdict, from the journals' event rows).
 *
 * <p>Per setup: requests and tokens per second, TTFT p50/p99 (and added over the direct arm, the
 * engines with no router), router CPU per relayed token over the window (every replica's CPU
 * summed), and for the replicas etcd requests per client request (their {@code
 * narwhal_cluster_etcd_requests_total} over the window). Results: {@code
 * bench/results/replicas-<timestamp>/} ({@code report.md}, {@code results.json}, {@code logs/}).
 */
@Command(name = "replicas", sortOptions = false,
    description = "One router against two replicas (etcd), same streams; failover figures.")
final class ReplicasCommand implements Callable<Integer> {

  @Option(names = "--streams", paramLabel = "N", description = "total concurrent streams (default ${DEFAULT-VALUE})")
  private int streams = 256;

  @Option(names = "--warmup-s", paramLabel = "S", description = "default ${DEFAULT-VALUE}")
  private double warmupS = 20;

  @Option(names = "--window-s", paramLabel = "S", description = "measurement window (default ${DEFAULT-VALUE})")
  private double windowS = 30;

  @Option(names = "--failovers", paramLabel = "N", description = "leader kills (default ${DEFAULT-VALUE})")
  private int failovers = 10;

  @Option(names = "--verdicts", paramLabel = "N", description = "engine faults shared (default ${DEFAULT-VALUE})")
  private int verdicts = 20;

  @Option(names = "--lease-ttl-s", paramLabel = "S",
      description = "cluster.lease_ttl_s of the throughput runs (default ${DEFAULT-VALUE}: the default's)")
  private int leaseTtlS = 5;

  @Option(names = "--failover-lease-ttl-s", paramLabel = "S",
      description = "cluster.lease_ttl_s of the failover runs (default ${DEFAULT-VALUE})")
  private int failoverLeaseTtlS = 2;

  @Option(names = "--itl-ms", paramLabel = "X", description = "engines' inter-token time (default ${DEFAULT-VALUE})")
  private double itlMs = 20;

  @Option(names = "--output-tokens", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
  private int outputTokens = 64;

  @Option(names = "--prompt-words", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
  private int promptWords = 128;

  @Option(names = "--prefill-engines", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
  private int prefillEngines = 2;

  @Option(names = "--decode-engines", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
  private int decodeEngines = 2;

  @Option(names = "--loops", paramLabel = "N", description = "load generator event loops (default ${DEFAULT-VALUE})")
  private int loops = 2;

  @Option(names = "--router-java-opts", paramLabel = "'...'", description = "default: bin/jvm.options")
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
  private String command = "bench/run.sh replicas";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private ReplicasCommand() {}

  @Override
  public Integer call() throws Exception {
    Bench.Env env = Bench.Env.detect();
    SimSettings sim = new SimSettings("narwhal-sim", 0, 2, 0.02, 0.005, itlMs);
    Workload workload = new Workload(sim.model(), promptWords, outputTokens, 256, sim.seed());
    String routerOpts = RouterJvmOptions.choose(routerJavaOpts, repo).options();
    Path dir = narwhal.bench.report.ResultsDirectory.create(outDir, "replicas-");
    Path logs = dir.resolve("logs");
    Stack.log("replicas: " + streams + " streams, one router then two replicas; results in " + dir);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("command", command);
    out.put("machine", MachineInfo.detect("", 0));
    out.put("load_average_before", MachineInfo.loadAverage());
    out.put("streams", streams);
    ProcessProbe probe = ProcessProbe.system();
    try (EtcdProcess etcd = EtcdProcess.start();
        EngineProcesses engines = EngineProcesses.start(prefillEngines, decodeEngines, sim, env.java(),
            env.classpath(), FlagValues.words(engineJavaOpts), List.of(), logs);
        Generator generator = new Generator(loops)) {
      ObjectNode plain = (ObjectNode) JSON.readTree(FleetFile.render(sim.model(), engines.prefillTargets(),
          engines.decodeTargets(), streams + 1000));
      Path plainFile = write(dir.resolve("fleet-one.json"), plain);
      ObjectNode clustered = plain.deepCopy();
      // Unpinned engines and a fast breaker: the failover runs move roles and share verdicts.
      clustered.putObject("cluster").put("key_prefix", "/narwhal-bench").put("lease_ttl_s", leaseTtlS)
          .putArray("endpoints").add(etcd.clientUrl().toString());
      clustered.putObject("recovery").put("eject_after", 2).put("readmit_every", 2).put("liveness_every", 10);
      clustered.putObject("controller").put("monitor_interval_s", 0.1);
      Path clusterFile = write(dir.resolve("fleet-replicas.json"), clustered);
      ObjectNode failoverDoc = clustered.deepCopy();
      ((ObjectNode) failoverDoc.get("cluster")).put("lease_ttl_s", failoverLeaseTtlS)
          .put("key_prefix", "/narwhal-bench-failover");
      Path failoverFile = write(dir.resolve("fleet-failover.json"), failoverDoc);
      LoadShape shape = LoadShape.of(Duration.ofSeconds(5), Duration.ofMillis((long) (warmupS * 1000)),
          Duration.ofMillis((long) (windowS * 1000)), Duration.ofSeconds(120));

      Stack.log("direct: the engines with no router (the floor)");
      Targets direct = new Targets(engines.prefillTargets(), engines.decodeTargets(), null, null);
      RunResult floor = generator.closedLoop(Arm.DIRECT, workload, direct, streams, shape, Phases.NONE);
      out.put("direct", figures(floor, null, Double.NaN, null));

      Stack.log("one router");
      int port = Ports.free();
      try (ManagedProcess one = RouterProcess.start(repo, routerJar, env.java(), plainFile, port, routerOpts, List.of(),
          logs.resolve("router-one.log"))) {
        Cpu cpu = new Cpu(probe, List.of(one.pid()));
        RunResult r = generator.closedLoop(Arm.NARWHAL, workload,
            new Targets(engines.prefillTargets(), engines.decodeTargets(), new HttpTarget("127.0.0.1", port), null),
            streams, shape, cpu);
        out.put("one_router", figures(r, floor, cpu.seconds, null));
      }

      Stack.log("two replicas");
      List<Replica> replicas = new ArrayList<>();
      try {
        for (int i = 0; i < 2; i++) {
          replicas.add(Replica.start(this, env, clusterFile, "r" + i, logs, dir, routerOpts));
        }
        List<HttpTarget> targets = replicas.stream().map(x -> new HttpTarget("127.0.0.1", x.port)).toList();
        Cpu cpu = new Cpu(probe, replicas.stream().map(x -> x.process.pid()).toList());
        EtcdRequests etcdRequests = new EtcdRequests(targets);
        RunResult r = generator.closedLoop(Arm.NARWHAL, workload,
            new Targets(engines.prefillTargets(), engines.decodeTargets(), targets.get(0), null, null, targets),
            streams, shape, cpu.andThen(etcdRequests));
        out.put("two_replicas", figures(r, floor, cpu.seconds, etcdRequests.perRequest(r)));
        replicas.forEach(x -> x.process.close());
        replicas.clear();

        Stack.log("failover (lease " + failoverLeaseTtlS + " s): killing the elected controller " + failovers + " times");
        for (int i = 0; i < 2; i++) {
          replicas.add(Replica.start(this, env, failoverFile, "f" + i, logs, dir, routerOpts));
        }
        out.put("failover", Failover.leaderKills(this, env, replicas, failoverFile, logs, dir, routerOpts, failovers,
            failoverLeaseTtlS));
        Stack.log("verdicts: " + verdicts + " engine faults seen by one replica");
        out.put("verdicts", Failover.verdictPropagation(replicas, engines, verdicts, workload));
      } finally {
        replicas.forEach(x -> x.process.close());
      }
    }
    out.put("load_average_after", MachineInfo.loadAverage());
    JSON.enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("results.json").toFile(), out);
    Files.writeString(dir.resolve("report.md"), ReplicasReport.markdown(out));
    System.out.println(Files.readString(dir.resolve("report.md")));
    return 0;
  }

  private static Path write(Path file, ObjectNode doc) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(doc));
    return file;
  }

  private static Map<String, Object> figures(RunResult r, @Nullable RunResult floor, double cpuSeconds,
      @Nullable Double etcdPerRequest) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("requests_per_s", round(r.requestsPerSecond()));
    m.put("tokens_per_s", round(r.tokensPerSecond()));
    m.put("completed", r.stats().completed());
    m.put("errors", r.stats().errorsInWindow());
    double p50 = r.stats().ttftUs().getValueAtPercentile(50) / 1000.0;
    double p99 = r.stats().ttftUs().getValueAtPercentile(99) / 1000.0;
    m.put("ttft_ms_p50", round(p50));
    m.put("ttft_ms_p99", round(p99));
    if (floor != null) {
      m.put("added_ttft_ms_p50", round(p50 - floor.stats().ttftUs().getValueAtPercentile(50) / 1000.0));
      m.put("added_ttft_ms_p99", round(p99 - floor.stats().ttftUs().getValueAtPercentile(99) / 1000.0));
    }
    if (!Double.isNaN(cpuSeconds) && r.stats().tokens() > 0) {
      m.put("router_cpu_us_per_token", round(cpuSeconds * 1e6 / (r.tokensPerSecond() * r.windowSeconds())));
    }
    if (etcdPerRequest != null) {
      m.put("etcd_requests_per_client_request", etcdPerRequest);
    }
    return m;
  }

  static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  /** Router CPU over exactly the measurement window. */
  private static final class Cpu implements Phases {
    private final ProcessProbe probe;
    private final List<Long> pids;
    private double start;
    double seconds = Double.NaN;

    Cpu(ProcessProbe probe, List<Long> pids) {
      this.probe = probe;
      this.pids = pids;
    }

    @Override
    public void windowOpened() {
      start = probe.cpuSeconds(pids);
    }

    @Override
    public void windowClosed() {
      seconds = probe.cpuSeconds(pids) - start;
    }
  }

  /** etcd requests the replicas made over the window, from their own counters. */
  private static final class EtcdRequests implements Phases {
    private static final Pattern SERIES = Pattern.compile("^narwhal_cluster_etcd_requests_total\\{[^}]*} ([0-9.eE+]+)$",
        Pattern.MULTILINE);
    private final List<HttpTarget> replicas;
    private double start;
    private double requests;

    EtcdRequests(List<HttpTarget> replicas) {
      this.replicas = replicas;
    }

    @Override
    public void windowOpened() {
      start = total();
    }

    @Override
    public void windowClosed() {
      requests = total() - start;
    }

    double perRequest(RunResult r) {
      double clientRequests = r.requestsPerSecond() * r.windowSeconds();
      return clientRequests <= 0 ? Double.NaN : Math.round(requests / clientRequests * 1e5) / 1e5;
    }

    private double total() {
      double sum = 0;
      for (HttpTarget t : replicas) {
        Matcher m = SERIES.matcher(get(t.url() + "/metrics"));
        while (m.find()) {
          sum += Double.parseDouble(m.group(1));
        }
      }
      return sum;
    }
  }

  static String get(String url) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  static @Nullable JsonNode state(int port) {
    String body = get("http://127.0.0.1:" + port + "/narwhal/state");
    try {
      return body.isEmpty() ? null : JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  /** One replica process: its port, journal and process. */
  static final class Replica {
    final String name;
    final int port;
    final Path journal;
    final ManagedProcess process;

    private Replica(String name, int port, Path journal, ManagedProcess process) {
      this.name = name;
      this.port = port;
      this.journal = journal;
      this.process = process;
    }

    static Replica start(ReplicasCommand c, Bench.Env env, Path fleet, String name, Path logs, Path dir,
        String routerOpts) {
      int port = Ports.free();
      Path journal = dir.resolve("journal-" + name + ".jsonl");
      ManagedProcess p = RouterProcess.start(c.repo, c.routerJar, env.java(), fleet, port, routerOpts, List.of(),
          logs.resolve("router-" + name + ".log"), journal, List.of("--replica-name", name));
      return new Replica(name, port, journal, p);
    }
  }

  static String fmt(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }
}

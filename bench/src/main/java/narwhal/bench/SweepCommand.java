package narwhal.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import narwhal.bench.fleet.SimSettings;
import narwhal.bench.load.Arm;
import narwhal.bench.load.Generator;
import narwhal.bench.load.LoadShape;
import narwhal.bench.load.Phases;
import narwhal.bench.load.RunResult;
import narwhal.bench.load.Workload;
import narwhal.bench.proc.ProcessProbe;
import narwhal.bench.report.ArmLevel;
import narwhal.bench.report.LatencyChart;
import narwhal.bench.report.MachineInfo;
import narwhal.bench.report.MarkdownReport;

/**
 * {@code bench sweep}: the three arms against the same engines, level by level, the arms
 * interleaved within each level (direct, narwhal, nginx, then the next level) so drifting machine
 * noise lands on all of them alike. Closed-loop concurrency levels by default; {@code --rates}
 * switches to open-loop Poisson arrivals at those rates.
 */
final class SweepCommand {

  static final Set<String> FLAGS = Set.of("levels", "rates", "arms", "prompt-words", "output-tokens", "prompts",
      "itl-ms", "prefill-ms", "prefill-ms-per-token", "kv-ms-per-token", "prefill-engines", "decode-engines",
      "warmup-s", "measure-s", "ramp-s", "timeout-s", "loops", "router-java-opts", "engine-java-opts", "nginx",
      "nginx-workers", "repo", "out", "seed", "max-in-flight", "command", "warm-s", "router-jar");

  private SweepCommand() {}

  static int run(String[] args, Bench.Env env) throws IOException {
    Flags f = Flags.parse(args, FLAGS);
    boolean open = f.has("rates");
    List<Double> levels = open ? f.getNumbers("rates", "") : f.getNumbers("levels", "1,16,64,256,1024,4096");
    List<Arm> arms = new ArrayList<>();
    for (String a : f.get("arms", "direct,narwhal,nginx").split(",")) {
      arms.add(Arm.parse(a));
    }
    SimSettings sim = new SimSettings("narwhal-sim", 0, f.getDouble("prefill-ms", 2),
        f.getDouble("prefill-ms-per-token", 0.02), f.getDouble("kv-ms-per-token", 0.005), f.getDouble("itl-ms", 20));
    Workload workload = new Workload(sim.model(), f.getInt("prompt-words", 128), f.getInt("output-tokens", 64),
        f.getInt("prompts", 256), sim.seed());
    Duration warmup = Duration.ofMillis((long) (f.getDouble("warmup-s", 3) * 1000));
    Duration measure = Duration.ofMillis((long) (f.getDouble("measure-s", 10) * 1000));
    double maxRamp = f.getDouble("ramp-s", 2);
    Duration timeout = Duration.ofSeconds(f.getInt("timeout-s", 120));
    Path dir = Bench.resultsDir(Path.of(f.get("out", "bench/results")), "");
    String nginx = f.get("nginx", "nginx");

    Stack.Settings settings = new Stack.Settings(f.getInt("prefill-engines", 2), f.getInt("decode-engines", 2), sim,
        Flags.words(f.get("engine-java-opts", "-Xms256m -Xmx1g")), f.get("router-java-opts", "-Xms1g -Xmx1g"),
        20_000, arms.contains(Arm.NARWHAL), arms.contains(Arm.NGINX), nginx, f.get("nginx-workers", "auto"),
        19_000, Path.of(f.get("repo", ".")),
        f.has("router-jar") ? Path.of(f.get("router-jar", "")) : null, dir);
    ProcessProbe probe = ProcessProbe.system();
    MachineInfo machine = MachineInfo.detect(arms.contains(Arm.NGINX) ? env.nginxVersion(nginx) : "",
        env.openFilesLimit());
    Stack.log("results in " + dir);
    Stack.log("machine: " + machine.describe());
    List<ArmLevel> rows = new ArrayList<>();
    String loadBefore = MachineInfo.loadAverage();
    try (Stack stack = Stack.start(settings, env.java(), env.classpath());
        Generator generator = new Generator(f.getInt("loops", 2))) {
      List<Long> enginePids = stack.engines.pids();
      // Unmeasured warm-up of every arm: JIT-compiles router, engines, nginx paths and generator.
      // 20 s, because on two shared cores C2 was still compiling the router's relay path well
      // after 5 s, which billed compiler threads to the first levels' router CPU.
      double warmSeconds = f.getDouble("warm-s", 20);
      if (warmSeconds > 0) {
        for (Arm arm : arms) {
          Stack.log("warming up " + arm.label());
          RunResult r = generator.closedLoop(arm, workload, stack.targets, 32,
              LoadShape.of(Duration.ofMillis(200), Duration.ZERO, Duration.ofMillis((long) (warmSeconds * 1000)),
                  timeout), Phases.NONE);
          if (r.stats().errors() > 0) {
            Stack.log("warm-up of " + arm.label() + " had " + r.stats().errors() + " errors, first: "
                + r.stats().firstError());
          }
        }
      }
      for (double level : levels) {
        for (Arm arm : arms) {
          List<Long> proxy = stack.proxyPids(arm, probe);
          long jvm = arm == Arm.NARWHAL && stack.router != null ? stack.router.pid() : -1;
          Accounting acct = new Accounting(probe, proxy, enginePids, jvm);
          RunResult r;
          if (open) {
            LoadShape shape = LoadShape.of(Duration.ZERO, warmup, measure, timeout);
            r = generator.openLoop(arm, workload, stack.targets, level, f.getInt("seed", 1),
                f.getInt("max-in-flight", 8000), shape, acct);
          } else {
            int c = (int) level;
            Duration ramp = Duration.ofMillis((long) Math.min(maxRamp * 1000, c));
            r = generator.closedLoop(arm, workload, stack.targets, c, LoadShape.of(ramp, warmup, measure, timeout),
                acct);
          }
          ArmLevel row = acct.result(arm, level, r);
          rows.add(row);
          Stack.log(summary(row, r.drained()));
        }
      }
    }
    String levelName = open ? "arrivals/s" : "streams";
    String load = "load average (1/5/15 min) " + loadBefore + " at the start, " + MachineInfo.loadAverage()
        + " at the end";
    Stack.log(load);
    write(dir, rows, levelName, machine, load, f, workload, sim, settings, open);
    return rows.stream().anyMatch(r -> r.errors() > 0) ? 1 : 0;
  }

  private static String summary(ArmLevel r, boolean drained) {
    return String.format(java.util.Locale.ROOT,
        "%-7s level %-6s %8.1f req/s %9.0f tok/s  TTFT p50 %7.2f p99 %8.2f ms  ITL p50 %6.2f p99 %7.2f ms  "
            + "relay CPU %.3f s/1k req %.3f s/100k tok  errors %d%s%s",
        r.arm(), MarkdownReportLevels.level(r.level()), r.requestsPerSecond(), r.tokensPerSecond(), r.ttftP50Ms(),
        r.ttftP99Ms(), r.itlP50Ms(), r.itlP99Ms(), r.proxyCpuPer1kRequests(), r.proxyCpuPer100kTokens(), r.errors(),
        r.errors() > 0 ? " (first: " + r.firstError() + ")" : "", drained ? "" : " [did not drain]");
  }

  private static void write(Path dir, List<ArmLevel> rows, String levelName, MachineInfo machine, String load, Flags f,
      Workload w, SimSettings sim, Stack.Settings settings, boolean open) throws IOException {
    String table = MarkdownReport.table(rows, levelName);
    LatencyChart.write(rows, levelName, "Narwhal vs direct vs nginx: latency by " + levelName, dir.resolve("latency.png"));
    String command = f.get("command", "bench/run.sh sweep");
    String ratios = MarkdownReport.cpuRatios(rows);
    StringBuilder md = new StringBuilder();
    md.append("# Benchmark run ").append(dir.getFileName()).append("\n\n");
    md.append("Command: `").append(command).append("`\n\n");
    md.append("Machine: ").append(machine.describe()).append("; ").append(load).append("\n\n");
    md.append("Workload: ").append(open ? "open-loop Poisson arrivals" : "closed-loop streams").append(", prompt ")
        .append(w.promptWords()).append(" words, ").append(w.outputTokens()).append(" output tokens; engines ")
        .append(settings.prefillEngines()).append(" prefill + ").append(settings.decodeEngines())
        .append(" decode simulators (inter-token ").append(sim.itlMs()).append(" ms, prefill ").append(sim.prefillMs())
        .append(" ms + ").append(sim.prefillMsPerToken()).append(" ms/token); warm-up ")
        .append(f.get("warmup-s", "3")).append(" s, window ").append(f.get("measure-s", "10"))
        .append(" s per arm and level; router JVM `").append(settings.routerJavaOptions()).append("`.\n\n");
    md.append(table).append('\n');
    if (!ratios.isEmpty()) {
      md.append("Router CPU per relayed token ÷ nginx's: ").append(ratios).append("\n\n");
    }
    md.append("![latency](latency.png)\n");
    Files.writeString(dir.resolve("report.md"), md.toString());
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("command", command);
    json.put("machine", machine);
    json.put("load", load);
    json.put("mode", open ? "poisson" : "closed");
    json.put("rows", rows);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("results.json").toFile(), json);
    System.out.println();
    System.out.println(table);
    if (!ratios.isEmpty()) {
      System.out.println("Router CPU per relayed token / nginx's: " + ratios);
    }
    Stack.log("wrote " + dir.resolve("report.md") + ", results.json and latency.png");
  }

  /** Level formatting shared with the report. */
  private static final class MarkdownReportLevels {
    static String level(double l) {
      return l == Math.rint(l) ? Long.toString((long) l) : Double.toString(l);
    }
  }
}

package narwhal.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import narwhal.bench.cpu.Pinning;
import narwhal.bench.fleet.RouterJvmOptions;
import narwhal.bench.fleet.SimSettings;
import narwhal.bench.load.Arm;
import narwhal.bench.load.Workload;
import narwhal.bench.profile.RouterProfiler;
import narwhal.bench.report.ArmLevel;
import narwhal.bench.report.LatencyChart;
import narwhal.bench.report.MachineInfo;
import narwhal.bench.report.MarkdownReport;
import org.jspecify.annotations.Nullable;

/** report.md, results.json and the charts of one sweep or profile run. */
final class SweepReport {

  private static final int TOP_FRAMES = 25;

  private final SweepFlags f;
  private final boolean profile;
  private final Path dir;
  private final List<ArmLevel> rows;
  private final List<List<ArmLevel>> rounds;
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

  /**
   * @param rows one per arm, level and engine style (rounds pooled)
   * @param rounds each round's own rows, in the order they ran (one round without --rounds)
   */
  SweepReport(SweepFlags f, boolean profile, Path dir, List<ArmLevel> rows, List<List<ArmLevel>> rounds,
      String levelName, MachineInfo machine,
      String load, Workload w, SimSettings sim, Stack.Settings settings, boolean open, Pinning pinning, RouterJvmOptions routerOptions,
      @Nullable RouterProfiler profiler, double firstLevel) {
    this.f = f;
    this.profile = profile;
    this.dir = dir;
    this.rows = rows;
    this.rounds = rounds;
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
    String command = f.command != null ? f.command : profile ? "bench/run.sh profile" : "bench/run.sh sweep";
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
        .append(MarkdownReport.level(f.warmupS)).append(" s, window ").append(MarkdownReport.level(f.measureS))
        .append(open ? " s" : " s (or three ramps, when longer: streams start 2 ms apart up to "
            + MarkdownReport.level(f.rampS) + " s)")
        .append(" per arm and level; router JVM options ").append(routerOptions.describe()).append(".\n\n");
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
      md.append("Router CPU per relayed token ÷ nginx's").append(rounds.size() > 1 ? ", rounds pooled: " : ": ")
          .append(ratios).append("\n\n");
      String both = MarkdownReport.cpuRatios(styleRows, Arm.NGINX_BOTH.label());
      if (!both.isEmpty()) {
        md.append("… ÷ nginx's relaying both legs (`nginx-both`)").append(rounds.size() > 1 ? ", rounds pooled: " : ": ")
            .append(both).append("\n\n");
      }
      if (rounds.size() > 1) {
        String style = styleRows.get(0).engineStyle();
        md.append("The same, round by round:\n\n");
        for (int i = 0; i < rounds.size(); i++) {
          md.append("- round ").append(i + 1).append(": ")
              .append(MarkdownReport.cpuRatios(MarkdownReport.withStyle(rounds.get(i), style))).append('\n');
        }
        md.append('\n');
      }
    }
    String breakdown = MarkdownReport.cpuBreakdown(styleRows);
    if (!breakdown.isEmpty()) {
      md.append("Proxy CPU in user mode, and the router's JIT compiler threads, as shares of its CPU: ")
          .append(breakdown).append("\n\n");
    }
    String harnessSide = MarkdownReport.harnessCpuPerRequest(styleRows);
    if (!harnessSide.isEmpty()) {
      md.append("Engines' and load generator's CPU per completed request (ms), the other side of every hop: ")
          .append(harnessSide).append("\n\n");
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
    json.put("rounds", rounds);
    if (profiler != null) {
      json.put("profile", profiler.json(TOP_FRAMES));
    }
    return json;
  }
}

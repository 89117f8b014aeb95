package narwhal.bench.wakeup;

import narwhal.bench.report.ResultsDirectory;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import narwhal.bench.cpu.CpuList;
import narwhal.bench.cpu.Pinning;
import narwhal.bench.report.MachineInfo;
import narwhal.bench.wakeup.Gaps.Gap;
import narwhal.bench.wakeup.HostFacts.IdleState;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bench wakeup}: the round trip to an idle process, against how long it was idle. The
 * hypothesis it tests: on a guest whose idle vCPUs halt (cpuidle haltpoll, guest_halt_poll_ns=0),
 * the router pays one wake-up from a long idle gap per request that nginx does not, and such a
 * wake-up costs far more than one after a short gap.
 *
 * <p>Design. Both sides are child JVMs started from this jar, each under {@code taskset -c}: the
 * {@link EchoServer} on the proxy's CPU (the highest allowed, as in a sweep), the {@link Prober}
 * on another (the lowest). Children, because a JVM cannot set its own affinity, and moving this
 * process's threads after the fact (taskset -a -p) misses the ones it starts later, while a
 * process started under taskset is confined from its first instruction, JIT and GC threads
 * included. The prober prints its samples on standard output when done; this process only plans,
 * waits, and writes the report, moved onto the non-proxy CPUs meanwhile so it never runs on the
 * echo's. The prober's own wake-ups are kept out of the figure (see {@link Prober}); with {@code
 * --echo-spin} the echo never sleeps, which is the A/B for "the cost is the halt, not the code".
 */
@Command(name = "wakeup", sortOptions = false, description = {
    "What a wake-up after an idle gap costs here: a loopback echo server pinned to the proxy's CPU (blocking in "
        + "epoll_wait between messages, as the router does) and a prober pinned to another CPU; round trip "
        + "percentiles per idle gap -> <out>/wakeup-<timestamp>/wakeup.md and wakeup.json."})
public final class WakeupCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--gaps-ms", paramLabel = "G,G,...",
      description = "idle gaps before each message, in ms, measured in this order (default ${DEFAULT-VALUE})")
  String gapsMs = "0,0.05,0.2,1,4.5,20";

  @Option(names = "--samples", paramLabel = "N", description = "round trips per gap (default ${DEFAULT-VALUE})")
  int samples = 2000;

  @Option(names = "--seconds-per-gap", paramLabel = "S", description = {
      "at most this much idle time per gap: a gap of g ms gets at most S/g samples (default ${DEFAULT-VALUE}; the "
          + "defaults take about a minute in all)"})
  double secondsPerGap = 60;

  @Option(names = "--rounds", paramLabel = "N", description = {
      "each gap's samples in N blocks, gaps interleaved round by round, so drift in the host hits every gap alike "
          + "(default ${DEFAULT-VALUE})"})
  int rounds = 4;

  @Option(names = "--warmup-s", paramLabel = "S",
      description = "back-to-back round trips first, unrecorded, so both JVMs are compiled (default ${DEFAULT-VALUE})")
  double warmupS = 1;

  @Option(names = "--bytes", paramLabel = "N", description = "message size, 1 to 65536 (default ${DEFAULT-VALUE})")
  int bytes = 1;

  @Option(names = "--echo-spin", description = "the echo side busy-polls instead of sleeping in the kernel: its CPU "
      + "never idles (the A/B: what is left is the code, not the wake-up)")
  boolean echoSpin;

  @Option(names = "--echo-io", paramLabel = "auto|epoll|nio", description = {
      "the echo's event loop: Netty's native epoll (the router's), or a plain JDK selector loop; auto: epoll where "
          + "it loads (default ${DEFAULT-VALUE})"})
  String echoIo = "auto";

  @Option(names = "--probe-spin", paramLabel = "on|off", description = {
      "on: the prober spin-reads the echo on a non-blocking socket, so its own CPU's wake-up is not measured; off: "
          + "a blocking read (default ${DEFAULT-VALUE})"})
  String probeSpin = "on";

  @Option(names = "--early-wake-us", paramLabel = "X", description = {
      "the prober parks through a gap only until X µs before the send, then spins to it; gaps up to X are spun "
          + "through (default ${DEFAULT-VALUE})"})
  double earlyWakeUs = 300;

  @Option(names = "--pin", paramLabel = "auto|on|off", description = {
      "auto (default): echo and prober each on their own CPU (taskset), unpinned with a warning on one CPU or "
          + "without taskset; on: pinned or fail; off: both anywhere (the figures then include scheduling)"})
  String pin = "auto";

  @Option(names = "--echo-cpu", paramLabel = "N", description = "the echo's CPU, the proxy's in a sweep (default: "
      + "the highest allowed one)")
  @Nullable Integer echoCpu;

  @Option(names = "--probe-cpu", paramLabel = "N", description = "the prober's CPU (default: the lowest allowed one)")
  @Nullable Integer probeCpu;

  @Option(names = "--child-java-opts", paramLabel = "'...'",
      description = "both children's JVM options (default ${DEFAULT-VALUE})")
  String childJavaOpts = "-Xms64m -Xmx64m -XX:+UseSerialGC";

  @Option(names = "--out", paramLabel = "DIR", description = "where results go (default ${DEFAULT-VALUE})")
  Path out = Path.of("bench/results");

  @Option(names = "--command", paramLabel = "TEXT", description = "the command line the report quotes")
  String command = "bench/run.sh wakeup";

  /** Waiting for the echo server's JVM to start and listen. */
  private static final Duration ECHO_START = Duration.ofSeconds(30);

  @Override
  public Integer call() throws IOException, InterruptedException {
    List<Gap> gaps = Gaps.parse(gapsMs);
    validate();
    Pinning pinning = Pinning.detect(Pinning.Mode.parse(pin),
        echoCpu == null ? OptionalInt.empty() : OptionalInt.of(echoCpu), null);
    int prober = proberCpu(pinning);
    Plan plan = Plan.of(gaps, samples, secondsPerGap, rounds);
    PrintWriter log = spec.commandLine().getOut();
    Path dir = ResultsDirectory.create(out, "wakeup-");
    log(log, "CPU placement: " + placement(pinning, prober));
    if (!pinning.pinned() && !pinning.note().equals("--pin off")) {
      log(log, "WARNING: " + pinning.note() + "; echo and prober may share a CPU, so round trips include scheduling");
    }
    if (!pinning.pinToOthers(ProcessHandle.current().pid())) {
      log(log, "WARNING: could not move this harness off CPU " + pinning.proxyCpu() + " (taskset -a -p failed)");
    }
    log(log, String.format(Locale.ROOT, "%d gaps, %.1f s of idle gaps plus %.1f s warm-up; results in %s",
        gaps.size(), plan.idleSeconds(), warmupS, dir));
    try {
      return measure(gaps, plan, pinning, prober, dir, log);
    } catch (IllegalStateException e) {
      spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
      spec.commandLine().getErr().flush();
      return 1;
    }
  }

  private void validate() {
    require(samples >= 1, "--samples must be at least 1, got " + samples);
    require(bytes >= 1 && bytes <= 65536, "--bytes must be 1 to 65536, got " + bytes);
    require(rounds >= 1, "--rounds must be at least 1, got " + rounds);
    require(secondsPerGap > 0, "--seconds-per-gap must be more than 0, got " + secondsPerGap);
    require(warmupS >= 0 && warmupS <= 600, "--warmup-s must be 0 to 600, got " + warmupS);
    require(earlyWakeUs >= 0 && earlyWakeUs <= 100_000, "--early-wake-us must be 0 to 100000, got " + earlyWakeUs);
    require(List.of("on", "off").contains(probeSpin), "--probe-spin must be on or off, got '" + probeSpin + "'");
    require(List.of("auto", "epoll", "nio").contains(echoIo),
        "--echo-io must be auto, epoll or nio, got '" + echoIo + "'");
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /** The prober's CPU: --probe-cpu, else the lowest CPU but the echo's; -1 when unpinned. */
  private int proberCpu(Pinning pinning) {
    if (!pinning.pinned()) {
      return -1;
    }
    int cpu = probeCpu != null ? probeCpu : Collections.min(pinning.others());
    if (!pinning.others().contains(cpu)) {
      throw new IllegalArgumentException("--probe-cpu " + cpu + " must be one of the CPUs this run may use other "
          + "than the echo's " + pinning.proxyCpu() + " (" + CpuList.format(pinning.others()) + ")");
    }
    return cpu;
  }

  private static String placement(Pinning pinning, int prober) {
    if (!pinning.pinned()) {
      return "unpinned (" + pinning.note() + "): echo, prober and harness on CPUs " + CpuList.format(pinning.allowed());
    }
    return "echo server on CPU " + pinning.proxyCpu() + " alone, prober on CPU " + prober + ", this harness on CPU"
        + (pinning.others().size() > 1 ? "s " : " ") + CpuList.format(pinning.others()) + " (taskset -c)";
  }

  private int measure(List<Gap> gaps, Plan plan, Pinning pinning, int prober, Path dir, PrintWriter log)
      throws IOException, InterruptedException {
    Path logs = dir.resolve("logs");
    Path proberOut = logs.resolve("prober.out");
    HostFacts host = new HostFacts(Path.of("/"));
    int echoCpuUsed = pinning.pinned() ? pinning.proxyCpu() : -1;
    String loadBefore = MachineInfo.loadAverage();
    String started = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
    String io;
    List<IdleState> idleBefore;
    List<IdleState> idleAfter;
    try (Children children = new Children()) {
      Process echo = children.start(javaCommand(pinning.proxyCommandPrefix(), EchoServer.class,
          List.of("--io", echoIo, "--spin", Boolean.toString(echoSpin))), ProcessBuilder.Redirect.PIPE,
          logs.resolve("echo.log"));
      String[] ready = readyLine(echo, logs.resolve("echo.log"));
      io = ready[2];
      log(log, "echo server (" + io + ", " + (echoSpin ? "spinning" : "blocking") + ") on port " + ready[1]
          + "; measuring");
      List<String> prefix = pinning.pinned() ? List.of("taskset", "-c", Integer.toString(prober)) : List.of();
      idleBefore = host.idleStates(echoCpuUsed);
      Process p = children.start(javaCommand(prefix, Prober.class, List.of("--host", "127.0.0.1",
          "--port", ready[1], "--bytes", Integer.toString(bytes),
          "--spin-read", Boolean.toString(probeSpin.equals("on")),
          "--early-wake-ns", Long.toString((long) (earlyWakeUs * 1000)),
          "--warmup-ns", Long.toString((long) (warmupS * 1e9)), "--plan", plan.encode())),
          ProcessBuilder.Redirect.to(proberOut.toFile()), logs.resolve("prober.log"));
      // Generous: the gaps, the warm-up, a millisecond per round trip, and time to start a JVM.
      long limitS = (long) (2 * (plan.idleSeconds() + warmupS) + plan.blocks().stream()
          .mapToInt(Plan.Block::samples).sum() / 1000.0) + 60;
      if (!p.waitFor(limitS, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the prober did not finish within " + limitS + " s; log "
            + logs.resolve("prober.log") + ":\n" + tail(logs.resolve("prober.log")));
      }
      idleAfter = host.idleStates(echoCpuUsed);
      if (p.exitValue() != 0) {
        throw new IllegalStateException("the prober exited with status " + p.exitValue() + "; log "
            + logs.resolve("prober.log") + ":\n" + tail(logs.resolve("prober.log")));
      }
      if (!echo.isAlive()) {
        throw new IllegalStateException("the echo server died during the run; log " + logs.resolve("echo.log")
            + ":\n" + tail(logs.resolve("echo.log")));
      }
    }
    List<RttStats> rows = rows(gaps, Files.readAllLines(proberOut));
    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("command", command);
    facts.put("started", started);
    facts.put("placement", placement(pinning, prober));
    facts.put("echo_cpu", echoCpuUsed);
    facts.put("probe_cpu", prober);
    facts.put("echo_io", io);
    facts.put("echo_mode", echoSpin ? "spin" : "block");
    facts.put("probe_read", probeSpin.equals("on") ? "spin" : "block");
    facts.put("probe_wait", "parkNanos until " + fmt(earlyWakeUs) + " µs before each send, then spin to it");
    facts.put("message_bytes", bytes);
    facts.put("warmup_s", warmupS);
    facts.put("rounds", rounds);
    facts.put("unrecorded_per_block", Prober.LEAD_IN);
    facts.putAll(host.describe());
    Map<String, String> idle = HostFacts.entries(idleBefore, idleAfter);
    facts.put("echo_cpu_idle_states_during_run", idle.isEmpty() ? "not known (unpinned, or no cpuidle)" : idle);
    facts.put("load_average_before", loadBefore);
    facts.put("child_java_opts", childJavaOpts);
    WakeupReport report = new WakeupReport("Wake-up cost " + dir.getFileName(), facts, rows, Gaps.baseline(gaps));
    String md = report.markdown();
    Files.writeString(dir.resolve("wakeup.md"), md);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("wakeup.json").toFile(),
        report.json());
    log.println();
    log.println(md);
    log(log, "wrote " + dir.resolve("wakeup.md") + " and wakeup.json");
    log.flush();
    return 0;
  }

  /** The prober's block lines, gathered per gap, in the order of {@code gaps}. */
  static List<RttStats> rows(List<Gap> gaps, List<String> proberOut) {
    if (proberOut.isEmpty() || !proberOut.get(proberOut.size() - 1).equals("done")) {
      throw new IllegalStateException("the prober's output is incomplete (no 'done' line)");
    }
    List<List<long[]>> perGap = new ArrayList<>();
    int[] late = new int[gaps.size()];
    long[] maxLate = new long[gaps.size()];
    for (int i = 0; i < gaps.size(); i++) {
      perGap.add(new ArrayList<>());
    }
    for (String line : proberOut) {
      if (BlockResult.isBlock(line)) {
        BlockResult b = BlockResult.parse(line);
        perGap.get(b.gap()).add(b.rttNanos());
        late[b.gap()] += b.lateSends();
        maxLate[b.gap()] = Math.max(maxLate[b.gap()], b.maxLateNanos());
      }
    }
    List<RttStats> rows = new ArrayList<>();
    for (int i = 0; i < gaps.size(); i++) {
      long[] all = perGap.get(i).stream().flatMapToLong(Arrays::stream).toArray();
      rows.add(RttStats.of(gaps.get(i), all, late[i], maxLate[i]));
    }
    return rows;
  }

  private List<String> javaCommand(List<String> prefix, Class<?> main, List<String> args) {
    List<String> c = new ArrayList<>(prefix);
    c.add(ProcessHandle.current().info().command().orElse("java"));
    for (String w : childJavaOpts.trim().split("\\s+")) {
      if (!w.isEmpty()) {
        c.add(w);
      }
    }
    c.add("-cp");
    c.add(System.getProperty("java.class.path"));
    c.add(main.getName());
    c.addAll(args);
    return c;
  }

  /** {@code listening <port> <io>}, split; fails with the echo's log when it does not come. */
  private static String[] readyLine(Process echo, Path echoLog) throws InterruptedException {
    CompletableFuture<@Nullable String> line = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try {
        line.complete(new BufferedReader(new InputStreamReader(echo.getInputStream(), StandardCharsets.UTF_8))
            .readLine());
      } catch (IOException e) {
        line.completeExceptionally(e);
      }
    }, "echo-ready");
    reader.setDaemon(true);
    reader.start();
    String text;
    try {
      text = line.get(ECHO_START.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      text = null;
    }
    String[] f = text == null ? new String[0] : text.trim().split(" ");
    if (f.length != 3 || !f[0].equals(EchoServer.READY)) {
      throw new IllegalStateException("the echo server did not start (" + (text == null ? "no answer within "
          + ECHO_START.toSeconds() + " s" : "said '" + text + "'") + "); log " + echoLog + ":\n" + tail(echoLog));
    }
    return f;
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  private static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  private static void log(PrintWriter out, String line) {
    out.println("[bench] " + line);
    out.flush();
  }
}

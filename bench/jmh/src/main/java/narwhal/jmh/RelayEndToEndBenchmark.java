package narwhal.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.lang.management.ThreadInfo;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import narwhal.server.DemoFleet;
import narwhal.server.RouterServer;
import narwhal.sim.SimOptions;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Whole streams relayed end to end through the real router, in one JVM over loopback sockets:
 * engine bytes in, client bytes out. {@link narwhal.http.SseRelayBenchmark} measures the
 * per-token stages in one thread; this measures what they add up to with the sockets, event
 * loops, request lifecycle and both engine legs around them.
 *
 * <ul>
 *   <li>Engines: two prefill and two decode simulated vLLM engines, as {@code narwhal demo} starts
 *       them ({@link DemoFleet}), on their own event loop ({@code jmh-engines-*}), with every
 *       delay of the timing model at 0: each token is written as soon as the engine's loop comes
 *       round to it, so the time is the router's and the machine's, not a timer's.
 *   <li>Router: {@link RouterServer#start(narwhal.config.FleetConfig, String, int,
 *       java.nio.file.Path)} on the fleet's configuration, as {@code narwhal serve} assembles it
 *       (its own boss and worker loops, epoll where it loads; no journal, no gRPC).
 *   <li>Client: one keep-alive HTTP/1.1 connection on its own loop ({@code jmh-client-*}); the
 *       benchmark thread posts one streaming request and waits for the response to end.
 * </ul>
 *
 * <p>One operation is one whole stream of {@code maxTokens} tokens, checked: a response that is
 * not 200, lacks {@code data: [DONE]} or carries another number of events fails the run. The
 * score is time per stream; the counters say what that is per token:
 *
 * <ul>
 *   <li>{@code token} (an operations counter): time per relayed token. This is the whole pipeline's
 *       (engine loop, router loop, client loop, each woken per token), so on a machine with fewer
 *       free cores than busy threads it is mostly scheduling;
 *   <li>{@code routerAllocBytes}, {@code engineAllocBytes}, {@code clientAllocBytes}, {@code
 *       routerCpuNanos}, {@code tokensRelayed} (event counters, summed over the measurement
 *       iterations): heap bytes each role's threads allocated, the CPU time the router's threads
 *       used, and the tokens relayed meanwhile. A counter over {@code tokensRelayed} is a per-token
 *       figure; the fork prints those, and which threads each role covered, when the trial ends.
 *       (JMH sums an event counter over the iterations, so a ratio reported as one would come out
 *       multiplied by the iteration count.)
 * </ul>
 *
 * <p>{@code -prof gc} works as usual; its {@code gc.alloc.rate.norm} is per stream and covers
 * every thread in the JVM (router, engines, client, JMH), which the three byte counters split.
 * Router bytes per token fall as {@code maxTokens} grows (a fixed cost per request is spread over
 * more tokens); compare two values of it for the cost of one more token.
 *
 * <p>The router keeps its default worker count (one loop per available processor) rather than
 * running the fork with {@code -XX:ActiveProcessorCount=1}: a stream and both its engine legs run
 * on the loop of the client's connection, and another loop only runs the health monitor, which
 * the requests report to; all of the router's loops are counted either way, and one processor
 * would also change the JVM's own ergonomics (compiler threads, allocator arenas).
 */
@State(Scope.Thread)
@Threads(1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
// The whole stack takes longer than one handler to compile: 3 x 2 s leaves the first measurements
// still falling.
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
// The heap and collector bin/narwhal gives the router (bin/jvm.options), with -Xms at -Xmx as the
// other benchmarks have it so heap resizing stays out of the measurement.
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseSerialGC", "-Xms512m", "-Xmx512m"})
public class RelayEndToEndBenchmark {

  private static final String HOST = "127.0.0.1";
  private static final String PROMPT = "Tell me about narwhals";
  /** Far above a stream's time even on a busy machine; only a stuck stream reaches it. */
  private static final long STREAM_TIMEOUT_S = 30;

  /** Whose threads did the work: what the counters split the JVM's allocation into. */
  enum Role { ROUTER, ENGINES, CLIENT }

  /** Tokens per stream: the client's {@code max_tokens}, all of which the engine generates. */
  @Param({"64"})
  public int maxTokens;

  @Param({"completions", "chat"})
  public String route;

  private EventLoopGroup engineLoops;
  private EventLoopGroup clientLoops;
  private DemoFleet fleet;
  private RouterServer router;
  private SseStreamClient client;
  private ThreadUsage<Role> usage;
  private String path;
  private ByteBuf body;
  private int expectedEvents;
  private boolean closed;

  @Setup(Level.Trial)
  public void setUp() throws InterruptedException {
    try {
      start();
    } catch (RuntimeException | InterruptedException e) {
      tearDown(); // JMH does not, after a failed set-up
      throw e;
    }
  }

  private void start() throws InterruptedException {
    boolean chat = route.equals("chat");
    if (!chat && !route.equals("completions")) {
      throw new IllegalArgumentException("route must be completions or chat, got " + route);
    }
    path = chat ? "/v1/chat/completions" : "/v1/completions";
    String input = chat
        ? "\"messages\":[{\"role\":\"user\",\"content\":\"" + PROMPT + "\"}]"
        : "\"prompt\":\"" + PROMPT + "\"";
    body = SseStreamClient.body("{\"model\":\"" + DemoFleet.MODEL + "\"," + input
        + ",\"max_tokens\":" + maxTokens + ",\"stream\":true}");
    // One event per token; a chat stream opens with the assistant's role in an event of its own.
    expectedEvents = chat ? maxTokens + 1 : maxTokens;

    engineLoops = new MultiThreadIoEventLoopGroup(
        1, new DefaultThreadFactory("jmh-engines", true), NioIoHandler.newFactory());
    SimOptions engines = SimOptions.builder()
        .model(DemoFleet.MODEL)
        .prefillBaseMillis(0)
        .prefillMillisPerToken(0)
        .kvTransferMillisPerToken(0)
        .interTokenMillis(0)
        .maxRecordedRequests(0) // the log of received requests would only grow the heap
        .build();
    fleet = DemoFleet.start(2, 2, engines, engineLoops);
    router = RouterServer.start(fleet.config(), HOST, 0, null);
    clientLoops = new MultiThreadIoEventLoopGroup(
        1, new DefaultThreadFactory("jmh-client", true), NioIoHandler.newFactory());
    client = SseStreamClient.connect(clientLoops, HOST, router.port());

    long benchmarkThread = Thread.currentThread().getId();
    usage = new ThreadUsage<>(Role.class, t -> roleOf(t, benchmarkThread));
  }

  /**
   * The router's threads are the ones Netty names by default after its loop groups (the router
   * creates its own, unnamed), plus the engine transport's DNS pool and the journal writer.
   * Everything else this benchmark starts is named here, so nothing is mistaken for the router.
   */
  private static @Nullable Role roleOf(ThreadInfo thread, long benchmarkThread) {
    String name = thread.getThreadName();
    if (name.startsWith("multiThreadIoEventLoopGroup-") || name.startsWith("narwhal-engine-dns")
        || name.equals("narwhal-journal")) {
      return Role.ROUTER;
    }
    if (name.startsWith("jmh-engines-")) {
      return Role.ENGINES;
    }
    if (name.startsWith("jmh-client-") || thread.getThreadId() == benchmarkThread) {
      return Role.CLIENT;
    }
    return null;
  }

  /** Starts the iteration's first window: what happened between iterations is not counted. */
  @Setup(Level.Iteration)
  public void startWindow() {
    usage.sample();
  }

  @Benchmark
  public int stream(Tokens tokens, Usage used) throws InterruptedException {
    SseStreamClient.Stream stream;
    try {
      stream = client.post(path, body, STREAM_TIMEOUT_S);
      if (!stream.done() || stream.dataEvents() != expectedEvents) {
        throw new IllegalStateException(String.format(Locale.ROOT,
            "%s relayed %d events%s; expected %d and data: [DONE]", path, stream.dataEvents(),
            stream.done() ? "" : " without data: [DONE]", expectedEvents));
      }
    } catch (RuntimeException e) {
      // JMH skips the trial's tear-down after a failure, and the router's loops (not daemons)
      // would keep the fork alive until JMH gives up on it.
      tearDown();
      throw e;
    }
    usage.sample();
    used.routerAllocBytes += usage.bytes[Role.ROUTER.ordinal()];
    used.engineAllocBytes += usage.bytes[Role.ENGINES.ordinal()];
    used.clientAllocBytes += usage.bytes[Role.CLIENT.ordinal()];
    used.routerCpuNanos += usage.cpuNanos[Role.ROUTER.ordinal()];
    used.tokensRelayed += maxTokens;
    tokens.token += maxTokens;
    return stream.dataEvents();
  }

  /** Also called by a failed set-up or operation, so once only, and after a partial start. */
  @TearDown(Level.Trial)
  public void tearDown() {
    if (closed) {
      return;
    }
    closed = true;
    if (usage != null) {
      // The thread list before the router goes: the figures' coverage, for the record.
      System.out.println();
      usage.names().forEach((role, names) -> System.out.println(
          "[relay] " + role.name().toLowerCase(Locale.ROOT) + " threads counted: " + names));
    }
    if (client != null) {
      client.close();
    }
    if (router != null) {
      router.close();
    }
    if (fleet != null) {
      fleet.close();
    }
    shutDown(clientLoops);
    shutDown(engineLoops);
  }

  private static void shutDown(@Nullable EventLoopGroup group) {
    if (group != null) {
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }

  /**
   * Counted as operations, so JMH reports the time per relayed token (time over this count) beside
   * the time per stream.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Tokens {
    public long token;
  }

  /**
   * Heap bytes allocated per role, the router's CPU time and the tokens relayed, as totals: JMH
   * sums event counters over the measurement iterations, so a quotient of two is exact where a
   * per-iteration ratio would not be. The trial's per-token figures are printed at its end, from
   * the measurement iterations only. (JMH zeroes the counters before each iteration.)
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Usage {
    public long routerAllocBytes;
    public long engineAllocBytes;
    public long clientAllocBytes;
    public long routerCpuNanos;
    public long tokensRelayed;

    private boolean measuring;
    private final long[] measured = new long[5];

    @Setup(Level.Iteration)
    public void startIteration(IterationParams iteration) {
      measuring = iteration.getType() == IterationType.MEASUREMENT;
    }

    @TearDown(Level.Iteration)
    public void addUp() {
      if (measuring) {
        measured[0] += routerAllocBytes;
        measured[1] += engineAllocBytes;
        measured[2] += clientAllocBytes;
        measured[3] += routerCpuNanos;
        measured[4] += tokensRelayed;
      }
    }

    @TearDown(Level.Trial)
    public void report() {
      long tokens = measured[4];
      if (tokens > 0) {
        System.out.printf(Locale.ROOT,
            "%n[relay] per relayed token, over the %d tokens of the measurement iterations: heap bytes allocated"
                + " by the router %.1f, engines %.1f, client %.1f; router CPU %.0f ns%n",
            tokens, (double) measured[0] / tokens, (double) measured[1] / tokens, (double) measured[2] / tokens,
            (double) measured[3] / tokens);
      }
    }
  }
}

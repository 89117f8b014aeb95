package narwhal.sim;

import static java.util.Objects.requireNonNull;

import com.google.common.net.HostAndPort;
import com.google.common.net.InetAddresses;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import narwhal.sim.gpu.StepLoad;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running simulated vLLM engine: an HTTP/1.1 server on Netty speaking vLLM's OpenAI-compatible
 * wire format, with NixlConnector {@code kv_transfer_params}, deterministic output and fault
 * injection.
 *
 * <p>Every stream is driven by timers on its connection's event loop, so one core carries thousands
 * of concurrent streams. The instance methods are thread-safe. {@link #close()} closes every
 * connection and, when the engine created its own event loop group, shuts that group down.
 */
public final class SimEngine implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SimEngine.class);
  private static final int MAX_BODY_BYTES = 64 * 1024 * 1024;

  private final SimulatedEngineState state;
  private final EventLoopGroup group;
  private final boolean ownsGroup;
  private final ChannelGroup channels;
  private final int port;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Read by every connection's {@link FreezeGate}; see {@link #freeze()}. */
  private final AtomicBoolean frozen;

  private SimEngine(SimulatedEngineState state, EventLoopGroup group, boolean ownsGroup, ChannelGroup channels,
      int port, AtomicBoolean frozen) {
    this.state = state;
    this.frozen = frozen;
    this.group = group;
    this.ownsGroup = ownsGroup;
    this.channels = channels;
    this.port = port;
  }

  /**
   * Starts an engine on its own event loop group ({@link SimOptions#ioThreads()} threads) and
   * returns once it is listening. Must not be called from an event loop thread.
   */
  public static SimEngine start(SimOptions options) {
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(
            options.ioThreads(),
            new DefaultThreadFactory("narwhal-sim", true),
            NioIoHandler.newFactory());
    try {
      return bind(options, group, true);
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw e;
    }
  }

  /**
   * Starts an engine on a caller-owned event loop group, which {@link #close()} leaves running;
   * returns once it is listening. The group must run NIO channels (e.g. a {@code
   * MultiThreadIoEventLoopGroup} with {@code NioIoHandler}). Must not be called from an event loop
   * thread.
   */
  public static SimEngine start(SimOptions options, EventLoopGroup group) {
    return bind(options, requireNonNull(group, "group"), false);
  }

  private static SimEngine bind(SimOptions options, EventLoopGroup group, boolean ownsGroup) {
    SimulatedEngineState state = new SimulatedEngineState(requireNonNull(options, "options"), group.next());
    ChannelGroup channels = new DefaultChannelGroup("narwhal-sim", GlobalEventExecutor.INSTANCE);
    AtomicBoolean frozen = new AtomicBoolean();
    SslContext tls = options.tls() == null ? null : options.tls().serverContext();
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 4096)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    channels.add(ch);
                    if (frozen.get()) {
                      ch.config().setAutoRead(false); // accepted just as the engine froze
                    }
                    ch.pipeline().addLast(new FreezeGate(frozen));
                    if (tls != null) {
                      ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
                    }
                    ch.pipeline()
                        .addLast(new HttpServerCodec())
                        .addLast(new HttpObjectAggregator(MAX_BODY_BYTES))
                        .addLast(new SimHttpHandler(state));
                  }
                });
    ChannelFuture bound =
        bootstrap.bind(new InetSocketAddress(options.host(), options.port())).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      throw new IllegalStateException(
          "narwhal-sim could not listen on " + options.host() + ":" + options.port(),
          bound.cause());
    }
    Channel server = bound.channel();
    channels.add(server);
    int port = ((InetSocketAddress) server.localAddress()).getPort();
    state.listeningOn(port);
    if (options.dialect() == SimDialect.SGLANG && options.bootstrapPort() != 0 && options.bootstrapPort() != port) {
      // SGLang serves its KV bootstrap server on a port of its own; so does the simulator then.
      ChannelFuture bootstrapBound =
          bootstrap.bind(new InetSocketAddress(options.host(), options.bootstrapPort())).awaitUninterruptibly();
      if (!bootstrapBound.isSuccess()) {
        channels.close().awaitUninterruptibly();
        throw new IllegalStateException("narwhal-sim could not listen for bootstrap on " + options.host() + ":"
            + options.bootstrapPort(), bootstrapBound.cause());
      }
      channels.add(bootstrapBound.channel());
    }
    SimEngine engine = new SimEngine(state, group, ownsGroup, channels, port, frozen);
    log.info(
        "narwhal-sim listening on {} (engine id {}, model {}, dialect {}, timing {}, faults {})",
        engine.baseUrl(), options.engineId(), options.model(), options.dialect().wireName(),
        options.gpuTiming() ? "gpu " + options.gpu() : "simple", options.faults().specs());
    return engine;
  }

  /** The port the engine listens on. */
  public int port() {
    return port;
  }

  /** {@code http://HOST:PORT} ({@code https://} when serving TLS), with 127.0.0.1 when bound to a wildcard address. */
  public String baseUrl() {
    String host = state.options.host();
    if (host.isEmpty()
        || (InetAddresses.isInetAddress(host) && InetAddresses.forString(host).isAnyLocalAddress())) {
      host = "127.0.0.1";
    }
    // HostAndPort brackets an IPv6 literal.
    return (state.options.tls() == null ? "http://" : "https://") + HostAndPort.fromParts(host, port);
  }

  /**
   * SGLang mode: the port a {@code bootstrap_port} must name for this engine to be the prefill
   * leg ({@link SimOptions#bootstrapPort()}, or the HTTP port when that is 0).
   */
  public int bootstrapPort() {
    return state.bootstrapPort();
  }

  /** The NIXL engine id reported in prefill descriptors. */
  public String engineId() {
    return state.options.engineId();
  }

  public SimOptions options() {
    return state.options;
  }

  /**
   * Unique to this engine's start (64 random bits in hex), reported as {@code process_generation}
   * in the attestation document: a restarted engine reports another.
   */
  public String processGeneration() {
    return state.processGeneration;
  }

  /** Gpu timing mode: the step loop's running, waiting, KV and preemption counts; null in the simple mode. */
  public @Nullable StepLoad gpuLoad() {
    return state.gpu == null ? null : state.gpu.load();
  }

  /**
   * Where subscribers connect for this engine's KV events ({@code tcp://HOST:PORT}, an ephemeral
   * port resolved), or null when it publishes none.
   */
  public @Nullable String kvEventsEndpoint() {
    return state.kvEvents == null ? null : state.kvEvents.endpoint();
  }

  /** Its KV event replay endpoint, or null when it has none. */
  public @Nullable String kvReplayEndpoint() {
    return state.kvEvents == null ? null : state.kvEvents.replayEndpoint();
  }

  /** KV event batches sent so far (the next sequence number); 0 without events. */
  public long kvEventBatchesPublished() {
    return state.kvEvents == null ? 0 : state.kvEvents.published();
  }

  /** The prefix cache's state; {@link narwhal.sim.gpu.PrefixCacheStats#NONE} without one. */
  public narwhal.sim.gpu.PrefixCacheStats prefixCacheStats() {
    return state.gpu == null ? narwhal.sim.gpu.PrefixCacheStats.NONE : state.gpu.prefixStats();
  }

  /**
   * Leading tokens of {@code tokenIds} the engine's prefix cache holds now (the truth an index
   * approximates); 0 without a prefix cache. Waits for the step loop (tests and benchmarks only).
   */
  public int prefixCachedTokens(int[] tokenIds) {
    if (state.gpu == null) {
      return 0;
    }
    return state.gpu.cachedTokens(tokenIds).join();
  }

  /** The token ids the engine gives {@code text} (its tokenize route's, and its prefix cache's). */
  public static int[] tokenIds(String text) {
    return SimVocabulary.ids(text);
  }

  /** Empties the prefix cache (vLLM's reset_prefix_cache, announced as AllBlocksCleared); false while blocks are held. */
  public boolean resetPrefixCache() {
    return state.gpu != null && state.gpu.resetPrefixCache().join();
  }

  /** Replaces the engine-level faults; every {@code count=K} starts afresh. */
  public void setFaults(FaultPlan faults) {
    state.setFaults(requireNonNull(faults, "faults"));
  }

  /** The engine-level faults in force. */
  public FaultPlan faults() {
    return state.faults().plan();
  }

  /**
   * Switches how streamed responses are framed from the next one on (responses under way keep
   * theirs); the same as {@code POST /admin/framing}.
   */
  public void setStreamFraming(StreamFraming framing) {
    state.setStreamFraming(requireNonNull(framing, "framing"));
  }

  /** How the next streamed response will be framed. */
  public StreamFraming streamFraming() {
    return state.streamFraming();
  }

  /**
   * Freezes the engine as a stopped process: it accepts no connection (they wait in the listen
   * backlog), reads nothing, and sends nothing on any connection (responses under way are held,
   * not dropped), until {@link #resume()}. Health checks time out rather than fail. Idempotent.
   */
  public void freeze() {
    frozen.set(true);
    for (Channel ch : channels) {
      ch.eventLoop().execute(() -> ch.config().setAutoRead(false));
    }
  }

  /** Ends a {@link #freeze()}: everything held goes out in order, and reading resumes. Idempotent. */
  public void resume() {
    frozen.set(false);
    for (Channel ch : channels) {
      ch.eventLoop().execute(() -> {
        var gate = ch.pipeline().context(FreezeGate.class);
        if (gate != null) {
          ((FreezeGate) gate.handler()).release(gate);
        }
        if (!frozen.get()) {
          ch.config().setAutoRead(true); // reads again at once (Netty issues the read)
        }
      });
    }
  }

  /** Whether the engine is frozen ({@link #freeze()}). */
  public boolean frozen() {
    return frozen.get();
  }

  public SimStats stats() {
    return state.stats;
  }

  /** Every request received under {@code /v1/}, in arrival order (bounded, oldest dropped). */
  public List<ReceivedRequest> received() {
    return state.received.snapshot();
  }

  /**
   * What every prefill leg ({@code do_remote_decode: true}, non-streaming) was answered with, in
   * order (bounded like {@link #received()}): compare a decode engine's received {@code
   * kv_transfer_params} with the producer's {@link PrefillResponse#kvTransferParams()}.
   */
  public List<PrefillResponse> prefillResponses() {
    return state.prefillResponses.snapshot();
  }

  /** Forgets the {@link #received()} requests and the {@link #prefillResponses()}. */
  public void clearReceived() {
    state.received.clear();
    state.prefillResponses.clear();
  }

  /**
   * The tokens the simulator generates for a prompt: they depend only on {@code seed} and {@code
   * promptKey} — the prompt string for completions, or the message contents joined by {@code "\n"}
   * for chat (directives included) — so every engine with the same seed produces the same text.
   */
  public static List<String> expectedTokens(long seed, String promptKey, int n) {
    return TokenSequence.first(seed, requireNonNull(promptKey, "promptKey"), n);
  }

  /** {@link #expectedTokens} concatenated: the text of an {@code n}-token completion. */
  public static String expectedText(long seed, String promptKey, int n) {
    return String.join("", expectedTokens(seed, promptKey, n));
  }

  /** Closes every connection (cancelling their streams) and the listening socket. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    boolean mayBlock = !calledFromEventLoop();
    resume(); // a frozen connection would hold its close back
    var closing = channels.close();
    if (state.kvEvents != null) {
      state.kvEvents.close();
    }
    if (state.gpu != null) {
      state.gpu.close(); // its lease timers would outlive the engine on a shared group
    }
    if (mayBlock) {
      closing.awaitUninterruptibly(10, TimeUnit.SECONDS);
    }
    if (ownsGroup) {
      var shutdown = group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
      if (mayBlock) {
        shutdown.awaitUninterruptibly(10, TimeUnit.SECONDS);
      }
    }
  }

  private boolean calledFromEventLoop() {
    for (EventExecutor executor : group) {
      if (executor.inEventLoop()) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "SimEngine{" + baseUrl() + ", engineId=" + engineId() + "}";
  }
}

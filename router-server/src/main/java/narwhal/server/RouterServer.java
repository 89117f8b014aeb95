package narwhal.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import narwhal.cluster.Cluster;
import narwhal.config.FleetConfig;
import narwhal.core.checks.EngineChecks;
import narwhal.core.control.RoleController;
import narwhal.core.checks.EngineFacts;
import narwhal.core.profile.ProfilesDocument;
import narwhal.time.Scheduler;
import narwhal.core.fleet.Fleet;
import narwhal.core.health.HealthEvents;
import narwhal.core.health.HealthMonitor;
import narwhal.core.health.JournalHealthEvents;
import narwhal.core.health.MetricsHealthEvents;
import narwhal.core.health.MonitorPasses;
import narwhal.core.journal.Journal;
import narwhal.core.journal.JsonlJournal;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.metrics.Telemetry;
import narwhal.core.request.DisaggregatedRouter;
import narwhal.netty.EventLoopScheduler;
import narwhal.engine.http.EngineTls;
import narwhal.engine.http.NettyEngineTransport;
import narwhal.core.legs.AuthorizingTransport;
import narwhal.core.legs.EngineClient;
import narwhal.spi.EngineDialects;
import narwhal.spi.EngineTransport;
import narwhal.grpc.GrpcFrontEnd;
import narwhal.grpc.GrpcFrontEndOptions;
import narwhal.http.HttpFrontEnd;
import narwhal.http.HttpFrontEndOptions;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running router: the HTTP front-end, the core and the engine transport, assembled from a fleet
 * configuration. Client connections and engine connections share one set of event loops, so a
 * request and both of its engine legs run on the same thread without hand-offs.
 *
 * <p>Why one class of about 430 lines: it is the assembly, and the order in which the parts are
 * built (and, in {@link #close()} and the graceful shutdown, stopped) is the thing to read in one
 * place; each part is its own class elsewhere.
 */
public final class RouterServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RouterServer.class);

  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  /** The socket I/O the loops were made for; every channel the router opens is of its kind. */
  private final NettyIo io;
  private final boolean ownsGroups;
  private final NettyEngineTransport transport;
  private final HealthMonitor health;
  private final RoleController controller;
  private final Journal journal;
  private final DisaggregatedRouter router;
  private final HttpFrontEnd http;
  private final Duration gracefulTimeout;
  /** The span exporter's SDK, when tracing is configured; closed last so the final spans go out. */
  private final TracingSetup tracing;
  /** Keeps each engine's profile bound to its process generation. */
  private final ServingProfiles profiles;
  /** Cache-aware placement's index (nothing when {@code cache.mode} is off). */
  private final ServingCache cache;
  /** This replica's membership of its cluster, or null for a router that runs alone. */
  private final @Nullable Cluster cluster;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** See {@link HealthMonitor#holdUntilReadmitted}: engines that failed preflight, served anyway. */
  void holdUntilReadmitted(java.util.Collection<String> iids, String why) {
    health.holdUntilReadmitted(iids, why);
  }

  /** The front-ends' TLS, or null when they serve plain TCP. */
  private final @Nullable FrontEndTls tls;

  /** Set once, right after start; null when the router serves HTTP only. */
  private volatile @Nullable GrpcFrontEnd grpc;

  private RouterServer(EventLoopGroup boss, EventLoopGroup workers, NettyIo io, boolean ownsGroups,
      NettyEngineTransport transport,
      HealthMonitor health, RoleController controller, Journal journal, DisaggregatedRouter router,
      HttpFrontEnd http, Duration gracefulTimeout, TracingSetup tracing, ServingProfiles profiles,
      ServingCache cache, @Nullable FrontEndTls tls, @Nullable Cluster cluster) {
    this.profiles = profiles;
    this.cache = cache;
    this.cluster = cluster;
    this.tls = tls;
    this.gracefulTimeout = gracefulTimeout;
    this.tracing = tracing;
    this.health = health;
    this.controller = controller;
    this.boss = boss;
    this.workers = workers;
    this.io = io;
    this.ownsGroups = ownsGroups;
    this.transport = transport;
    this.journal = journal;
    this.router = router;
    this.http = http;
  }

  /** Starts a router with its own event loops, on the I/O {@link NettyIo#configured()} picks. */
  public static RouterServer start(FleetConfig config, String host, int port, @Nullable Path journalPath) {
    NettyIo io = NettyIo.configured();
    EventLoopGroup boss = io.newAcceptorGroup();
    EventLoopGroup workers = io.newGroup(0);
    log.info("narwhal event loops: {} on {} I/O", ((MultiThreadIoEventLoopGroup) workers).executorCount(), io.name());
    try {
      return start(config, host, port, journalPath, boss, workers, io, true);
    } catch (RuntimeException e) {
      boss.shutdownGracefully();
      workers.shutdownGracefully();
      throw e;
    }
  }

  /**
   * Starts a router with its own event loops, serving the gRPC API ({@code narwhal.v1.Router},
   * health, reflection) beside HTTP on the same loops and over the same core.
   *
   * @param grpcPort the gRPC port (0 picks an ephemeral one), or null to serve HTTP only
   */
  public static RouterServer start(FleetConfig config, String host, int port, @Nullable Integer grpcPort,
      @Nullable Path journalPath) {
    return withGrpc(start(config, host, port, journalPath), config, host, grpcPort);
  }

  /** As {@link #start(FleetConfig, String, int, Integer, Path)}, on event loops the caller owns. */
  public static RouterServer start(FleetConfig config, String host, int port, @Nullable Integer grpcPort,
      @Nullable Path journalPath, EventLoopGroup boss, EventLoopGroup workers) {
    return withGrpc(start(config, host, port, journalPath, boss, workers), config, host, grpcPort);
  }

  private static RouterServer withGrpc(RouterServer server, FleetConfig config, String host,
      @Nullable Integer grpcPort) {
    if (grpcPort == null) {
      return server;
    }
    try {
      GrpcFrontEnd started = GrpcFrontEnd.start(new GrpcFrontEndOptions(host, grpcPort,
          config.serving().maxRequestBytes(), config.serving().maxResponseBytes())
              .withConnectionTimeouts(seconds(config.serving().headerTimeoutS()),
                  seconds(config.serving().idleTimeoutS()))
              .withTls(server.tls == null ? null : GrpcFrontEnd.tlsContext(server.tls.serverTls())), server.router,
          server.boss, server.workers, server.io.serverChannel(), Clock.systemUTC());
      server.grpc = started;
      log.info("narwhal serving gRPC (narwhal.v1.Router) on {}:{}{}", host, started.port(),
          server.tls == null ? "" : " (" + server.tls.serverTls().describe() + ")");
      return server;
    } catch (Exception e) {
      server.close();
      throw StartupFailure.listen("gRPC", host, grpcPort, e);
    }
  }

  /** Starts a router on NIO event loops the caller owns (tests, the demo). */
  public static RouterServer start(FleetConfig config, String host, int port, @Nullable Path journalPath,
      EventLoopGroup boss, EventLoopGroup workers) {
    return start(config, host, port, journalPath, boss, workers, NettyIo.nio(), false);
  }

  private static RouterServer start(FleetConfig config, String host, int port, @Nullable Path journalPath,
      EventLoopGroup boss, EventLoopGroup workers, NettyIo io, boolean ownsGroups) {
    EngineDialects dialects = EngineDialects.discover();
    java.util.List<String> dialectProblems = FleetFiles.problems(config, dialects);
    if (!dialectProblems.isEmpty()) {
      // Refuse to start rather than fail requests later: each line says what to fix.
      throw new IllegalArgumentException("the fleet cannot be served as configured:\n  "
          + String.join("\n  ", dialectProblems));
    }
    // Before anything opens: a profiles file that cannot be used fails startup, naming its problems.
    ProfilesDocument profiles = ServingProfiles.read(config);
    // Before anything opens: a tracing setup this router cannot honour fails startup.
    TracingSetup tracing = TracingSetup.fromEnvironment(System.getenv());
    if (tracing.sdkBuilt()) {
      log.info("narwhal exports request and leg spans by OTLP to {}", tracing.endpoint());
    }
    FrontEndTls tls;
    try {
      tls = FrontEndTls.start(config.serving().tls());
    } catch (RuntimeException e) {
      tracing.close();
      throw e;
    }
    try {
      return assemble(config, host, port, journalPath, boss, workers, io, ownsGroups, dialects, tracing, profiles, tls);
    } catch (RuntimeException e) {
      tracing.close(); // its exporter thread must not outlive a router that never started
      if (tls != null) {
        tls.close();
      }
      throw e;
    }
  }

  private static RouterServer assemble(FleetConfig config, String host, int port, @Nullable Path journalPath,
      EventLoopGroup boss, EventLoopGroup workers, NettyIo io, boolean ownsGroups, EngineDialects dialects,
      TracingSetup tracing, @Nullable ProfilesDocument profileRows, @Nullable FrontEndTls tls) {
    NettyEngineTransport transport =
        new NettyEngineTransport(workers, io.socketChannel(), EngineTls.of(config.engine().tls()));
    EngineTlsWarning.log(config, log);
    // One run id on the journal's meta row and on every request row; one registry for /metrics.
    Telemetry telemetry = Telemetry.create();
    RouterMetrics metrics = new RouterMetrics(telemetry.registry(), config.slo());
    ProcessMetrics.register(metrics, NarwhalVersion.version());
    Journal journal;
    if (journalPath == null) {
      journal = Journal.none();
    } else {
      JsonlJournal jsonl = new JsonlJournal(journalPath, journalMeta(config, telemetry.runId()));
      metrics.watchJournal(jsonl);
      journal = jsonl;
    }
    Fleet fleet = new Fleet(config.engines());
    // Every engine request (legs, probes, health checks) goes through this: one place adds the key.
    EngineTransport engineTransport = AuthorizingTransport.wrap(transport, config.engine().engineApiKey());
    if (config.engine().engineApiKey().isSet()) {
      // The variable's name only: the key itself is never logged or journaled.
      log.info("engine requests carry the API key from ${}", config.engine().engineApiKeyEnv());
    }
    EngineClient engines = new EngineClient(engineTransport, dialects);
    // The breaker's ticks and probes, the role controller's passes and the binding of profiles to
    // engine generations (which each readmission re-reads) run on one event loop of the shared
    // group: a breaker decision, a role move and a profile rebinding never interleave.
    Scheduler monitorLoop = EventLoopScheduler.of(workers.next());
    ReadmissionRecheck readmissions = new ReadmissionRecheck();
    HealthEvents journaledAndCounted =
        HealthEvents.both(new JournalHealthEvents(journal, Clock.systemUTC()), new MetricsHealthEvents(metrics));
    // The breaker and the role controller report their passes to one place: either failing
    // controller.monitor_failure_limit times in a row stops admission and fails /ready.
    MonitorPasses passes = new MonitorPasses(config.controller().monitorFailureLimit(), journaledAndCounted);
    HealthMonitor health = new HealthMonitor(config, fleet, new EngineChecks(config, engineTransport, dialects, engines),
        monitorLoop, HealthEvents.both(journaledAndCounted, readmissions), passes);
    DisaggregatedRouter router = new DisaggregatedRouter(
        config, fleet, engines, journal, Clock.systemUTC(), new SplittableRandom(), health, telemetry, metrics,
        tracing.tracing());
    ServingProfiles profiles = ServingProfiles.start(config, profileRows, router.profiles(),
        new EngineFacts(config, engineTransport, dialects), monitorLoop, readmissions);
    RoleController controller = new RoleController(config, fleet, router.profiles(), monitorLoop, journal,
        Clock.systemUTC(), metrics, passes);
    ServingCache cache = ServingCache.start(config, router, metrics);
    if (config.cluster() != null) {
      // Not ready from the first request on until the replica has joined and caught up: the
      // front-end opens before the join (the replica's default name is its bound port).
      router.attachCluster(new narwhal.core.cluster.ClusterStatus() {
        @Override
        public @Nullable String notReadyReason() {
          return "cluster joining: not connected to etcd yet";
        }

        @Override
        public @Nullable Map<String, Object> state() {
          return Map.of("status", "joining");
        }
      });
    }
    HttpFrontEndOptions options = httpOptions(config, host, port)
        .withTls(tls == null ? null : tls.serverTls().httpContext());
    HttpFrontEnd http;
    try {
      http = HttpFrontEnd.start(options, router, router.metrics(), boss, workers, io.serverChannel());
    } catch (Exception e) { // Netty's bind rethrows the checked BindException undeclared
      cache.close();
      profiles.close();
      health.close();
      journal.close();
      transport.close();
      throw StartupFailure.listen("HTTP", host, port, e);
    }
    Cluster cluster = null;
    if (config.cluster() != null) {
      try {
        // Before the breaker and the controller start: both follow the cluster from their first pass.
        cluster = Cluster.join(config.cluster(), host, http.port(), NarwhalVersion.version(), router, health,
            controller, profiles::install, monitorLoop, metrics,
            Math.max(10_000, Math.round(config.cluster().requestTimeoutS() * 4000) + 1000));
      } catch (RuntimeException e) {
        http.close();
        profiles.close();
        health.close();
        journal.close();
        transport.close();
        throw e;
      }
    }
    log.info("narwhal serving model '{}' on {}://{}:{} with {} engines{}", config.model(),
        tls == null ? "http" : "https", host, http.port(), config.engines().size(),
        tls == null ? "" : " (" + tls.serverTls().describe() + ")");
    logAuthentication(config);
    health.start();
    controller.start();
    return new RouterServer(boss, workers, io, ownsGroups, transport, health, controller, journal, router, http,
        Duration.ofMillis(Math.round(config.serving().gracefulTimeoutS() * 1000)), tracing, profiles, cache, tls,
        cluster);
  }

  /** Says once, at start-up, whom the router serves: everyone, or only its tenants' keys. */
  private static void logAuthentication(FleetConfig config) {
    var tenants = config.tenants();
    if (!tenants.enabled()) {
      log.warn("narwhal serves every caller without authentication (no tenants section): anyone who can reach "
          + "its ports can use the fleet");
      return;
    }
    log.info("narwhal requires a tenant's API key on every completion ({} tenants: {}); /metrics and "
            + "/narwhal/state {}", tenants.tenants().size(),
        tenants.tenants().stream().map(narwhal.config.TenantConfig::name).toList(),
        tenants.operatorKeys().isEmpty() ? "are open (no operator_keys)" : "require an operator key");
  }

  /** The HTTP front-end's options from {@code serving}: size limits and client connection limits. */
  static HttpFrontEndOptions httpOptions(FleetConfig config, String host, int port) {
    var serving = config.serving();
    return new HttpFrontEndOptions(host, port, serving.maxRequestBytes(), serving.maxResponseBytes())
        .withConnectionLimits(seconds(serving.headerTimeoutS()), seconds(serving.idleTimeoutS()),
            serving.maxClientConnections());
  }

  /** Whole milliseconds; a value too large for a Duration in nanoseconds is held at ~292 years. */
  private static Duration seconds(double s) {
    return Duration.ofMillis(Math.min(Math.round(s * 1000), Long.MAX_VALUE / 1_000_000));
  }

  private static Map<String, Object> journalMeta(FleetConfig config, String runId) {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("run", runId);
    meta.put("package", "narwhal-jvm");
    meta.put("version", RouterServer.class.getPackage().getImplementationVersion());
    meta.put("model", config.model());
    meta.put("engines", config.engines().stream().map(e -> e.iid()).toList());
    return meta;
  }

  /**
   * Reopens the journal file at its configured path (SIGHUP after logrotate moved it); rows
   * recorded before go to the old file, rows after to the new one. A no-op without a journal.
   */
  public void reopenJournal() {
    journal.reopen();
  }

  public int port() {
    return http.port();
  }

  /** The bound gRPC port, or -1 when gRPC is not served. */
  public int grpcPort() {
    GrpcFrontEnd g = grpc;
    return g == null ? -1 : g.port();
  }

  public DisaggregatedRouter router() {
    return router;
  }

  /** Open engine connections (pooled and in use). */
  public int engineConnections() {
    return transport.openConnections();
  }

  /** {@code serving.graceful_timeout_s}: how long {@link #shutdownGracefully()} waits. */
  public Duration gracefulTimeout() {
    return gracefulTimeout;
  }

  /** {@link #shutdownGracefully(Duration)} with {@code serving.graceful_timeout_s}. */
  public boolean shutdownGracefully() {
    return shutdownGracefully(gracefulTimeout);
  }

  /**
   * Stops admitting (new requests on either front-end get 503 with {@code Retry-After}, {@code
   * /ready} turns 503), waits up to {@code timeout} for the requests in flight or queued to end,
   * then closes everything; requests still running then are cancelled as client disconnects.
   * Blocks the calling thread: call it from a shutdown hook or a test, never from an event loop.
   *
   * @return true when every request ended within {@code timeout}
   */
  public boolean shutdownGracefully(Duration timeout) {
    router.drain();
    int inFlight = router.admission().inFlight() + router.admission().queued();
    if (inFlight > 0) {
      log.info("narwhal draining: waiting up to {} ms for {} requests in flight", timeout.toMillis(), inFlight);
    }
    boolean drained;
    int cut = 0;
    try {
      router.whenIdle().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      drained = true;
    } catch (TimeoutException e) {
      drained = false;
      cut = router.admission().inFlight() + router.admission().queued();
      log.warn("narwhal draining: {} requests still in flight after {} ms; closing them", cut, timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      drained = false;
      cut = router.admission().inFlight() + router.admission().queued();
    } catch (ExecutionException e) {
      throw new IllegalStateException("draining failed", e.getCause());
    }
    close();
    // The last line a stopped router writes: an operator reading the log after a restart can tell
    // a clean drain from one that cut requests off.
    if (drained) {
      log.info("narwhal stopped: drained; {} requests were in flight at shutdown and all ended", inFlight);
    } else {
      log.info("narwhal stopped: {} requests were in flight at shutdown; {} were still running after {} ms "
          + "and were cancelled", inFlight, cut, timeout.toMillis());
    }
    return drained;
  }

  /**
   * Closing the client connections cancels the requests still on them, on their event loops;
   * their journal rows must be written before the journal closes, so wait (briefly) for them.
   */
  private void awaitCancellations() {
    router.drain();
    try {
      router.whenIdle().get(2, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      log.warn("{} requests still open after closing their connections",
          router.admission().inFlight() + router.admission().queued());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // A request frees its seat inside its final step, just before it writes its journal row; a
    // no-op task behind it on every loop returns only once that step has finished.
    for (EventExecutor loop : workers) {
      loop.submit(() -> { }).awaitUninterruptibly(1, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() {
    // Idempotent: a shutdown hook, a graceful shutdown and a test fixture may all close it.
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    GrpcFrontEnd g = grpc;
    if (g != null) {
      g.close();
    }
    http.close();
    awaitCancellations();
    // After the connections: a decode still running is dropped by its (closed) connection or call.
    router.close();
    if (cluster != null) {
      // After the last request: leaving frees this replica's election and tenant shares at once.
      cluster.close();
    }
    controller.close();
    cache.close();
    profiles.close();
    health.close();
    transport.close();
    journal.close();
    tracing.close();
    if (tls != null) {
      tls.close();
    }
    if (ownsGroups) {
      boss.shutdownGracefully();
      workers.shutdownGracefully();
    }
  }
}

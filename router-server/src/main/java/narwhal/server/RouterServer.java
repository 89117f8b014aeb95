package narwhal.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import narwhal.config.FleetConfig;
import narwhal.core.fleet.Fleet;
import narwhal.core.journal.Journal;
import narwhal.core.journal.JsonlJournal;
import narwhal.core.request.DisaggregatedRouter;
import narwhal.engine.http.NettyEngineTransport;
import narwhal.engines.client.EngineClient;
import narwhal.engines.spi.EngineDialects;
import narwhal.http.HttpFrontEnd;
import narwhal.http.HttpFrontEndOptions;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running router: the HTTP front-end, the core and the engine transport, assembled from a fleet
 * configuration. Client connections and engine connections share one set of event loops, so a
 * request and both of its engine legs run on the same thread without hand-offs.
 */
public final class RouterServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RouterServer.class);

  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final boolean ownsGroups;
  private final NettyEngineTransport transport;
  private final Journal journal;
  private final DisaggregatedRouter router;
  private final HttpFrontEnd http;

  private RouterServer(EventLoopGroup boss, EventLoopGroup workers, boolean ownsGroups, NettyEngineTransport transport,
      Journal journal, DisaggregatedRouter router, HttpFrontEnd http) {
    this.boss = boss;
    this.workers = workers;
    this.ownsGroups = ownsGroups;
    this.transport = transport;
    this.journal = journal;
    this.router = router;
    this.http = http;
  }

  /** Starts a router with its own event loops. */
  public static RouterServer start(FleetConfig config, String host, int port, @Nullable Path journalPath) {
    EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    EventLoopGroup workers = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
    try {
      return start(config, host, port, journalPath, boss, workers, true);
    } catch (RuntimeException e) {
      boss.shutdownGracefully();
      workers.shutdownGracefully();
      throw e;
    }
  }

  /** Starts a router on event loops the caller owns (tests, the demo). */
  public static RouterServer start(FleetConfig config, String host, int port, @Nullable Path journalPath,
      EventLoopGroup boss, EventLoopGroup workers) {
    return start(config, host, port, journalPath, boss, workers, false);
  }

  private static RouterServer start(FleetConfig config, String host, int port, @Nullable Path journalPath,
      EventLoopGroup boss, EventLoopGroup workers, boolean ownsGroups) {
    EngineDialects dialects = EngineDialects.discover();
    NettyEngineTransport transport = new NettyEngineTransport(workers);
    Journal journal = journalPath == null ? Journal.none() : new JsonlJournal(journalPath, journalMeta(config));
    DisaggregatedRouter router = new DisaggregatedRouter(config, new Fleet(config.engines()),
        new EngineClient(transport, dialects), journal, Clock.systemUTC(), new SplittableRandom());
    HttpFrontEndOptions options = new HttpFrontEndOptions(
        host, port, config.serving().maxRequestBytes(), config.serving().maxResponseBytes());
    HttpFrontEnd http;
    try {
      http = HttpFrontEnd.start(options, router, boss, workers);
    } catch (RuntimeException e) {
      journal.close();
      transport.close();
      throw e;
    }
    log.info("narwhal serving model '{}' on http://{}:{} with {} engines", config.model(), host, http.port(),
        config.engines().size());
    return new RouterServer(boss, workers, ownsGroups, transport, journal, router, http);
  }

  private static Map<String, Object> journalMeta(FleetConfig config) {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("package", "narwhal-jvm");
    meta.put("version", RouterServer.class.getPackage().getImplementationVersion());
    meta.put("model", config.model());
    meta.put("engines", config.engines().stream().map(e -> e.iid()).toList());
    return meta;
  }

  public int port() {
    return http.port();
  }

  public DisaggregatedRouter router() {
    return router;
  }

  /** Open engine connections (pooled and in use). */
  public int engineConnections() {
    return transport.openConnections();
  }

  @Override
  public void close() {
    http.close();
    transport.close();
    journal.close();
    if (ownsGroups) {
      boss.shutdownGracefully();
      workers.shutdownGracefully();
    }
  }
}

package narwhal.cluster;


import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import narwhal.config.ClusterConfig;
import narwhal.core.control.RoleController;
import narwhal.core.health.HealthMonitor;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.profile.ProfilesDocument;
import narwhal.core.request.DisaggregatedRouter;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins a router to its replicas: the one entry the assembly calls when the fleet file has a
 * {@code cluster} section. It wires each shared view to the core hook it feeds (verdicts to the
 * breaker, the election and roles to the role controller, peers' load to the fleet, tenant
 * shares to admission, profiles to the binder, the status to readiness and {@code
 * /narwhal/state}) and starts joining.
 */
public final class Cluster implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Cluster.class);

  private final ClusterNode node;

  private Cluster(ClusterNode node) {
    this.node = node;
  }

  /**
   * Joins. Call before the breaker and the controller start. Waits (on the caller's thread, never
   * an event loop) up to {@code waitMillis} for the first join, so a replica that meets a key
   * layout it does not know fails its start saying why; one that cannot reach etcd yet starts
   * not ready and keeps trying.
   *
   * @param host the host this replica serves on (load datagrams are bound there)
   * @param port its HTTP port: the default name is {@code host:port}
   * @param installProfiles installs a profiles document found in etcd
   * @throws IllegalStateException when the replica refuses to join (an unknown key layout)
   */
  public static Cluster join(ClusterConfig config, String host, int port, String version,
      DisaggregatedRouter router, HealthMonitor health, RoleController controller,
      Consumer<ProfilesDocument> installProfiles, Scheduler loop, RouterMetrics routerMetrics, long waitMillis) {
    String advertised = advertisedHost(host);
    String name = config.name() != null ? config.name() : advertised + ":" + port;
    ClusterMetrics metrics = new ClusterMetrics(routerMetrics);
    EtcdStore store = JetcdStore.connect(config, loop, metrics);
    Map<String, Object> registration = new LinkedHashMap<>();
    registration.put("name", name);
    registration.put("address", advertised + ":" + port);
    registration.put("host", advertised);
    registration.put("version", version);
    registration.put("started_at", Clock.systemUTC().millis() / 1000.0);
    registration.put("pid", ProcessHandle.current().pid());
    ClusterNode node = new ClusterNode(config, name, registration, store, loop, Clock.systemUTC(), metrics);
    LoadExchange load;
    try {
      load = LoadExchange.start(router.fleet(), advertised, config.loadIntervalS(), config.leaseTtlS(), metrics);
    } catch (RuntimeException e) {
      store.close();
      throw new IllegalStateException("cluster: cannot open the load exchange's UDP socket on " + advertised + ": " + e,
          e);
    }
    VerdictSync verdicts = new VerdictSync(node, health);
    RoleSync roles = new RoleSync(node, controller);
    TenantShares tenants = new TenantShares(node, router.admission(), router.tenants().quotas());
    node.attach(verdicts, roles, tenants, new ProfileSync(installProfiles), load);
    health.shareVerdicts(verdicts);
    controller.decideThrough(roles);
    router.attachCluster(node);
    metrics.watch(routerMetrics, () -> node.members().size(), () -> roles.mayDecide() ? 1 : 0,
        () -> node.status() == ClusterNode.Status.DEGRADED ? 1 : 0);
    log.info("cluster: replica {} joining etcd {} under {} (lease {} s){}", name, config.endpoints(),
        config.keyPrefix(), config.leaseTtlS(), config.user() == null ? "" : " as user " + config.user());
    Cluster cluster = new Cluster(node);
    @Nullable String refused;
    try {
      refused = node.start().get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.warn("cluster: not joined within {} ms ({}); serving not ready until it joins", waitMillis,
          node.notReadyReason());
      refused = null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      refused = null;
    } catch (ExecutionException e) {
      refused = String.valueOf(e.getCause());
    }
    if (refused != null) {
      cluster.close();
      throw new IllegalStateException(refused);
    }
    return cluster;
  }

  /** The host peers reach this replica at: the serving host, or this machine's address for a wildcard. */
  static String advertisedHost(String host) {
    if (!host.equals("0.0.0.0") && !host.equals("::") && !host.isEmpty()) {
      return host;
    }
    try {
      return java.net.InetAddress.getLocalHost().getHostAddress();
    } catch (java.net.UnknownHostException e) {
      return "127.0.0.1";
    }
  }

  /** This replica's name among the replicas. */
  public String name() {
    return node.name();
  }

  /** Leaves: revokes the lease (freeing its election and tenant shares at once) and closes the client. */
  @Override
  public void close() {
    node.close();
  }

  /**
   * Writes a profiles document to the fleet's etcd so every replica installs it ({@code narwhal
   * profile} on a fleet with a {@code cluster} section). Blocks the calling (command) thread.
   *
   * @throws IllegalStateException when etcd cannot be written within the request timeout
   */
  public static void publishProfiles(ClusterConfig config, ProfilesDocument doc) {
    narwhal.time.Scheduler timers = new narwhal.time.Scheduler() {
      private final java.util.concurrent.ScheduledExecutorService exec =
          java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "narwhal-profile-publish");
            t.setDaemon(true);
            return t;
          });

      @Override
      public long nanoTime() {
        return System.nanoTime();
      }

      @Override
      public narwhal.time.Timer schedule(Runnable task, long delay, TimeUnit unit) {
        var f = exec.schedule(task, delay, unit);
        return () -> f.cancel(false);
      }

      @Override
      public boolean inLoop() {
        return false;
      }

      @Override
      public void execute(Runnable command) {
        exec.execute(command);
      }
    };
    try (EtcdStore store = JetcdStore.connect(config, timers, new ClusterMetrics(
        new RouterMetrics(new com.codahale.metrics.MetricRegistry(), narwhal.config.SloConfig.defaults())))) {
      ProfileSync.publish(store, new ClusterKeys(config.keyPrefix()), doc)
          .get(Math.round(config.requestTimeoutS() * 1000) + 500, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot write the profiles to etcd " + config.endpoints() + ": "
          + (e.getCause() == null ? e : e.getCause()), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing the profiles to etcd", e);
    }
  }
}

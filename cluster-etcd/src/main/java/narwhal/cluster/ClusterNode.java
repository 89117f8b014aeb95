package narwhal.cluster;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.config.ClusterConfig;
import narwhal.core.cluster.ClusterStatus;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's membership of the cluster: its lease, its registration, the one watch over the
 * fleet's keys that keeps every shared view current, and the cluster's status.
 *
 * <p>Joining: check the key layout (create it for the first replica; refuse an unknown one),
 * take a lease, register under {@code members/}, read every key once and apply it (roles,
 * verdicts, profiles, tenant shares, members, the leader), watch from the revision read, claim
 * tenant shares and run for the controller. Only then is the replica ready: a restarted replica
 * catches up before it takes traffic.
 *
 * <p>Afterwards it renews its lease every third of the TTL. When etcd stops answering (or answers
 * too slowly) the replica turns {@code degraded} with the reason — one log line and one counted
 * transition — and keeps serving on its last known state: readiness is unaffected, requests never
 * wait on etcd. When etcd answers again it reads everything again and re-applies it, writes the
 * verdicts it decided meanwhile, and, if its lease lapsed meanwhile, registers anew under a new
 * one (the election and the tenant shares with it). Nothing here needs a restart.
 *
 * <p>All state is confined to {@code loop} (the breaker's event loop, so verdicts, role moves and
 * the breaker's own decisions interleave in one order); the etcd client's callbacks hop onto it.
 * This class is over 400 lines because it is the one place the join, the lease and the watch
 * dispatch meet; the shared views themselves are in their own classes.
 */
public final class ClusterNode implements ClusterStatus, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ClusterNode.class);
  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  enum Status { JOINING, OK, DEGRADED, REFUSED }

  private final ClusterConfig config;
  private final ClusterKeys keys;
  private final EtcdStore store;
  private final Scheduler loop;
  private final Clock wallClock;
  private final ClusterMetrics metrics;
  private final String name;
  private final Map<String, Object> registration;
  private final long ttlNanos;
  private final long marginNanos;
  private final CompletableFuture<@Nullable String> firstJoin = new CompletableFuture<>();

  private @Nullable VerdictSync verdicts;
  private @Nullable RoleSync roles;
  private @Nullable TenantShares tenants;
  private @Nullable ProfileSync profiles;
  private @Nullable LoadExchange load;

  private volatile Status status = Status.JOINING;
  private volatile @Nullable String reason = "joining: not connected to etcd yet";
  private volatile boolean joinedOnce;
  private volatile long lease;
  /** When the last renewal that etcd confirmed was sent: the lease is certain until then plus the TTL less the margin. */
  private volatile long renewedSentNanos;
  private volatile Map<String, Member> members = Map.of();
  private boolean joining;
  /** A full re-read after an outage is under way (one at a time). */
  private boolean reconciling;
  /** The renewal timer runs (from the first lease on, whatever else fails). */
  private boolean renewing;
  private boolean closed;
  private @Nullable AutoCloseable watcher;
  private Timer keepAliveTimer = Timer.NONE;
  private Timer retryTimer = Timer.NONE;
  private Timer shareTimer = Timer.NONE;
  private static final long SHARE_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  ClusterNode(ClusterConfig config, String name, Map<String, Object> registration, EtcdStore store, Scheduler loop,
      Clock wallClock, ClusterMetrics metrics) {
    this.config = config;
    this.keys = new ClusterKeys(config.keyPrefix());
    this.store = store;
    this.loop = loop;
    this.wallClock = wallClock;
    this.metrics = metrics;
    this.name = name;
    this.registration = registration;
    this.ttlNanos = TimeUnit.SECONDS.toNanos(config.leaseTtlS());
    this.marginNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(200), ttlNanos / 10);
  }

  void attach(VerdictSync verdicts, RoleSync roles, TenantShares tenants, ProfileSync profiles, LoadExchange load) {
    this.verdicts = verdicts;
    this.roles = roles;
    this.tenants = tenants;
    this.profiles = profiles;
    this.load = load;
  }

  /** Starts joining; the future completes with null once joined, or with why the replica refused to join. */
  CompletableFuture<@Nullable String> start() {
    loop.runInLoop(this::join);
    return firstJoin;
  }

  // ---- what the shared views ask ----

  String name() {
    return name;
  }

  ClusterKeys keys() {
    return keys;
  }

  EtcdStore store() {
    return store;
  }

  Scheduler loop() {
    return loop;
  }

  ClusterMetrics metrics() {
    return metrics;
  }

  double wallSeconds() {
    return wallClock.millis() / 1000.0;
  }

  /** The current lease, 0 while this replica has none. */
  long lease() {
    return lease;
  }

  /** True once joined under the current lease (writes can go out). */
  boolean joined() {
    return lease != 0 && (status == Status.OK || status == Status.DEGRADED);
  }

  /** True while etcd answers (joined and not degraded). */
  boolean reachable() {
    return status == Status.OK;
  }

  /**
   * True while this replica's lease is certainly still alive at etcd: the last confirmed renewal
   * was sent less than the TTL (less a margin) ago. etcd can expire the lease only after that, so a
   * replica that acts only while this holds never overlaps with a successor.
   */
  boolean leaseCertain() {
    return lease != 0 && loop.nanoTime() - renewedSentNanos < ttlNanos - marginNanos;
  }

  boolean isMember(String replica) {
    return members.containsKey(replica);
  }

  int memberCount() {
    return Math.max(1, members.size());
  }

  Map<String, Member> members() {
    return members;
  }

  /** Whether this replica probes engines whose deciding replica is gone: the leader, else the first live name. */
  boolean isProbeFallback() {
    RoleSync r = roles;
    String leader = r == null ? null : r.leader();
    if (leader != null && members.containsKey(leader)) {
      return leader.equals(name);
    }
    return members.isEmpty() || new TreeMap<>(members).firstKey().equals(name);
  }

  /** An etcd request failed: the cluster is degraded until etcd answers again. */
  void failed(String what, Throwable error) {
    if (closed) {
      return;
    }
    Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
        ? error.getCause() : error;
    String why = (cause instanceof java.util.concurrent.TimeoutException ? "etcd slow or unreachable: "
        : "etcd unreachable: ") + what + ": " + ClusterJson.clip(cause.getMessage() == null
            ? cause.getClass().getSimpleName() : cause.getMessage(), 200);
    if (status == Status.OK) {
      status = Status.DEGRADED;
      reason = why;
      metrics.transition("degraded");
      log.warn("cluster degraded: {}; serving on the last known state", why);
    } else if (status == Status.JOINING) {
      reason = "joining: " + why;
    }
  }

  // ---- joining ----

  private void join() {
    if (closed || joining || status == Status.REFUSED) {
      return;
    }
    joining = true;
    store.range(keys.layout()).whenComplete((snapshot, error) -> loop.execute(() -> {
      if (error != null) {
        joinFailed("reading the key layout", error);
        return;
      }
      String found = snapshot.kvs().isEmpty() ? null : snapshot.kvs().get(0).value();
      if (found == null) {
        createLayout();
      } else if (!found.equals(ClusterKeys.LAYOUT_VERSION)) {
        refuse("etcd holds key layout " + ClusterJson.clip(found, 20) + " under " + config.keyPrefix()
            + "; this build knows layout " + ClusterKeys.LAYOUT_VERSION + " only: upgrade this replica to the "
            + "version the others run, or give this fleet another cluster.key_prefix");
      } else {
        takeLease();
      }
    }));
  }

  private void createLayout() {
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    store.txn(List.of(EtcdStore.Cond.created(keys.layout(), 0)),
            List.of(EtcdStore.Write.put(keys.layout(), ClusterKeys.LAYOUT_VERSION, 0),
                EtcdStore.Write.put(keys.secret(), Base64.getEncoder().encodeToString(secret), 0)))
        .whenComplete((r, error) -> loop.execute(() -> {
          if (error != null) {
            joinFailed("creating the key layout", error);
          } else {
            if (r.succeeded()) {
              log.info("cluster: created key layout {} under {}", ClusterKeys.LAYOUT_VERSION, config.keyPrefix());
            }
            joining = false;
            join(); // read it back: another replica may have created it first
          }
        }));
  }

  private void takeLease() {
    long sent = loop.nanoTime();
    store.grant(config.leaseTtlS()).whenComplete((id, error) -> loop.execute(() -> {
      if (error != null) {
        joinFailed("taking a lease", error);
        return;
      }
      lease = id;
      renewedSentNanos = sent;
      Map<String, Object> me = new LinkedHashMap<>(registration);
      if (load != null) {
        me.put("load_port", load.port());
      }
      store.put(keys.member(name), ClusterJson.write(me), id).whenComplete((rev, putError) -> loop.execute(() -> {
        if (putError != null) {
          joinFailed("registering this replica", putError);
        } else {
          readAll(true);
        }
      }));
    }));
  }

  /** Reads every key, applies it, and watches from there (the join's last step, and each reconcile). */
  private void readAll(boolean joiningNow) {
    if (!joiningNow) {
      if (reconciling) {
        return;
      }
      reconciling = true;
    }
    store.range(keys.all()).whenComplete((snapshot, error) -> loop.execute(() -> {
      if (!joiningNow) {
        reconciling = false;
      }
      if (closed) {
        return;
      }
      if (error != null) {
        if (joiningNow) {
          joinFailed("reading the shared state", error);
        } else {
          failed("reading the shared state", error);
          scheduleRetry(() -> readAll(false));
        }
        return;
      }
      apply(snapshot);
      tenants().settle();
      watchFrom(snapshot.revision() + 1);
      boolean wasDegraded = status != Status.OK;
      status = Status.OK;
      reason = null;
      joining = false;
      if (joiningNow && !joinedOnce) {
        joinedOnce = true;
        log.info("cluster: replica {} joined ({} live replicas, etcd revision {})", name, members.size(),
            snapshot.revision());
      } else if (wasDegraded) {
        metrics.transition("ok");
        log.info("cluster ok: etcd answers again; shared state read anew (revision {})", snapshot.revision());
      }
      verdicts().flushUnsent();
      tenants().claimAll();
      tenants().reconcile();
      roles().campaign();
      if (!renewing) {
        renewing = true;
        scheduleKeepAlive(ttlNanos / 3);
      }
      if (joiningNow && tenants().any()) {
        scheduleShareTick();
      }
      firstJoin.complete(null);
    }));
  }

  private void joinFailed(String what, Throwable error) {
    joining = false;
    failed(what, error);
    scheduleRetry(this::join);
  }

  private void refuse(String why) {
    joining = false;
    status = Status.REFUSED;
    reason = "refused to join the cluster: " + why;
    log.error("cluster: {}", reason);
    firstJoin.complete(reason);
  }

  private void scheduleRetry(Runnable what) {
    retryTimer.cancel();
    if (!closed) {
      retryTimer = loop.schedule(what, RETRY_NANOS, TimeUnit.NANOSECONDS);
    }
  }

  private void scheduleShareTick() {
    shareTimer.cancel();
    if (!closed) {
      shareTimer = loop.schedule(() -> {
        if (joined()) {
          tenants().tick();
        }
        scheduleShareTick();
      }, SHARE_TICK_NANOS, TimeUnit.NANOSECONDS);
    }
  }

  // ---- the lease ----

  private void scheduleKeepAlive(long inNanos) {
    keepAliveTimer.cancel();
    if (!closed) {
      keepAliveTimer = loop.schedule(this::keepAlive, inNanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Renews the lease, then schedules the next renewal whatever happened: a third of the TTL after
   * a confirmed one, sooner after a failure. Nothing else (a re-read failing, a join retrying)
   * stops the renewals while this replica holds a lease.
   */
  private void keepAlive() {
    long id = lease;
    if (closed) {
      return;
    }
    if (id == 0) {
      renewing = false; // a new lease (rejoin) starts them again
      return;
    }
    long sent = loop.nanoTime();
    store.keepAlive(id).whenComplete((ttl, error) -> loop.execute(() -> {
      if (closed) {
        return;
      }
      if (lease != id) {
        keepAlive();
        return;
      }
      if (error != null) {
        failed("renewing the lease", error);
        scheduleKeepAlive(Math.min(RETRY_NANOS, ttlNanos / 3));
        return;
      }
      if (ttl <= 0) {
        renewing = false;
        sessionLost();
        return;
      }
      renewedSentNanos = sent;
      scheduleKeepAlive(ttlNanos / 3);
      if (status == Status.DEGRADED) {
        readAll(false); // etcd is back: reconcile everything it may have changed meanwhile
      }
    }));
  }

  /** The lease lapsed at etcd (this replica was paused or cut off too long): register anew. */
  private void sessionLost() {
    log.warn("cluster: this replica's lease lapsed in etcd; registering again under a new lease");
    metrics.leaseLost();
    lease = 0;
    roles().sessionLost();
    tenants().sessionLost();
    if (status == Status.OK) {
      status = Status.DEGRADED;
      reason = "lease lapsed: registering again";
      metrics.transition("degraded");
    }
    joining = false;
    join();
  }

  // ---- the watch ----

  private void watchFrom(long revision) {
    closeWatch();
    watcher = store.watch(keys.all(), revision, new EtcdStore.WatchListener() {
      @Override
      public void onEvents(List<EtcdStore.Event> events) {
        loop.execute(() -> {
          events.forEach(ClusterNode.this::dispatch);
          tenants().settle();
        });
      }

      @Override
      public void onError(Throwable error) {
        loop.execute(() -> {
          failed("watching the shared state", error);
          scheduleRetry(() -> readAll(false));
        });
      }
    });
  }

  private void closeWatch() {
    AutoCloseable w = watcher;
    watcher = null;
    if (w != null) {
      try {
        w.close();
      } catch (Exception e) {
        log.debug("closing the watch", e);
      }
    }
  }

  private void apply(EtcdStore.Snapshot snapshot) {
    Map<String, Member> seen = new LinkedHashMap<>();
    tenants().snapshot(snapshot.kvs(), snapshot.revision());
    boolean leaderSeen = false;
    for (EtcdStore.Kv kv : snapshot.kvs()) {
      if (keys.tenantOf(kv.key()) != null) {
        continue; // applied above, as one read
      }
      String member = ClusterKeys.child(kv.key(), keys.members());
      if (member != null) {
        Member m = Member.parse(member, kv.value(), kv.lease());
        if (m != null) {
          seen.put(member, m);
        }
        continue;
      }
      leaderSeen |= kv.key().equals(keys.leader());
      dispatch(new EtcdStore.Event(true, kv));
    }
    setMembers(seen);
    if (!leaderSeen) {
      roles().onLeaderGone();
    }
  }

  private void dispatch(EtcdStore.Event e) {
    EtcdStore.Kv kv = e.kv();
    String key = kv.key();
    String member = ClusterKeys.child(key, keys.members());
    if (member != null) {
      Map<String, Member> next = new LinkedHashMap<>(members);
      Member m = e.put() ? Member.parse(member, kv.value(), kv.lease()) : null;
      if (m != null) {
        next.put(member, m);
      } else {
        next.remove(member);
        if (member.equals(name) && lease != 0 && !e.put()) {
          log.warn("cluster: this replica's registration was deleted; registering again");
        }
      }
      setMembers(next);
      return;
    }
    if (key.equals(keys.leader())) {
      if (e.put()) {
        roles().onLeader(ClusterJson.clip(kv.value(), 100), kv.createRevision());
      } else {
        roles().onLeaderGone();
      }
      return;
    }
    String iid = ClusterKeys.child(key, keys.verdicts());
    if (iid != null) {
      if (e.put()) {
        verdicts().onStored(iid, kv.value(), kv.modRevision());
      }
      return;
    }
    iid = ClusterKeys.child(key, keys.roles());
    if (iid != null) {
      if (e.put()) {
        roles().onRole(iid, kv.value());
      }
      return;
    }
    String tenant = keys.tenantOf(key);
    if (tenant != null) {
      tenants().onStored(tenant, key, e.put() ? kv.value() : null, kv.modRevision());
      return;
    }
    if (key.equals(keys.profiles()) && e.put() && profiles != null) {
      profiles.onStored(kv.value());
    } else if (key.equals(keys.secret()) && e.put() && load != null) {
      load.secret(kv.value());
    }
  }

  private void setMembers(Map<String, Member> next) {
    boolean selfGone = lease != 0 && members.containsKey(name) && !next.containsKey(name);
    members = Map.copyOf(next);
    if (load != null) {
      load.members(members, name);
    }
    if (selfGone && status == Status.OK) {
      // Our own key went without our lease lapsing (an operator deleted it): put it back.
      Map<String, Object> me = new LinkedHashMap<>(registration);
      if (load != null) {
        me.put("load_port", load.port());
      }
      store.put(keys.member(name), ClusterJson.write(me), lease);
    }
  }

  // ---- ClusterStatus ----

  @Override
  public @Nullable String notReadyReason() {
    if (status == Status.REFUSED) {
      return reason;
    }
    if (!joinedOnce) {
      String r = reason;
      return "cluster " + (r == null ? "joining" : r);
    }
    return null;
  }

  @Override
  public Map<String, Object> state() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("status", status.name().toLowerCase(java.util.Locale.ROOT));
    m.put("reason", reason);
    m.put("replica", name);
    RoleSync r = roles;
    m.put("leader", r == null ? null : r.leader());
    m.put("controller", r != null && r.mayDecide() ? "leading" : "following");
    m.put("lease_ttl_s", config.leaseTtlS());
    m.put("lease_certain", leaseCertain());
    List<Map<String, Object>> live = new ArrayList<>();
    new TreeMap<>(members).values().forEach(mem -> live.add(mem.toState()));
    m.put("members", live);
    if (tenants != null && tenants.any()) {
      m.put("tenant_shares", tenants.state());
    }
    if (load != null) {
      m.put("peer_load_age_s", load.ages());
    }
    return m;
  }

  Status status() {
    return status;
  }

  @Override
  public void close() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    loop.runInLoop(() -> {
      closed = true;
      keepAliveTimer.cancel();
      retryTimer.cancel();
      shareTimer.cancel();
      closeWatch();
      long id = lease;
      lease = 0;
      if (id != 0) {
        // Leaving: revoking the lease frees this replica's shares and its election at once.
        store.revoke(id).whenComplete((v, e) -> done.complete(null));
      } else {
        done.complete(null);
      }
    });
    try {
      done.get(Math.max(200, Math.round(config.requestTimeoutS() * 1000)) + 200, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      log.debug("cluster: leaving without revoking the lease", e);
    }
    if (load != null) {
      load.close();
    }
    store.close();
  }

  private VerdictSync verdicts() {
    return java.util.Objects.requireNonNull(verdicts, "not attached");
  }

  private RoleSync roles() {
    return java.util.Objects.requireNonNull(roles, "not attached");
  }

  private TenantShares tenants() {
    return java.util.Objects.requireNonNull(tenants, "not attached");
  }
}

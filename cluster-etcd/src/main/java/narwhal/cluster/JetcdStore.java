package narwhal.cluster;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;
import narwhal.config.ClusterConfig;
import narwhal.time.Scheduler;
import narwhal.time.Timer;

/**
 * {@link EtcdStore} over jetcd. Each request is counted ({@link ClusterMetrics#etcdRequest}) and
 * bounded by {@code cluster.request_timeout_s} on the injected scheduler: a slow etcd fails the
 * call, it never holds a caller. jetcd's own retries are kept short for the same reason, while its
 * watches resume by themselves after an outage from the last revision they delivered.
 */
final class JetcdStore implements EtcdStore {

  private final Client client;
  private final Scheduler timers;
  private final long timeoutNanos;
  private final ClusterMetrics metrics;

  private JetcdStore(Client client, Scheduler timers, long timeoutNanos, ClusterMetrics metrics) {
    this.client = client;
    this.timers = timers;
    this.timeoutNanos = timeoutNanos;
    this.metrics = metrics;
  }

  /** A client for {@code config}'s endpoints, credentials and TLS; it connects lazily. */
  static JetcdStore connect(ClusterConfig config, Scheduler timers, ClusterMetrics metrics) {
    ClientBuilder b = Client.builder()
        .endpoints(config.endpoints().toArray(java.net.URI[]::new))
        .connectTimeout(Duration.ofMillis(Math.max(100, Math.round(config.requestTimeoutS() * 1000))))
        // Fail fast while etcd is away: the router serves on what it knows, it never waits.
        .waitForReady(false)
        .retryMaxAttempts(1)
        .retryDelay(50)
        .retryMaxDelay(200)
        .retryMaxDuration(Duration.ofMillis(Math.max(100, Math.round(config.requestTimeoutS() * 1000))))
        .keepaliveTime(Duration.ofSeconds(10))
        .keepaliveTimeout(Duration.ofSeconds(3));
    if (config.user() != null) {
      b.user(bytes(config.user())).password(bytes(config.password().reveal()));
    }
    if (config.tls() || config.caBundle() != null || config.clientCert() != null) {
      try {
        b.sslContext(ssl -> {
          if (config.caBundle() != null) {
            ssl.trustManager(config.caBundle().toFile());
          }
          if (config.clientCert() != null && config.clientKey() != null) {
            ssl.keyManager(config.clientCert().toFile(), config.clientKey().toFile());
          }
        });
      } catch (SSLException e) {
        throw new IllegalArgumentException("cluster.tls cannot be used: " + e.getMessage(), e);
      }
    }
    return new JetcdStore(b.build(), timers, Math.round(config.requestTimeoutS() * 1e9), metrics);
  }

  @Override
  public CompletableFuture<Snapshot> range(String prefix) {
    return call("range", () -> client.getKVClient()
        .get(bytes(prefix), GetOption.builder().isPrefix(true).build())
        .thenApply(JetcdStore::snapshot));
  }

  @Override
  public CompletableFuture<Long> put(String key, String value, long lease) {
    PutOption option = lease == 0 ? PutOption.DEFAULT : PutOption.builder().withLeaseId(lease).build();
    return call("put", () -> client.getKVClient().put(bytes(key), bytes(value), option)
        .thenApply(r -> r.getHeader().getRevision()));
  }

  @Override
  public CompletableFuture<TxnResult> txn(List<Cond> conditions, List<Write> writes) {
    Cmp[] cmps = conditions.stream().map(JetcdStore::cmp).toArray(Cmp[]::new);
    Op[] ops = writes.stream().map(JetcdStore::op).toArray(Op[]::new);
    return call("txn", () -> client.getKVClient().txn().If(cmps).Then(ops).commit()
        .thenApply(r -> new TxnResult(r.isSucceeded(), r.getHeader().getRevision())));
  }

  @Override
  public CompletableFuture<Long> grant(long ttlSeconds) {
    return call("lease_grant", () -> client.getLeaseClient().grant(ttlSeconds).thenApply(r -> r.getID()));
  }

  @Override
  public CompletableFuture<Long> keepAlive(long lease) {
    return call("lease_keepalive", () -> client.getLeaseClient().keepAliveOnce(lease)
        .thenApply(r -> r.getTTL())
        .exceptionally(e -> {
          if (gone(e)) {
            return 0L;
          }
          throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
        }));
  }

  @Override
  public CompletableFuture<Void> revoke(long lease) {
    return call("lease_revoke", () -> client.getLeaseClient().revoke(lease).thenApply(r -> null));
  }

  @Override
  public AutoCloseable watch(String prefix, long fromRevision, WatchListener listener) {
    metrics.etcdRequest("watch");
    WatchOption option = WatchOption.builder().isPrefix(true).withRevision(fromRevision).build();
    Watch.Watcher watcher = client.getWatchClient().watch(bytes(prefix), option, Watch.listener(response -> {
      List<Event> events = new ArrayList<>(response.getEvents().size());
      for (WatchEvent e : response.getEvents()) {
        events.add(new Event(e.getEventType() == WatchEvent.EventType.PUT, kv(e.getKeyValue())));
      }
      if (!events.isEmpty()) {
        listener.onEvents(events);
      }
    }, listener::onError));
    return watcher::close;
  }

  @Override
  public void close() {
    client.close();
  }

  /** Counts the request and fails it after the request timeout, whatever the client does. */
  private <T> CompletableFuture<T> call(String op, Supplier<CompletableFuture<T>> request) {
    metrics.etcdRequest(op);
    CompletableFuture<T> result = new CompletableFuture<>();
    Timer timer = timers.schedule(() -> result.completeExceptionally(
        new TimeoutException("etcd " + op + " took longer than " + timeoutNanos / 1_000_000 + " ms")),
        timeoutNanos, TimeUnit.NANOSECONDS);
    CompletableFuture<T> sent;
    try {
      sent = request.get();
    } catch (RuntimeException e) {
      timer.cancel();
      result.completeExceptionally(e);
      return result;
    }
    sent.whenComplete((value, error) -> {
      timer.cancel();
      if (error != null) {
        result.completeExceptionally(error);
      } else {
        result.complete(value);
      }
    });
    return result;
  }

  /** A lease the server no longer has (expired or revoked): not an outage. */
  private static boolean gone(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof io.etcd.jetcd.lease.NoSuchLeaseException
          || String.valueOf(t.getMessage()).contains("requested lease not found")) {
        return true;
      }
    }
    return false;
  }

  private static Snapshot snapshot(GetResponse r) {
    List<Kv> kvs = new ArrayList<>(r.getKvs().size());
    for (KeyValue kv : r.getKvs()) {
      kvs.add(kv(kv));
    }
    return new Snapshot(kvs, r.getHeader().getRevision());
  }

  private static Kv kv(KeyValue kv) {
    return new Kv(kv.getKey().toString(StandardCharsets.UTF_8), kv.getValue().toString(StandardCharsets.UTF_8),
        kv.getCreateRevision(), kv.getModRevision(), kv.getLease());
  }

  private static Cmp cmp(Cond c) {
    CmpTarget<?> target = c.target() == Cond.Target.CREATE_REVISION
        ? CmpTarget.createRevision(c.expected()) : CmpTarget.modRevision(c.expected());
    return new Cmp(bytes(c.key()), Cmp.Op.EQUAL, target);
  }

  private static Op op(Write w) {
    if (w.value() == null) {
      return Op.delete(bytes(w.key()), DeleteOption.DEFAULT);
    }
    PutOption option = w.lease() == 0 ? PutOption.DEFAULT : PutOption.builder().withLeaseId(w.lease()).build();
    return Op.put(bytes(w.key()), bytes(w.value()), option);
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}

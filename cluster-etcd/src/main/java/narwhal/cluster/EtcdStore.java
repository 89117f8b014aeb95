package narwhal.cluster;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The few etcd operations the replicas use, in the cluster's own types so nothing past {@link
 * JetcdStore} sees the client library. Every call is asynchronous and bounded by {@code
 * cluster.request_timeout_s}; results complete on the client's threads, so callers hop back onto
 * their own loop before touching state. Keys and values are UTF-8 strings.
 */
interface EtcdStore extends AutoCloseable {

  /** One key as read. {@code lease} is 0 for a key that lives until deleted. */
  record Kv(String key, String value, long createRevision, long modRevision, long lease) {}

  /** Keys read at one revision of the store. */
  record Snapshot(List<Kv> kvs, long revision) {}

  /** A change seen by a watch: a put (the key's new value) or a delete (empty value). */
  record Event(boolean put, Kv kv) {}

  /** A transaction's outcome and the store's revision after it. */
  record TxnResult(boolean succeeded, long revision) {}

  /** A condition of a transaction. */
  record Cond(String key, Target target, long expected) {
    enum Target { CREATE_REVISION, MOD_REVISION }

    /** The key was created at {@code revision} (0: the key does not exist). */
    static Cond created(String key, long revision) {
      return new Cond(key, Target.CREATE_REVISION, revision);
    }

    /** The key was last written at {@code revision} (0: the key does not exist). */
    static Cond modified(String key, long revision) {
      return new Cond(key, Target.MOD_REVISION, revision);
    }
  }

  /** A write of a transaction: a put (with a lease, or 0) or, with a null value, a delete. */
  record Write(String key, @org.jspecify.annotations.Nullable String value, long lease) {
    static Write put(String key, String value, long lease) {
      return new Write(key, value, lease);
    }
  }

  /** What a watch reports, on the client's threads. */
  interface WatchListener {
    void onEvents(List<Event> events);

    /** The watch ended for good (a compacted revision, a closed client); the caller re-reads and watches again. */
    void onError(Throwable error);
  }

  CompletableFuture<Snapshot> range(String prefix);

  CompletableFuture<Long> put(String key, String value, long lease);

  CompletableFuture<TxnResult> txn(List<Cond> conditions, List<Write> writes);

  CompletableFuture<Long> grant(long ttlSeconds);

  /** Renews the lease once; completes with the TTL granted, 0 or less when the lease is gone. */
  CompletableFuture<Long> keepAlive(long lease);

  CompletableFuture<Void> revoke(long lease);

  /** Watches every key under {@code prefix} from {@code fromRevision}; close the result to stop. */
  AutoCloseable watch(String prefix, long fromRevision, WatchListener listener);

  @Override
  void close();
}

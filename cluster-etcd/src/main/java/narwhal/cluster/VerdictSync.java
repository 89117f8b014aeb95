package narwhal.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.health.EngineVerdict;
import narwhal.core.health.HealthMonitor;
import narwhal.core.health.VerdictBus;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Engine verdicts, fleet-wide. Each breaker decision of this replica is written to {@code
 * verdicts/<iid>}; every replica applies the verdicts it sees through its watch, so an ejection
 * on one replica reaches placement on all within one watch delivery. The store's revision order
 * decides between two replicas deciding about one engine at once: while this replica's own write
 * for an engine is in flight, others' verdicts for it wait, and only those written after it apply.
 *
 * <p>Readmission probes: exactly one replica probes an engine that is out — the one whose verdict
 * took it out while it is alive, else the elected controller (else the first live replica by
 * name). While etcd cannot be reached each replica probes what it took out itself.
 *
 * <p>Confined to the cluster's loop (the breaker's), except {@link #probesHere}, read on it too.
 */
final class VerdictSync implements VerdictBus {

  private static final Logger log = LoggerFactory.getLogger(VerdictSync.class);

  /** The latest verdict known for one engine: who decided and at which revision (0: not stored yet). */
  private record Known(EngineVerdict verdict, String by, long revision) {}

  private final ClusterNode node;
  private final HealthMonitor health;
  private final Map<String, Known> known = new HashMap<>();
  /** Own writes in flight, by engine, with the others' events that wait behind them. */
  private final Map<String, List<Known>> inFlight = new HashMap<>();
  /** Own verdicts not yet written (etcd unreachable, or not joined yet): the latest per engine. */
  private final Map<String, EngineVerdict> unsent = new LinkedHashMap<>();

  VerdictSync(ClusterNode node, HealthMonitor health) {
    this.node = node;
    this.health = health;
  }

  @Override
  public void publish(EngineVerdict verdict) {
    node.loop().runInLoop(() -> {
      known.put(verdict.iid(), new Known(verdict, node.name(), 0));
      write(verdict);
    });
  }

  @Override
  public boolean probesHere(String iid) {
    if (!node.reachable()) {
      Known k = known.get(iid);
      return k == null || k.by().equals(node.name());
    }
    Known k = known.get(iid);
    if (k == null || k.by().equals(node.name())) {
      return true;
    }
    if (node.isMember(k.by())) {
      return false;
    }
    return node.isProbeFallback();
  }

  /** Writes the verdicts decided while etcd could not be reached (after a rejoin or recovery). */
  void flushUnsent() {
    List<EngineVerdict> pending = new ArrayList<>(unsent.values());
    unsent.clear();
    pending.forEach(this::write);
  }

  private void write(EngineVerdict verdict) {
    String iid = verdict.iid();
    if (!node.joined()) {
      unsent.put(iid, verdict);
      return;
    }
    inFlight.putIfAbsent(iid, new ArrayList<>());
    node.store().put(node.keys().verdict(iid), encode(verdict), 0).whenComplete((revision, error) ->
        node.loop().execute(() -> {
          List<Known> waiting = inFlight.remove(iid);
          if (error != null) {
            unsent.put(iid, verdict);
            node.failed("writing verdict for " + iid, error);
          } else {
            node.metrics().verdictPublished();
            Known mine = known.get(iid);
            if (mine != null && mine.verdict() == verdict) {
              known.put(iid, new Known(verdict, node.name(), revision));
            }
          }
          long after = error == null ? revision : 0;
          if (waiting != null) {
            for (Known k : waiting) {
              if (k.revision() > after) {
                apply(k);
              }
            }
          }
        }));
  }

  /** A verdict seen in etcd (watch or snapshot). */
  void onStored(String iid, String value, long revision) {
    JsonNode v = ClusterJson.object(value);
    if (v == null) {
      log.warn("cluster: ignoring an unreadable verdict for engine {} in etcd", iid);
      return;
    }
    EngineCondition condition = condition(ClusterJson.text(v, "condition"));
    String by = ClusterJson.text(v, "by");
    if (condition == null || by == null) {
      log.warn("cluster: ignoring a verdict for engine {} without a valid condition or author", iid);
      return;
    }
    EngineVerdict verdict = new EngineVerdict(iid, condition, ClusterJson.text(v, "cause"),
        ClusterJson.text(v, "producer_iid"), ClusterJson.clip(ClusterJson.text(v, "detail"), 500));
    Known k = new Known(verdict, by, revision);
    List<Known> waiting = inFlight.get(iid);
    if (waiting != null) {
      waiting.add(k);
      return;
    }
    if (unsent.containsKey(iid)) {
      return; // this replica's later decision is on its way and will overwrite it
    }
    Known before = known.get(iid);
    if (before != null && before.revision() >= revision) {
      return;
    }
    apply(k);
  }

  private void apply(Known k) {
    known.put(k.verdict().iid(), k);
    if (!k.by().equals(node.name())) {
      node.metrics().verdictApplied();
      health.applyShared(k.verdict(), k.by());
    }
  }

  /** Who took {@code iid} out, or null; for {@code /narwhal/state}. */
  @Nullable String decidedBy(String iid) {
    Known k = known.get(iid);
    return k == null ? null : k.by();
  }

  private String encode(EngineVerdict v) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("condition", v.condition().wireName());
    m.put("cause", v.cause());
    m.put("producer_iid", v.producerIid());
    m.put("detail", ClusterJson.clip(v.detail(), 500));
    m.put("by", node.name());
    m.put("at", node.wallSeconds());
    return ClusterJson.write(m);
  }

  private static @Nullable EngineCondition condition(@Nullable String wire) {
    for (EngineCondition c : EngineCondition.values()) {
      if (Objects.equals(c.wireName(), wire)) {
        return c;
      }
    }
    return null;
  }
}

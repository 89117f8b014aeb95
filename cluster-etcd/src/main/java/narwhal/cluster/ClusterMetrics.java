package narwhal.cluster;

import com.codahale.metrics.Counter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import narwhal.core.metrics.RouterMetrics;

/**
 * The cluster's metrics (docs/operations.md, "Running several routers"): etcd requests by
 * operation (the bench divides them by client requests), the live replicas, whether this replica
 * leads the role controller, degraded state and its transitions, verdicts and role moves shared,
 * and the load packets exchanged. Every counter series exists at zero from the start; no label
 * takes a value from outside the fleet file (replica names are not labels).
 */
final class ClusterMetrics {

  static final List<String> OPS = List.of("range", "put", "txn", "lease_grant", "lease_keepalive", "lease_revoke",
      "watch");

  private final Map<String, Counter> requests = new LinkedHashMap<>();
  private final Map<String, Counter> transitions = new LinkedHashMap<>();
  private final Counter verdictsPublished;
  private final Counter verdictsApplied;
  private final Counter movesApplied;
  private final Counter leasesLost;
  private final Map<String, Counter> packets = new LinkedHashMap<>();

  ClusterMetrics(RouterMetrics metrics) {
    for (String op : OPS) {
      requests.put(op, metrics.counter("narwhal_cluster_etcd_requests_total",
          "Requests this replica sent to etcd, by operation (a watch counts once, when it starts).", "op", op));
    }
    for (String to : List.of("ok", "degraded")) {
      transitions.put(to, metrics.counter("narwhal_cluster_transitions_total",
          "Changes of this replica's cluster status, by the status entered.", "to", to));
    }
    verdictsPublished = metrics.counter("narwhal_cluster_verdicts_total",
        "Engine verdicts shared through etcd: published by this replica, or applied from another.",
        "direction", "published");
    verdictsApplied = metrics.counter("narwhal_cluster_verdicts_total",
        "Engine verdicts shared through etcd: published by this replica, or applied from another.",
        "direction", "applied");
    movesApplied = metrics.counter("narwhal_cluster_role_moves_applied_total",
        "Role moves the elected controller of another replica committed, applied here.");
    leasesLost = metrics.counter("narwhal_cluster_leases_lost_total",
        "Times this replica's lease lapsed in etcd while it ran (it could not renew for a TTL) and it registered "
            + "again: its election and tenant shares lapsed with it.");
    for (String result : List.of("sent", "received", "rejected")) {
      packets.put(result, metrics.counter("narwhal_cluster_load_packets_total",
          "Load packets exchanged with the other replicas: sent, received (applied), rejected (malformed, "
              + "unauthenticated, stale or from no live replica).", "result", result));
    }
  }

  /** Registers the gauges that read the node's live state. */
  void watch(RouterMetrics metrics, Supplier<Number> members, Supplier<Number> leading, Supplier<Number> degraded) {
    metrics.gauge("narwhal_cluster_members", "Live router replicas registered in etcd (this one included).",
        members);
    metrics.gauge("narwhal_cluster_leader", "1 while this replica is the elected role controller, else 0.", leading);
    metrics.gauge("narwhal_cluster_degraded",
        "1 while this replica cannot reach etcd and serves on its last known state, else 0.", degraded);
  }

  void etcdRequest(String op) {
    Counter c = requests.get(op);
    if (c != null) {
      c.inc();
    }
  }

  void transition(String to) {
    Counter c = transitions.get(to);
    if (c != null) {
      c.inc();
    }
  }

  void verdictPublished() {
    verdictsPublished.inc();
  }

  void verdictApplied() {
    verdictsApplied.inc();
  }

  void leaseLost() {
    leasesLost.inc();
  }

  void moveApplied() {
    movesApplied.inc();
  }

  void packet(String result) {
    Counter c = packets.get(result);
    if (c != null) {
      c.inc();
    }
  }
}

package narwhal.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineRole;
import narwhal.core.control.RoleAuthority;
import narwhal.core.control.RoleController;
import narwhal.core.fleet.RoleMove;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The elected role controller and the roles, fleet-wide.
 *
 * <p>Election: a replica becomes leader by creating {@code leader} under its own lease (a
 * transaction that succeeds only while the key does not exist); the others learn the leader from
 * their watch and try again when the key goes (its holder's lease lapsed or it left).
 *
 * <p>Fencing, two ways: a leader decides only while its lease is certainly still valid — the
 * last renewal it sent plus the TTL less a safety margin ({@link ClusterNode#leaseCertain}),
 * which is always before etcd can expire the lease and so before anyone else can be elected — and
 * every move is a transaction conditioned on the leader key still being the one it created, so a
 * paused or cut-off former leader's write fails even if it tries.
 *
 * <p>Roles: each committed move is {@code roles/<iid>}; every replica applies what it sees,
 * the leader included (its own commit is applied by the controller at once, the echo changes
 * nothing). Confined to the cluster's loop.
 */
final class RoleSync implements RoleAuthority {

  private static final Logger log = LoggerFactory.getLogger(RoleSync.class);

  private final ClusterNode node;
  private final RoleController controller;
  private volatile @Nullable String leader;
  /** The create revision of the leader key this replica holds; 0 while it does not lead. */
  private volatile long myTerm;
  private boolean campaigning;

  RoleSync(ClusterNode node, RoleController controller) {
    this.node = node;
    this.controller = controller;
  }

  @Override
  public boolean mayDecide() {
    return myTerm != 0 && node.leaseCertain();
  }

  @Override
  public @Nullable String followingReason() {
    String l = leader;
    if (myTerm != 0) {
      return "this replica's lease is not certain (etcd unreachable for too long)";
    }
    return l == null ? "no controller elected yet" : "replica " + l + " is the elected controller";
  }

  @Override
  public CompletableFuture<Boolean> commit(RoleMove move) {
    long term = myTerm;
    if (term == 0 || !node.leaseCertain()) {
      return CompletableFuture.completedFuture(false);
    }
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("role", move.to().configName());
    v.put("from", move.from().configName());
    v.put("rule", move.rule());
    v.put("reversal", move.reversal());
    v.put("by", node.name());
    v.put("term", term);
    v.put("at", move.atEpochSeconds());
    return node.store().txn(List.of(EtcdStore.Cond.created(node.keys().leader(), term)),
            List.of(EtcdStore.Write.put(node.keys().role(move.iid()), ClusterJson.write(v), 0)))
        .thenApply(r -> {
          if (!r.succeeded()) {
            node.loop().execute(() -> lostTerm(term, "the leader key is no longer this replica's"));
          }
          return r.succeeded();
        });
  }

  /** True while this replica holds the election (its lease may still need to be certain to decide). */
  boolean leads() {
    return myTerm != 0;
  }

  @Nullable String leader() {
    return leader;
  }

  /** Tries to become the leader (after joining, and whenever the leader key goes). */
  void campaign() {
    long lease = node.lease();
    if (campaigning || lease == 0 || myTerm != 0) {
      return;
    }
    campaigning = true;
    node.store().txn(List.of(EtcdStore.Cond.created(node.keys().leader(), 0)),
            List.of(EtcdStore.Write.put(node.keys().leader(), node.name(), lease)))
        .whenComplete((r, error) -> node.loop().execute(() -> {
          campaigning = false;
          if (error != null) {
            node.failed("campaigning for the controller", error);
          } else if (r.succeeded() && node.lease() == lease) {
            myTerm = r.revision();
            leader = node.name();
            log.info("cluster: this replica ({}) is the elected role controller (term {})", node.name(), myTerm);
          }
        }));
  }

  /** The leader key as stored (watch or snapshot). */
  void onLeader(String name, long createRevision) {
    leader = name;
    if (myTerm != 0 && createRevision != myTerm) {
      lostTerm(myTerm, "replica " + name + " holds the leader key");
    }
  }

  /** The leader key was deleted: its holder's lease lapsed or it left. */
  void onLeaderGone() {
    leader = null;
    if (myTerm != 0) {
      lostTerm(myTerm, "its leader key is gone (lease lapsed)");
    }
    campaign();
  }

  /** This replica's lease is gone: whatever it held under it is gone too. */
  void sessionLost() {
    if (myTerm != 0) {
      lostTerm(myTerm, "its lease lapsed");
    }
  }

  private void lostTerm(long term, String why) {
    if (myTerm == term && term != 0) {
      myTerm = 0;
      log.warn("cluster: this replica ({}) is no longer the elected role controller: {}", node.name(), why);
    }
  }

  /** A role as stored (watch or snapshot): applied here, unless it is what this replica already has. */
  void onRole(String iid, String value) {
    JsonNode v = ClusterJson.object(value);
    EngineRole role = v == null ? null : role(ClusterJson.text(v, "role"));
    String by = v == null ? null : ClusterJson.text(v, "by");
    if (role == null || by == null) {
      log.warn("cluster: ignoring an unreadable role for engine {} in etcd", iid);
      return;
    }
    boolean own = by.equals(node.name());
    if (!own) {
      node.metrics().moveApplied();
    }
    controller.applyShared(iid, role, ClusterJson.clip(ClusterJson.text(v, "rule"), 64), ClusterJson.bool(v, "reversal"),
        by, own);
  }

  private static @Nullable EngineRole role(@Nullable String name) {
    for (EngineRole r : EngineRole.values()) {
      if (r.configName().equals(name)) {
        return r;
      }
    }
    return null;
  }
}

package narwhal.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import narwhal.core.admission.Admission;
import narwhal.core.admission.ShareDemand;
import narwhal.core.admission.TenantQuota;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tenant budgets across replicas: each replica leases a share of each tenant's budget from etcd
 * and admits only within it, so a tenant's seats and rate hold fleet-wide.
 *
 * <p>A tenant's budget is {@code U} units: its {@code max_in_flight} seats, or, for a tenant with
 * a rate but no seat limit, 1,000 thousandths of its rate. A replica's share of {@code n} units
 * gives it {@code n} seats and {@code n/U} of the rate and burst. Shares live in {@code
 * tenants/<t>/shares/<replica>} under the replica's lease, so a dead replica's share returns to
 * the fleet when its lease lapses.
 *
 * <p>The rule that makes the sum hold: a share grows only by a transaction that also bumps {@code
 * tenants/<t>/epoch} and is conditioned on the epoch this replica read — so two replicas can never
 * both grow into the same free units — and takes effect here only once committed; a share shrinks
 * here first (never below the seats in use) and is written after. The sum of the shares in force
 * is therefore never more than {@code U}: rebalancing never over-admits. The one way past it is a
 * replica cut off from etcd while the others are not: it keeps serving on its share while, once
 * its lease lapses, the others may take that share; the tenant may then be admitted up to {@code
 * U} plus that replica's share until it reconnects and its admissions beyond its new share end.
 *
 * <p>Rebalancing on demand: a request refused at this replica's share asks for more; units that
 * no replica holds are taken at once (one transaction), else this replica marks its share as
 * wanting and every replica with idle units gives half of them back. Until a share grows, requests
 * over it are refused (429) as at any tenant limit: the price of a budget that holds.
 *
 * <p>Confined to the cluster's loop; refusals reach it through {@link ShareDemand}. Slightly over
 * 400 lines: the share protocol and the argument that it never over-admits belong in one place.
 */
final class TenantShares {

  private static final Logger log = LoggerFactory.getLogger(TenantShares.class);
  /** Units of a rate-only tenant's budget. */
  static final int RATE_UNITS = 1000;
  /** How long after its own demand a replica keeps its idle units rather than give them away. */
  private static final long KEEP_AFTER_DEMAND_NANOS = 1_000_000_000L;

  /** One peer's share as stored. */
  private record Share(int units, boolean wants) {}

  private final class Budget {
    final String tenant;
    final TenantQuota quota;
    final int units;
    final Map<String, Share> peers = new HashMap<>();
    /** The revision of the last change seen to each key of the budget (puts and deletes alike). */
    final Map<String, Long> seenRevision = new HashMap<>();
    long epochRevision;
    long epochValue;
    /** Units this replica admits on (committed, or kept from before its lease lapsed). */
    int mine;
    /** Whether {@code mine} is this replica's share in etcd under its current lease. */
    boolean committed;
    boolean wants;
    boolean busy;
    /** Changed by what was read: rebalanced once the whole batch of changes is applied. */
    boolean dirty;
    /** A refusal's demand is on its way to the loop: later refusals add nothing until it runs. */
    final java.util.concurrent.atomic.AtomicBoolean demandQueued = new java.util.concurrent.atomic.AtomicBoolean();
    long lastDemandNanos = Long.MIN_VALUE / 2;

    Budget(String tenant, TenantQuota quota, int units) {
      this.tenant = tenant;
      this.quota = quota;
      this.units = units;
    }

    int free() {
      int taken = committed ? mine : 0;
      for (Share s : peers.values()) {
        taken += s.units();
      }
      return Math.max(0, units - taken);
    }

    boolean peerWants() {
      return peers.values().stream().anyMatch(Share::wants);
    }
  }

  private final ClusterNode node;
  private final Admission admission;
  private final Map<String, Budget> budgets = new LinkedHashMap<>();
  /** What {@link #state} shows, rebuilt on the loop: the state endpoint reads it from other threads. */
  private volatile Map<String, Object> shown = Map.of();

  TenantShares(ClusterNode node, Admission admission, Map<String, TenantQuota> quotas) {
    this.node = node;
    this.admission = admission;
    quotas.forEach((tenant, quota) -> {
      int units = quota.maxInFlight() > 0 ? quota.maxInFlight() : quota.rate() != null ? RATE_UNITS : 0;
      if (units == 0) {
        return; // no budget to share
      }
      Budget b = new Budget(tenant, quota, units);
      budgets.put(tenant, b);
      // Until this replica has claimed a share it admits none of the tenant: the sum must hold.
      applyLocally(b, 0);
      quota.reportDemandTo((q, kind) -> {
        // Called under the admission lock, for every refusal: one task on the loop at a time.
        if (b.demandQueued.compareAndSet(false, true)) {
          node.loop().execute(() -> {
            b.demandQueued.set(false);
            demand(b);
          });
        }
      });
    });
  }

  boolean any() {
    return !budgets.isEmpty();
  }

  /**
   * Applies a read of every budget's keys at {@code revision}: keys read are applied as stored,
   * keys missing are forgotten unless a newer change to them was seen since (the read may have been
   * served before a change the watch already brought).
   */
  void snapshot(List<EtcdStore.Kv> kvs, long revision) {
    for (Budget b : budgets.values()) {
      applyRead(b, kvs.stream().filter(kv -> b.tenant.equals(node.keys().tenantOf(kv.key()))).toList(), revision);
    }
  }

  private void applyRead(Budget b, List<EtcdStore.Kv> kvs, long revision) {
    java.util.Set<String> present = new java.util.HashSet<>();
    kvs.forEach(kv -> present.add(kv.key()));
    for (String key : List.copyOf(b.seenRevision.keySet())) {
      if (!present.contains(key) && b.seenRevision.get(key) <= revision) {
        b.seenRevision.put(key, revision);
        if (key.equals(node.keys().tenantEpoch(b.tenant))) {
          b.epochRevision = 0;
          b.epochValue = 0;
        } else {
          String replica = ClusterKeys.child(key, node.keys().tenantShares(b.tenant));
          if (replica != null) {
            b.peers.remove(replica);
          }
        }
      }
    }
    for (EtcdStore.Kv kv : kvs) {
      onStored(b.tenant, kv.key(), kv.value(), kv.modRevision());
    }
  }

  /** A key under {@code tenants/} as stored; {@code value} null for a delete. */
  void onStored(String tenant, String key, @Nullable String value, long modRevision) {
    Budget b = budgets.get(tenant);
    if (b == null) {
      return;
    }
    // The watch and the reads overlap: a change older than one already seen is stale, and applying
    // it could show units free that are not. Every key's view only moves forward.
    Long seen = b.seenRevision.get(key);
    if (seen != null && modRevision < seen) {
      return;
    }
    b.seenRevision.put(key, modRevision);
    if (key.equals(node.keys().tenantEpoch(tenant))) {
      b.epochRevision = value == null ? 0 : modRevision;
      b.epochValue = value == null ? 0 : parseLong(value);
      b.dirty = true;
      return;
    }
    String replica = ClusterKeys.child(key, node.keys().tenantShares(tenant));
    if (replica == null || replica.equals(node.name())) {
      return; // this replica's own share is what it committed, not what it reads back
    }
    if (value == null) {
      b.peers.remove(replica);
    } else {
      JsonNode v = ClusterJson.object(value);
      int units = v == null ? 0 : (int) Math.max(0, Math.min(b.units, ClusterJson.number(v, "units", 0)));
      b.peers.put(replica, new Share(units, v != null && ClusterJson.bool(v, "wants")));
    }
    b.dirty = true;
  }

  /**
   * Acts on what the last batch of changes (one watch delivery, one read) showed. Never between
   * the changes of one batch: a transaction's epoch may be applied before its share, and a
   * decision on that half-view could take units that are not free.
   */
  void settle() {
    for (Budget b : budgets.values()) {
      if (b.dirty) {
        b.dirty = false;
        rebalance(b);
      }
    }
    refreshShown();
  }

  /** After joining (or rejoining under a new lease): claim a share of every budget. */
  void claimAll() {
    for (Budget b : budgets.values()) {
      claim(b);
    }
  }

  /** This replica's lease lapsed: its share keys went with it; it keeps admitting on them until it claims again. */
  void sessionLost() {
    for (Budget b : budgets.values()) {
      b.busy = false;
      b.committed = false;
      b.wants = false;
    }
  }

  /**
   * Looks at every budget again (every quarter second): a replica whose own demand has just
   * passed gives idle units to a peer that still wants them, which no change in etcd would prompt.
   */
  void tick() {
    for (Budget b : budgets.values()) {
      if (b.committed && (b.peerWants() || b.wants)) {
        rebalance(b);
      }
    }
    refreshShown();
  }

  /** Re-reads and re-claims after etcd came back (the view may have missed changes). */
  void reconcile() {
    for (Budget b : budgets.values()) {
      rebalance(b);
    }
  }

  /** A fair first claim: an equal part of the budget among the live replicas, out of what is free. */
  private void claim(Budget b) {
    if (b.committed || b.busy) {
      return;
    }
    int members = Math.max(1, node.memberCount());
    int fair = (b.units + members - 1) / members;
    int held = admission.tenantHeld(b.quota);
    grow(b, Math.min(b.free(), Math.max(fair, held)), false);
  }

  /** A request was refused at this replica's share. */
  private void demand(Budget b) {
    b.lastDemandNanos = node.loop().nanoTime();
    if (!node.joined() || b.busy) {
      return;
    }
    if (!b.committed) {
      claim(b);
      return;
    }
    int free = b.free();
    if (free > 0) {
      grow(b, b.mine + Math.min(free, Math.max(1, b.units / 10)), false);
    } else if (!b.wants) {
      writeMine(b, true);
    }
  }

  /** Gives idle units to a peer that wants them, or takes free units this replica wants. */
  private void rebalance(Budget b) {
    if (!node.joined() || b.busy) {
      return;
    }
    if (!b.committed) {
      claim(b);
      return;
    }
    if (b.wants && b.free() > 0) {
      grow(b, b.mine + b.free(), false);
      return;
    }
    long sinceDemand = node.loop().nanoTime() - b.lastDemandNanos;
    if (b.peerWants() && b.wants && sinceDemand > KEEP_AFTER_DEMAND_NANOS) {
      // Its own demand has passed: it stops asking, and may give.
      writeMine(b, false);
    }
    if (b.peerWants() && !b.wants && sinceDemand > KEEP_AFTER_DEMAND_NANOS) {
      int idle = b.mine - admission.tenantHeld(b.quota);
      if (idle > 0) {
        int give = (idle + 1) / 2;
        b.mine = applyLocally(b, b.mine - give);
        writeMine(b, false);
      }
    }
  }

  /**
   * Commits {@code target} units as this replica's share by a transaction on the tenant's epoch:
   * a growth, or a first claim (which may also be smaller than what it admitted on before its
   * lease lapsed; it then admits on the larger until its requests over the new share end).
   */
  private void grow(Budget b, int target, boolean retried) {
    long lease = node.lease();
    if (lease == 0 || (b.committed && target <= b.mine)) {
      return;
    }
    b.busy = true;
    long epochRevision = b.epochRevision;
    long nextEpoch = b.epochValue + 1;
    List<EtcdStore.Write> writes = new ArrayList<>();
    writes.add(EtcdStore.Write.put(node.keys().tenantShare(b.tenant, node.name()), encode(target, target == 0), lease));
    writes.add(EtcdStore.Write.put(node.keys().tenantEpoch(b.tenant), Long.toString(nextEpoch), 0));
    node.store().txn(List.of(EtcdStore.Cond.modified(node.keys().tenantEpoch(b.tenant), epochRevision)), writes)
        .whenComplete((r, error) -> node.loop().execute(() -> {
          b.busy = false;
          if (error != null) {
            node.failed("growing tenant " + b.tenant + "'s share", error);
          } else if (r.succeeded() && node.lease() == lease) {
            b.epochRevision = r.revision();
            b.epochValue = nextEpoch;
            b.wants = target == 0;
            b.committed = true;
            b.mine = applyLocally(b, target);
            log.debug("cluster: tenant {} share now {} of {}", b.tenant, b.mine, b.units);
          } else if (!retried) {
            // Someone else changed the budget first: read it again and retry once with what is free.
            node.store().range(node.keys().tenant(b.tenant))
                .whenComplete((snapshot, readError) -> node.loop().execute(() -> {
                  if (snapshot != null) {
                    applyRead(b, snapshot.kvs(), snapshot.revision());
                    b.dirty = false;
                    int base = b.committed ? b.mine : 0;
                    grow(b, base + Math.min(b.free(), Math.max(target - base, 0)), true);
                  }
                }));
          }
        }));
  }

  /** Writes this replica's share as it stands (a shrink, or a want) under its lease. */
  private void writeMine(Budget b, boolean wants) {
    long lease = node.lease();
    if (lease == 0 || !b.committed) {
      return;
    }
    b.wants = wants;
    node.store().put(node.keys().tenantShare(b.tenant, node.name()), encode(b.mine, wants), lease)
        .whenComplete((rev, error) -> {
          if (error != null) {
            node.loop().execute(() -> node.failed("writing tenant " + b.tenant + "'s share", error));
          }
        });
  }

  /** Sets this replica's seats and rate for the tenant to {@code units}; returns what applied (never below seats in use). */
  private int applyLocally(Budget b, int units) {
    int applied = units;
    if (b.quota.maxInFlight() > 0) {
      applied = admission.resizeTenantSeats(b.quota, units);
    }
    admission.rescaleTenantRate(b.quota, (double) applied / b.units, node.loop().nanoTime());
    return applied;
  }

  /** For {@code /narwhal/state}: each tenant's share here, of its budget (as of the last quarter second). */
  Map<String, Object> state() {
    return shown;
  }

  private void refreshShown() {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Budget b : budgets.values()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("units", b.units);
      m.put("share", b.mine);
      m.put("in_use", admission.tenantHeld(b.quota));
      m.put("wants", b.wants);
      m.put("peers", b.peers.values().stream().mapToInt(Share::units).sum());
      out.put(b.tenant, m);
    }
    shown = java.util.Collections.unmodifiableMap(out);
  }

  private static String encode(int units, boolean wants) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("units", units);
    m.put("wants", wants);
    return ClusterJson.write(m);
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}

package narwhal.core.control;

import com.codahale.metrics.Counter;
import java.util.EnumMap;
import java.util.Map;
import narwhal.config.EngineRole;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.metrics.RouterMetrics;
import org.jspecify.annotations.Nullable;

/**
 * The controller's metrics (docs/journal-and-metrics.md, "Metrics"): flips by direction, reversals, decisions by
 * outcome, and gauges of the pools, their loads, each engine's role and the last evidence window.
 * Every counter series exists at zero from the start. The pool-load gauges read the last tick's
 * sample; they are absent (NaN, which the exposition skips) while a pool has no profiled engine.
 */
final class ControllerMetrics {

  private static final String FLIPS_HELP = "Role moves the controller applied, by the role left and the role taken.";
  private static final String DECISIONS_HELP =
      "Controller decisions by outcome: moved, advisory, blocked, pending, steady, unpriced.";

  private final Map<EngineRole, Map<EngineRole, Counter>> flips = new EnumMap<>(EngineRole.class);
  private final Map<Outcome, Counter> decisions = new EnumMap<>(Outcome.class);
  private final Counter reversals;
  private volatile double prefillLoad = Double.NaN;
  private volatile double decodeLoad = Double.NaN;
  private volatile @Nullable EvidenceWindow evidence;

  ControllerMetrics(RouterMetrics metrics, Fleet fleet) {
    for (EngineRole from : EngineRole.values()) {
      Map<EngineRole, Counter> byTo = new EnumMap<>(EngineRole.class);
      for (EngineRole to : EngineRole.values()) {
        if (from != to) {
          byTo.put(to, metrics.counter("narwhal_flips_total", FLIPS_HELP, "from", from.configName(),
              "to", to.configName()));
        }
      }
      flips.put(from, byTo);
    }
    reversals = metrics.counter("narwhal_flip_reversals_total",
        "Role moves that undid the same engine's previous move within the reversal window (thrash).");
    for (Outcome o : Outcome.values()) {
      decisions.put(o, metrics.counter("narwhal_controller_decisions_total", DECISIONS_HELP, "outcome", o.wireName()));
    }
    for (EngineRole role : EngineRole.values()) {
      metrics.gauge("narwhal_pool_instances", "Engines in placement by their current role.",
          () -> fleet.engines().stream().filter(e -> e.inPlacement() && e.role() == role).count(),
          "role", role.configName());
    }
    metrics.gauge("narwhal_pool_load", "The pool's load at the last controller tick (1.0 = at the SLO target).",
        () -> prefillLoad, "role", "prefill");
    metrics.gauge("narwhal_pool_load", "The pool's load at the last controller tick (1.0 = at the SLO target).",
        () -> decodeLoad, "role", "decode");
    for (EngineState e : fleet.engines()) {
      for (EngineRole role : EngineRole.values()) {
        metrics.gauge("narwhal_instance_role", "1 for the role an engine has now, 0 for the others.",
            () -> e.role() == role ? 1 : 0, "iid", e.iid(), "role", role.configName());
      }
    }
    metrics.gauge("narwhal_demand_evidence_arrivals", "Arrivals in the last closed arrival-evidence window.",
        () -> evidence == null ? 0 : evidence.arrivals());
    metrics.gauge("narwhal_demand_evidence_span_seconds", "The span of the last closed arrival-evidence window.",
        () -> evidence == null ? 0 : evidence.spanS());
    metrics.gauge("narwhal_demand_evidence_sufficient",
        "1 when the last closed arrival-evidence window saw reactive.evidence_min_arrivals arrivals.",
        () -> evidence != null && evidence.sufficient() ? 1 : 0);
  }

  void flip(EngineRole from, EngineRole to, boolean reversal) {
    Map<EngineRole, Counter> byTo = flips.get(from);
    Counter c = byTo == null ? null : byTo.get(to);
    if (c != null) {
      c.inc();
    }
    if (reversal) {
      reversals.inc();
    }
  }

  void decision(Outcome outcome) {
    decisions.get(outcome).inc();
  }

  void loads(PoolLoads loads) {
    prefillLoad = loads.prefill().load();
    decodeLoad = loads.decode().load();
  }

  void evidence(@Nullable EvidenceWindow window) {
    evidence = window;
  }
}

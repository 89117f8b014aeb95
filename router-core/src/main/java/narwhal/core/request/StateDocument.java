package narwhal.core.request;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import narwhal.core.admission.Admission;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.RoleHistory;
import narwhal.core.fleet.RoleMove;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.profile.ProfileStatus;
import narwhal.api.FailureClass;

/**
 * {@code GET /narwhal/state}: schema {@code narwhal.state}, version 1. Per engine its role,
 * breaker state, resident work, failure streaks and the profile it is priced with ({@code own},
 * {@code fleet} or {@code none}, with {@code profile_reason}); the outcome counters; admission in flight
 * against its limit; the role controller's status and last moves. Built fresh per call from live
 * state, so it is as current as the metrics.
 */
final class StateDocument {

  static final String SCHEMA = "narwhal.state";
  static final int SCHEMA_VERSION = 1;

  private StateDocument() {}

  static Map<String, Object> build(RouterRuntime rt, DisaggregatedRouter router, long nowNanos) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("schema", SCHEMA);
    doc.put("schema_version", SCHEMA_VERSION);
    doc.put("at", rt.wallClock().millis() / 1000.0);
    doc.put("run", rt.outcomes().runId());
    doc.put("model", rt.settings().model());
    String notReady = router.notReadyReason();
    doc.put("ready", notReady == null);
    doc.put("not_ready_reason", notReady);
    List<Map<String, Object>> engines = new ArrayList<>();
    for (EngineState e : rt.fleet().engines()) {
      Map<String, Object> engine = engine(e, nowNanos);
      // Which profile admission, placement and the controller price this engine with, and why.
      ProfileStatus profile = rt.profiles().status(e.iid());
      engine.put("profile", profile.source().wireName());
      engine.put("profile_reason", profile.reason());
      engines.add(engine);
    }
    doc.put("engines", engines);
    doc.put("counters", counters(rt.outcomes().metrics()));
    doc.put("admission", admission(rt.admission()));
    doc.put("retry_credits", rt.retryBudget().available());
    doc.put("controller", controller(rt.fleet().roleHistory()));
    if (rt.cache().enabled()) {
      doc.put("cache", rt.cache().state());
    }
    Map<String, Object> cluster = rt.cluster().get().state();
    if (cluster != null) {
      doc.put("cluster", cluster);
    }
    return doc;
  }

  /** The role controller's status and its last moves (at most {@code controller.flip_history}). */
  private static Map<String, Object> controller(RoleHistory history) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("status", history.status());
    List<Map<String, Object>> flips = new ArrayList<>();
    for (RoleMove move : history.moves()) {
      Map<String, Object> f = new LinkedHashMap<>();
      f.put("at", move.atEpochSeconds());
      f.put("iid", move.iid());
      f.put("from", move.from().configName());
      f.put("to", move.to().configName());
      f.put("rule", move.rule());
      f.put("reversal", move.reversal());
      flips.add(f);
    }
    m.put("flips", flips);
    return m;
  }

  private static Map<String, Object> engine(EngineState e, long nowNanos) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("iid", e.iid());
    m.put("role", e.role().configName());
    m.put("url", e.spec().url().toString());
    // Quarantine is shown only for an engine the breaker keeps in placement: it is the lesser hold.
    String state = e.inPlacement() && e.isQuarantined(nowNanos) ? "quarantined" : e.condition().wireName();
    m.put("state", state);
    m.put("cause", e.conditionCause());
    m.put("resident", Map.of("prefill", e.ownResidentPrefill(), "decode", e.ownResidentDecode()));
    if (!e.peerWork().isEmpty()) {
      // Other replicas' resident work here, as they last published it: placement prices the sum.
      m.put("peer_resident", Map.of("prefill", e.peerWork().prefill(), "decode", e.peerWork().decode()));
    }
    Map<String, Object> streaks = new LinkedHashMap<>();
    for (Map.Entry<FailureClass, Integer> s : e.streaks().snapshot().entrySet()) {
      streaks.put(s.getKey().wireName(), s.getValue());
    }
    m.put("breaker", streaks);
    return m;
  }

  private static Map<String, Object> counters(RouterMetrics metrics) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (String name : List.of("offered", "served", "failed", "refused", "rejected", "expired", "cancelled")) {
      m.put(name, metrics.total("narwhal_" + name + "_total"));
    }
    m.put("invalid", metrics.total("narwhal_invalid_requests_total"));
    return m;
  }

  private static Map<String, Object> admission(Admission admission) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("in_flight", admission.inFlight());
    m.put("limit", admission.limits().maxInFlight());
    m.put("queued", admission.queued());
    m.put("queue_capacity", admission.limits().queueCapacity());
    m.put("draining", admission.isDraining());
    return m;
  }
}

package narwhal.core.health;

import java.util.LinkedHashMap;
import java.util.Map;
import narwhal.api.FailureClass;
import narwhal.core.checks.CheckResult.Outcome;
import narwhal.core.fleet.EngineCondition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the breaker decided, as event rows ({@link HealthEvents}) and log lines: one method per
 * event, so the field names of each row are written in one place.
 */
final class BreakerJournal {

  private static final Logger log = LoggerFactory.getLogger(HealthMonitor.class);

  private final HealthEvents events;

  BreakerJournal(HealthEvents events) {
    this.events = events;
  }

  void takenOut(TrackedEngine t, EngineCondition condition, OutCause cause, @Nullable String producerIid, String why) {
    Map<String, Object> f = fields(t);
    f.put("cause", cause.wireName());
    if (producerIid != null) {
      f.put("producer_iid", producerIid);
    }
    f.put("detail", why);
    events.record(condition == EngineCondition.HELD ? "engine_held" : "engine_ejected", f);
    log.warn("engine {} {} ({}): {}", t.iid(), condition.wireName(), cause.wireName(), why);
  }

  /** Another replica took the engine out; this router applied its verdict. */
  void takenOutElsewhere(TrackedEngine t, EngineCondition condition, OutCause cause, @Nullable String producerIid,
      String why, String byReplica) {
    Map<String, Object> f = fields(t);
    f.put("cause", cause.wireName());
    if (producerIid != null) {
      f.put("producer_iid", producerIid);
    }
    f.put("detail", why);
    f.put("by", byReplica);
    events.record(condition == EngineCondition.HELD ? "engine_held" : "engine_ejected", f);
    log.warn("engine {} {} ({}) by replica {}: {}", t.iid(), condition.wireName(), cause.wireName(), byReplica, why);
  }

  /** Another replica readmitted the engine; this router applied its verdict. */
  void readmittedElsewhere(TrackedEngine t, @Nullable OutCause cause, String how, String byReplica) {
    Map<String, Object> f = fields(t);
    f.put("cause", cause == null ? null : cause.wireName());
    f.put("detail", how);
    f.put("by", byReplica);
    events.record("readmitted", f);
    log.info("engine {} readmitted by replica {}: {}", t.iid(), byReplica, how);
  }

  void keptAsLastEngine(TrackedEngine t, FailureClass cls, String why) {
    Map<String, Object> f = fields(t);
    f.put("class", cls.wireName());
    f.put("detail", why + "; kept in placement as the last engine for its role");
    events.record("hold_skipped", f);
    log.warn("engine {} kept in placement ({}): it is the last engine in placement for its role", t.iid(), why);
  }

  void readmitted(TrackedEngine t, @Nullable OutCause cause, String how) {
    Map<String, Object> f = fields(t);
    f.put("cause", cause == null ? null : cause.wireName());
    f.put("detail", how);
    events.record("readmitted", f);
    log.info("engine {} readmitted: {}", t.iid(), how);
  }

  void probeFailedEjects(TrackedEngine t) {
    Map<String, Object> f = fields(t);
    f.put("cause", t.cause == null ? null : t.cause.wireName());
    f.put("detail", "readmission probe failed");
    events.record("engine_ejected", f);
    log.warn("engine {} ejected: its readmission probe failed", t.iid());
  }

  void probe(TrackedEngine t, String probe, Outcome outcome, String detail, @Nullable String producerIid) {
    probe(t, probe, outcome.name().toLowerCase(java.util.Locale.ROOT), detail, producerIid);
  }

  void probe(TrackedEngine t, String probe, String outcome, String detail, @Nullable String producerIid) {
    Map<String, Object> f = fields(t);
    f.put("probe", probe);
    f.put("outcome", outcome);
    if (producerIid != null) {
      f.put("producer_iid", producerIid);
    }
    f.put("detail", detail);
    events.record("probe", f);
  }

  void waveHold(String iid) {
    Map<String, Object> w = new LinkedHashMap<>();
    w.put("iid", iid);
    w.put("detail", "engine " + iid + " went away; admission held until every engine is back");
    events.record("wave_hold", w);
    log.warn("whole-wave restart: admission held until every engine is back");
  }

  void waveRelease() {
    events.record("wave_release", new LinkedHashMap<>(Map.of("detail", "every engine is back; admission resumes")));
    log.info("whole-wave restart over: admission resumes");
  }

  private static Map<String, Object> fields(TrackedEngine t) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("iid", t.iid());
    f.put("state", t.engine.condition().wireName());
    return f;
  }
}

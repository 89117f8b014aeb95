package narwhal.core.control;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import narwhal.core.journal.Journal;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's decisions as journal event rows ({@code {"kind":"event","event":
 * "controller_decision",...}}) and log lines. Every applied move is written. A blocked or advisory
 * decision is written when it first appears; while the same decision repeats evaluation after
 * evaluation it is not written again, until something else happens (a move, a steady evaluation,
 * a different block), so a guard that holds for an hour costs one row, not seven hundred.
 */
final class ControllerJournal {

  static final String EVENT = "controller_decision";

  private static final Logger log = LoggerFactory.getLogger(RoleController.class);

  private final Journal journal;
  private final Clock wallClock;
  private @Nullable String lastRepeatable;

  ControllerJournal(Journal journal, Clock wallClock) {
    this.journal = journal;
    this.wallClock = wallClock;
  }

  /** Writes {@code d} unless it repeats the last blocked/advisory row; returns whether it wrote. */
  boolean record(Decision d) {
    if (d.outcome() == Outcome.MOVED) {
      lastRepeatable = null;
    } else {
      String key = d.repeatKey();
      if (key.equals(lastRepeatable)) {
        return false;
      }
      lastRepeatable = key;
    }
    journal.record(row(d));
    log(d);
    return true;
  }

  /**
   * A move the elected controller of another replica committed, applied here: an event row of its
   * own ({@code role_moved}), so only the deciding replica's journal has the decision.
   */
  void appliedShared(String iid, narwhal.config.EngineRole from, narwhal.config.EngineRole to, String rule,
      String byReplica) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("kind", "event");
    r.put("event", "role_moved");
    r.put("at", nowEpochSeconds());
    r.put("iid", iid);
    r.put("from", from.configName());
    r.put("to", to.configName());
    r.put("rule", rule);
    r.put("by", byReplica);
    journal.record(r);
    log.info("role move {} {} -> {} ({}) by replica {} applied", iid, from.configName(), to.configName(), rule,
        byReplica);
  }

  /** Nothing was called for: the next blocked or advisory decision is news again. */
  void quiet() {
    lastRepeatable = null;
  }

  /** Now on the wall clock the rows carry, in epoch seconds (the state endpoint's moves use it too). */
  double nowEpochSeconds() {
    return wallClock.millis() / 1000.0;
  }

  private Map<String, Object> row(Decision d) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("kind", "event");
    r.put("event", EVENT);
    r.put("at", nowEpochSeconds());
    r.put("outcome", d.outcome().wireName());
    r.put("iid", d.iid());
    r.put("from", d.from().configName());
    r.put("to", d.to().configName());
    r.put("rule", d.rule().wireName());
    r.put("advisory", d.outcome() == Outcome.ADVISORY);
    r.put("blocked_by", d.blockedBy() == null ? null : d.blockedBy().wireName());
    r.put("reversal", d.reversal());
    r.put("candidate", d.outcome() == Outcome.BLOCKED ? d.candidate() : null);
    Map<String, Object> l = new LinkedHashMap<>();
    l.put("prefill", finite(d.loads().prefill().load()));
    l.put("decode", finite(d.loads().decode().load()));
    r.put("loads", l);
    r.put("score_before", d.before() == null ? null : SplitScore.round(d.before().score()));
    r.put("score_after", d.after() == null ? null : SplitScore.round(d.after().score()));
    r.put("split_before", d.before() == null ? null : d.before().toJournal());
    r.put("split_after", d.after() == null ? null : d.after().toJournal());
    return r;
  }

  private static void log(Decision d) {
    String engine = d.outcome() == Outcome.BLOCKED ? d.candidate() : d.iid();
    String what = (engine == null ? "" : engine + " ") + d.from().configName() + " -> " + d.to().configName() + " ("
        + d.rule().wireName() + scores(d) + ")";
    switch (d.outcome()) {
      case MOVED -> log.info("role controller moved {}", what);
      case ADVISORY -> log.info("role controller (advisory) would move {}", what);
      default -> log.info("role controller: move {} blocked by {}{}", what,
          d.blockedBy() == null ? "?" : d.blockedBy().wireName(),
          engine == null ? " (no " + d.from().configName() + " engine in placement could move)" : "");
    }
  }

  private static String scores(Decision d) {
    SplitScore before = d.before();
    SplitScore after = d.after();
    return before == null || after == null ? ""
        : "; score " + SplitScore.round(before.score()) + " -> " + SplitScore.round(after.score());
  }

  private static @Nullable Double finite(double v) {
    return Double.isNaN(v) ? null : SplitScore.round(v);
  }
}

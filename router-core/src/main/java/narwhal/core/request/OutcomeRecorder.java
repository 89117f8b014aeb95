package narwhal.core.request;

import java.util.Map;
import narwhal.core.journal.Journal;
import narwhal.core.journal.PlainDecimals;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.outcome.RequestOutcome;
import narwhal.core.outcome.Terminal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each request's one {@link RequestOutcome} everywhere it goes: the journal row, the
 * metrics, and one log line (completed and the client-side endings at debug, failures and
 * expiries at warn, with the request id). Thread-safe: its parts are.
 */
final class OutcomeRecorder {

  private static final Logger log = LoggerFactory.getLogger(OutcomeRecorder.class);

  private final String runId;
  private final Journal journal;
  private final RouterMetrics metrics;

  OutcomeRecorder(String runId, Journal journal, RouterMetrics metrics) {
    this.runId = runId;
    this.journal = journal;
    this.metrics = metrics;
  }

  String runId() {
    return runId;
  }

  RouterMetrics metrics() {
    return metrics;
  }

  void record(RequestOutcome outcome) {
    Map<String, Object> row = outcome.journalRow(runId);
    journal.record(row);
    metrics.record(outcome);
    if (outcome.terminal() == Terminal.FAILED || outcome.terminal() == Terminal.EXPIRED) {
      if (log.isWarnEnabled()) {
        log.warn("request {}: {}", logLine(row),
            outcome.error() == null ? outcome.reason() : outcome.error().message());
      }
    } else if (log.isDebugEnabled()) {
      log.debug("request {}", logLine(row));
    }
  }

  /** {@code key=value} pairs of the row's set scalar fields; strings with spaces are quoted. */
  static String logLine(Map<String, Object> row) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Object> e : row.entrySet()) {
      Object v = e.getValue();
      if (v == null || v instanceof java.util.Collection || e.getKey().equals("kind") || e.getKey().equals("error")) {
        continue;
      }
      if (sb.length() > 0) {
        sb.append(' ');
      }
      // Numbers as the journal spells them (0.000123, never 1.23E-4), so the two read alike.
      String text = v instanceof Double d ? String.valueOf(PlainDecimals.format(d)) : String.valueOf(v);
      sb.append(e.getKey()).append('=');
      if (text.isEmpty() || text.indexOf(' ') >= 0 || text.indexOf('"') >= 0) {
        sb.append('"').append(text.replace("\"", "\\\"")).append('"');
      } else {
        sb.append(text);
      }
    }
    return sb.toString();
  }
}

package narwhal.core.request;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import narwhal.core.journal.Journal;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.outcome.RequestOutcome;
import narwhal.core.outcome.Terminal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Writes each request's one {@link RequestOutcome} everywhere it goes: the journal row, the
 * metrics, and one log line (completed and the client-side endings at debug, failures and
 * expiries at warn, with the row's fields as key-value pairs). Thread-safe: its parts are.
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
    // Counted before the row is handed to the journal's writer thread: whoever reads a row from
    // the file and then scrapes /metrics finds it counted (the other order left a window in which
    // the row was on disk and the counter not yet moved; MetricsTest hit it under CI load).
    metrics.record(outcome);
    journal.record(row);
    boolean warn = outcome.terminal() == Terminal.FAILED || outcome.terminal() == Terminal.EXPIRED;
    if (warn ? log.isWarnEnabled() : log.isDebugEnabled()) {
      // The row's fields go as key-value pairs: the JSON format writes them as fields of the line,
      // the text format as key=value after the message.
      LoggingEventBuilder line = warn ? log.atWarn() : log.atDebug();
      logFields(row).forEach(line::addKeyValue);
      line.log(warn
          ? "request " + outcome.terminal().wireName() + ": " + operatorText(outcome)
          : "request " + outcome.terminal().wireName());
    }
  }

  /**
   * What the log line says went wrong: what the client was told, or, when the last failed attempt
   * says the same with the operator's detail after it (the engine's address, the transport's
   * exception), that. The client's words never carry such detail (docs/troubleshooting.md, "Error messages").
   */
  static String operatorText(RequestOutcome outcome) {
    if (outcome.error() == null) {
      return String.valueOf(outcome.reason());
    }
    String told = outcome.error().message();
    if (!outcome.attemptFailures().isEmpty()) {
      Object last = outcome.attemptFailures().get(outcome.attemptFailures().size() - 1).get("message");
      if (last instanceof String detailed && detailed.startsWith(told) && detailed.length() > told.length()) {
        return detailed;
      }
    }
    return told;
  }

  /** The row's set scalar fields, in row order; lists, {@code kind} and {@code error} (in the message) left out. */
  static Map<String, Object> logFields(Map<String, Object> row) {
    Map<String, Object> fields = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : row.entrySet()) {
      Object v = e.getValue();
      if (v == null || v instanceof Collection || v instanceof Map || e.getKey().equals("kind")
          || e.getKey().equals("error")) {
        continue;
      }
      fields.put(e.getKey(), v);
    }
    return fields;
  }
}

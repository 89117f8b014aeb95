package narwhal.core.request;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The journal's {@code attempt_failures}: one entry per failed attempt, with its retry decision. */
final class AttemptFailures {

  private final List<Map<String, Object>> entries = new ArrayList<>();

  void add(int attempt, String phase, String iid, String reason, String message) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("attempt", attempt);
    m.put("phase", phase);
    m.put("iid", iid);
    m.put("reason", reason);
    m.put("message", message);
    entries.add(m);
  }

  /** Records, on the latest failed attempt's entry, whether and why not a retry followed. */
  void noteRetryReason(RetryReason reason) {
    if (!entries.isEmpty()) {
      entries.get(entries.size() - 1).put("retry_reason", reason.journalName());
    }
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  List<Map<String, Object>> entries() {
    return entries;
  }
}

package narwhal.core.request;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import narwhal.core.outcome.Terminal;
import org.jspecify.annotations.Nullable;

/**
 * The journal's {@code attempt_legs}: per attempt, the engines its legs went to and the backend
 * request ids they carried ({@code <rid>-p<attempt>}, {@code <rid>-d<attempt>}), so an engine's
 * log line can be found from the row and the row from the log line. Loop-confined.
 */
final class AttemptLegLog {

  private final List<Map<String, Object>> entries = new ArrayList<>();

  static String prefillId(String rid, int attempt) {
    return rid + "-p" + attempt;
  }

  static String decodeId(String rid, int attempt) {
    return rid + "-d" + attempt;
  }

  void prefill(int attempt, String iid, String backendId) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("attempt", attempt);
    m.put("prefill_iid", iid);
    m.put("prefill_backend_id", backendId);
    m.put("decode_iid", null);
    m.put("decode_backend_id", null);
    m.put("outcome", null);
    entries.add(m);
  }

  /** The current attempt's decode leg (its prefill entry exists: every attempt starts with one). */
  void decode(int attempt, String iid, String backendId) {
    Map<String, Object> m = current(attempt);
    if (m != null) {
      m.put("decode_iid", iid);
      m.put("decode_backend_id", backendId);
    }
  }

  /** The attempt failed; a retry may follow (the reasons are in {@code attempt_failures}). */
  void failed(int attempt) {
    Map<String, Object> m = current(attempt);
    if (m != null) {
      m.put("outcome", "failed");
    }
  }

  /** The entries, the last attempt's outcome (unless it failed) being the request's terminal. */
  List<Map<String, Object>> entries(Terminal terminal) {
    List<Map<String, Object>> out = new ArrayList<>(entries.size());
    for (Map<String, Object> e : entries) {
      Map<String, Object> copy = new LinkedHashMap<>(e);
      if (copy.get("outcome") == null) {
        copy.put("outcome", terminal.wireName());
      }
      out.add(copy);
    }
    return out;
  }

  private @Nullable Map<String, Object> current(int attempt) {
    Map<String, Object> last = entries.isEmpty() ? null : entries.get(entries.size() - 1);
    return last != null && Integer.valueOf(attempt).equals(last.get("attempt")) ? last : null;
  }
}

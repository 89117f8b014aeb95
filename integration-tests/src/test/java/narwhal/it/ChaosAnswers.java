package narwhal.it;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a well-formed answer is, for the chaos soak: an error is a status with the OpenAI envelope;
 * a stream ends with {@code [DONE]} or exactly one error event and nothing after; a success carries
 * exactly the simulator's tokens (the oracle), however many faults and retries it went through.
 */
final class ChaosAnswers {

  private ChaosAnswers() {}

  /** Why the answer is malformed, or null when it is well-formed. */
  static @Nullable String problem(ChaosRequest req, int status, String contentType, String body) {
    if (status != 200) {
      return errorEnvelopeProblem(status, contentType, body);
    }
    if (!req.stream()) {
      JsonNode json = parse(body);
      if (json == null || !json.path("choices").isArray()) {
        return "200 without a completion object: " + body;
      }
      JsonNode choice = json.path("choices").path(0);
      String text = req.chat() ? choice.path("message").path("content").asText("") : choice.path("text").asText("");
      return oracleProblem(req, text, true);
    }
    if (!contentType.startsWith("text/event-stream")) {
      return "stream answered as " + contentType + ": " + body;
    }
    List<String> data = new ArrayList<>();
    for (String line : body.split("\n")) {
      if (line.startsWith("data: ")) {
        data.add(line.substring(6));
      }
    }
    if (data.isEmpty()) {
      return "a 200 stream without events: " + body;
    }
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < data.size(); i++) {
      String d = data.get(i);
      boolean last = i == data.size() - 1;
      if (d.equals("[DONE]")) {
        return last ? oracleProblem(req, text.toString(), true) : "events after [DONE]: " + body;
      }
      JsonNode chunk = parse(d);
      if (chunk == null) {
        return "an event that is not JSON: " + d;
      }
      if (chunk.has("error")) {
        JsonNode error = chunk.path("error");
        if (!last) {
          return "events after the error event: " + body;
        }
        if (!error.path("message").isTextual() || !error.path("type").isTextual()) {
          return "an error event without message and type: " + d;
        }
        return oracleProblem(req, text.toString(), false);
      }
      JsonNode choice = chunk.path("choices").path(0);
      text.append(choice.path("text").asText("")).append(choice.path("delta").path("content").asText(""));
    }
    return "a stream that ends with neither [DONE] nor an error event: " + body;
  }

  private static @Nullable String errorEnvelopeProblem(int status, String contentType, String body) {
    if (status < 400 || status > 599) {
      return "status " + status + ": " + body;
    }
    JsonNode json = parse(body);
    JsonNode error = json == null ? null : json.get("error");
    if (!contentType.startsWith("application/json") || error == null || !error.path("message").isTextual()
        || !error.path("type").isTextual() || !error.has("param") || !error.has("code")) {
      return "status " + status + " without the OpenAI error envelope (" + contentType + "): " + body;
    }
    return null;
  }

  /**
   * A finished answer must hold exactly the expected tokens; a failed one a prefix of them (what
   * reached the client before the failure).
   */
  private static @Nullable String oracleProblem(ChaosRequest req, String text, boolean finished) {
    List<String> tokens = req.oracleTokens();
    if (finished) {
      String expected = String.join("", tokens.subList(0, req.expectedTokens()));
      return text.equals(expected) ? null : "text " + quote(text) + " is not the oracle's " + quote(expected);
    }
    String prefix = "";
    for (int k = 0; k <= tokens.size(); k++) {
      if (prefix.equals(text)) {
        return null;
      }
      if (k < tokens.size()) {
        prefix += tokens.get(k);
      }
    }
    return "text before the error " + quote(text) + " is no prefix of the oracle's " + quote(prefix);
  }

  private static String quote(String s) {
    return "\"" + s + "\"";
  }

  private static @Nullable JsonNode parse(String text) {
    try {
      return RouterClient.JSON.readTree(text);
    } catch (java.io.IOException e) {
      return null;
    }
  }
}

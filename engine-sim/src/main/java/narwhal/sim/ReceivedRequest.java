package narwhal.sim;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A request the engine received under {@code /v1/}, as it arrived.
 *
 * @param method HTTP method, e.g. {@code POST}
 * @param path the request target without the query string
 * @param headers header values by lower-cased name (repeated headers joined with {@code ", "})
 * @param body the JSON body, or null when the body was empty or not JSON
 */
public record ReceivedRequest(
    String method, String path, Map<String, String> headers, @Nullable JsonNode body) {

  public ReceivedRequest {
    requireNonNull(method, "method");
    requireNonNull(path, "path");
    headers = Map.copyOf(headers);
  }

  /** The value of header {@code name} (any case), or null. */
  public @Nullable String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }
}

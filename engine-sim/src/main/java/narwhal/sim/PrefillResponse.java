package narwhal.sim;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jspecify.annotations.Nullable;

/**
 * A prefill leg's answer as the engine sent it: what a test compares with the {@code
 * kv_transfer_params} its decode engine received, to prove the router passed them on verbatim.
 *
 * @param requestId the request id base the prefill was asked with ({@code X-Request-Id}, else the
 *     body's {@code request_id}, else random)
 * @param responseId the response's {@code id}, e.g. {@code cmpl-<requestId>}
 * @param kvTransferParams the response's {@code kv_transfer_params} exactly as sent (a JSON null
 *     when it carried none)
 */
public record PrefillResponse(String requestId, String responseId, JsonNode kvTransferParams) {

  public PrefillResponse {
    requireNonNull(requestId, "requestId");
    requireNonNull(responseId, "responseId");
    requireNonNull(kvTransferParams, "kvTransferParams");
  }

  static PrefillResponse sent(String requestId, String responseId, @Nullable ObjectNode sentParams) {
    // A copy: the sent tree belongs to the response being written.
    return new PrefillResponse(
        requestId, responseId, sentParams == null ? NullNode.getInstance() : sentParams.deepCopy());
  }
}

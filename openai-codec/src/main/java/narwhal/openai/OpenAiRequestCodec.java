package narwhal.openai;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Objects;
import narwhal.api.InvalidRequestException;
import narwhal.api.RouterError;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * Maps an OpenAI {@code /v1/completions} or {@code /v1/chat/completions} request body onto
 * {@link CompletionRequest}, and back.
 *
 * <p><b>Typed fields.</b> {@code model}, the input ({@code prompt} for completions: text, a list
 * of token ids, or any other shape as JSON; {@code messages} for chat), {@code max_tokens},
 * {@code max_completion_tokens}, the sampling settings named in {@code SamplingSettings},
 * {@code stream} and {@code stream_options}. Every other field goes to {@code extra_fields} as
 * compact JSON text, except {@code kv_transfer_params}, which is dropped: transfer parameters
 * are the router's to set.
 *
 * <p><b>Kept verbatim instead.</b> A recognised field whose typed slot cannot tell the value apart
 * from "absent" stays in {@code extra_fields}: any {@code null}, {@code "stream": false},
 * {@code "model": ""} and {@code "stop": []}. A {@code stream_options} object is typed only when
 * it holds nothing but {@code include_usage} / {@code continuous_usage_stats} booleans; one with
 * other keys (or null values) is kept whole in {@code extra_fields}, so nothing the client sent
 * is lost, and {@link CompletionRequest#hasStreamOptions()} is then false.
 *
 * <p><b>Round trip.</b> For a valid body {@code x} without {@code kv_transfer_params},
 * {@code toJson(parse(x))} equals {@code x} as a JSON tree, with two exceptions: {@code stop}
 * given as a string comes back as a one-element list, and the typed floating-point settings come
 * back as doubles ({@code "temperature": 1} becomes {@code 1.0}; equal as numbers). Verbatim
 * fields keep their exact values (see {@link Json}).
 *
 * <p><b>Validation</b> (each a 400 {@link RouterError#invalid} whose message says what to fix):
 * malformed JSON (with line and column), a body that is not an object, {@code model} not a
 * string, {@code stream} not a boolean, {@code n}, {@code best_of}, {@code max_tokens},
 * {@code max_completion_tokens}, {@code top_k}, {@code seed}, {@code min_tokens} not 64-bit
 * integers (booleans and {@code 2.0} are not integers), a token limit below 1, {@code n} or
 * {@code best_of} above 1, the float settings not finite numbers, {@code stop} not a string or
 * list of strings, {@code prompt} not a string or array, {@code messages} not an array of
 * objects, a chat message without a string {@code role}, a missing input ({@code prompt} for
 * completions; a missing or empty {@code messages} for chat), {@code vllm_xargs} setting
 * {@code kv_transfer_params}, {@code kv_cache_report_mode} or {@code ec_transfer_params}, and for
 * non-streaming requests {@code audio}, {@code modalities} other than {@code ["text"]} or a tool
 * whose type is not {@code function} (the response assembler handles text and function calls
 * only). Null values pass every type check. Stateless and thread-safe.
 */
public final class OpenAiRequestCodec {

  private OpenAiRequestCodec() {}

  /**
   * Parses a client body.
   *
   * @param route the endpoint the client called; {@code ROUTE_UNSPECIFIED} is a programming error
   * @param clientRequestId the client's {@code X-Request-Id}, or null when it sent none
   * @throws InvalidRequestException a 400 naming the offending field
   */
  public static CompletionRequest parse(byte[] body, Route route, @Nullable String clientRequestId)
      throws InvalidRequestException {
    Objects.requireNonNull(body, "body");
    if (route != Route.ROUTE_COMPLETIONS && route != Route.ROUTE_CHAT_COMPLETIONS) {
      throw new IllegalArgumentException("not a client route: " + route);
    }
    JsonNode root = readBody(body);
    if (!root.isObject()) {
      throw new InvalidRequestException(
          RouterError.invalid(
              "request body must be a JSON object, got " + JsonChecks.describe(root), null));
    }
    return new RequestReader(route)
        .read((ObjectNode) root, clientRequestId == null ? "" : clientRequestId);
  }

  /**
   * The request as an OpenAI body: every typed field that is set plus every extra field. The
   * client request id is not a body field and is not written. Returns a fresh, mutable node.
   *
   * @throws IllegalArgumentException when an extra field (or JSON content / prompt) does not hold
   *     valid JSON text, which only a hand-built request can cause
   */
  public static ObjectNode toJson(CompletionRequest request) {
    return RequestWriter.write(request);
  }

  private static JsonNode readBody(byte[] body) throws InvalidRequestException {
    JsonNode root;
    try {
      root = Json.mapper().readTree(body);
    } catch (JsonProcessingException e) {
      throw new InvalidRequestException(
          RouterError.invalid(
              "request body is not valid JSON: " + e.getOriginalMessage() + where(e.getLocation()),
              null));
    } catch (IOException e) {
      // Jackson reports undecodable bytes (bad UTF-8) as a plain IOException.
      throw new InvalidRequestException(
          RouterError.invalid("request body is not valid JSON: " + e.getMessage(), null));
    }
    if (root == null || root.isMissingNode()) {
      throw new InvalidRequestException(
          RouterError.invalid("request body is empty: send a JSON object", null));
    }
    return root;
  }

  private static String where(@Nullable JsonLocation location) {
    if (location == null || location.getLineNr() < 0) {
      return "";
    }
    return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
  }
}

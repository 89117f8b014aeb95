package narwhal.core.profile.measure;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import narwhal.api.InvalidRequestException;
import narwhal.openai.Json;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;

/**
 * The completions a measurement sends: prompts given as token ids, so their length is exact on any
 * engine (no tokenizer in between), each drawn at random so no two share a prefix and an engine's
 * prefix cache never shortens a prefill being timed. Ids lie in [1000, 30000): inside any real
 * vocabulary and clear of the special tokens at its start. Not thread-safe: one per measurement.
 */
final class TokenPrompts {

  static final int LOWEST_ID = 1000;
  static final int ID_RANGE = 29_000;

  private final String model;
  private final SplittableRandom random;

  TokenPrompts(String model, long seed) {
    this.model = model;
    this.random = new SplittableRandom(seed);
  }

  /**
   * A completion of {@code promptTokens} tokens asking for {@code outputTokens} tokens, all of
   * them ({@code min_tokens} and vLLM's {@code ignore_eos}: a stream that stopped early at an end
   * token would leave the batch before its steady part ends).
   */
  CompletionRequest completion(long promptTokens, int outputTokens, boolean stream) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.put("model", model);
    ArrayNode ids = body.putArray("prompt");
    for (long i = 0; i < promptTokens; i++) {
      ids.add(LOWEST_ID + random.nextInt(ID_RANGE));
    }
    body.put("max_tokens", outputTokens);
    body.put("min_tokens", outputTokens);
    body.put("ignore_eos", true);
    body.put("temperature", 0);
    body.put("stream", stream);
    try {
      return OpenAiRequestCodec.parse(body.toString().getBytes(StandardCharsets.UTF_8), Route.ROUTE_COMPLETIONS, null);
    } catch (InvalidRequestException e) {
      throw new IllegalStateException("a profiling request is invalid: " + e.getMessage(), e);
    }
  }
}

package narwhal.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.UncheckedIOException;

/**
 * The one JSON configuration for OpenAI bodies, shared by the request codec and the front-ends.
 *
 * <p>Numbers are read without loss: integers of any size stay exact and decimals are read as
 * {@link java.math.BigDecimal} with their scale kept, so a field the router passes through
 * verbatim ({@code 0.10}, {@code 123456789012345678901234567890}) reaches the engine with the value
 * the client wrote. A body with a duplicate key or anything after the top-level value is malformed:
 * the router refuses to guess which value the client meant. The mapper is thread-safe.
 */
public final class Json {

  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
          .build();

  private Json() {}

  /** The shared, configured mapper. Do not reconfigure it. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** {@code node} as compact JSON text. */
  public static String compact(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      // A tree built from parsed JSON or from node factories always serialises.
      throw new UncheckedIOException(e);
    }
  }

  /** {@code node} as compact UTF-8 JSON bytes. */
  public static byte[] compactBytes(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}

package narwhal.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

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

  /**
   * {@code "name":} as UTF-8 bytes, for {@link #withLastMember}.
   *
   * @throws IllegalArgumentException when the name would need escaping in JSON (quotes,
   *     backslashes, control characters): such names are not spliced as raw text
   */
  public static byte[] memberName(String name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < 0x20 || c == '"' || c == '\\') {
        throw new IllegalArgumentException("member name needs escaping: " + name);
      }
    }
    return ("\"" + name + "\":").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * {@code object}, the compact text of a JSON object ({@link #compactBytes}) that has no member of
   * that name, with {@code member} ({@link #memberName}) and {@code value} (compact JSON text)
   * added as its last member: the bytes {@link #compactBytes} would write for the object with that
   * member {@code set} last. A splice, so that text rendered once can take a late value without
   * a second tree or serialisation.
   *
   * @throws IllegalArgumentException when {@code object} is not an object's compact text
   */
  public static byte[] withLastMember(byte[] object, byte[] member, byte[] value) {
    int end = object.length - 1;
    if (end < 1 || object[0] != '{' || object[end] != '}') {
      throw new IllegalArgumentException("not the compact text of a JSON object");
    }
    boolean empty = end == 1;
    byte[] out = new byte[end + (empty ? 0 : 1) + member.length + value.length + 1];
    System.arraycopy(object, 0, out, 0, end);
    int at = end;
    if (!empty) {
      out[at++] = ',';
    }
    System.arraycopy(member, 0, out, at, member.length);
    at += member.length;
    System.arraycopy(value, 0, out, at, value.length);
    out[at + value.length] = '}';
    return out;
  }
}

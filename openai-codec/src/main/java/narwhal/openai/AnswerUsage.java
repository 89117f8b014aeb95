package narwhal.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * The prompt's size an OpenAI-style engine reports in a whole (non-streaming) answer: its {@code
 * usage.prompt_tokens}. Read with the streaming parser, skipping everything else, because the
 * router reads it from every prefill answer and needs nothing else from the body here.
 */
public final class AnswerUsage {

  private AnswerUsage() {}

  /**
   * {@code usage.prompt_tokens} of the top-level object in {@code body}, or 0 when the body is not
   * an object, has no usage, or the count is missing, not a positive integer or malformed. Never
   * throws: the count only improves what the journal reports. Reading stops at the count; the rest
   * of the body is the caller's to check (a prefill answer's descriptor is read in full).
   */
  public static long promptTokens(String body) {
    try (JsonParser p = Json.mapper().getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return 0;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if ("usage".equals(name) && value == JsonToken.START_OBJECT) {
          return promptTokensIn(p);
        }
        p.skipChildren();
      }
      return 0;
    } catch (IOException | RuntimeException e) {
      return 0; // malformed or out of range: the answer reported no usable count
    }
  }

  private static long promptTokensIn(JsonParser p) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if ("prompt_tokens".equals(name)) {
        return value == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER
            ? Math.max(0, p.getLongValue()) : 0;
      }
      p.skipChildren();
    }
    return 0;
  }

  /**
   * {@code prompt_tokens} of the {@code usage} object whose {@code START_OBJECT} {@code p} has just
   * read, consuming the object to its end, for a caller reading the rest of the answer in the same
   * pass; 0 when it is missing or not a non-negative integer.
   */
  public static long promptTokensOf(JsonParser p) throws IOException {
    long tokens = 0;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if ("prompt_tokens".equals(name) && value == JsonToken.VALUE_NUMBER_INT
          && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
        tokens = Math.max(0, p.getLongValue());
      } else {
        p.skipChildren();
      }
    }
    return tokens;
  }
}

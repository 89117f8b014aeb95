package narwhal.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * What an OpenAI-style engine reports of the prompt in a whole (non-streaming) answer: its {@code
 * usage.prompt_tokens} and {@code usage.prompt_tokens_details.cached_tokens}. Read with the
 * streaming parser, skipping everything else, because the router reads them from every prefill
 * answer and needs nothing else from the body here.
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

  /**
   * {@code usage.prompt_tokens_details.cached_tokens} of the top-level object in {@code body}, or
   * -1 when the answer reports none (no usage, details null or absent, the count missing or not a
   * non-negative integer). vLLM reports it only with {@code --enable-prompt-tokens-details}, and
   * only when above 0. Never throws.
   */
  public static long cachedTokens(String body) {
    try (JsonParser p = Json.mapper().getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return -1;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if ("usage".equals(name) && value == JsonToken.START_OBJECT) {
          return countsOf(p).cachedTokens();
        }
        p.skipChildren();
      }
      return -1;
    } catch (IOException | RuntimeException e) {
      return -1;
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
   * What a {@code usage} object reports of the prompt.
   *
   * @param promptTokens {@code prompt_tokens}, or 0 when missing or not a non-negative integer
   * @param cachedTokens {@code prompt_tokens_details.cached_tokens}, or -1 when not reported
   */
  public record Counts(long promptTokens, long cachedTokens) {
    /** An answer without usage. */
    public static final Counts NONE = new Counts(0, -1);
  }

  /**
   * The counts of the {@code usage} object whose {@code START_OBJECT} {@code p} has just read,
   * consuming the object to its end, for a caller reading the rest of the answer in the same pass.
   */
  public static Counts countsOf(JsonParser p) throws IOException {
    long tokens = 0;
    long cached = -1;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if ("prompt_tokens".equals(name) && value == JsonToken.VALUE_NUMBER_INT
          && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
        tokens = Math.max(0, p.getLongValue());
      } else if ("prompt_tokens_details".equals(name) && value == JsonToken.START_OBJECT) {
        cached = cachedIn(p);
      } else {
        p.skipChildren();
      }
    }
    return new Counts(tokens, cached);
  }

  /** {@code cached_tokens} of the details object {@code p} is in, consuming it to its end; -1 when absent. */
  private static long cachedIn(JsonParser p) throws IOException {
    long cached = -1;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String detail = p.currentName();
      JsonToken v = p.nextToken();
      if ("cached_tokens".equals(detail) && v == JsonToken.VALUE_NUMBER_INT
          && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER && p.getLongValue() >= 0) {
        cached = p.getLongValue();
      } else {
        p.skipChildren();
      }
    }
    return cached;
  }
}

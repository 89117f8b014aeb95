package narwhal.bench.load;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Checks one streamed completion against the simulator's oracle: every chunk's {@code text} must
 * continue the expected text exactly, the token count must match, and {@code [DONE]} must end the
 * stream. An {@code {"error": ...}} event fails it.
 *
 * <p>Comparison is on UTF-8 bytes as they arrive, so nothing is accumulated per request. Not
 * thread-safe: used on the request's event loop.
 */
public final class TokenCheck {

  /** What one SSE event was. */
  public enum Event {
    TOKEN,
    /** A chunk with no text (metadata): neither a token nor a failure. */
    EMPTY,
    DONE,
    FAILED
  }

  private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ERROR = "\"error\"".getBytes(StandardCharsets.US_ASCII);

  private final byte[] expected;
  private final int expectedTokens;
  private final JsonStringScanner text;
  private int position;
  private int tokens;
  private boolean done;
  private @Nullable String failure;

  /**
   * @param expected the expected completion text as UTF-8
   * @param text a (per event loop) extractor for the {@code "text"} field
   */
  public TokenCheck(byte[] expected, int expectedTokens, JsonStringScanner text) {
    this.expected = expected;
    this.expectedTokens = expectedTokens;
    this.text = text;
  }

  public Event onEvent(byte[] data, int length) {
    if (failure != null) {
      return Event.FAILED;
    }
    if (done) {
      return fail("event after [DONE]");
    }
    if (equals(data, length, DONE)) {
      done = true;
      return Event.DONE;
    }
    if (startsWithErrorObject(data, length)) {
      return fail("error event: " + new String(data, 0, Math.min(length, 300), StandardCharsets.UTF_8));
    }
    if (!text.find(data, length)) {
      return fail("chunk without a text field: " + new String(data, 0, Math.min(length, 300), StandardCharsets.UTF_8));
    }
    int n = text.valueLength();
    if (n == 0) {
      return Event.EMPTY;
    }
    if (position + n > expected.length || !regionMatches(text.value(), n)) {
      return fail("token " + tokens + " differs from the expected text");
    }
    position += n;
    tokens++;
    return Event.TOKEN;
  }

  /** True when the whole expected text, in the expected number of tokens, ended with [DONE]. */
  public boolean passed() {
    return failure == null && done && position == expected.length && tokens == expectedTokens;
  }

  /** Why the stream does not pass, or null when it does. */
  public @Nullable String failure() {
    if (failure != null) {
      return failure;
    }
    if (!done) {
      return "stream ended after " + tokens + " of " + expectedTokens + " tokens without [DONE]";
    }
    if (position != expected.length || tokens != expectedTokens) {
      return "[DONE] after " + tokens + " of " + expectedTokens + " tokens";
    }
    return null;
  }

  public int tokens() {
    return tokens;
  }

  public boolean done() {
    return done;
  }

  private Event fail(String why) {
    failure = why;
    return Event.FAILED;
  }

  private boolean regionMatches(byte[] value, int n) {
    for (int i = 0; i < n; i++) {
      if (expected[position + i] != value[i]) {
        return false;
      }
    }
    return true;
  }

  private static boolean equals(byte[] data, int length, byte[] literal) {
    if (length != literal.length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (data[i] != literal[i]) {
        return false;
      }
    }
    return true;
  }

  /** {@code {"error"} as the first key: how vLLM and the router report a failure mid-stream. */
  private static boolean startsWithErrorObject(byte[] data, int length) {
    int i = 0;
    while (i < length && data[i] == ' ') {
      i++;
    }
    if (i >= length || data[i] != '{') {
      return false;
    }
    i++;
    while (i < length && data[i] == ' ') {
      i++;
    }
    if (i + ERROR.length > length) {
      return false;
    }
    for (int k = 0; k < ERROR.length; k++) {
      if (data[i + k] != ERROR[k]) {
        return false;
      }
    }
    return true;
  }
}

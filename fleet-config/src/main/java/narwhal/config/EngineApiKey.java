package narwhal.config;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The bearer token the router sends to every engine ({@code Authorization: Bearer ...}), read once
 * at startup from the environment variable {@code engine.engine_api_key_env} names.
 *
 * <p>A secret: {@link #toString()} never shows it, so a config printed in a log line, an exception
 * or a test failure cannot leak it. Only {@link #authorization()} hands the value out, for the one
 * place that puts it on the wire.
 */
public final class EngineApiKey {

  private static final EngineApiKey NONE = new EngineApiKey("");

  private final String value;

  private EngineApiKey(String value) {
    this.value = value;
  }

  /** No key: engine requests carry no {@code Authorization} header. */
  public static EngineApiKey none() {
    return NONE;
  }

  /**
   * A key with this value.
   *
   * @throws IllegalArgumentException when the value is empty or cannot be sent as one header line
   */
  public static EngineApiKey of(String value) {
    Objects.requireNonNull(value, "value");
    if (value.isEmpty()) {
      throw new IllegalArgumentException("an engine API key must not be empty");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      // A CR or LF would split the header (request smuggling); other controls are not valid there.
      if (c < 0x20 || c == 0x7f) {
        throw new IllegalArgumentException("an engine API key must not contain control characters");
      }
    }
    return new EngineApiKey(value);
  }

  public boolean isSet() {
    return !value.isEmpty();
  }

  /** The {@code Authorization} header value ({@code "Bearer <key>"}), or null without a key. */
  public @Nullable String authorization() {
    return isSet() ? "Bearer " + value : null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EngineApiKey other && value.equals(other.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return isSet() ? "EngineApiKey[set, value hidden]" : "EngineApiKey[none]";
  }
}

package narwhal.core.legs;

/** Counts of generated tokens in error messages: "1 token", "0 tokens", "12 tokens". */
public final class TokenCounts {

  private TokenCounts() {}

  public static String describe(long tokens) {
    return tokens == 1 ? "1 token" : tokens + " tokens";
  }
}

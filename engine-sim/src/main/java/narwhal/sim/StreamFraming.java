package narwhal.sim;

import java.util.Locale;

/**
 * How a streamed ({@code "stream": true}) response's body is framed on the wire. Non-streamed
 * responses (a prefill leg's JSON) always carry a {@code Content-Length}, whatever the style.
 */
public enum StreamFraming {
  /** {@code Transfer-Encoding: chunked} on a keep-alive connection: what vLLM (uvicorn) sends. */
  CHUNKED,
  /**
   * An HTTP/1.1 close-delimited body: a head with neither {@code Content-Length} nor {@code
   * Transfer-Encoding} and {@code Connection: close}, the SSE bytes raw, and the engine closing
   * the connection after the last one (RFC 9112 §6.3 rule 8). Some OpenAI-compatible servers
   * stream this way; a client then needs a new connection for every stream.
   */
  CLOSE;

  /** {@code chunked} or {@code close}, any case. */
  public static StreamFraming parse(String text) {
    switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "chunked":
        return CHUNKED;
      case "close":
        return CLOSE;
      default:
        throw new IllegalArgumentException("stream framing must be chunked or close, got '" + text + "'");
    }
  }

  /** {@code chunked} or {@code close}: the flag's and the admin API's spelling. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}

package narwhal.spi;

import java.time.Duration;

/**
 * Limits on one exchange.
 *
 * @param connectTimeout how long opening a new connection may take
 * @param maxBodyBytes the largest non-SSE response body accepted, and the largest single SSE event
 */
public record ExchangeOptions(Duration connectTimeout, int maxBodyBytes) {

  public static ExchangeOptions defaults() {
    return new ExchangeOptions(Duration.ofSeconds(10), 16 * 1024 * 1024);
  }
}

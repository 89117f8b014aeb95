package narwhal.core.legs;

import java.time.Duration;
import narwhal.spi.ExchangeOptions;

/**
 * Time and size limits for one engine leg.
 *
 * @param timeoutNanos prefill: the whole leg ({@code serving.prefill_timeout_s}); decode: from
 *     before the connection opens to the first generated token ({@code engine.first_token_timeout_s})
 * @param readTimeoutNanos decode only: the longest silence allowed between transport chunks after
 *     the first token ({@code engine.decode_read_timeout_s}); 0 means no bound here (the request's
 *     own deadline still applies)
 * @param exchange connect timeout and response size limit
 */
public record LegLimits(long timeoutNanos, long readTimeoutNanos, ExchangeOptions exchange) {

  public static LegLimits prefill(Duration timeout, ExchangeOptions exchange) {
    return new LegLimits(timeout.toNanos(), 0, exchange);
  }

  public static LegLimits decode(Duration firstToken, Duration read, ExchangeOptions exchange) {
    return new LegLimits(firstToken.toNanos(), read.toNanos(), exchange);
  }
}

package narwhal.core.checks;

import java.time.Duration;
import narwhal.config.EngineContract;
import narwhal.config.FleetConfig;
import narwhal.core.legs.LegLimits;
import narwhal.spi.ExchangeOptions;
import org.jspecify.annotations.Nullable;

/**
 * The fleet configuration as the checks need it, converted once.
 *
 * @param healthTimeoutNanos bounds each plain GET (health, model list, attestation): {@code
 *     engine.health_timeout_s}
 * @param probeLegNanos bounds each probe leg, per the spec's "each probe leg uses {@code
 *     engine.first_token_timeout_s}": the whole prefill leg, and the decode leg's first token and
 *     every gap after it
 */
record CheckSettings(
    String model,
    @Nullable EngineContract contract,
    long healthTimeoutNanos,
    long probeLegNanos,
    ExchangeOptions exchange) {

  static CheckSettings from(FleetConfig config) {
    ExchangeOptions exchange = new ExchangeOptions(
        seconds(config.engine().connectTimeoutS()),
        (int) Math.min(Integer.MAX_VALUE, config.serving().maxResponseBytes()));
    return new CheckSettings(
        config.model(),
        config.engineContract(),
        seconds(config.engine().healthTimeoutS()).toNanos(),
        seconds(config.engine().firstTokenTimeoutS()).toNanos(),
        exchange);
  }

  LegLimits prefillLimits() {
    return new LegLimits(probeLegNanos, 0, exchange);
  }

  LegLimits decodeLimits() {
    return new LegLimits(probeLegNanos, probeLegNanos, exchange);
  }

  private static Duration seconds(double s) {
    return Duration.ofNanos(Math.round(s * 1e9));
  }
}

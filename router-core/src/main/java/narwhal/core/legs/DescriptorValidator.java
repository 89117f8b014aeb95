package narwhal.core.legs;

import narwhal.spi.PrefillResult;

import narwhal.spi.EngineDialect;
import org.jspecify.annotations.Nullable;

/**
 * Checks a KV handoff before the decode HTTP request is made. A descriptor that fails is never sent
 * to a consumer: the attempt fails as a {@code kv_handoff} failure.
 *
 * <p>Opaque runtime fields are not inspected; they travel verbatim.
 */
public final class DescriptorValidator {

  private DescriptorValidator() {}

  /**
   * Returns why {@code handoff} cannot be used by a consumer speaking {@code dialect}, configured
   * with {@code consumerConnector}, for a decode on {@code decodeEndpoint}, or null when it can.
   */
  public static @Nullable String problem(
      PrefillResult handoff, EngineDialect dialect, String consumerConnector, String decodeEndpoint) {
    String problem = descriptorProblem(handoff, dialect, consumerConnector);
    return problem != null ? problem : endpointProblem(handoff, decodeEndpoint);
  }

  /**
   * Why the descriptor itself cannot be used by a consumer speaking {@code dialect}, configured
   * with {@code consumerConnector} (engine identity, block ids, connector), or null. Checked before
   * anything is rendered from it.
   */
  public static @Nullable String descriptorProblem(
      PrefillResult handoff, EngineDialect dialect, String consumerConnector) {
    return dialect.handoffProblem(handoff.descriptor(), consumerConnector);
  }

  /** Why a decode on {@code decodeEndpoint} cannot take a handoff produced for another endpoint, or null. */
  public static @Nullable String endpointProblem(PrefillResult handoff, String decodeEndpoint) {
    if (!handoff.endpoint().equals(decodeEndpoint)) {
      return "the producer served " + handoff.endpoint() + " but the decode leg would use " + decodeEndpoint;
    }
    return null;
  }
}

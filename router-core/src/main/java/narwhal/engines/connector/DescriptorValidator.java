package narwhal.engines.connector;

import narwhal.proto.v1.KvHandoffDescriptor;
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
   * Returns why {@code handoff} cannot be used by a consumer configured with {@code
   * consumerConnector} for a decode on {@code decodeEndpoint}, or null when it can.
   */
  public static @Nullable String problem(
      PrefillResult handoff, String consumerConnector, String decodeEndpoint) {
    KvHandoffDescriptor d = handoff.descriptor();
    if (d.getEngineId().isBlank()) {
      return "the descriptor names no producer engine identity";
    }
    if (d.getBlockIdsCount() == 0) {
      return "the descriptor lists no KV block ids";
    }
    for (long id : d.getBlockIdsList()) {
      if (id < 0) {
        return "the descriptor has a negative KV block id (" + id + ")";
      }
    }
    if (!d.getConnector().equals(consumerConnector)) {
      return "the descriptor comes from connector '" + d.getConnector()
          + "' but the decode engine uses '" + consumerConnector + "'";
    }
    if (!handoff.endpoint().equals(decodeEndpoint)) {
      return "the producer served " + handoff.endpoint() + " but the decode leg would use " + decodeEndpoint;
    }
    return null;
  }
}

package narwhal.spi;

import narwhal.proto.v1.KvHandoffDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * The checks every block-list KV descriptor must pass (NixlConnector and its kin): the default of
 * {@link EngineDialect#handoffProblem}.
 */
public final class BlockListHandoffs {

  private BlockListHandoffs() {}

  /** Why {@code d} cannot be used by a consumer on {@code consumerConnector}, or null. */
  public static @Nullable String problem(KvHandoffDescriptor d, String consumerConnector) {
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
    return null;
  }
}

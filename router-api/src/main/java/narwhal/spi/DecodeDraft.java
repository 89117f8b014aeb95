package narwhal.spi;

import narwhal.proto.v1.KvHandoffDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * A decode leg's request built as far as it can be before the handoff exists (see {@link
 * EngineDialect#draftDecodeRequest}). The core drafts it while the prefill leg runs, so that
 * between the prefill answer and the decode request only the handoff is left to add. Completing a
 * draft does not change it: a request whose prefill failed completes the same draft on its retry.
 */
@FunctionalInterface
public interface DecodeDraft {

  /**
   * The decode request, exactly as {@link EngineDialect#decodeRequest} would build it for the
   * drafted request with {@code handoff} (null: same-engine decode, no transfer parameters).
   */
  EngineHttpRequest complete(@Nullable KvHandoffDescriptor handoff, String backendRequestId);
}

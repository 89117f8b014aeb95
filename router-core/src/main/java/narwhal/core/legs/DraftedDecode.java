package narwhal.core.legs;

import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.spi.DecodeDraft;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import org.jspecify.annotations.Nullable;

/**
 * A request's decode leg drafted for one dialect ({@link EngineDialect#draftDecodeRequest}) before
 * its consumer is placed. A request drafts while its prefill leg runs, for its producer's dialect,
 * which its consumer speaks too (placement pairs engines of one dialect). A draft handed to a
 * consumer of another dialect is not sent: the consumer drafts its own when its leg starts.
 *
 * @param dialect the name of the dialect {@code draft} was made by
 * @param request the decode leg's request
 */
public record DraftedDecode(String dialect, CompletionRequest request, DecodeDraft draft) {

  /** Drafts {@code request}'s decode leg with {@code dialect}. */
  public static DraftedDecode of(EngineDialect dialect, CompletionRequest request) {
    return new DraftedDecode(dialect.name(), request, dialect.draftDecodeRequest(request));
  }

  /** The decode request in {@code consumerDialect}'s terms, from this draft when it speaks that dialect. */
  EngineHttpRequest complete(
      EngineDialect consumerDialect, @Nullable KvHandoffDescriptor handoff, String backendRequestId) {
    DecodeDraft usable = consumerDialect.name().equals(dialect)
        ? draft
        : consumerDialect.draftDecodeRequest(request);
    return usable.complete(handoff, backendRequestId);
  }
}

package narwhal.grpc;

import narwhal.api.ResponseBudget;
import narwhal.api.ResponseStart;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.MetadataChunk;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.TokenDelta;
import narwhal.proto.v1.Usage;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@code Complete} answer from the relayed events, as the HTTP front-end assembles a
 * non-streaming response: the token texts concatenated, the last {@code finish_reason} set, the
 * engine's usage when it sent one (otherwise the generated chunks counted, prompt tokens 0), the
 * chat role. Memory is bounded as HTTP bounds its assembled responses ({@link ResponseBudget}):
 * the text is counted in UTF-8 bytes as it arrives and refused once over {@code maxBytes}, and the
 * finished message, framing included, is checked once more.
 */
final class CompletionAssembler {

  /** The answer cannot be built; the client gets 502 {@code decode} with this message. */
  static final class OverflowException extends Exception {
    private static final long serialVersionUID = 1L;

    OverflowException(String message) {
      super(message);
    }
  }

  private final Route route;
  private final ResponseBudget budget;
  private final StringBuilder text = new StringBuilder();
  private @Nullable String finishReason;
  private @Nullable Usage usage;
  private String role = "";
  private long tokens;

  CompletionAssembler(Route route, long maxBytes) {
    this.route = route;
    this.budget = new ResponseBudget(maxBytes);
  }

  void add(StreamEvent event) throws OverflowException {
    if (event.hasToken()) {
      TokenDelta t = event.getToken();
      tokens++;
      if (!budget.add(t.getText())) {
        throw new OverflowException(budget.overLimitMessage());
      }
      text.append(t.getText());
      take(t.hasFinishReason() ? t.getFinishReason() : null, t.hasUsage() ? t.getUsage() : null, t.getRole());
    } else if (event.hasMetadata()) {
      MetadataChunk m = event.getMetadata();
      take(m.hasFinishReason() ? m.getFinishReason() : null, m.hasUsage() ? m.getUsage() : null, m.getRole());
    }
  }

  /** The answer; throws when the whole message is over the limit. */
  Completion build(ResponseStart start) throws OverflowException {
    boolean chat = route == Route.ROUTE_CHAT_COMPLETIONS;
    Completion.Builder out = Completion.newBuilder()
        .setId((chat ? "chatcmpl-" : "cmpl-") + start.requestId())
        .setModel(start.model())
        .setRoute(route)
        .setText(text.toString())
        .setCreated(start.createdEpochSeconds())
        .setUsage(usage != null ? usage : Usage.newBuilder()
            .setCompletionTokens(tokens).setTotalTokens(tokens).build());
    if (finishReason != null) {
      out.setFinishReason(finishReason);
    }
    if (chat) {
      out.setRole(role.isEmpty() ? "assistant" : role);
    }
    Completion completion = out.build();
    if (!budget.fits(completion.getSerializedSize())) {
      throw new OverflowException(budget.overLimitMessage());
    }
    return completion;
  }

  private void take(@Nullable String finish, @Nullable Usage chunkUsage, String chunkRole) {
    if (finish != null) {
      finishReason = finish;
    }
    if (chunkUsage != null) {
      usage = chunkUsage;
    }
    if (!chunkRole.isEmpty()) {
      role = chunkRole;
    }
  }
}

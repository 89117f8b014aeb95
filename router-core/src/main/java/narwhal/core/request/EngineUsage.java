package narwhal.core.request;

import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.Usage;
import org.jspecify.annotations.Nullable;

/**
 * The prompt length an engine reports in a stream's usage, for the journal's {@code input_len}
 * when the router did not count the prompt itself (only a token-id prompt is counted locally).
 */
final class EngineUsage {

  private EngineUsage() {}

  /**
   * {@code event}'s {@code usage.prompt_tokens} when it carries a positive one, else {@code known}
   * (usage usually comes once, on the last chunk; a later report replaces an earlier one).
   */
  static @Nullable Long promptTokens(StreamEvent event, @Nullable Long known) {
    Usage usage = event.hasToken() && event.getToken().hasUsage() ? event.getToken().getUsage()
        : event.hasMetadata() && event.getMetadata().hasUsage() ? event.getMetadata().getUsage()
        : null;
    return usage != null && usage.getPromptTokens() > 0 ? Long.valueOf(usage.getPromptTokens()) : known;
  }
}

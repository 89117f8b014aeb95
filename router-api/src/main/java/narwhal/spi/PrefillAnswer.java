package narwhal.spi;

import narwhal.proto.v1.KvHandoffDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * What a producer's successful (HTTP 200) prefill answer says, read from its body in one pass
 * ({@link EngineDialect#readPrefillAnswer}).
 *
 * @param handoff the KV handoff descriptor; null only for a dialect whose handoff the router plans
 *     itself ({@link HandoffStyle#CONCURRENT}), whose answer carries none
 * @param promptTokens the prompt's size as the producer reported it (OpenAI-style engines: {@code
 *     usage.prompt_tokens}), or 0 when it reported none; it never fails a leg and decides nothing:
 *     it is what the journal's {@code input_len} reports for a prompt the router only estimated
 * @param cachedTokens the prompt tokens the producer's prefix cache spared it (OpenAI-style engines:
 *     {@code usage.prompt_tokens_details.cached_tokens}), or -1 when it reported none; it never fails
 *     a leg: it is the journal's {@code cached_tokens} and what the cache self-check compares with
 *     the prediction
 */
public record PrefillAnswer(@Nullable KvHandoffDescriptor handoff, long promptTokens, long cachedTokens) {

  public PrefillAnswer {
    promptTokens = Math.max(0, promptTokens);
    cachedTokens = Math.max(-1, cachedTokens);
  }

  /** An answer that reports no cached tokens. */
  public PrefillAnswer(@Nullable KvHandoffDescriptor handoff, long promptTokens) {
    this(handoff, promptTokens, -1);
  }
}

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
 */
public record PrefillAnswer(@Nullable KvHandoffDescriptor handoff, long promptTokens) {

  public PrefillAnswer {
    promptTokens = Math.max(0, promptTokens);
  }
}

package narwhal.sim;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A validated generation request: what the engine needs to produce its response.
 *
 * @param endpoint completions or chat
 * @param stream SSE response when true
 * @param includeUsage send a usage chunk before {@code [DONE]}
 * @param continuousUsage put running usage on every chunk
 * @param maxTokens tokens to generate at most
 * @param promptKey what the generated tokens depend on (see {@link SimEngine#expectedTokens})
 * @param promptTokens prompt length in tokens
 * @param directives the {@code [[sim:...]]} faults written in the prompt
 * @param remoteDecode a prefill leg: {@code kv_transfer_params.do_remote_decode} is true
 * @param kvPull a decode leg with a usable NIXL descriptor
 * @param idBase the base of the response id ({@code X-Request-Id}, {@code request_id} or random)
 * @param bootstrap SGLang mode: the rendezvous the request carries, or null
 * @param bootstrapPrefill SGLang mode: the rendezvous names this engine, so this is the prefill leg
 * @param producer a usable pull's producer when its descriptor says where to report the pull, else
 *     null
 * @param promptIds a token-id prompt's ids; null for text (its ids are its words', {@link #tokenIds()})
 */
record SimRequest(
    GenerationEndpoint endpoint,
    boolean stream,
    boolean includeUsage,
    boolean continuousUsage,
    int maxTokens,
    String promptKey,
    int promptTokens,
    List<FaultSpec> directives,
    boolean remoteDecode,
    boolean kvPull,
    String idBase,
    @Nullable BootstrapFields bootstrap,
    boolean bootstrapPrefill,
    @Nullable ProducerKv producer,
    int @Nullable [] promptIds) {

  /** The prompt's token ids, as the tokenize route reports them and the prefix cache keys them. */
  int[] tokenIds() {
    return promptIds != null ? promptIds : SimVocabulary.ids(promptKey);
  }

  RequestPhase phase() {
    return remoteDecode || bootstrapPrefill ? RequestPhase.PREFILL : RequestPhase.DECODE;
  }

  /** SGLang mode: a decode leg that must pull its KV from another engine's bootstrap room. */
  boolean bootstrapDecode() {
    return bootstrap != null && !bootstrapPrefill;
  }
}

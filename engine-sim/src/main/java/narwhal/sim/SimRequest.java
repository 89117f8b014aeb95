package narwhal.sim;

import java.util.List;

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
 */
record SimRequest(
    Endpoint endpoint,
    boolean stream,
    boolean includeUsage,
    boolean continuousUsage,
    int maxTokens,
    String promptKey,
    int promptTokens,
    List<FaultSpec> directives,
    boolean remoteDecode,
    boolean kvPull,
    String idBase) {

  RequestPhase phase() {
    return remoteDecode ? RequestPhase.PREFILL : RequestPhase.DECODE;
  }
}

package narwhal.spi;

import java.util.List;
import narwhal.config.EngineSpec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * How one engine family speaks disaggregated serving on the wire. Implementations are found with
 * {@link java.util.ServiceLoader} (register in {@code META-INF/services/narwhal.spi.EngineDialect}),
 * so a vendor ships a dialect as its own module without touching the core.
 *
 * <p>A dialect is pure translation: it builds requests and reads responses. Timing, retries,
 * validation and error mapping are the core's. Implementations must be stateless and thread-safe.
 */
public interface EngineDialect {

  /** The name fleets select it by ({@code engine.dialect}), e.g. {@code vllm}. */
  String name();

  /** The prefill leg: asks the producer to compute the prompt's KV cache and describe it. */
  EngineHttpRequest prefillRequest(CompletionRequest request, String backendRequestId);

  /**
   * Reads the producer's successful (HTTP 200) prefill response body, once: the handoff descriptor
   * and the prompt's size it reports (see {@link PrefillAnswer}). An unreadable count is 0, never a
   * failure; a dialect whose handoff is planned ({@link HandoffStyle#CONCURRENT}) returns no
   * descriptor.
   *
   * @param connector the producer's configured KV connector, used when the descriptor does not name one
   * @throws UnreadableHandoffException when no usable descriptor can be read (the attempt fails as
   *     a {@code kv_handoff} failure and no decode request is sent)
   */
  PrefillAnswer readPrefillAnswer(String body, String connector) throws UnreadableHandoffException;

  /** The descriptor as this engine family's transfer parameters, as JSON object text. */
  String transferParametersJson(KvHandoffDescriptor descriptor);

  /**
   * The decode leg. {@code handoff} is null for same-engine decode: then no transfer parameters
   * at all are sent and the engine relies on its prefix cache.
   */
  EngineHttpRequest decodeRequest(
      CompletionRequest request, @Nullable KvHandoffDescriptor handoff, String backendRequestId);

  /**
   * {@link #decodeRequest} in two steps: everything that does not depend on the handoff now, the
   * rest when {@link DecodeDraft#complete} is called. The core drafts while the prefill leg runs
   * (the engine's prefill takes milliseconds; the router is idle then), so the request body is
   * not built on the path from the prefill answer to the decode request. A draft must complete to
   * exactly what {@link #decodeRequest} returns. The default drafts nothing ahead.
   */
  default DecodeDraft draftDecodeRequest(CompletionRequest request) {
    return (handoff, backendRequestId) -> decodeRequest(request, handoff, backendRequestId);
  }

  /** A decoder for one decode stream's SSE events on {@code route}. */
  DecodeEventDecoder decodeEventDecoder(Route route);

  /** The human-readable message inside an engine error body, or "" when there is none. */
  String errorMessage(String body);

  /** A cheap liveness request ({@code GET /health} for vLLM). */
  EngineHttpRequest healthRequest();

  /**
   * Why {@code handoff} cannot be used by a consumer configured with {@code consumerConnector}, or
   * null when it can. Checked before any decode request is sent; a problem fails the attempt as a
   * {@code kv_handoff} failure blamed on the producer. (The core checks the endpoint itself.)
   *
   * <p>The default suits block-list connectors such as NixlConnector: the descriptor must name the
   * producer engine, list at least one block id, none negative, and come from the consumer's
   * connector. Opaque runtime fields are never inspected.
   */
  default @Nullable String handoffProblem(KvHandoffDescriptor handoff, String consumerConnector) {
    return BlockListHandoffs.problem(handoff, consumerConnector);
  }

  /** How this family moves KV from producer to consumer; {@link HandoffStyle#SEQUENTIAL} by default. */
  default HandoffStyle handoffStyle() {
    return HandoffStyle.SEQUENTIAL;
  }

  /**
   * {@link HandoffStyle#CONCURRENT} only: the rendezvous one attempt's legs both carry when
   * {@code producer} prefills. {@code room} is a fresh random non-negative id per attempt, the same
   * for both legs. The core validates it with {@link #handoffProblem} and passes it to {@link
   * #prefillRequest(CompletionRequest, KvHandoffDescriptor, String)} and {@link #decodeRequest}.
   */
  default KvHandoffDescriptor planHandoff(EngineSpec producer, long room) {
    throw new UnsupportedOperationException(name() + " reads its KV handoff from the prefill response");
  }

  /**
   * {@link HandoffStyle#CONCURRENT} only: the prefill leg of a planned rendezvous. It is sent at
   * the same time as the decode leg; its response is drained and only its status matters.
   */
  default EngineHttpRequest prefillRequest(
      CompletionRequest request, KvHandoffDescriptor planned, String backendRequestId) {
    throw new UnsupportedOperationException(name() + " reads its KV handoff from the prefill response");
  }

  /**
   * Problems with how {@code engine} is configured for this dialect (e.g. a missing or malformed
   * {@code dialect_options} entry), each a sentence saying what to fix; empty when it is usable.
   * Checked when the router starts.
   */
  default List<String> configurationProblems(EngineSpec engine) {
    return List.of();
  }

  /**
   * The request asking the engine how many tokens {@code request}'s prompt is, as the engine will
   * see it (its tokenizer and, for chat, its chat template), or null when the engine family has no
   * such route or cannot count this prompt's shape. The router then estimates the count from
   * {@code engine.chars_per_token}. Optional: the default is null (no route). vLLM answers {@code
   * POST /tokenize}. A token-id prompt never reaches this: the router counts it itself.
   *
   * @param backendRequestId the id the count carries ({@code X-Request-Id}), for the engine's logs
   */
  default @Nullable EngineHttpRequest tokenizeRequest(CompletionRequest request, String backendRequestId) {
    return null;
  }

  /**
   * The prompt's token count in a successful (HTTP 200) answer to {@link #tokenizeRequest}. Only
   * called for dialects whose {@link #tokenizeRequest} sends something.
   *
   * @throws IllegalArgumentException when the body carries no count; the message says why
   */
  default long readTokenCount(String body) {
    throw new UnsupportedOperationException(name() + " has no tokenize route");
  }

  /**
   * The prompt's token ids in a successful answer to {@link #tokenizeRequest} (vLLM: its {@code
   * tokens}), for cache-aware placement; only asked when that is on. Optional: the default is
   * null (the answer lists none; placement then treats the prompt as uncached everywhere).
   *
   * @throws IllegalArgumentException when the answer's list is malformed; the message says why
   */
  default int @Nullable [] readTokenIds(String body) {
    return null;
  }

  /**
   * The request listing the models the engine serves. The default is the OpenAI-compatible
   * {@code GET /v1/models}, which vLLM and SGLang answer.
   */
  default EngineHttpRequest modelsRequest() {
    return EngineHttpRequest.get("/v1/models");
  }

  /**
   * The model names in a successful (HTTP 200) answer to {@link #modelsRequest()} (an
   * OpenAI-compatible engine: {@code narwhal.openai.ModelLists#ids}). No default: the SPI does not
   * know any engine's JSON.
   *
   * @throws IllegalArgumentException when the body is not such a list; the message says why
   */
  List<String> readModels(String body);
}

package narwhal.engines.sglang;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import narwhal.openai.ModelLists;
import narwhal.openai.AnswerUsage;
import narwhal.config.EngineSpec;
import narwhal.spi.DecodeEventDecoder;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.PrefillAnswer;
import narwhal.spi.HandoffStyle;
import narwhal.openai.OpenAiErrorBodies;
import narwhal.openai.OpenAiStreamDecoder;
import narwhal.spi.UnreadableHandoffException;
import narwhal.openai.Json;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * SGLang's prefill/decode disaggregation, as its router (sgl-router / smg) drives it: there is no
 * descriptor round trip. The router picks the pair and adds the same three top-level fields to the
 * client's body on both legs, {@code bootstrap_host} (the producer's host), {@code bootstrap_port}
 * (the producer's KV bootstrap server port, from {@code dialect_options.bootstrap_port}, default
 * 8998) and {@code bootstrap_room} (a fresh random integer per attempt), and sends both legs at
 * once; the consumer pulls the KV cache from the producer while both run. The client streams from
 * the decode leg; the prefill leg's answer is drained.
 *
 * <p>Streaming and errors are OpenAI-shaped, as vLLM's: the decode stream is read by {@link
 * OpenAiStreamDecoder}. Each leg carries its own backend request id as {@code X-Request-Id}.
 */
public final class SglangDialect implements EngineDialect {

  public static final String NAME = "sglang";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public HandoffStyle handoffStyle() {
    return HandoffStyle.CONCURRENT;
  }

  @Override
  public KvHandoffDescriptor planHandoff(EngineSpec producer, long room) {
    return BootstrapRendezvous.plan(producer, room);
  }

  @Override
  public EngineHttpRequest prefillRequest(
      CompletionRequest request, KvHandoffDescriptor planned, String backendRequestId) {
    return post(request, planned, backendRequestId);
  }

  /**
   * A prefill outside a rendezvous (nothing to hand off to): the client's body without bootstrap
   * fields, so the engine simply computes the prompt. The router never sends it for a
   * disaggregated request; SGLang's legs are always planned with {@link #planHandoff}.
   */
  @Override
  public EngineHttpRequest prefillRequest(CompletionRequest request, String backendRequestId) {
    return post(request, null, backendRequestId);
  }

  /**
   * No descriptor (SGLang's KV handoff is planned by the router: bootstrap host, port and room sent
   * on both legs), and {@code usage.prompt_tokens}, as every OpenAI-compatible answer carries it.
   */
  @Override
  public PrefillAnswer readPrefillAnswer(String body, String connector) {
    return new PrefillAnswer(null, AnswerUsage.promptTokens(body));
  }

  /** The rendezvous as SGLang's three request fields. */
  @Override
  public String transferParametersJson(KvHandoffDescriptor descriptor) {
    return BootstrapRendezvous.render(descriptor).toString();
  }

  /**
   * The client's body (as the core shaped it: the decode leg always streams) plus the same
   * bootstrap fields the prefill leg carries; with no handoff (same-engine decode) no bootstrap
   * fields at all, whatever the client sent.
   */
  @Override
  public EngineHttpRequest decodeRequest(
      CompletionRequest request, @Nullable KvHandoffDescriptor handoff, String backendRequestId) {
    return post(request, handoff, backendRequestId);
  }

  @Override
  public DecodeEventDecoder decodeEventDecoder(Route route) {
    return new OpenAiStreamDecoder(route);
  }

  /**
   * None: the router does not ask SGLang engines to count prompts and estimates them from {@code
   * engine.chars_per_token}. SGLang's OpenAI-compatible server has no vLLM-style {@code /tokenize}
   * (some releases add a native one of another shape, which this dialect does not use).
   */
  @Override
  public @Nullable EngineHttpRequest tokenizeRequest(CompletionRequest request, String backendRequestId) {
    return null;
  }

  /** SGLang answers {@code {"object":"error","message":..}}; proxies in front may use OpenAI's. */
  @Override
  public String errorMessage(String body) {
    return OpenAiErrorBodies.message(body);
  }

  @Override
  public EngineHttpRequest healthRequest() {
    return EngineHttpRequest.get("/health");
  }

  /**
   * Host present, port 1..65535, a non-negative integer room, and the consumer on the producer's
   * connector. The block-list checks of the default do not apply: SGLang names no blocks.
   */
  @Override
  public @Nullable String handoffProblem(KvHandoffDescriptor handoff, String consumerConnector) {
    return BootstrapRendezvous.problem(handoff, consumerConnector);
  }

  @Override
  public List<String> configurationProblems(EngineSpec engine) {
    return BootstrapOptions.problems(engine);
  }

  static String endpoint(Route route) {
    return route == Route.ROUTE_CHAT_COMPLETIONS ? "/v1/chat/completions" : "/v1/completions";
  }

  private static EngineHttpRequest post(
      CompletionRequest request, @Nullable KvHandoffDescriptor rendezvous, String backendRequestId) {
    ObjectNode body = OpenAiRequestCodec.toJson(request);
    // Whatever a client put there itself never reaches an engine: the router owns the rendezvous.
    BootstrapRendezvous.removeFrom(body);
    if (rendezvous != null) {
      BootstrapRendezvous.addTo(body, rendezvous);
    }
    byte[] bytes = Json.compactBytes(body);
    return new EngineHttpRequest("POST", endpoint(request.getRoute()),
        Map.of("X-Request-Id", backendRequestId, "Content-Type", "application/json"), bytes);
  }

  @Override
  public java.util.List<String> readModels(String body) {
    return ModelLists.ids(body);
  }
}

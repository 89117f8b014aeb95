package narwhal.spi;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;

/**
 * What a prefill leg produced: the backend-owned KV handoff descriptor together with the producer
 * URL, the endpoint it served and the backend request id. Pass it, unchanged, to
 * {@link narwhal.core.legs.EngineClient#decode}.
 *
 * <p>Immutable. {@link #parameters()} hands out a detached copy of the transfer parameters, so
 * inspecting or changing that copy never changes the handoff.
 */
public final class PrefillResult {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final narwhal.proto.v1.PrefillResult proto;
  /** Rendered on first use: only {@link #parameters()} reads it, never the relay between two legs. */
  private final Supplier<String> renderParameters;
  private volatile String parametersJson;
  private final long legStartedNanos;
  private final long completedNanos;

  /**
   * @param parametersJson the descriptor rendered as the engine family's transfer parameters
   * @param legStartedNanos when the producer HTTP leg started: the handoff's age counts from here
   * @param completedNanos when the producer HTTP leg completed
   */
  public PrefillResult(
      narwhal.proto.v1.PrefillResult proto, String parametersJson, long legStartedNanos, long completedNanos) {
    this(proto, () -> parametersJson, legStartedNanos, completedNanos);
  }

  /**
   * As above, with the transfer parameters rendered only if {@link #parameters()} asks for them.
   *
   * @param renderParameters renders the descriptor as the engine family's transfer parameters; it
   *     must give the same text every time
   */
  public PrefillResult(narwhal.proto.v1.PrefillResult proto, Supplier<String> renderParameters,
      long legStartedNanos, long completedNanos) {
    this.proto = proto;
    this.renderParameters = renderParameters;
    this.legStartedNanos = legStartedNanos;
    this.completedNanos = completedNanos;
  }

  public KvHandoffDescriptor descriptor() {
    return proto.getHandoff();
  }

  public String producerUrl() {
    return proto.getProducerUrl();
  }

  public String producerIid() {
    return proto.getProducerIid();
  }

  /** The endpoint path the producer served; the decode leg must use the same one. */
  public String endpoint() {
    return proto.getEndpoint();
  }

  public Route route() {
    return proto.getRoute();
  }

  public String backendRequestId() {
    return proto.getBackendRequestId();
  }

  public long legStartedNanos() {
    return legStartedNanos;
  }

  public long completedNanos() {
    return completedNanos;
  }

  /** The prompt's size in tokens as the producer's answer reported it; 0 when it reported none. */
  public long promptTokens() {
    return proto.getPromptTokens();
  }

  /** This result with the prompt size the producer's answer reported ({@link #promptTokens()}). */
  public PrefillResult withPromptTokens(long promptTokens) {
    return new PrefillResult(proto.toBuilder().setPromptTokens(promptTokens).build(), renderParameters,
        legStartedNanos, completedNanos);
  }

  /**
   * The prompt tokens the producer's prefix cache spared it, as its answer reported them ({@code
   * usage.prompt_tokens_details.cached_tokens}), or -1 when it reported none (vLLM reports them
   * only with {@code --enable-prompt-tokens-details}, and only when above 0).
   */
  public long cachedTokens() {
    return proto.hasCachedTokens() ? proto.getCachedTokens() : -1;
  }

  /** This result with the cached tokens the producer's answer reported ({@link #cachedTokens()}; -1: none). */
  public PrefillResult withCachedTokens(long cachedTokens) {
    narwhal.proto.v1.PrefillResult.Builder b = proto.toBuilder();
    if (cachedTokens < 0) {
      b.clearCachedTokens();
    } else {
      b.setCachedTokens(cachedTokens);
    }
    return new PrefillResult(b.build(), renderParameters, legStartedNanos, completedNanos);
  }

  /** The handoff's age at {@code nowNanos}, counted from the start of the producer HTTP leg. */
  public long ageNanos(long nowNanos) {
    return nowNanos - legStartedNanos;
  }

  /** The contract message, e.g. for logging or the gRPC API. */
  public narwhal.proto.v1.PrefillResult toProto() {
    return proto;
  }

  /** A fresh, mutable copy of the transfer parameters; changing it never changes this result. */
  public Map<String, Object> parameters() {
    try {
      return MAPPER.readValue(parametersJson(), new TypeReference<LinkedHashMap<String, Object>>() {});
    } catch (IOException e) {
      throw new UncheckedIOException("transfer parameters are not a JSON object", e);
    }
  }

  private String parametersJson() {
    String json = parametersJson;
    if (json == null) {
      json = renderParameters.get(); // a race renders twice, the same text
      parametersJson = json;
    }
    return json;
  }

  @Override
  public String toString() {
    return "PrefillResult{producer=" + producerIid() + " " + producerUrl() + endpoint()
        + ", backendRequestId=" + backendRequestId() + ", engine_id=" + descriptor().getEngineId()
        + ", blocks=" + descriptor().getBlockIdsCount() + "}";
  }
}

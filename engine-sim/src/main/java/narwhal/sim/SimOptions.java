package narwhal.sim;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import narwhal.sim.gpu.GpuProfile;
import org.jspecify.annotations.Nullable;

/**
 * Configuration of one {@link SimEngine}: identity, timing model and faults.
 *
 * <p>Timing, simple mode (the default, {@code gpu} null): each response paces itself. Its first
 * token arrives {@code prefillBaseMillis + prefillMillisPerToken * promptTokens} after the request
 * (or {@code kvTransferMillisPerToken * promptTokens} when the request carries a usable NIXL
 * descriptor), then one token every {@code interTokenMillis * (1 + loadFactor * activeStreams)}.
 *
 * <p>Timing, gpu mode ({@code gpu} set): the engine runs every response in one step loop with a
 * finite KV cache, as a GPU under load would ({@link narwhal.sim.gpu.StepLoop}); the profile holds
 * the cost model and {@code prefillBaseMillis}, {@code prefillMillisPerToken}, {@code
 * interTokenMillis} and {@code loadFactor} are not used. A decode that pulls KV waits {@code
 * kvTransferMillisPerToken * promptTokens} for it in both modes.
 *
 * @param host address to bind
 * @param port port to bind; 0 picks an ephemeral port
 * @param engineId NIXL engine id reported as {@code remote_engine_id}
 * @param model served model name; requests naming another model get 404
 * @param seed seed of the deterministic token generator (see {@link SimEngine#expectedTokens})
 * @param kvHost {@code remote_host} of prefill descriptors (vLLM's side-channel host)
 * @param kvPort {@code remote_port} of prefill descriptors
 * @param tpSize {@code tp_size} of prefill descriptors
 * @param defaultMaxTokens completion length when a request sets no token limit
 * @param prefillBaseMillis fixed part of the time to first token
 * @param prefillMillisPerToken per-prompt-token part of the time to first token
 * @param kvTransferMillisPerToken per-prompt-token time to first token of a decode that pulls KV
 * @param interTokenMillis time between tokens on an idle engine
 * @param loadFactor inter-token slowdown per active stream
 * @param faults engine-level faults active from the start
 * @param maxModelLen context length; longer requests get vLLM's 400
 * @param kvCacheBlocks KV cache size in 16-token blocks, for {@code vllm:kv_cache_usage_perc}
 * @param ioThreads event-loop threads when the engine owns its event loop group
 * @param maxRecordedRequests how many requests {@link SimEngine#received()} keeps (oldest dropped)
 * @param attestation the compatibility fields {@code GET /narwhal/attestation} reports, keyed as the
 *     fleet file's {@code engine_contract}; values are JSON-able (text, numbers, booleans, null, maps)
 * @param dialect the engine family simulated: vLLM (NixlConnector) or SGLang (bootstrap rendezvous)
 * @param bootstrapPort SGLang mode: this engine's KV bootstrap port, which {@code bootstrap_port}
 *     names when this engine prefills; 0 means the HTTP port (the bootstrap endpoints are always
 *     served there too); another value opens a second listener on that port
 * @param kvWaitMillis SGLang mode: how long a decode leg waits for its prefill's KV, and a prefill
 *     leg for its decode engine to bootstrap, before failing
 * @param kvExtraFields opaque fields every prefill descriptor carries besides NixlConnector's own
 *     (a field of the same name as one of those replaces it), in order
 * @param apiKey like vLLM's {@code --api-key}: when set, every request under {@code /v1} without
 *     {@code Authorization: Bearer <apiKey>} gets 401 {@code {"error":"Unauthorized"}}; {@code
 *     /health}, {@code /metrics}, the attestation document and {@code /admin/} stay open. Null for
 *     none
 * @param streamFraming how streamed responses are framed at start ({@code POST /admin/framing} and
 *     {@link SimEngine#setStreamFraming} switch it at run time): chunked, or close-delimited
 * @param gpu the gpu timing mode's profile, or null for the simple mode; its KV cache must hold
 *     {@code maxModelLen} tokens (vLLM refuses to start otherwise), so any request the engine
 *     accepts can run, alone at worst
 * @param tls the certificate and key to serve TLS with (an {@code https://} engine), or null
 * @param prefixCaching the prefix cache and its KV events (gpu timing mode only; off by default)
 * @param disaggregationMode SGLang mode: the leg this engine always serves, as SGLang's {@code
 *     --disaggregation-mode}; null decides per request, from whether the rendezvous names this
 *     engine's address and bootstrap port
 */
public record SimOptions(
    String host,
    int port,
    String engineId,
    String model,
    long seed,
    String kvHost,
    int kvPort,
    int tpSize,
    int defaultMaxTokens,
    double prefillBaseMillis,
    double prefillMillisPerToken,
    double kvTransferMillisPerToken,
    double interTokenMillis,
    double loadFactor,
    FaultPlan faults,
    int maxModelLen,
    int kvCacheBlocks,
    int ioThreads,
    int maxRecordedRequests,
    Map<String, @Nullable Object> attestation,
    SimDialect dialect,
    int bootstrapPort,
    long kvWaitMillis,
    Map<String, JsonNode> kvExtraFields,
    @Nullable String apiKey,
    StreamFraming streamFraming,
    @Nullable GpuProfile gpu,
    @Nullable SimTls tls,
    PrefixCaching prefixCaching,
    @Nullable DisaggregationMode disaggregationMode) {

  // Simple-mode defaults as constants, so flag help text (annotation strings) quotes them.
  static final double DEFAULT_PREFILL_BASE_MILLIS = 2;
  static final double DEFAULT_PREFILL_MILLIS_PER_TOKEN = 0.02;
  static final double DEFAULT_KV_TRANSFER_MILLIS_PER_TOKEN = 0.005;
  static final double DEFAULT_INTER_TOKEN_MILLIS = 5;
  static final double DEFAULT_LOAD_FACTOR = 0;
  static final int DEFAULT_MAX_MODEL_LEN = 32768;

  public SimOptions {
    requireNonNull(host, "host");
    requireNonNull(engineId, "engineId");
    requireNonNull(model, "model");
    requireNonNull(kvHost, "kvHost");
    requireNonNull(faults, "faults");
    check(port >= 0 && port <= 65535, "port must be 0..65535, got " + port);
    check(!engineId.isBlank(), "engineId must not be blank");
    check(!model.isBlank(), "model must not be blank");
    check(kvPort > 0 && kvPort <= 65535, "kvPort must be 1..65535, got " + kvPort);
    check(tpSize >= 1, "tpSize must be at least 1, got " + tpSize);
    check(defaultMaxTokens >= 1, "defaultMaxTokens must be at least 1, got " + defaultMaxTokens);
    checkMillis("prefillBaseMillis", prefillBaseMillis);
    checkMillis("prefillMillisPerToken", prefillMillisPerToken);
    checkMillis("kvTransferMillisPerToken", kvTransferMillisPerToken);
    checkMillis("interTokenMillis", interTokenMillis);
    checkMillis("loadFactor", loadFactor);
    check(maxModelLen >= 2, "maxModelLen must be at least 2, got " + maxModelLen);
    check(kvCacheBlocks >= 1, "kvCacheBlocks must be at least 1, got " + kvCacheBlocks);
    check(ioThreads >= 1, "ioThreads must be at least 1, got " + ioThreads);
    check(maxRecordedRequests >= 0, "maxRecordedRequests must be >= 0");
    attestation = Attestation.freeze(requireNonNull(attestation, "attestation"));
    requireNonNull(dialect, "dialect");
    check(bootstrapPort >= 0 && bootstrapPort <= 65535, "bootstrapPort must be 0..65535, got " + bootstrapPort);
    check(kvWaitMillis >= 1, "kvWaitMillis must be at least 1, got " + kvWaitMillis);
    kvExtraFields = KvExtraFields.freeze(requireNonNull(kvExtraFields, "kvExtraFields"));
    check(apiKey == null || !apiKey.isEmpty(), "apiKey must not be empty (null for none)");
    requireNonNull(streamFraming, "streamFraming");
    requireNonNull(prefixCaching, "prefixCaching");
    check(!prefixCaching.enabled() || gpu != null,
        "the prefix cache needs gpu timing mode (--timing gpu): the simple mode holds no KV");
    check(gpu == null || gpu.kvCapacityTokens() >= maxModelLen,
        "the KV cache (kv_capacity_tokens " + (gpu == null ? 0 : gpu.kvCapacityTokens())
            + ") must hold max_model_len (" + maxModelLen + ") tokens, as vLLM requires at start: lower max_model_len"
            + " or raise kv_capacity_tokens");
  }

  /** Whether the engine runs in gpu timing mode (a step loop) rather than the simple one. */
  public boolean gpuTiming() {
    return gpu != null;
  }

  /** A builder holding the documented defaults and a fresh random engine id. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder initialised from these options. */
  public Builder toBuilder() {
    return new Builder()
        .host(host)
        .port(port)
        .engineId(engineId)
        .model(model)
        .seed(seed)
        .kvHost(kvHost)
        .kvPort(kvPort)
        .tpSize(tpSize)
        .defaultMaxTokens(defaultMaxTokens)
        .prefillBaseMillis(prefillBaseMillis)
        .prefillMillisPerToken(prefillMillisPerToken)
        .kvTransferMillisPerToken(kvTransferMillisPerToken)
        .interTokenMillis(interTokenMillis)
        .loadFactor(loadFactor)
        .faults(faults)
        .maxModelLen(maxModelLen)
        .kvCacheBlocks(kvCacheBlocks)
        .ioThreads(ioThreads)
        .maxRecordedRequests(maxRecordedRequests)
        .attestation(attestation)
        .dialect(dialect)
        .bootstrapPort(bootstrapPort)
        .kvWaitMillis(kvWaitMillis)
        .kvExtraFields(kvExtraFields)
        .apiKey(apiKey)
        .streamFraming(streamFraming)
        .gpu(gpu)
        .tls(tls)
        .prefixCaching(prefixCaching)
        .disaggregationMode(disaggregationMode);
  }

  private static void check(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }

  private static void checkMillis(String name, double value) {
    check(value >= 0 && Double.isFinite(value), name + " must be a finite value >= 0, got " + value);
  }

  /** Mutable builder for {@link SimOptions}; not thread-safe. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port;
    private @Nullable String engineId;
    private String model = "narwhal-sim";
    private long seed;
    private String kvHost = "localhost";
    private int kvPort = 5600;
    private int tpSize = 1;
    private int defaultMaxTokens = 16;
    private double prefillBaseMillis = DEFAULT_PREFILL_BASE_MILLIS;
    private double prefillMillisPerToken = DEFAULT_PREFILL_MILLIS_PER_TOKEN;
    private double kvTransferMillisPerToken = DEFAULT_KV_TRANSFER_MILLIS_PER_TOKEN;
    private double interTokenMillis = DEFAULT_INTER_TOKEN_MILLIS;
    private double loadFactor = DEFAULT_LOAD_FACTOR;
    private FaultPlan faults = FaultPlan.none();
    private int maxModelLen = DEFAULT_MAX_MODEL_LEN;
    private int kvCacheBlocks = 2048;
    private int ioThreads = 1;
    private int maxRecordedRequests = 100_000;
    private @Nullable Map<String, @Nullable Object> attestation;
    private SimDialect dialect = SimDialect.VLLM;
    private int bootstrapPort;
    private long kvWaitMillis = 30_000;
    private final Map<String, @Nullable Object> attestOverrides = new LinkedHashMap<>();
    private final Map<String, JsonNode> kvExtraFields = new LinkedHashMap<>();
    private @Nullable String apiKey;
    private StreamFraming streamFraming = StreamFraming.CHUNKED;
    private @Nullable GpuProfile gpu;
    private PrefixCaching prefixCaching = PrefixCaching.OFF;
    private @Nullable SimTls tls;
    private @Nullable DisaggregationMode disaggregationMode;

    /** Marks a field {@link #withoutAttest} removed from the document. */
    private static final Object DROPPED = new Object();

    private Builder() {}

    // Plain setters, one line each: the same as the record's components, documented there.
    public Builder host(String v) { host = v; return this; }
    public Builder port(int v) { port = v; return this; }
    public Builder engineId(String v) { engineId = v; return this; }
    public Builder model(String v) { model = v; return this; }
    public Builder seed(long v) { seed = v; return this; }
    public Builder kvHost(String v) { kvHost = v; return this; }
    public Builder kvPort(int v) { kvPort = v; return this; }
    public Builder tpSize(int v) { tpSize = v; return this; }
    public Builder defaultMaxTokens(int v) { defaultMaxTokens = v; return this; }
    public Builder prefillBaseMillis(double v) { prefillBaseMillis = v; return this; }
    public Builder prefillMillisPerToken(double v) { prefillMillisPerToken = v; return this; }
    public Builder kvTransferMillisPerToken(double v) { kvTransferMillisPerToken = v; return this; }
    public Builder interTokenMillis(double v) { interTokenMillis = v; return this; }
    public Builder loadFactor(double v) { loadFactor = v; return this; }
    public Builder faults(FaultPlan v) { faults = v; return this; }
    /** Shorthand for {@code faults(FaultPlan.of(specs))}. */
    public Builder faults(String... specs) {
      this.faults = FaultPlan.of(specs);
      return this;
    }

    public Builder maxModelLen(int v) { maxModelLen = v; return this; }
    public Builder kvCacheBlocks(int v) { kvCacheBlocks = v; return this; }
    public Builder ioThreads(int v) { ioThreads = v; return this; }
    public Builder maxRecordedRequests(int v) { maxRecordedRequests = v; return this; }
    /**
     * Replaces every attested field (the defaults included). Later {@link #attest} calls still
     * apply on top.
     */
    public Builder attestation(Map<String, @Nullable Object> fields) {
      this.attestation = new LinkedHashMap<>(fields);
      this.attestOverrides.clear();
      return this;
    }

    /**
     * Reports {@code value} for {@code key} in the attestation document (null reports JSON
     * null); e.g. {@code attest("vllm_version", "0.10.2")} makes an engine break a contract that
     * pins 0.11.0.
     */
    public Builder attest(String key, @Nullable Object value) {
      attestOverrides.put(requireNonNull(key, "key"), value);
      return this;
    }

    /** Leaves {@code key} out of the attestation document (the engine reports nothing for it). */
    public Builder withoutAttest(String key) {
      attestOverrides.put(requireNonNull(key, "key"), DROPPED);
      return this;
    }

    public Builder dialect(SimDialect v) { dialect = v; return this; }
    public Builder bootstrapPort(int v) { bootstrapPort = v; return this; }
    public Builder kvWaitMillis(long v) { kvWaitMillis = v; return this; }
    /**
     * Adds an opaque field to every descriptor a prefill returns, e.g. {@code
     * kvExtraField("x_transfer_hint", Map.of("tier", 2))}: {@code value} is a {@link JsonNode} or
     * anything Jackson turns into one (null is JSON null).
     */
    public Builder kvExtraField(String name, @Nullable Object value) {
      kvExtraFields.put(requireNonNull(name, "name"),
          value == null ? NullNode.getInstance() : SimJson.MAPPER.valueToTree(value));
      return this;
    }

    /** Replaces every extra descriptor field. */
    public Builder kvExtraFields(Map<String, JsonNode> fields) {
      kvExtraFields.clear();
      kvExtraFields.putAll(fields);
      return this;
    }

    /**
     * Requires {@code Authorization: Bearer <apiKey>} on every {@code /v1} request, as vLLM's
     * {@code --api-key} does; null (the default) requires nothing.
     */
    public Builder apiKey(@Nullable String v) { apiKey = v; return this; }
    /** How streamed responses are framed (default {@link StreamFraming#CHUNKED}). */
    public Builder streamFraming(StreamFraming v) { streamFraming = v; return this; }
    /**
     * Gpu timing mode with this profile (e.g. {@code gpu(GpuProfile.defaults())}); null (the
     * default) for the simple mode.
     */
    public Builder gpu(@Nullable GpuProfile v) { gpu = v; return this; }
    /** Serves TLS with these files (null: plain HTTP, the default). */
    public Builder tls(@Nullable SimTls v) { tls = v; return this; }
    /** The prefix cache and its KV events (default {@link PrefixCaching#OFF}; needs gpu timing). */
    public Builder prefixCaching(PrefixCaching v) { prefixCaching = v; return this; }
    /** SGLang mode: always this leg (null, the default: decided per request). */
    public Builder disaggregationMode(@Nullable DisaggregationMode v) { disaggregationMode = v; return this; }
    /** Builds the options; throws {@link IllegalArgumentException} on an out-of-range value. */
    public SimOptions build() {
      String id = engineId != null ? engineId : UUID.randomUUID().toString();
      Map<String, @Nullable Object> fields =
          attestation != null ? new LinkedHashMap<>(attestation) : Attestation.defaults(tpSize);
      attestOverrides.forEach((k, v) -> {
        if (v == DROPPED) {
          fields.remove(k);
        } else {
          fields.put(k, v);
        }
      });
      return new SimOptions(
          host,
          port,
          id,
          model,
          seed,
          kvHost,
          kvPort,
          tpSize,
          defaultMaxTokens,
          prefillBaseMillis,
          prefillMillisPerToken,
          kvTransferMillisPerToken,
          interTokenMillis,
          loadFactor,
          faults,
          maxModelLen,
          kvCacheBlocks,
          ioThreads,
          maxRecordedRequests,
          fields,
          dialect,
          bootstrapPort,
          kvWaitMillis,
          kvExtraFields,
          apiKey,
          streamFraming,
          gpu,
          tls,
          prefixCaching,
          disaggregationMode);
    }
  }
}

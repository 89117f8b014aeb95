package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import narwhal.sim.GpuProfileFile.Key;
import narwhal.sim.gpu.GpuProfile;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The simulator's command-line flags, as a picocli mixin ({@code narwhal sim}, {@link SimCli});
 * {@link #toOptions} turns them into {@link SimOptions}. The defaults are {@link
 * SimOptions#builder()}'s and {@link GpuProfile}'s, read from them so help text and behaviour
 * cannot drift apart. Timing flags that are left out stay null, so that a {@code --gpu-profile}
 * file's value counts only when the flag is absent, and a flag of the other timing mode is refused
 * rather than ignored. {@link EngineShapedFlags} adds vLLM's and SGLang's own flags and
 * variables, so an engine's launch line starts the simulator as written.
 */
public final class SimFlags {

  private static final SimOptions DEFAULTS = SimOptions.builder().engineId("defaults").build();

  @Option(names = "--port", paramLabel = "N", description = "port to listen on (default ${DEFAULT-VALUE}: ephemeral)")
  int port = DEFAULTS.port();

  @Option(names = "--host", paramLabel = "H", description = "address to bind (default ${DEFAULT-VALUE})")
  String host = DEFAULTS.host();

  @Option(names = "--engine-id", paramLabel = "ID", description = "NIXL engine id (default: random UUID)")
  @Nullable String engineId;

  @Option(names = "--model", paramLabel = "NAME", description = "served model name (default narwhal-sim)")
  @Nullable String model;

  @Mixin
  EngineShapedFlags engine = new EngineShapedFlags();

  @Option(names = "--seed", paramLabel = "N", description = "token generator seed (default ${DEFAULT-VALUE})")
  long seed = DEFAULTS.seed();

  @Option(names = "--max-tokens", paramLabel = "N",
      description = "tokens when a request sets no limit (default ${DEFAULT-VALUE})")
  int maxTokens = DEFAULTS.defaultMaxTokens();

  @Option(names = "--timing", paramLabel = "MODE", converter = TimingValue.class, description = {
      "simple: each response paces itself (prefill, itl and load-factor flags); gpu: one step loop per engine with"
          + " continuous batching, chunked prefill and a finite KV cache (the gpu flags below); default simple"})
  TimingMode timing = TimingMode.SIMPLE;

  @Option(names = {"--prefill-ms", "--prefill-base-ms"}, paramLabel = "X", description = {
      "fixed prefill time of a prompt, ms (default " + SimOptions.DEFAULT_PREFILL_BASE_MILLIS + "; gpu "
          + GpuProfile.DEFAULT_PREFILL_BASE_MILLIS + ")"})
  @Nullable Double prefillMs;

  @Option(names = "--prefill-ms-per-token", paramLabel = "X", description = {
      "prefill time per prompt token, ms (default " + SimOptions.DEFAULT_PREFILL_MILLIS_PER_TOKEN + "; gpu "
          + GpuProfile.DEFAULT_PREFILL_MILLIS_PER_TOKEN + ")"})
  @Nullable Double prefillMsPerToken;

  @Option(names = "--kv-ms-per-token", paramLabel = "X", description = {
      "KV pull time per prompt token on decode, ms (default " + SimOptions.DEFAULT_KV_TRANSFER_MILLIS_PER_TOKEN + ")"})
  @Nullable Double kvMsPerToken;

  @Option(names = "--itl-ms", paramLabel = "X", description = {
      "simple: inter-token time, ms (default " + SimOptions.DEFAULT_INTER_TOKEN_MILLIS + ")"})
  @Nullable Double itlMs;

  @Option(names = "--load-factor", paramLabel = "X", description = {
      "simple: inter-token slowdown per active stream (default " + SimOptions.DEFAULT_LOAD_FACTOR + ")"})
  @Nullable Double loadFactor;

  @Option(names = "--gpu-profile", paramLabel = "FILE", description = {
      "gpu: a JSON object of the gpu settings (and max_model_len, kv_ms_per_token) under the flags' names in"
          + " snake_case, e.g. {\"decode_base_ms\": 8}; flags given override it"})
  @Nullable Path gpuProfile;

  @Option(names = "--step-token-budget", paramLabel = "N", description = {
      "gpu: tokens one step computes at most, vLLM's max_num_batched_tokens (default "
          + GpuProfile.DEFAULT_STEP_TOKEN_BUDGET + ")"})
  @Nullable Integer stepTokenBudget;

  @Option(names = "--max-num-seqs", paramLabel = "N", description = {
      "gpu: sequences running at once at most (default " + GpuProfile.DEFAULT_MAX_NUM_SEQS + ")"})
  @Nullable Integer maxNumSeqs;

  @Option(names = "--prefill-ms-per-token-sq", paramLabel = "X", description = {
      "gpu: prefill time of a chunk [s,e) per (e^2 - s^2), ms: attention's quadratic cost (default "
          + GpuProfile.DEFAULT_PREFILL_MILLIS_PER_TOKEN_SQUARED + ")"})
  @Nullable Double prefillMsPerTokenSq;

  @Option(names = "--decode-base-ms", paramLabel = "X", description = {
      "gpu: fixed time of a step that decodes, ms (default " + GpuProfile.DEFAULT_DECODE_BASE_MILLIS + ")"})
  @Nullable Double decodeBaseMs;

  @Option(names = "--decode-ms-per-resident-token", paramLabel = "X", description = {
      "gpu: decode step time per context token of the decoding sequences, ms (default "
          + GpuProfile.DEFAULT_DECODE_MILLIS_PER_RESIDENT_TOKEN + ")"})
  @Nullable Double decodeMsPerResidentToken;

  @Option(names = "--decode-ms-per-seq", paramLabel = "X", description = {
      "gpu: decode step time per decoding sequence, ms (default " + GpuProfile.DEFAULT_DECODE_MILLIS_PER_SEQUENCE
          + ")"})
  @Nullable Double decodeMsPerSeq;

  @Option(names = "--kv-capacity-tokens", paramLabel = "N", description = {
      "gpu: KV cache size in tokens, at least --max-model-len (default " + GpuProfile.DEFAULT_KV_CAPACITY_TOKENS
          + ")"})
  @Nullable Integer kvCapacityTokens;

  @Option(names = "--jitter", paramLabel = "X", description = {
      "gpu: multiplicative noise on step durations, in [0, 1); seeded by --seed (default "
          + GpuProfile.DEFAULT_JITTER + ")"})
  @Nullable Double jitter;

  @Option(names = "--kv-host", paramLabel = "H", description = {"remote_host in prefill descriptors (default: "
      + "VLLM_NIXL_SIDE_CHANNEL_HOST, else " + "localhost" + ", as vLLM)"})
  @Nullable String kvHost;

  @Option(names = "--kv-port", paramLabel = "N", description = {"remote_port in prefill descriptors (default: "
      + "VLLM_NIXL_SIDE_CHANNEL_PORT, else 5600, as vLLM)"})
  @Nullable Integer kvPort;

  @Option(names = "--tp-size", paramLabel = "N", description = "tp_size in prefill descriptors (default ${DEFAULT-VALUE})")
  int tpSize = DEFAULTS.tpSize();

  @Option(names = "--max-model-len", paramLabel = "N",
      description = "context length (default " + SimOptions.DEFAULT_MAX_MODEL_LEN + ")")
  @Nullable Integer maxModelLen;

  @Option(names = "--io-threads", paramLabel = "N", description = "event loop threads (default ${DEFAULT-VALUE})")
  int ioThreads = DEFAULTS.ioThreads();

  @Option(names = "--dialect", paramLabel = "D", converter = DialectValue.class,
      description = "vllm or sglang (default vllm; sglang with --disaggregation-mode)")
  @Nullable SimDialect dialect;

  @Option(names = "--bootstrap-port", paramLabel = "N", description = {"sglang: KV bootstrap port (default: "
      + SGLANG_BOOTSTRAP_PORT + " with --disaggregation-mode prefill, as SGLang; else the HTTP port)"})
  @Nullable Integer bootstrapPort;

  @Option(names = "--kv-wait-ms", paramLabel = "N",
      description = "sglang: longest wait for the other leg's KV (default ${DEFAULT-VALUE})")
  long kvWaitMs = DEFAULTS.kvWaitMillis();

  @Option(names = "--api-key", paramLabel = "KEY", description = {
      "like vLLM's --api-key: /v1/* requests without 'Authorization: Bearer KEY' get 401 (default: VLLM_API_KEY, as "
          + "vLLM; else none)"})
  @Nullable String apiKey;

  @Option(names = "--stream-framing", paramLabel = "F", converter = FramingValue.class, description = {
      "how streamed responses are framed: chunked (Transfer-Encoding: chunked, keep-alive) or close (no length, "
          + "Connection: close, the engine closes after the last byte); default chunked; switch at run time with "
          + "POST /admin/framing"})
  StreamFraming streamFraming = DEFAULTS.streamFraming();

  @Option(names = "--fault", paramLabel = "SPEC", converter = FaultValue.class,
      description = "engine fault, repeatable (e.g. status=503,count=2)")
  List<String> faults = new ArrayList<>();

  @Option(names = "--attest", paramLabel = "KEY=VALUE", converter = AttestValue.class, description = {
      "attestation field, repeatable (e.g. vllm_version=0.10.2; VALUE is JSON when it parses, else text; "
          + "KEY= drops the field)"})
  List<String> attest = new ArrayList<>();

  @Option(names = "--kv-extra-field", paramLabel = "N=VALUE", converter = KvFieldValue.class, description = {
      "opaque field every prefill descriptor carries, repeatable (e.g. x_hint={\"tier\":2}; VALUE is JSON when "
          + "it parses, else text)"})
  List<Map.Entry<String, JsonNode>> kvExtraFields = new ArrayList<>();

  @Option(names = "--tls-cert", paramLabel = "FILE", description = "serve TLS (https://) with this PEM certificate chain")
  java.nio.file.@Nullable Path tlsCert;

  @Option(names = "--tls-key", paramLabel = "FILE", description = "the certificate's PKCS#8 PEM key (with --tls-cert)")
  java.nio.file.@Nullable Path tlsKey;

  @Option(names = "--block-size", paramLabel = "N", description = "tokens per KV block of the prefix cache (default ${DEFAULT-VALUE})")
  int blockSize = 16;

  @Option(names = "--enable-prompt-tokens-details",
      description = "report usage.prompt_tokens_details.cached_tokens when it is above 0, as vLLM's flag does")
  boolean enablePromptTokensDetails;

  @Option(names = "--kv-events-config", paramLabel = "JSON", description = {
      "publish the prefix cache's KV events as vLLM does, e.g. '{\"enable_kv_cache_events\": true, \"publisher\": \"zmq\",",
      "\"endpoint\": \"tcp://*:5557\", \"topic\": \"kv-events\", \"replay_endpoint\": \"tcp://*:5558\"}' (vLLM's keys and",
      "defaults; needs --enable-prefix-caching)"})
  @Nullable String kvEventsConfig;

  @Option(names = "--kv-events-encoding", paramLabel = "E", description = {
      "how each KV event is encoded: map (vLLM's {\"type\": ...} maps, since June 2026) or array (its older tagged",
      "arrays) (default ${DEFAULT-VALUE})"})
  String kvEventsEncoding = "map";

  /** SGLang's default {@code --disaggregation-bootstrap-port}. */
  static final int SGLANG_BOOTSTRAP_PORT = 8998;

  /** The options these flags describe, with vLLM's variables read from the environment. */
  public SimOptions toOptions() {
    return toOptions(System::getenv);
  }

  /**
   * The options these flags and {@code env}'s vLLM variables describe (a flag wins over a
   * variable); throws {@link IllegalArgumentException} on an out-of-range value or two flags that
   * contradict each other.
   */
  public SimOptions toOptions(Function<String, @Nullable String> env) {
    engine.validate();
    String chosen = engine.model(model);
    String served = engine.servedModelName != null ? engine.servedModelName
        : chosen != null ? chosen : DEFAULTS.model();
    SimDialect family = dialect(engine.disaggregationMode);
    String sideHost = first(kvHost, EngineShapedFlags.sideChannelHost(env), DEFAULTS.kvHost());
    int sidePort = first(kvPort, EngineShapedFlags.sideChannelPort(env), DEFAULTS.kvPort());
    SimOptions.Builder b = SimOptions.builder().port(port).host(host).model(served).seed(seed)
        .defaultMaxTokens(maxTokens).kvHost(sideHost)
        .kvPort(sidePort).tpSize(tpSize).ioThreads(ioThreads).dialect(family)
        .bootstrapPort(bootstrapPort(engine.disaggregationMode)).disaggregationMode(engine.disaggregationMode)
        .kvWaitMillis(kvWaitMs).apiKey(apiKey != null ? apiKey : EngineShapedFlags.apiKey(env))
        .streamFraming(streamFraming)
        .faults(FaultPlan.of(faults))
        // A simulator on its own (the benchmark's engines, narwhal sim) has no reader of the
        // in-memory record of what it received: SimEngine.received() is for tests in the same JVM.
        // Kept, 100,000 requests' JSON trees were copied into the old generation by every young
        // collection: 160-275 ms pauses in the benchmark's prefill engines, which every arm's
        // latency tails then carried.
        .maxRecordedRequests(0);
    if (timing == TimingMode.GPU) {
      gpuTiming(b);
    } else {
      simpleTiming(b);
    }
    String kvEngineId = engine.kvTransfer == null ? null : engine.kvTransfer.engineId();
    if (engineId != null && kvEngineId != null && !engineId.equals(kvEngineId)) {
      throw new IllegalArgumentException("the engine id is given twice, as --engine-id " + engineId
          + " and --kv-transfer-config's engine_id " + kvEngineId + ": give it once");
    }
    if (engineId != null || kvEngineId != null) {
      b.engineId(engineId != null ? engineId : kvEngineId);
    }
    if (engine.kvTransfer != null) {
      // What a real engine's attestation sidecar would report for this launch line.
      b.attest("connector", engine.kvTransfer.connector()).attest("kv_role", engine.kvTransfer.role());
    }
    for (String assignment : attest) {
      int eq = assignment.indexOf('=');
      String key = assignment.substring(0, eq).trim();
      String text = assignment.substring(eq + 1);
      if (text.isEmpty()) {
        b.withoutAttest(key);
      } else {
        b.attest(key, Attestation.parseValue(text));
      }
    }
    kvExtraFields.forEach(field -> b.kvExtraField(field.getKey(), field.getValue()));
    b.prefixCaching(prefixCaching());
    try {
      b.tls(SimTls.of(tlsCert, tlsKey));
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid options: " + e.getMessage(), e);
    }
  }

  private PrefixCaching prefixCaching() {
    KvEventsSettings events = null;
    if (kvEventsConfig != null) {
      try {
        events = KvEventsSettings.parse(SimJson.MAPPER.readTree(kvEventsConfig),
            KvEventsSettings.Encoding.parse(kvEventsEncoding));
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalArgumentException("--kv-events-config is not JSON: " + e.getOriginalMessage(), e);
      }
    }
    // vLLM's flag as its launch lines give it (EngineShapedFlags); the cache is modelled in gpu
    // timing only, so a simple-timing engine accepts the flag and keeps no cache, as its help says.
    boolean enabled = Boolean.TRUE.equals(engine.prefixCaching);
    if (!enabled || timing != TimingMode.GPU) {
      if (events != null) {
        throw new IllegalArgumentException("--kv-events-config needs --enable-prefix-caching and --timing gpu");
      }
      return new PrefixCaching(false, blockSize, enablePromptTokensDetails, null);
    }
    return new PrefixCaching(true, blockSize, enablePromptTokensDetails, events);
  }

  /** The family: --dialect, or SGLang when an SGLang flag says so; the two may not disagree. */
  private SimDialect dialect(@Nullable DisaggregationMode mode) {
    if (mode != null && dialect == SimDialect.VLLM) {
      throw new IllegalArgumentException("--disaggregation-mode is SGLang's: it cannot run with --dialect vllm");
    }
    if (engine.kvTransfer != null && dialect == SimDialect.SGLANG) {
      throw new IllegalArgumentException("--kv-transfer-config is vLLM's: it cannot run with --dialect sglang");
    }
    if (dialect != null) {
      return dialect;
    }
    return mode != null ? SimDialect.SGLANG : DEFAULTS.dialect();
  }

  /** The bootstrap port: either flag (they may not disagree), else SGLang's default for a prefill engine. */
  private int bootstrapPort(@Nullable DisaggregationMode mode) {
    Integer sglang = engine.disaggregationBootstrapPort;
    if (bootstrapPort != null && sglang != null && !bootstrapPort.equals(sglang)) {
      throw new IllegalArgumentException("the bootstrap port is given twice, as --bootstrap-port " + bootstrapPort
          + " and --disaggregation-bootstrap-port " + sglang + ": give it once");
    }
    Integer given = bootstrapPort != null ? bootstrapPort : sglang;
    if (given != null) {
      return given;
    }
    return mode == DisaggregationMode.PREFILL ? SGLANG_BOOTSTRAP_PORT : DEFAULTS.bootstrapPort();
  }

  @SafeVarargs
  private static <T> T first(@Nullable T... values) {
    for (T v : values) {
      if (v != null) {
        return v;
      }
    }
    throw new IllegalStateException("no default");
  }

  private void simpleTiming(SimOptions.Builder b) {
    // A gpu setting in the simple mode would be silently ignored: say so instead.
    rejectUnless(TimingMode.GPU, "--gpu-profile", gpuProfile);
    rejectUnless(TimingMode.GPU, "--step-token-budget", stepTokenBudget);
    rejectUnless(TimingMode.GPU, "--max-num-seqs", maxNumSeqs);
    rejectUnless(TimingMode.GPU, "--prefill-ms-per-token-sq", prefillMsPerTokenSq);
    rejectUnless(TimingMode.GPU, "--decode-base-ms", decodeBaseMs);
    rejectUnless(TimingMode.GPU, "--decode-ms-per-resident-token", decodeMsPerResidentToken);
    rejectUnless(TimingMode.GPU, "--decode-ms-per-seq", decodeMsPerSeq);
    rejectUnless(TimingMode.GPU, "--kv-capacity-tokens", kvCapacityTokens);
    rejectUnless(TimingMode.GPU, "--jitter", jitter);
    b.prefillBaseMillis(prefillMs != null ? prefillMs : SimOptions.DEFAULT_PREFILL_BASE_MILLIS)
        .prefillMillisPerToken(prefillMsPerToken != null ? prefillMsPerToken : SimOptions.DEFAULT_PREFILL_MILLIS_PER_TOKEN)
        .interTokenMillis(itlMs != null ? itlMs : SimOptions.DEFAULT_INTER_TOKEN_MILLIS)
        .loadFactor(loadFactor != null ? loadFactor : SimOptions.DEFAULT_LOAD_FACTOR)
        .kvTransferMillisPerToken(
            kvMsPerToken != null ? kvMsPerToken : SimOptions.DEFAULT_KV_TRANSFER_MILLIS_PER_TOKEN)
        .maxModelLen(maxModelLen != null ? maxModelLen : SimOptions.DEFAULT_MAX_MODEL_LEN);
  }

  private void gpuTiming(SimOptions.Builder b) {
    // The step loop decides the decode interval: a fixed one would be silently ignored.
    rejectUnless(TimingMode.SIMPLE, "--itl-ms", itlMs);
    rejectUnless(TimingMode.SIMPLE, "--load-factor", loadFactor);
    GpuProfileFile file = gpuProfile != null ? GpuProfileFile.read(gpuProfile) : GpuProfileFile.none();
    GpuProfile gpu;
    try {
      gpu = GpuProfile.builder()
          .stepTokenBudget(file.pick(stepTokenBudget, Key.STEP_TOKEN_BUDGET, GpuProfile.DEFAULT_STEP_TOKEN_BUDGET))
          .maxNumSeqs(file.pick(maxNumSeqs, Key.MAX_NUM_SEQS, GpuProfile.DEFAULT_MAX_NUM_SEQS))
          .prefillBaseMillis(file.pick(prefillMs, Key.PREFILL_BASE_MS, GpuProfile.DEFAULT_PREFILL_BASE_MILLIS))
          .prefillMillisPerToken(
              file.pick(prefillMsPerToken, Key.PREFILL_MS_PER_TOKEN, GpuProfile.DEFAULT_PREFILL_MILLIS_PER_TOKEN))
          .prefillMillisPerTokenSquared(file.pick(prefillMsPerTokenSq, Key.PREFILL_MS_PER_TOKEN_SQ,
              GpuProfile.DEFAULT_PREFILL_MILLIS_PER_TOKEN_SQUARED))
          .decodeBaseMillis(file.pick(decodeBaseMs, Key.DECODE_BASE_MS, GpuProfile.DEFAULT_DECODE_BASE_MILLIS))
          .decodeMillisPerResidentToken(file.pick(decodeMsPerResidentToken, Key.DECODE_MS_PER_RESIDENT_TOKEN,
              GpuProfile.DEFAULT_DECODE_MILLIS_PER_RESIDENT_TOKEN))
          .decodeMillisPerSequence(
              file.pick(decodeMsPerSeq, Key.DECODE_MS_PER_SEQ, GpuProfile.DEFAULT_DECODE_MILLIS_PER_SEQUENCE))
          .kvCapacityTokens(file.pick(kvCapacityTokens, Key.KV_CAPACITY_TOKENS, GpuProfile.DEFAULT_KV_CAPACITY_TOKENS))
          .jitter(file.pick(jitter, Key.JITTER, GpuProfile.DEFAULT_JITTER))
          .build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid options: " + e.getMessage(), e);
    }
    b.gpu(gpu)
        .kvTransferMillisPerToken(
            file.pick(kvMsPerToken, Key.KV_MS_PER_TOKEN, SimOptions.DEFAULT_KV_TRANSFER_MILLIS_PER_TOKEN))
        .maxModelLen(file.pick(maxModelLen, Key.MAX_MODEL_LEN, SimOptions.DEFAULT_MAX_MODEL_LEN));
  }

  private void rejectUnless(TimingMode needed, String flag, @Nullable Object value) {
    if (value != null) {
      throw new IllegalArgumentException(flag + " applies to --timing " + needed.name().toLowerCase(Locale.ROOT)
          + " only (this engine runs --timing " + timing.name().toLowerCase(Locale.ROOT) + ")");
    }
  }

  /**
   * A value parsed by the simulator's own parser: its {@link IllegalArgumentException} becomes
   * picocli's "Invalid value for option '--x': ..." with the parser's explanation.
   */
  private abstract static class Checked<T> implements ITypeConverter<T> {
    abstract T parse(String text);

    @Override
    public T convert(String text) {
      try {
        return parse(text);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  static final class TimingValue extends Checked<TimingMode> {
    @Override
    TimingMode parse(String text) {
      return TimingMode.parse(text);
    }
  }

  static final class DialectValue extends Checked<SimDialect> {
    @Override
    SimDialect parse(String text) {
      return SimDialect.parse(text);
    }
  }

  static final class FramingValue extends Checked<StreamFraming> {
    @Override
    StreamFraming parse(String text) {
      return StreamFraming.parse(text);
    }
  }

  /** Checked now, so a bad spec fails at start-up rather than when the plan is built. */
  static final class FaultValue extends Checked<String> {
    @Override
    String parse(String text) {
      FaultSpec.parse(text);
      return text;
    }
  }

  static final class AttestValue extends Checked<String> {
    @Override
    String parse(String text) {
      if (text.indexOf('=') <= 0) {
        throw new IllegalArgumentException("expected KEY=VALUE, got '" + text + "'");
      }
      return text;
    }
  }

  static final class KvFieldValue extends Checked<Map.Entry<String, JsonNode>> {
    @Override
    Map.Entry<String, JsonNode> parse(String text) {
      return KvExtraFields.parseAssignment(text);
    }
  }
}

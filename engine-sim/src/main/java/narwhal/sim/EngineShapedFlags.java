package narwhal.sim;

import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/**
 * The flags the real engines take, so that a launch line written for vLLM ({@code vllm serve MODEL
 * ...}) or SGLang ({@code python -m sglang.launch_server ...}) starts the simulator too, and a
 * guide's commands can be run against it as written (docs/vllm.md is, in CI). Read from vLLM's
 * {@code vllm serve} and SGLang's server arguments; where a flag has no meaning for the simulator
 * (the transfer backend; prefix caching outside gpu timing) it accepts it and says so in its help, and
 * where it contradicts one of the simulator's own flags it is refused.
 */
final class EngineShapedFlags {

  private static final Set<String> TRANSFER_BACKENDS = Set.of("mooncake", "nixl", "ascend", "fake");

  @Parameters(index = "0", arity = "0..1", paramLabel = "MODEL",
      description = "the model, as vllm serve takes it (the same as --model)")
  @Nullable String model;

  @Option(names = "--model-path", paramLabel = "MODEL", description = "SGLang's name for --model")
  @Nullable String modelPath;

  @Option(names = "--served-model-name", paramLabel = "NAME",
      description = "the name the engine answers to, as vLLM's and SGLang's (default: the model)")
  @Nullable String servedModelName;

  @Option(names = "--kv-transfer-config", paramLabel = "JSON", converter = KvTransferValue.class, description = {
      "vLLM's KV connector settings, e.g. '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}': the "
          + "connector must be NixlConnector; kv_role and engine_id are attested and used"})
  @Nullable KvTransferConfig kvTransfer;

  @Option(names = "--enable-prefix-caching", negatable = true, description = {
      "vLLM's prefix cache (--no-enable-prefix-caching too): with --timing gpu the simulator keeps one (reused and",
      "cached prompt blocks, see --block-size, --kv-events-config); with simple timing it is accepted and keeps none"})
  @Nullable Boolean prefixCaching;

  @Option(names = "--disaggregation-mode", paramLabel = "MODE", converter = ModeValue.class, description = {
      "SGLang's prefill or decode: an SGLang engine (implies --dialect sglang) that serves only that leg"})
  @Nullable DisaggregationMode disaggregationMode;

  @Option(names = "--disaggregation-bootstrap-port", paramLabel = "N",
      description = "SGLang's KV bootstrap port (the same as --bootstrap-port; SGLang's default is 8998)")
  @Nullable Integer disaggregationBootstrapPort;

  @Option(names = "--disaggregation-transfer-backend", paramLabel = "B", description = {
      "accepted as SGLang takes it (mooncake, nixl, ascend, fake); the simulator moves KV over HTTP whatever it says"})
  @Nullable String transferBackend;

  /**
   * The model given in vLLM's or SGLang's shape, or null when neither was; {@code simFlag} is the
   * simulator's own {@code --model} when given. Two different names are a mistake, never a choice.
   */
  @Nullable String model(@Nullable String simFlag) {
    String found = null;
    for (String candidate : new String[] {model, modelPath, simFlag}) {
      if (candidate == null) {
        continue;
      }
      if (found != null && !found.equals(candidate)) {
        throw new IllegalArgumentException("the model is given twice, as '" + found + "' and '" + candidate
            + "': give it once (vllm serve MODEL, --model-path or --model)");
      }
      found = candidate;
    }
    return found;
  }

  /** Refuses what no real engine would take either, before anything starts. */
  void validate() {
    if (transferBackend != null && !TRANSFER_BACKENDS.contains(transferBackend)) {
      throw new IllegalArgumentException("--disaggregation-transfer-backend must be one of " + TRANSFER_BACKENDS
          + ", got '" + transferBackend + "'");
    }
    if (kvTransfer != null && disaggregationMode != null) {
      throw new IllegalArgumentException("--kv-transfer-config is vLLM's and --disaggregation-mode SGLang's: an "
          + "engine is one or the other");
    }
  }

  /**
   * vLLM's NIXL side channel: {@code remote_host} and {@code remote_port} of every descriptor a
   * prefill returns come from these variables, as in vLLM (defaults {@code localhost} and 5600).
   */
  static @Nullable String sideChannelHost(Function<String, @Nullable String> env) {
    return nonEmpty(env.apply("VLLM_NIXL_SIDE_CHANNEL_HOST"));
  }

  static @Nullable Integer sideChannelPort(Function<String, @Nullable String> env) {
    String text = nonEmpty(env.apply("VLLM_NIXL_SIDE_CHANNEL_PORT"));
    if (text == null) {
      return null;
    }
    try {
      int port = Integer.parseInt(text.trim());
      if (port >= 1 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("VLLM_NIXL_SIDE_CHANNEL_PORT must be a port from 1 to 65535, got '" + text
        + "'");
  }

  /** vLLM reads the key from {@code VLLM_API_KEY} when {@code --api-key} is not given. */
  static @Nullable String apiKey(Function<String, @Nullable String> env) {
    return nonEmpty(env.apply("VLLM_API_KEY"));
  }

  private static @Nullable String nonEmpty(@Nullable String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  static final class KvTransferValue implements ITypeConverter<KvTransferConfig> {
    @Override
    public KvTransferConfig convert(String text) {
      try {
        return KvTransferConfig.parse(text);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  static final class ModeValue implements ITypeConverter<DisaggregationMode> {
    @Override
    public DisaggregationMode convert(String text) {
      try {
        return DisaggregationMode.parse(text);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}

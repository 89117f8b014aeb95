package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The simulator's command-line flags, as a picocli mixin ({@code narwhal sim}, {@link SimCli});
 * {@link #toOptions} turns them into {@link SimOptions}. The defaults are {@link
 * SimOptions#builder()}'s, read from it so help text and behaviour cannot drift apart.
 */
public final class SimFlags {

  private static final SimOptions DEFAULTS = SimOptions.builder().engineId("defaults").build();

  @Option(names = "--port", paramLabel = "N", description = "port to listen on (default ${DEFAULT-VALUE}: ephemeral)")
  int port = DEFAULTS.port();

  @Option(names = "--host", paramLabel = "H", description = "address to bind (default ${DEFAULT-VALUE})")
  String host = DEFAULTS.host();

  @Option(names = "--engine-id", paramLabel = "ID", description = "NIXL engine id (default: random UUID)")
  @Nullable String engineId;

  @Option(names = "--model", paramLabel = "NAME", description = "served model name (default ${DEFAULT-VALUE})")
  String model = DEFAULTS.model();

  @Option(names = "--seed", paramLabel = "N", description = "token generator seed (default ${DEFAULT-VALUE})")
  long seed = DEFAULTS.seed();

  @Option(names = "--max-tokens", paramLabel = "N",
      description = "tokens when a request sets no limit (default ${DEFAULT-VALUE})")
  int maxTokens = DEFAULTS.defaultMaxTokens();

  @Option(names = "--prefill-ms", paramLabel = "X", description = "fixed time to first token, ms (default ${DEFAULT-VALUE})")
  double prefillMs = DEFAULTS.prefillBaseMillis();

  @Option(names = "--prefill-ms-per-token", paramLabel = "X",
      description = "time to first token per prompt token, ms (default ${DEFAULT-VALUE})")
  double prefillMsPerToken = DEFAULTS.prefillMillisPerToken();

  @Option(names = "--kv-ms-per-token", paramLabel = "X",
      description = "KV pull time per prompt token on decode, ms (default ${DEFAULT-VALUE})")
  double kvMsPerToken = DEFAULTS.kvTransferMillisPerToken();

  @Option(names = "--itl-ms", paramLabel = "X", description = "inter-token time, ms (default ${DEFAULT-VALUE})")
  double itlMs = DEFAULTS.interTokenMillis();

  @Option(names = "--load-factor", paramLabel = "X",
      description = "inter-token slowdown per active stream (default ${DEFAULT-VALUE})")
  double loadFactor = DEFAULTS.loadFactor();

  @Option(names = "--kv-host", paramLabel = "H", description = "remote_host in prefill descriptors (default ${DEFAULT-VALUE})")
  String kvHost = DEFAULTS.kvHost();

  @Option(names = "--kv-port", paramLabel = "N", description = "remote_port in prefill descriptors (default ${DEFAULT-VALUE})")
  int kvPort = DEFAULTS.kvPort();

  @Option(names = "--tp-size", paramLabel = "N", description = "tp_size in prefill descriptors (default ${DEFAULT-VALUE})")
  int tpSize = DEFAULTS.tpSize();

  @Option(names = "--max-model-len", paramLabel = "N", description = "context length (default ${DEFAULT-VALUE})")
  int maxModelLen = DEFAULTS.maxModelLen();

  @Option(names = "--io-threads", paramLabel = "N", description = "event loop threads (default ${DEFAULT-VALUE})")
  int ioThreads = DEFAULTS.ioThreads();

  @Option(names = "--dialect", paramLabel = "D", converter = DialectValue.class,
      description = "vllm or sglang (default vllm)")
  SimDialect dialect = DEFAULTS.dialect();

  @Option(names = "--bootstrap-port", paramLabel = "N",
      description = "sglang: KV bootstrap port (default ${DEFAULT-VALUE}: the HTTP port)")
  int bootstrapPort = DEFAULTS.bootstrapPort();

  @Option(names = "--kv-wait-ms", paramLabel = "N",
      description = "sglang: longest wait for the other leg's KV (default ${DEFAULT-VALUE})")
  long kvWaitMs = DEFAULTS.kvWaitMillis();

  @Option(names = "--api-key", paramLabel = "KEY", description = {
      "like vLLM's --api-key: /v1/* requests without 'Authorization: Bearer KEY' get 401 (default: none)"})
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

  /** The options these flags describe; throws {@link IllegalArgumentException} on an out-of-range value. */
  public SimOptions toOptions() {
    SimOptions.Builder b = SimOptions.builder().port(port).host(host).model(model).seed(seed)
        .defaultMaxTokens(maxTokens).prefillBaseMillis(prefillMs).prefillMillisPerToken(prefillMsPerToken)
        .kvTransferMillisPerToken(kvMsPerToken).interTokenMillis(itlMs).loadFactor(loadFactor).kvHost(kvHost)
        .kvPort(kvPort).tpSize(tpSize).maxModelLen(maxModelLen).ioThreads(ioThreads).dialect(dialect)
        .bootstrapPort(bootstrapPort).kvWaitMillis(kvWaitMs).apiKey(apiKey).streamFraming(streamFraming)
        .faults(FaultPlan.of(faults));
    if (engineId != null) {
      b.engineId(engineId);
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
    try {
      b.tls(SimTls.of(tlsCert, tlsKey));
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid options: " + e.getMessage(), e);
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

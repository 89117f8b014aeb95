package narwhal.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * Command line of the simulator: {@link #parse} turns flags into {@link SimOptions}; {@link
 * #main} runs one engine until the JVM is stopped.
 */
public final class SimCli {
  private static final Set<String> FLAGS =
      Set.of(
          "--port", "--host", "--engine-id", "--model", "--seed", "--max-tokens", "--prefill-ms",
          "--prefill-ms-per-token", "--kv-ms-per-token", "--itl-ms", "--load-factor", "--kv-host",
          "--kv-port", "--tp-size", "--max-model-len", "--io-threads", "--fault", "--attest",
          "--dialect", "--bootstrap-port", "--kv-wait-ms", "--kv-extra-field", "--api-key",
          "--stream-framing");

  private SimCli() {}

  /** The flags, one per line, for {@code --help} and error messages. */
  public static String usage() {
    return String.join(
        "\n",
        "usage: narwhal-sim [flags]",
        "  --port N                  port to listen on (default 0: ephemeral)",
        "  --host H                  address to bind (default 127.0.0.1)",
        "  --engine-id ID            NIXL engine id (default: random UUID)",
        "  --model NAME              served model name (default narwhal-sim)",
        "  --seed N                  token generator seed (default 0)",
        "  --max-tokens N            tokens when a request sets no limit (default 16)",
        "  --prefill-ms X            fixed time to first token, ms (default 2)",
        "  --prefill-ms-per-token X  time to first token per prompt token, ms (default 0.02)",
        "  --kv-ms-per-token X       KV pull time per prompt token on decode, ms (default 0.005)",
        "  --itl-ms X                inter-token time, ms (default 5)",
        "  --load-factor X           inter-token slowdown per active stream (default 0)",
        "  --kv-host H               remote_host in prefill descriptors (default localhost)",
        "  --kv-port N               remote_port in prefill descriptors (default 5600)",
        "  --tp-size N               tp_size in prefill descriptors (default 1)",
        "  --max-model-len N         context length (default 32768)",
        "  --io-threads N            event loop threads (default 1)",
        "  --dialect D               vllm or sglang (default vllm)",
        "  --bootstrap-port N        sglang: KV bootstrap port (default 0: the HTTP port)",
        "  --kv-wait-ms N            sglang: longest wait for the other leg's KV (default 30000)",
        "  --api-key KEY             like vLLM's --api-key: /v1/* requests without",
        "                            'Authorization: Bearer KEY' get 401 (default: none)",
        "  --stream-framing F        how streamed responses are framed: chunked (Transfer-Encoding:",
        "                            chunked, keep-alive) or close (no length, Connection: close, the",
        "                            engine closes after the last byte); default chunked; switch at",
        "                            run time with POST /admin/framing",
        "  --fault SPEC              engine fault, repeatable (e.g. status=503,count=2)",
        "  --attest KEY=VALUE        attestation field, repeatable (e.g. vllm_version=0.10.2;",
        "                            VALUE is JSON when it parses, else text; KEY= drops the field)",
        "  --kv-extra-field N=VALUE  opaque field every prefill descriptor carries, repeatable",
        "                            (e.g. x_hint={\"tier\":2}; VALUE is JSON when it parses, else text)",
        "  --help                    print this text");
  }

  /**
   * Parses {@code args} ({@code --flag value} or {@code --flag=value}); throws {@link
   * IllegalArgumentException} naming the bad flag or value.
   */
  public static SimOptions parse(String[] args) {
    SimOptions.Builder builder = SimOptions.builder();
    List<String> faults = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      String value;
      int eq = flag.indexOf('=');
      if (flag.startsWith("--") && eq > 0) {
        value = flag.substring(eq + 1);
        flag = flag.substring(0, eq);
      } else {
        if (!FLAGS.contains(flag)) {
          throw new IllegalArgumentException("unknown flag '" + flag + "'\n" + usage());
        }
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(flag + " needs a value");
        }
        value = args[++i];
      }
      apply(builder, faults, flag, value);
    }
    try {
      return builder.faults(FaultPlan.of(faults)).build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid options: " + e.getMessage(), e);
    }
  }

  private static void apply(
      SimOptions.Builder builder, List<String> faults, String flag, String value) {
    switch (flag) {
      case "--port":
        builder.port(intValue(flag, value));
        break;
      case "--host":
        builder.host(value);
        break;
      case "--engine-id":
        builder.engineId(value);
        break;
      case "--model":
        builder.model(value);
        break;
      case "--seed":
        builder.seed(longValue(flag, value));
        break;
      case "--max-tokens":
        builder.defaultMaxTokens(intValue(flag, value));
        break;
      case "--prefill-ms":
        builder.prefillBaseMillis(doubleValue(flag, value));
        break;
      case "--prefill-ms-per-token":
        builder.prefillMillisPerToken(doubleValue(flag, value));
        break;
      case "--kv-ms-per-token":
        builder.kvTransferMillisPerToken(doubleValue(flag, value));
        break;
      case "--itl-ms":
        builder.interTokenMillis(doubleValue(flag, value));
        break;
      case "--load-factor":
        builder.loadFactor(doubleValue(flag, value));
        break;
      case "--kv-host":
        builder.kvHost(value);
        break;
      case "--kv-port":
        builder.kvPort(intValue(flag, value));
        break;
      case "--tp-size":
        builder.tpSize(intValue(flag, value));
        break;
      case "--max-model-len":
        builder.maxModelLen(intValue(flag, value));
        break;
      case "--io-threads":
        builder.ioThreads(intValue(flag, value));
        break;
      case "--attest":
        attest(builder, value);
        break;
      case "--dialect":
        try {
          builder.dialect(SimDialect.parse(value));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("--dialect: " + e.getMessage(), e);
        }
        break;
      case "--bootstrap-port":
        builder.bootstrapPort(intValue(flag, value));
        break;
      case "--kv-wait-ms":
        builder.kvWaitMillis(longValue(flag, value));
        break;
      case "--kv-extra-field":
        try {
          var field = KvExtraFields.parseAssignment(value);
          builder.kvExtraField(field.getKey(), field.getValue());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("--kv-extra-field: " + e.getMessage(), e);
        }
        break;
      case "--api-key":
        builder.apiKey(value);
        break;
      case "--stream-framing":
        try {
          builder.streamFraming(StreamFraming.parse(value));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("--stream-framing: " + e.getMessage(), e);
        }
        break;
      case "--fault":
        try {
          FaultSpec.parse(value);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("--fault: " + e.getMessage(), e);
        }
        faults.add(value);
        break;
      default:
        throw new IllegalArgumentException("unknown flag '" + flag + "'\n" + usage());
    }
  }

  private static void attest(SimOptions.Builder builder, String value) {
    int eq = value.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException("--attest: expected KEY=VALUE, got '" + value + "'");
    }
    String key = value.substring(0, eq).trim();
    String text = value.substring(eq + 1);
    if (text.isEmpty()) {
      builder.withoutAttest(key);
    } else {
      builder.attest(key, Attestation.parseValue(text));
    }
  }

  private static int intValue(String flag, String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": '" + value + "' is not an integer", e);
    }
  }

  private static long longValue(String flag, String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": '" + value + "' is not an integer", e);
    }
  }

  private static double doubleValue(String flag, String value) {
    try {
      return Double.parseDouble(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": '" + value + "' is not a number", e);
    }
  }

  /** Runs one engine in the foreground until the JVM is interrupted. */
  public static void main(String[] args) throws InterruptedException {
    if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
      System.out.println(usage());
      return;
    }
    SimOptions options;
    try {
      options = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("narwhal-sim: " + e.getMessage());
      System.exit(2);
      return;
    }
    SimEngine engine = SimEngine.start(options);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  engine.close();
                  stopped.countDown();
                },
                "narwhal-sim-shutdown"));
    System.out.println(
        "narwhal-sim listening on " + engine.baseUrl() + " engine-id " + engine.engineId()
            + " model " + options.model());
    stopped.await();
  }
}

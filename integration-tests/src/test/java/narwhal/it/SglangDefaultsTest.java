package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import narwhal.sim.DisaggregationMode;
import narwhal.sim.SimDialect;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A two-engine SGLang fleet starts with every default: its engines cannot be profiled (an SGLang
 * prefill answers only once its decode has joined), so preflight's profile gate does not ask for
 * rows nobody can make, {@code narwhal profile} says so and succeeds, and {@code narwhal serve}
 * (predictive admission, preflight enforced) serves, its requests priced by no profile.
 */
class SglangDefaultsTest {

  private static final String MODEL = "meta-llama/Llama-3.1-8B-Instruct";
  private static final Pattern SERVING = Pattern.compile("narwhal: serving (http://\\S+)");
  private static final Duration EXIT_WITHIN = Duration.ofSeconds(60);

  @Test
  void twoEngineSglangFleet_checksProfilesAndServes_withTheDefaults(@TempDir Path dir) throws Exception {
    try (SimEngine prefill = SimEngine.start(sglang(DisaggregationMode.PREFILL));
        SimEngine decode = SimEngine.start(sglang(DisaggregationMode.DECODE))) {
      Path fleet = Files.writeString(dir.resolve("sglang.json"), String.join("\n",
          "{",
          "  \"schema\": \"narwhal.fleet\",",
          "  \"schema_version\": 1,",
          "  \"model\": \"" + MODEL + "\",",
          "  \"engine\": {\"dialect\": \"sglang\"},",
          "  \"engines\": [",
          "    {\"iid\": \"p0\", \"url\": \"" + prefill.baseUrl() + "\", \"role\": \"prefill\",",
          "     \"dialect_options\": {\"bootstrap_port\": " + prefill.bootstrapPort() + "}},",
          "    {\"iid\": \"d0\", \"url\": \"" + decode.baseUrl() + "\", \"role\": \"decode\"}",
          "  ],",
          "  \"slo\": {\"ttft_s\": 2.0, \"tpot_s\": 0.1}",
          "}"));

      try (ChildProcess check = ChildProcess.narwhal("check", "check", "--fleet", fleet.toString())) {
        assertThat(check.awaitExit(EXIT_WITHIN)).as(check.output()).isZero();
        assertThat(check.output()).contains("skip profiles").contains("sglang hands KV over concurrently")
            .contains("preflight passed");
      }
      try (ChildProcess profile = ChildProcess.narwhal("profile", "profile", "--fleet", fleet.toString(),
          "--out", dir.resolve("profiles.json").toString())) {
        assertThat(profile.awaitExit(EXIT_WITHIN)).as(profile.output()).isZero();
        assertThat(profile.output()).contains("p0 skip: sglang hands KV over concurrently")
            .contains("cannot be profiled (see skip above) and need no row").doesNotContain("FAIL");
      }
      try (ChildProcess serve = ChildProcess.narwhal("serve", "serve", "--fleet", fleet.toString(), "--host",
          "127.0.0.1", "--port", "0", "--grpc-port", "0")) {
        String base = serve.awaitLine(SERVING, EXIT_WITHIN);
        RouterClient.SseResponse r = new RouterClient(base).stream("/v1/completions",
            "{\"model\": \"" + MODEL + "\", \"prompt\": \"Tell me about narwhals\", \"max_tokens\": 5, \"stream\": true}");
        assertThat(r.status()).as(serve.output()).isEqualTo(200);
        assertThat(r.chunks()).hasSize(5);
        assertThat(r.endsWithDone()).isTrue();
      }
    }
  }

  private static SimOptions sglang(DisaggregationMode mode) {
    return SimOptions.builder().dialect(SimDialect.SGLANG).disaggregationMode(mode).model(MODEL)
        .interTokenMillis(1).build();
  }
}

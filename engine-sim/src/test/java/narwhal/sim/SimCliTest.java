package narwhal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class SimCliTest {

  @Test
  void parsesEveryFlag() {
    SimOptions options =
        SimCli.parse(
            new String[] {
              "--port", "8123", "--host", "0.0.0.0", "--engine-id", "e-1", "--model", "m",
              "--seed", "42", "--max-tokens", "8", "--prefill-ms", "3.5",
              "--prefill-ms-per-token", "0.1", "--itl-ms", "7", "--load-factor", "0.25",
              "--kv-host", "kv.local", "--kv-port", "5700", "--tp-size", "4",
              "--kv-ms-per-token", "0.01", "--fault", "status=503,count=1", "--fault=dead"
            });

    assertThat(options.port()).isEqualTo(8123);
    assertThat(options.host()).isEqualTo("0.0.0.0");
    assertThat(options.engineId()).isEqualTo("e-1");
    assertThat(options.model()).isEqualTo("m");
    assertThat(options.seed()).isEqualTo(42);
    assertThat(options.defaultMaxTokens()).isEqualTo(8);
    assertThat(options.prefillBaseMillis()).isEqualTo(3.5);
    assertThat(options.prefillMillisPerToken()).isEqualTo(0.1);
    assertThat(options.interTokenMillis()).isEqualTo(7);
    assertThat(options.loadFactor()).isEqualTo(0.25);
    assertThat(options.kvHost()).isEqualTo("kv.local");
    assertThat(options.kvPort()).isEqualTo(5700);
    assertThat(options.tpSize()).isEqualTo(4);
    assertThat(options.kvTransferMillisPerToken()).isEqualTo(0.01);
    assertThat(options.faults().specs()).containsExactly("status=503,count=1", "dead");
  }

  @Test
  void kvExtraFields_areRepeatableJsonOrText() {
    SimOptions options =
        SimCli.parse(new String[] {
            "--kv-extra-field", "x_hint={\"tier\":2}", "--kv-extra-field=x_note=plain", "--kv-extra-field", "x_n=3"});

    assertThat(options.kvExtraFields()).containsOnlyKeys("x_hint", "x_note", "x_n");
    assertThat(options.kvExtraFields().get("x_hint").toString()).isEqualTo("{\"tier\":2}");
    assertThat(options.kvExtraFields().get("x_note").textValue()).isEqualTo("plain");
    assertThat(options.kvExtraFields().get("x_n").intValue()).isEqualTo(3);
    assertThat(SimCli.parse(new String[0]).kvExtraFields()).isEmpty();
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--kv-extra-field", "nothing"}))
        .hasMessageContaining("Invalid value for option '--kv-extra-field' (N=VALUE): expected NAME=VALUE");
  }

  @Test
  void sglangFlags() {
    SimOptions options = SimCli.parse(
        new String[] {"--dialect", "SGLang", "--bootstrap-port", "8998", "--kv-wait-ms=250"});

    assertThat(options.dialect()).isEqualTo(SimDialect.SGLANG);
    assertThat(options.bootstrapPort()).isEqualTo(8998);
    assertThat(options.kvWaitMillis()).isEqualTo(250);
    assertThat(SimCli.parse(new String[0]).dialect()).isEqualTo(SimDialect.VLLM);
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--dialect", "trtllm"}))
        .hasMessageContaining("Invalid value for option '--dialect': dialect must be vllm or sglang, got 'trtllm'");
  }

  @Test
  void streamFraming_flag() {
    assertThat(SimCli.parse(new String[] {"--stream-framing", "close"}).streamFraming())
        .isEqualTo(StreamFraming.CLOSE);
    assertThat(SimCli.parse(new String[] {"--stream-framing=chunked"}).streamFraming())
        .isEqualTo(StreamFraming.CHUNKED);
    assertThat(SimCli.parse(new String[0]).streamFraming()).isEqualTo(StreamFraming.CHUNKED);
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--stream-framing", "identity"}))
        .hasMessageContaining(
            "Invalid value for option '--stream-framing': stream framing must be chunked or close, got 'identity'");
    assertThat(SimCli.usage()).contains("--stream-framing");
  }

  @Test
  void defaults() {
    SimOptions options = SimCli.parse(new String[0]);

    assertThat(options.host()).isEqualTo("127.0.0.1");
    assertThat(options.port()).isZero();
    assertThat(options.model()).isEqualTo("narwhal-sim");
    assertThat(options.kvHost()).isEqualTo("localhost");
    assertThat(options.kvPort()).isEqualTo(5600);
    assertThat(options.defaultMaxTokens()).isEqualTo(16);
    assertThat(options.interTokenMillis()).isEqualTo(5);
    assertThat(options.faults().isEmpty()).isTrue();
  }

  /** Nothing outside the JVM can read the record, so an engine run from flags keeps none. */
  @Test
  void anEngineRunFromFlags_keepsNoRecordOfWhatItReceived() {
    SimEngine engine = SimEngine.start(SimCli.parse(new String[] {"--itl-ms", "0", "--max-tokens", "2"}));
    try {
      HttpResponse<String> answer = SimHttp.post(engine, "/v1/completions", SimHttp.completion("hello", 2, false));

      assertThat(answer.statusCode()).isEqualTo(200);
      assertThat(engine.received()).isEmpty();
      assertThat(engine.prefillResponses()).isEmpty();
    } finally {
      engine.close();
    }
  }

  @Test
  void badFlagsGiveClearMessages() {
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--bogus", "1"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Unknown option: '--bogus'");
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--port"}))
        .hasMessageContaining("Missing required parameter for option '--port'");
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--port", "eighty"}))
        .hasMessageContaining("Invalid value for option '--port': 'eighty' is not an int");
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--itl-ms", "fast"}))
        .hasMessageContaining("Invalid value for option '--itl-ms': 'fast' is not a double");
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--fault", "meltdown"}))
        .hasMessageContaining("Invalid value for option '--fault'")
        .hasMessageContaining("unknown fault 'meltdown'");
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--port", "70000"}))
        .hasMessageContaining("invalid options: port must be 0..65535, got 70000");
  }

  @Test
  void faultFlag_takesSilenceComments() {
    SimOptions options = SimCli.parse(new String[] {"--fault", "silence-after=2,ms=900,comments=100"});

    assertThat(options.faults().specs()).containsExactly("silence-after=2,ms=900,comments=100");
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--fault=silence-after=2,comments=0"}))
        .hasMessageContaining("--fault")
        .hasMessageContaining("comments must be > 0");
  }

  @Test
  void usageListsTheFlags_withTheBuildersDefaults() {
    assertThat(SimCli.usage()).contains("--fault=SPEC", "--itl-ms=X", "--kv-port=N", "--help")
        .contains("inter-token time, ms (default 5.0)", "remote_port in prefill descriptors", "VLLM_NIXL_SIDE_CHANNEL_PORT");
  }

  /** What the hand-written parser made of these flags: the builder calls it issued, one per flag. */
  @Test
  void representativeFlags_giveTheOptionsTheOldParserGave() {
    SimOptions parsed = SimCli.parse(new String[] {
        "--port=8123", "--engine-id", "e-1", "--model", "m", "--itl-ms", "7.5", "--max-model-len", "4096",
        "--io-threads", "2", "--dialect", "sglang", "--kv-wait-ms", "250", "--api-key", "k",
        "--stream-framing", "close", "--fault", "status=503,count=1", "--attest", "vllm_version=0.10.2",
        "--attest", "layers=", "--kv-extra-field", "x_n=3"});

    SimOptions expected = SimOptions.builder().port(8123).engineId("e-1").model("m").interTokenMillis(7.5)
        .maxModelLen(4096).ioThreads(2).dialect(SimDialect.SGLANG).kvWaitMillis(250).apiKey("k")
        .streamFraming(StreamFraming.CLOSE).faults(FaultPlan.of("status=503,count=1"))
        .attest("vllm_version", "0.10.2").withoutAttest("layers").kvExtraField("x_n", 3)
        .maxRecordedRequests(0).build();
    assertThat(parsed).isEqualTo(expected);
  }
}

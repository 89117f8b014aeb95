package narwhal.sim;

import static narwhal.sim.SimHttp.completion;
import static narwhal.sim.SimHttp.json;
import static narwhal.sim.SimHttp.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code --api-key}: /v1 is guarded as vLLM guards it; health, metrics, attestation and admin stay open. */
class ApiKeyTest {
  private static final String KEY = "sk-sim-123";

  private SimEngine engine;

  @BeforeEach
  void start() {
    engine = SimEngine.start(SimOptions.builder().apiKey(KEY).interTokenMillis(1).build());
  }

  @AfterEach
  void stop() {
    engine.close();
  }

  @Test
  void completion_withTheKey_isServed() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", completion("hi", 2, false), "Authorization", "Bearer " + KEY);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response.body()).get("choices").get(0).get("text").asText()).isNotEmpty();
    assertThat(engine.received()).singleElement()
        .satisfies(r -> assertThat(r.header("Authorization")).isEqualTo("Bearer " + KEY));
  }

  @Test
  void bearerScheme_isCaseInsensitiveAsInVllm() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", completion("hi", 2, false), "Authorization", "bearer " + KEY);

    assertThat(response.statusCode()).isEqualTo(200);
  }

  @Test
  void completion_withoutOrWithWrongKey_gets401WithVllmsPlainBody() {
    HttpResponse<String> missing = post(engine, "/v1/completions", completion("hi", 2, false));
    HttpResponse<String> wrong =
        post(engine, "/v1/chat/completions", "{}", "Authorization", "Bearer not-" + KEY);
    HttpResponse<String> basic =
        post(engine, "/v1/completions", completion("hi", 2, false), "Authorization", "Basic " + KEY);

    for (HttpResponse<String> response : java.util.List.of(missing, wrong, basic)) {
      assertThat(response.statusCode()).isEqualTo(401);
      assertThat(json(response.body())).isEqualTo(json("{\"error\":\"Unauthorized\"}"));
    }
    assertThat(engine.stats().requests()).as("refused before any handler").isZero();
    assertThat(engine.received()).as("refused requests are still recorded, headers included").hasSize(3);
  }

  @Test
  void modelList_isGuardedToo() {
    assertThat(SimHttp.get(engine, "/v1/models").statusCode()).isEqualTo(401);

    HttpResponse<String> withKey = SimHttp.send(HttpRequest.newBuilder(URI.create(engine.baseUrl() + "/v1/models"))
        .timeout(Duration.ofSeconds(20)).header("Authorization", "Bearer " + KEY).GET().build());
    assertThat(withKey.statusCode()).isEqualTo(200);
  }

  @Test
  void healthMetricsAttestationAndAdmin_stayOpen() {
    assertThat(SimHttp.get(engine, "/health").statusCode()).isEqualTo(200);
    assertThat(SimHttp.get(engine, "/metrics").statusCode()).isEqualTo(200);
    assertThat(SimHttp.get(engine, Attestation.PATH).statusCode()).isEqualTo(200);
    assertThat(SimHttp.get(engine, "/admin/stats").statusCode()).isEqualTo(200);
  }

  @Test
  void withoutAKey_nothingIsGuarded() {
    try (SimEngine open = SimEngine.start(SimOptions.builder().interTokenMillis(1).build())) {
      assertThat(post(open, "/v1/completions", completion("hi", 2, false)).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void cliFlag_setsTheKey_andEmptyIsRefused() {
    assertThat(SimCli.parse(new String[] {"--api-key", KEY}).apiKey()).isEqualTo(KEY);
    assertThat(SimCli.parse(new String[0]).apiKey()).isNull();
    assertThatThrownBy(() -> SimCli.parse(new String[] {"--api-key="}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("apiKey must not be empty");
  }
}

package narwhal.sim;

import static narwhal.sim.SimHttp.json;
import static narwhal.sim.SimHttp.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /tokenize} as vLLM answers it, with the count the simulator's own usage reports for
 * the same prompt or messages; none in SGLang mode; 503 once dead.
 */
class TokenizeEndpointTest {
  private SimEngine engine;

  private SimEngine start(SimOptions.Builder options) {
    engine = SimEngine.start(options.model("m-1").maxModelLen(4096).interTokenMillis(1).build());
    return engine;
  }

  @AfterEach
  void stop() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void aPrompt_isCountedInWhitespaceWords_asGenerationReportsIt() {
    start(SimOptions.builder());

    HttpResponse<String> r = post(engine, "/tokenize", "{\"model\":\"m-1\",\"prompt\":\"one two  three\\nfour\"}");

    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode body = json(r.body());
    assertThat(body.get("count").asInt()).isEqualTo(4);
    assertThat(body.get("max_model_len").asInt()).isEqualTo(4096);
    assertThat(body.get("tokens")).hasSize(4);
    JsonNode usage = json(post(engine, "/v1/completions",
        "{\"model\":\"m-1\",\"prompt\":\"one two  three\\nfour\",\"max_tokens\":1}").body()).get("usage");
    assertThat(usage.get("prompt_tokens").asInt()).isEqualTo(4);
  }

  @Test
  void messages_areCountedAsChatGenerationCountsThem() {
    start(SimOptions.builder());
    String messages = "[{\"role\":\"system\",\"content\":\"be brief\"},"
        + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hello there you\"}]}]";

    JsonNode body = json(post(engine, "/tokenize",
        "{\"model\":\"m-1\",\"messages\":" + messages + ",\"add_generation_prompt\":true}").body());
    JsonNode usage = json(post(engine, "/v1/chat/completions",
        "{\"model\":\"m-1\",\"messages\":" + messages + ",\"max_tokens\":1}").body()).get("usage");

    assertThat(body.get("count").asInt()).isEqualTo(5).isEqualTo(usage.get("prompt_tokens").asInt());
  }

  @Test
  void badBodiesAndOtherModels_areRefusedAsGenerationRefusesThem() {
    start(SimOptions.builder());

    assertThat(post(engine, "/tokenize", "{\"model\":\"other\",\"prompt\":\"x\"}").statusCode()).isEqualTo(404);
    assertThat(post(engine, "/tokenize", "not json").statusCode()).isEqualTo(400);
    assertThat(post(engine, "/tokenize", "{\"model\":\"m-1\"}").statusCode()).isEqualTo(400);
    assertThat(SimHttp.get(engine, "/tokenize").statusCode()).isEqualTo(405);
  }

  @Test
  void aDeadEngine_answers503() {
    start(SimOptions.builder());
    engine.setFaults(FaultPlan.of("dead"));

    assertThat(post(engine, "/tokenize", "{\"model\":\"m-1\",\"prompt\":\"x\"}").statusCode()).isEqualTo(503);
  }

  @Test
  void sglangMode_hasNoTokenizeRoute() {
    start(SimOptions.builder().dialect(SimDialect.SGLANG));

    HttpResponse<String> r = post(engine, "/tokenize", "{\"model\":\"m-1\",\"prompt\":\"x\"}");

    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(json(r.body()).get("detail").asText()).isEqualTo("Not Found");
  }
}

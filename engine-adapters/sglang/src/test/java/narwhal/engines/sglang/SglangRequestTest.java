package narwhal.engines.sglang;

import static narwhal.engines.sglang.SglangWire.tree;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.Map;
import narwhal.spi.EngineHttpRequest;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import org.junit.jupiter.api.Test;

/** Both legs: the client's same body plus the same bootstrap triple. */
class SglangRequestTest {

  private static final String CLIENT = "{\"model\":\"m\",\"prompt\":\"hello there\",\"max_tokens\":64,"
      + "\"temperature\":0.2,\"top_p\":0.9,\"seed\":7,\"stream\":true,"
      + "\"stream_options\":{\"include_usage\":true},\"logprobs\":2}";

  private final SglangDialect dialect = new SglangDialect();
  private final KvHandoffDescriptor planned =
      dialect.planHandoff(SglangWire.producer("http://10.0.0.7:30000", Map.of("bootstrap_port", 8999)), 42);

  @Test
  void prefillAndDecode_areTheClientBodyPlusOneIdenticalBootstrapTriple() {
    CompletionRequest request = SglangWire.completions(CLIENT);

    EngineHttpRequest prefill = dialect.prefillRequest(request, planned, "b-1");
    EngineHttpRequest decode = dialect.decodeRequest(request, planned, "b-2");

    JsonNode expected = withTriple(CLIENT);
    assertThat(tree(prefill.body())).isEqualTo(expected);
    assertThat(tree(decode.body())).isEqualTo(expected);
    assertThat(prefill.method()).isEqualTo("POST");
    assertThat(prefill.path()).isEqualTo("/v1/completions");
    assertThat(decode.path()).isEqualTo("/v1/completions");
    assertThat(prefill.headers()).containsEntry("X-Request-Id", "b-1")
        .containsEntry("Content-Type", "application/json");
    assertThat(decode.headers()).containsEntry("X-Request-Id", "b-2");
  }

  @Test
  void room_isAJsonIntegerExactEvenNearTwoToThe63() {
    long room = Long.MAX_VALUE - 1;
    KvHandoffDescriptor big = dialect.planHandoff(SglangWire.producer("http://h:1", Map.of()), room);

    JsonNode body = tree(dialect.prefillRequest(SglangWire.completions("{\"prompt\":\"x\"}"), big, "b").body());

    assertThat(body.get("bootstrap_room").isIntegralNumber()).isTrue();
    assertThat(body.get("bootstrap_room").bigIntegerValue()).isEqualTo(BigInteger.valueOf(room));
    assertThat(body.get("bootstrap_port").intValue()).isEqualTo(8998);
  }

  @Test
  void chat_keepsMessagesAndGoesToTheChatEndpoint() {
    String client = "{\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
        + "{\"role\":\"user\",\"content\":\"hi\"}],\"max_completion_tokens\":9,\"stream\":true,\"top_k\":5}";

    EngineHttpRequest decode = dialect.decodeRequest(SglangWire.chat(client), planned, "b-2");

    JsonNode expected = withTriple(client);
    assertThat(tree(decode.body())).isEqualTo(expected);
    assertThat(decode.path()).isEqualTo("/v1/chat/completions");
  }

  @Test
  void clientSentBootstrapFields_areReplacedByTheRoutersOwn() {
    String client = "{\"prompt\":\"x\",\"bootstrap_host\":\"evil\",\"bootstrap_port\":1,\"bootstrap_room\":7}";

    JsonNode prefill = tree(dialect.prefillRequest(SglangWire.completions(client), planned, "b").body());
    JsonNode decode = tree(dialect.decodeRequest(SglangWire.completions(client), planned, "b").body());

    assertThat(prefill.get("bootstrap_host").asText()).isEqualTo("10.0.0.7");
    assertThat(prefill.get("bootstrap_room").asLong()).isEqualTo(42);
    assertThat(decode).isEqualTo(prefill);
  }

  @Test
  void sameEngineDecode_carriesNoBootstrapFieldsEvenIfTheClientSentSome() {
    String client = "{\"prompt\":\"x\",\"stream\":true,\"bootstrap_host\":\"h\",\"bootstrap_room\":7}";

    EngineHttpRequest decode = dialect.decodeRequest(SglangWire.completions(client), null, "b-3");

    assertThat(tree(decode.body())).isEqualTo(tree("{\"prompt\":\"x\",\"stream\":true}"));
  }

  @Test
  void unplannedPrefill_isThePlainBody() {
    EngineHttpRequest prefill = dialect.prefillRequest(SglangWire.completions(CLIENT), "b-4");

    assertThat(tree(prefill.body())).isEqualTo(tree(CLIENT));
  }

  /** The client's JSON with the planned triple appended (parsed alike, so numbers compare). */
  private static JsonNode withTriple(String client) {
    return tree(client.substring(0, client.length() - 1)
        + ",\"bootstrap_host\":\"10.0.0.7\",\"bootstrap_port\":8999,\"bootstrap_room\":42}");
  }
}

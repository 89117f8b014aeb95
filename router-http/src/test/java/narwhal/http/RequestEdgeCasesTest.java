package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import narwhal.testing.ScriptedCompletionService.Ticket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** HTTP/1.0 streaming, an empty model name and token limits below 1, over real sockets. */
class RequestEdgeCasesTest extends FrontEndTestSupport {

  @Test
  void http10Stream_isCloseDelimited_withEveryEventAndDone() throws Exception {
    service.script(call -> call.stream(
        Events.completionToken("Hel"), Events.completionToken("lo"), Events.completionFinal("!", "stop", "null")));
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      byte[] body = "{\"prompt\":\"hi\",\"stream\":true}".getBytes(StandardCharsets.UTF_8);
      http.send("POST /v1/completions HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: "
          + body.length + "\r\n\r\n");
      http.send(body);
      // An HTTP/1.0 client reads the body until the server closes: all of it, with nothing framed.
      InputStream in = http.socket.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      in.transferTo(all);
      String wire = all.toString(StandardCharsets.UTF_8);
      int split = wire.indexOf("\r\n\r\n");
      String head = wire.substring(0, split).toLowerCase();
      assertThat(head).startsWith("http/1.1 200").contains("content-type: text/event-stream")
          .contains("connection: close").doesNotContain("transfer-encoding").doesNotContain("content-length");
      List<String> data = new ArrayList<>();
      for (String event : wire.substring(split + 4).split("\n\n")) {
        assertThat(event).startsWith("data: ");
        data.add(event.substring(6));
      }
      assertThat(data).hasSize(4).last().isEqualTo("[DONE]");
      StringBuilder text = new StringBuilder();
      for (String chunk : data.subList(0, 3)) {
        text.append(json(chunk).get("choices").get(0).get("text").asText());
      }
      assertThat(text.toString()).isEqualTo("Hello!");
    }
  }

  @Test
  void emptyModel_is404ModelNotFound_andNeverSubmitted() throws Exception {
    var response = post("/v1/completions", "{\"model\":\"\",\"prompt\":\"hi\"}");
    assertThat(response.statusCode()).isEqualTo(404);
    JsonNode error = json(response.body()).get("error");
    assertThat(error.get("code").asText()).isEqualTo("model_not_found");
    assertThat(error.get("param").asText()).isEqualTo("model");
    assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
    assertThat(service.tickets.take().endings).containsExactly("invalid:404");
    assertThat(service.pendingCalls()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"max_tokens", "max_completion_tokens"})
  void zeroTokenLimit_is400_andNeverSubmitted(String field) throws Exception {
    var response = post("/v1/chat/completions",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"" + field + "\":0}");
    assertThat(response.statusCode()).isEqualTo(400);
    JsonNode error = json(response.body()).get("error");
    assertThat(error.get("param").asText()).isEqualTo(field);
    assertThat(error.get("message").asText()).isEqualTo(field + " must be at least 1, got 0.");
    Ticket ticket = service.tickets.take();
    assertThat(ticket.endings).containsExactly("invalid:400");
    assertThat(service.pendingCalls()).isZero();
  }
}

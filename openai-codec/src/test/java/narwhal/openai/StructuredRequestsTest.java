package narwhal.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import narwhal.api.InvalidRequestException;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Prompt;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.SamplingSettings;
import org.junit.jupiter.api.Test;

/** A request that arrives structured is held to exactly the rules of an HTTP body. */
class StructuredRequestsTest {

  private static CompletionRequest prompt(String text) {
    return CompletionRequest.newBuilder()
        .setRoute(Route.ROUTE_COMPLETIONS).setPrompt(Prompt.newBuilder().setText(text)).build();
  }

  @Test
  void validRequest_comesBackAsTheCodecWouldParseItsBody() throws InvalidRequestException {
    CompletionRequest request = prompt("hi").toBuilder()
        .setMaxTokens(5)
        .setSampling(SamplingSettings.newBuilder().setTemperature(0.5).addStop("\n"))
        .putExtraFields("logprobs", "2")
        .setClientRequestId("client-1")
        .build();

    CompletionRequest validated = StructuredRequests.validate(request);

    byte[] body = Json.compactBytes(OpenAiRequestCodec.toJson(request));
    assertThat(validated).isEqualTo(OpenAiRequestCodec.parse(body, Route.ROUTE_COMPLETIONS, "client-1"));
    assertThat(validated.getExtraFieldsMap()).containsEntry("logprobs", "2");
  }

  @Test
  void invalidRequest_getsTheCodecsMessageAndParam() {
    CompletionRequest request = prompt("hi").toBuilder().putExtraFields("best_of", "2").build();
    String body = OpenAiRequestCodec.toJson(request).toString();

    assertThatThrownBy(() -> StructuredRequests.validate(request))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> {
          assertThat(e.error().param()).isEqualTo("best_of");
          assertThat(e.getMessage()).isEqualTo(messageOf(body));
        });
  }

  @Test
  void unknownOrUndecidableRoute_andNonJsonExtraField_areBadFields() throws Exception {
    // Unspecified with a prompt: the input decides (a completion); with no input: refused.
    assertThat(StructuredRequests.validate(prompt("x").toBuilder().setRoute(Route.ROUTE_UNSPECIFIED).build()).getRoute())
        .isEqualTo(Route.ROUTE_COMPLETIONS);
    assertThatThrownBy(() -> StructuredRequests.validate(CompletionRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.error().param()).isEqualTo("route"));
    assertThatThrownBy(() -> StructuredRequests.validate(prompt("x").toBuilder().setRouteValue(9).build()))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.error().param()).isEqualTo("route"));
    assertThatThrownBy(() -> StructuredRequests.validate(prompt("x").toBuilder().putExtraFields("tools", "{").build()))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> {
          assertThat(e.error().status()).isEqualTo(400);
          assertThat(e.getMessage()).contains("'tools'");
        });
  }

  private static String messageOf(String body) {
    try {
      OpenAiRequestCodec.parse(body.getBytes(StandardCharsets.UTF_8), Route.ROUTE_COMPLETIONS, null);
      throw new AssertionError("the codec accepts " + body);
    } catch (InvalidRequestException e) {
      return e.getMessage();
    }
  }
}

package narwhal.engines.sglang;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ServiceLoader;
import narwhal.spi.DecodeEventDecoder;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineDialects;
import narwhal.spi.MalformedEventException;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import org.junit.jupiter.api.Test;

/** SGLang's OpenAI-shaped stream events and error bodies, and the dialect's registration. */
class SglangStreamAndErrorsTest {

  private final SglangDialect dialect = new SglangDialect();
  private final DecodeEventDecoder completions = dialect.decodeEventDecoder(Route.ROUTE_COMPLETIONS);
  private final DecodeEventDecoder chat = dialect.decodeEventDecoder(Route.ROUTE_CHAT_COMPLETIONS);

  @Test
  void completionsTextChunk_isAToken() throws Exception {
    StreamEvent e = completions.decode(SglangWire.completionToken(" orca"));

    assertThat(e.hasToken()).isTrue();
    assertThat(e.getToken().getText()).isEqualTo(" orca");
  }

  @Test
  void chatContentChunkWithNullRole_isAToken_andFinishChunkIsMetadata() throws Exception {
    StreamEvent token = chat.decode(SglangWire.chatContent("hi"));
    StreamEvent finish = chat.decode(SglangWire.chatFinish("stop"));

    assertThat(token.getToken().getText()).isEqualTo("hi");
    assertThat(token.getToken().getRole()).isEmpty();
    assertThat(finish.hasMetadata()).isTrue();
    assertThat(finish.getMetadata().getFinishReason()).isEqualTo("stop");
  }

  @Test
  void usageChunk_isMetadataCarryingUsage_andDoneEndsTheStream() throws Exception {
    StreamEvent usage = completions.decode(SglangWire.usage(5, 3));

    assertThat(usage.getMetadata().getUsage().getTotalTokens()).isEqualTo(8);
    assertThat(completions.decode("[DONE]").hasDone()).isTrue();
  }

  @Test
  void inStreamError_keepsItsStatus() throws Exception {
    StreamEvent e = completions.decode(
        "{\"error\":{\"message\":\"KV transfer failed\",\"type\":\"InternalServerError\",\"code\":500}}");

    assertThat(e.getError().getStatus()).isEqualTo(500);
    assertThat(e.getError().getMessage()).isEqualTo("KV transfer failed");
  }

  @Test
  void notJson_isMalformed() {
    assertThatThrownBy(() -> completions.decode("{oops")).isInstanceOf(MalformedEventException.class);
  }

  @Test
  void errorMessage_readsSglangsFlatBodyAndOpenAisEnvelope() {
    assertThat(dialect.errorMessage(
        "{\"object\":\"error\",\"message\":\"The model `x` does not exist.\",\"type\":\"NotFoundError\","
            + "\"param\":null,\"code\":404}"))
        .isEqualTo("The model `x` does not exist.");
    assertThat(dialect.errorMessage("{\"error\":{\"message\":\"overloaded\",\"type\":\"x\",\"code\":503}}"))
        .isEqualTo("overloaded");
    assertThat(dialect.errorMessage("{\"detail\":\"Not Found\"}")).isEqualTo("Not Found");
    assertThat(dialect.errorMessage("")).isEmpty();
    assertThat(dialect.errorMessage("upstream connect error")).isEqualTo("upstream connect error");
  }

  @Test
  void dialect_isRegisteredForServiceLoader() {
    assertThat(EngineDialects.discover().get("sglang")).isInstanceOf(SglangDialect.class);
    assertThat(ServiceLoader.load(EngineDialect.class).stream().map(p -> p.type().getName()))
        .contains(SglangDialect.class.getName());
  }
}

package narwhal.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseShapesTest {

  @Test
  void midStreamTokenEvent_matchesTheTreeSerialisationByteForByte() {
    for (GenerationEndpoint endpoint : GenerationEndpoint.values()) {
      ResponseShapes shapes = new ResponseShapes(endpoint, "cmpl-\"odd\" id", 1700000000L, "m\\odel");
      for (String text : new String[] {" alpha", "", "quote\" back\\slash", "line\nbreak", " ünïcødé ✓"}) {
        ByteBuf event = shapes.midStreamTokenEvent(ByteBufAllocator.DEFAULT, text);
        try {
          String expected = "data: " + SimJson.write(shapes.tokenChunk(text, null, null)) + "\n\n";
          assertThat(event.toString(StandardCharsets.UTF_8)).isEqualTo(expected);
        } finally {
          event.release();
        }
      }
    }
  }

  @Test
  void completionChunk_serialisesEveryFieldIncludingNulls() {
    ResponseShapes shapes = new ResponseShapes(GenerationEndpoint.COMPLETIONS, "cmpl-1", 5, "m");

    assertThat(SimJson.write(shapes.tokenChunk(" a", null, null)))
        .isEqualTo(
            "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":5,\"model\":\"m\","
                + "\"choices\":[{\"index\":0,\"text\":\" a\",\"logprobs\":null,"
                + "\"finish_reason\":null,\"stop_reason\":null,\"prompt_token_ids\":null,"
                + "\"token_ids\":null}],\"usage\":null}");
  }

  @Test
  void chatChunks_carryOnlyTheFieldsVllmSets() {
    ResponseShapes shapes = new ResponseShapes(GenerationEndpoint.CHAT, "chatcmpl-1", 5, "m");

    assertThat(SimJson.write(shapes.tokenChunk(" a", null, null)))
        .isEqualTo(
            "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":5,"
                + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" a\"},"
                + "\"logprobs\":null,\"finish_reason\":null}]}");
    assertThat(SimJson.write(shapes.tokenChunk(" b", "length", null)))
        .contains("\"finish_reason\":\"length\",\"stop_reason\":null}]}");
    assertThat(SimJson.write(shapes.usageChunk(3, 2)))
        .isEqualTo(
            "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":5,"
                + "\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,"
                + "\"completion_tokens\":2,\"total_tokens\":5}}");
  }
}

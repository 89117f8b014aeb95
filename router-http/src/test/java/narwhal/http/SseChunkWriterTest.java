package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import narwhal.api.ResponseStart;
import narwhal.openai.Json;
import narwhal.proto.v1.Route;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The spliced frame is byte for byte the frame the tree path renders, whatever the chunk holds. */
class SseChunkWriterTest {

  private static final UnpooledByteBufAllocator ALLOC = new UnpooledByteBufAllocator(false);
  private static final ResponseStart START = new ResponseStart("rid-1", "served \"model\" é 😀", 1_700_000_000L);

  @ParameterizedTest
  @ValueSource(strings = {
    "{\"id\":\"cmpl-engine-1\",\"object\":\"text_completion\",\"created\":5,\"model\":\"/models/engine\","
        + "\"choices\":[{\"index\":0,\"text\":\" hi\\n\",\"logprobs\":null,\"finish_reason\":null,"
        + "\"stop_reason\":null,\"prompt_token_ids\":null,\"token_ids\":[17]}],\"usage\":null}",
    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"é😀\"},\"token_ids\":[3]}],\"prompt_token_ids\":[1,2]}",
    "{\"object\":\"x\"}",
    "{}",
    "{\"choices\":[1,\"s\",null,{\"token_ids\":[1]},{}],\"model\":null}",
    "{\"choices\":{\"token_ids\":[1]},\"created\":\"soon\",\"prompt_token_ids\":null}",
    "{\"token_ids\":[1],\"choices\":[{\"logprobs\":{\"top\":[-0.5,1E-9,-12.25]},\"text\":\"\\u0001\\t\"}]}"
  })
  void spliceMatchesTheTreePath(String chunkJson) {
    for (Route route : new Route[] {Route.ROUTE_COMPLETIONS, Route.ROUTE_CHAT_COMPLETIONS}) {
      for (boolean keepTokenIds : new boolean[] {false, true}) {
        assertSameFrame(new SseChunkWriter(route, START, keepTokenIds), token(chunkJson));
      }
    }
  }

  @Test
  void randomChunks_spliceMatchesTheTreePath() {
    Random random = new Random(7);
    for (int i = 0; i < 2000; i++) {
      String chunkJson = Json.compact(randomChunk(random));
      SseChunkWriter writer =
          new SseChunkWriter(Route.ROUTE_COMPLETIONS, START, random.nextBoolean());
      assertSameFrame(writer, token(chunkJson));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "not json", "[1]", "{\"a\": 1}", "{\"a\":1,\"a\":2}", "{\"x\":\"\\/\"}"})
  void chunksTheIndexRefuses_takeTheTreePath(String chunkJson) {
    SseChunkWriter writer = new SseChunkWriter(Route.ROUTE_CHAT_COMPLETIONS, START, false);
    assertSameFrame(writer, token(chunkJson));
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "", " the", "quote \" backslash \\ slash /", "\n\t\r\b\f\u0001\u001f\u007f",
    "é ü ß 中文 \u2028", "emoji 😀 takes the tree path", "\ud83d lone"})
  void plainTokensWithoutChunkJson_matchTheTreePath(String text) {
    for (Route route : new Route[] {Route.ROUTE_COMPLETIONS, Route.ROUTE_CHAT_COMPLETIONS}) {
      SseChunkWriter writer = new SseChunkWriter(route, START, false);
      for (int index : new int[] {0, 3}) {
        if (text.contains("\ud83d lone")) {
          continue; // Jackson cannot write a lone surrogate; not a plain token either way
        }
        assertSameFrame(writer, new ChunkView(true, index, text, null, "", null, "", ""));
      }
      // Anything beyond text goes through the tree, and must still match it.
      assertSameFrame(writer, new ChunkView(true, 0, text.replace("\ud83d", ""), "stop", "\"END\"", null, "", ""));
      assertSameFrame(writer, new ChunkView(false, 0, "", null, "", null, "", "assistant"));
    }
  }

  @Test
  void framesAStampedChunk() {
    SseChunkWriter writer = new SseChunkWriter(Route.ROUTE_COMPLETIONS, new ResponseStart("r", "m", 9), false);
    String chunk = "{\"id\":\"e\",\"object\":\"text_completion\",\"created\":1,\"model\":\"x\","
        + "\"choices\":[{\"index\":0,\"text\":\"a\",\"token_ids\":[5]}]}";

    assertThat(frame(writer, token(chunk)))
        .isEqualTo("data: {\"id\":\"cmpl-r\",\"object\":\"text_completion\",\"created\":9,\"model\":\"m\","
            + "\"choices\":[{\"index\":0,\"text\":\"a\"}]}\n\n");
  }

  private static ChunkView token(String chunkJson) {
    return new ChunkView(true, 0, "t", null, "", null, chunkJson, "");
  }

  private static void assertSameFrame(SseChunkWriter writer, ChunkView chunk) {
    String expected = new String(writer.frameWithTree(chunk), StandardCharsets.UTF_8);
    assertThat(frame(writer, chunk)).as(chunk.chunkJson()).isEqualTo(expected);
  }

  private static String frame(SseChunkWriter writer, ChunkView chunk) {
    ByteBuf buf = writer.frame(chunk, ALLOC);
    try {
      return new String(ByteBufUtil.getBytes(buf), StandardCharsets.UTF_8);
    } finally {
      buf.release();
    }
  }

  private static ObjectNode randomChunk(Random r) {
    JsonNodeFactory f = Json.mapper().getNodeFactory();
    ObjectNode chunk = f.objectNode();
    String[] top = {"id", "object", "created", "model", "choices", "usage", "prompt_token_ids", "system_fingerprint"};
    for (String name : top) {
      if (r.nextInt(4) == 0) {
        continue;
      }
      if (name.equals("choices") && r.nextInt(5) != 0) {
        ArrayNode choices = chunk.putArray(name);
        int n = r.nextInt(3);
        for (int i = 0; i < n; i++) {
          if (r.nextInt(6) == 0) {
            choices.add(i);
            continue;
          }
          ObjectNode choice = choices.addObject();
          for (String field : new String[] {"index", "text", "token_ids", "prompt_token_ids", "logprobs"}) {
            if (r.nextBoolean()) {
              choice.set(field, randomValue(r, f));
            }
          }
        }
      } else {
        chunk.set(name, randomValue(r, f));
      }
    }
    return chunk;
  }

  private static com.fasterxml.jackson.databind.JsonNode randomValue(Random r, JsonNodeFactory f) {
    switch (r.nextInt(6)) {
      case 0:
        return f.nullNode();
      case 1:
        return f.numberNode(r.nextInt(1000) - 500);
      case 2:
        return f.numberNode(new BigDecimal(r.nextInt(100000) - 50000).movePointLeft(r.nextInt(12)));
      case 3:
        return f.arrayNode().add(r.nextInt(50)).add("x");
      default:
        String[] texts = {"", " the", "\n", "\"q\"", "é", "a😀b😀", "\u0001", "\\", "/", "\u2028", "\u007f"};
        return f.textNode(texts[r.nextInt(texts.length)]);
    }
  }
}

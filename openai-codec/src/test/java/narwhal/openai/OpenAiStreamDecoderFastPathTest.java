package narwhal.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.Random;
import narwhal.spi.MalformedEventException;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The indexed path gives exactly the event the tree path gives (or the same refusal), for every
 * chunk: ordinary vLLM chunks, the shapes it leaves to the tree, and random ones.
 */
class OpenAiStreamDecoderFastPathTest {

  private static final Route[] ROUTES = {Route.ROUTE_COMPLETIONS, Route.ROUTE_CHAT_COMPLETIONS};

  @ParameterizedTest
  @ValueSource(strings = {
    "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":5,\"model\":\"m\",\"choices\":[{\"index\":0,"
        + "\"text\":\" hi\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null,\"prompt_token_ids\":null,"
        + "\"token_ids\":[17]}],\"usage\":null}",
    "{\"id\":\"cmpl-1\",\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"stop\",\"stop_reason\":\"END\"}],"
        + "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"total_tokens\":11}}",
    "{\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"length\",\"stop_reason\":128,\"token_ids\":[]}]}",
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":"
        + "\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}",
    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\n\\\"b\\\" é😀\"},\"token_ids\":[3]}]}",
    "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"hmm\"}}]}",
    "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"\"},\"token_ids\":[1]}]}",
    "{\"choices\":[{\"index\":1,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]}}]}",
    "{\"choices\":[{\"index\":0,\"delta\":{}}]}",
    "{\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2,"
        + "\"prompt_tokens_details\":{\"cached_tokens\":0}}}",
    "{\"object\":\"x\"}",
    // Left to the tree: errors, odd types, non-canonical spellings, malformed text.
    "{\"error\":{\"message\":\"boom\",\"type\":\"InternalServerError\",\"code\":503}}",
    "{\"error\":\"plain\"}",
    "{\"error\":null,\"choices\":[{\"index\":0,\"text\":\"x\"}]}",
    "{\"choices\":[7]}",
    "{\"choices\":{\"index\":0}}",
    "{\"choices\":[{\"index\":\"2\",\"text\":\"x\"}]}",
    "{\"choices\":[{\"index\":null,\"text\":\"x\"}]}",
    "{\"choices\":[{\"index\":3000000000,\"text\":\"x\"}]}",
    "{\"choices\":[{\"index\":0,\"text\":\"x\",\"finish_reason\":7}]}",
    "{\"choices\":[{\"index\":0,\"text\":5}]}",
    "{\"usage\":{\"prompt_tokens\":1.5,\"total_tokens\":-2}}",
    "{\"usage\":{\"prompt_tokens\":\"3\"}}",
    // Exponent integers are canonical (the index accepts them) but no long spelling: the tree decides.
    "{\"usage\":{\"prompt_tokens\":1E+5,\"completion_tokens\":2,\"total_tokens\":1E+5}}",
    "{\"choices\":[{\"index\":1E+3,\"text\":\"x\"}]}",
    "{\"usage\":[1]}",
    "{ \"choices\": [{\"index\": 0, \"text\": \"x\"}] }",
    "{\"choices\":[{\"index\":0,\"text\":\"\\u00e9\\/\"}]}",
    "{\"a\":1,\"a\":2}",
    "not json",
    "[1,2]",
    "{\"choices\":[{\"index\":0,\"text\":\"x\"}]} trailing"
  })
  void indexedAndTreePathsAgree(String data) {
    for (Route route : ROUTES) {
      assertSameOutcome(new OpenAiStreamDecoder(route), data);
    }
  }

  @Test
  void canonicalChunksAreRelayedAsTheTextThatArrived() throws Exception {
    String data = "{\"choices\":[{\"index\":0,\"text\":\" hi\",\"token_ids\":[17]}]}";
    StreamEvent event = new OpenAiStreamDecoder(Route.ROUTE_COMPLETIONS).decode(data);
    assertThat(event.getToken().getChunkJson()).isSameAs(data);
  }

  @Test
  void randomChunks_indexedAndTreePathsAgree() {
    Random random = new Random(11);
    for (int i = 0; i < 3000; i++) {
      String data = Json.compact(randomChunk(random));
      for (Route route : ROUTES) {
        assertSameOutcome(new OpenAiStreamDecoder(route), data);
      }
    }
  }

  private static void assertSameOutcome(OpenAiStreamDecoder decoder, String data) {
    StreamEvent expected;
    try {
      expected = decoder.decodeWithTree(data);
    } catch (MalformedEventException e) {
      assertThatThrownBy(() -> decoder.decode(data)).as(data).isInstanceOf(MalformedEventException.class);
      return;
    }
    try {
      assertThat(decoder.decode(data)).as(data).isEqualTo(expected);
    } catch (MalformedEventException e) {
      throw new AssertionError("indexed path refused what the tree read: " + data, e);
    }
  }

  private static ObjectNode randomChunk(Random r) {
    JsonNodeFactory f = Json.mapper().getNodeFactory();
    ObjectNode chunk = f.objectNode();
    if (r.nextInt(8) == 0) {
      chunk.set("error", r.nextBoolean() ? f.nullNode() : randomValue(r, f));
    }
    chunk.put("id", "cmpl-" + r.nextInt(100));
    if (r.nextInt(4) != 0) {
      ArrayNode choices = chunk.putArray("choices");
      int n = r.nextInt(3);
      for (int i = 0; i < n; i++) {
        ObjectNode choice = choices.addObject();
        String[] fields = {"index", "text", "finish_reason", "stop_reason", "token_ids", "logprobs"};
        for (String field : fields) {
          if (r.nextInt(3) != 0) {
            choice.set(field, field.equals("index") && r.nextBoolean() ? f.numberNode(r.nextInt(3))
                : randomValue(r, f));
          }
        }
        if (r.nextBoolean()) {
          ObjectNode delta = choice.putObject("delta");
          for (String field : new String[] {"role", "content", "reasoning_content", "reasoning", "tool_calls"}) {
            if (r.nextInt(3) == 0) {
              delta.set(field, randomValue(r, f));
            }
          }
        }
      }
    }
    if (r.nextInt(3) == 0) {
      ObjectNode usage = chunk.putObject("usage");
      for (String field : new String[] {"prompt_tokens", "completion_tokens", "total_tokens"}) {
        if (r.nextInt(4) != 0) {
          usage.set(field, r.nextInt(4) == 0 ? randomValue(r, f) : f.numberNode(r.nextInt(5000)));
        }
      }
    }
    return chunk;
  }

  private static JsonNode randomValue(Random r, JsonNodeFactory f) {
    switch (r.nextInt(8)) {
      case 0:
        return f.nullNode();
      case 1:
        return f.numberNode(r.nextInt(10) - 2);
      case 2:
        return f.numberNode(new BigDecimal(r.nextInt(100000) - 50000).movePointLeft(r.nextInt(12)));
      case 3:
        return r.nextBoolean() ? f.arrayNode() : f.arrayNode().add(r.nextInt(50));
      case 4:
        return f.objectNode().put("k", r.nextInt(3));
      case 5:
        return f.booleanNode(r.nextBoolean());
      default:
        String[] texts = {"", " the", "\n", "\"q\"", "é", "a😀", "\u0001", "stop", "length"};
        return f.textNode(texts[r.nextInt(texts.length)]);
    }
  }
}

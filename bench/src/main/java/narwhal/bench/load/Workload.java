package narwhal.bench.load;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.nio.charset.StandardCharsets;
import narwhal.sim.SimEngine;

/**
 * What every arm sends: a fixed set of distinct completion prompts of {@code promptWords} words
 * (the simulator counts one token per word), each asking for {@code outputTokens} streamed tokens,
 * and the exact text the simulator will answer (its oracle, {@link SimEngine#expectedText}).
 *
 * <p>The bodies are rendered once, so building a request costs nothing per request; only the
 * decode leg of the direct and nginx arms splices in the prefill's {@code kv_transfer_params}.
 */
public final class Workload {

  private static final String[] WORDS = {
    "the", "narwhal", "swims", "under", "arctic", "ice", "and", "sings", "to", "its", "pod",
    "while", "orcas", "circle", "far", "below"
  };

  /** The six keys the vLLM toy proxy and llm-d send to ask a prefill for a remote decode. */
  static final String REMOTE_DECODE_PARAMS =
      "{\"do_remote_decode\":true,\"do_remote_prefill\":false,\"remote_engine_id\":null,"
          + "\"remote_block_ids\":null,\"remote_host\":null,\"remote_port\":null}";

  private final String model;
  private final int promptWords;
  private final int outputTokens;
  private final byte[][] prefillBodies;
  private final byte[][] clientBodies;
  private final String[] decodeHeads;
  private final byte[][] expected;

  public Workload(String model, int promptWords, int outputTokens, int distinctPrompts, long simSeed) {
    if (promptWords < 1 || outputTokens < 1 || distinctPrompts < 1) {
      throw new IllegalArgumentException("promptWords, outputTokens and distinctPrompts must be >= 1");
    }
    this.model = model;
    this.promptWords = promptWords;
    this.outputTokens = outputTokens;
    prefillBodies = new byte[distinctPrompts][];
    clientBodies = new byte[distinctPrompts][];
    decodeHeads = new String[distinctPrompts];
    expected = new byte[distinctPrompts][];
    String quotedModel = quote(model);
    for (int i = 0; i < distinctPrompts; i++) {
      String prompt = prompt(i, promptWords);
      String head = "{\"model\":" + quotedModel + ",\"prompt\":" + quote(prompt);
      prefillBodies[i] = utf8(head + ",\"max_tokens\":1,\"stream\":false,\"kv_transfer_params\":"
          + REMOTE_DECODE_PARAMS + "}");
      String clientHead = head + ",\"max_tokens\":" + outputTokens + ",\"stream\":true";
      clientBodies[i] = utf8(clientHead + "}");
      decodeHeads[i] = clientHead + ",\"kv_transfer_params\":";
      expected[i] = utf8(SimEngine.expectedText(simSeed, prompt, outputTokens));
    }
  }

  /** Prompt {@code i}: a distinct first word, then filler up to {@code words} words. */
  static String prompt(int i, int words) {
    StringBuilder b = new StringBuilder("bench-").append(i);
    for (int w = 1; w < words; w++) {
      b.append(' ').append(WORDS[(i + w) % WORDS.length]);
    }
    return b.toString();
  }

  public int size() {
    return expected.length;
  }

  public String model() {
    return model;
  }

  public int promptWords() {
    return promptWords;
  }

  public int outputTokens() {
    return outputTokens;
  }

  /** The prefill leg's body: the client's prompt, one token, not streamed, asking for a remote decode. */
  public byte[] prefillBody(int i) {
    return prefillBodies[i];
  }

  /** The body a client sends the router: a streamed completion. */
  public byte[] clientBody(int i) {
    return clientBodies[i];
  }

  /** The decode leg's body: the client's request plus the producer's descriptor verbatim. */
  public byte[] decodeBody(int i, String kvTransferParamsJson) {
    return utf8(decodeHeads[i] + kvTransferParamsJson + "}");
  }

  /** The expected completion text of prompt {@code i}, as UTF-8. */
  public byte[] expected(int i) {
    return expected[i];
  }

  private static String quote(String s) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + "\"";
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

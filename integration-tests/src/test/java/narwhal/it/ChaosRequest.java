package narwhal.it;

import java.util.List;
import java.util.Random;
import narwhal.sim.SimEngine;
import org.jspecify.annotations.Nullable;

/**
 * One request of the chaos soak, drawn from a seeded generator: route, streaming, length, an
 * optional simulator fault directive, and whether the client walks away mid-answer.
 *
 * @param clientRid the {@code X-Request-Id} it is sent with (journal {@code client_rid})
 * @param expectedTokens how many tokens a successful answer has (fewer than max_tokens only for an
 *     early end-of-sequence)
 * @param disconnectAfterMillis -1, or when the client closes its socket after sending
 */
record ChaosRequest(String clientRid, boolean chat, boolean stream, int maxTokens, String prompt,
    @Nullable String directive, int expectedTokens, int disconnectAfterMillis) {

  /** The faults the soak draws from: each ends in a success, a retry or a clean failure. */
  private static final List<String> FAULTS = List.of(
      "refuse,phase=decode,count=1",
      "delay-headers=40,phase=decode",
      "reset-after=%d,phase=decode",
      "eof-after=%d,phase=decode",
      "error-after=%d,code=503,phase=decode",
      "error-after=%d,code=overloaded,phase=decode",
      "status=503,phase=prefill",
      "status=500,phase=decode",
      "status=429,phase=decode,count=1",
      "silence-after=%d,ms=200,phase=decode",
      "silence-after=%d,ms=150,comments=30,phase=decode",
      "eos-after=%d,phase=decode",
      "done-first,phase=decode",
      "kv-none",
      "kv-bad-block-ids",
      "kv-missing-engine-id");

  static ChaosRequest draw(Random r, int i) {
    boolean chat = r.nextBoolean();
    boolean stream = r.nextInt(3) != 0;
    int maxTokens = 1 + r.nextInt(24);
    String directive = null;
    int expected = maxTokens;
    if (r.nextInt(5) < 2) {
      String fault = FAULTS.get(r.nextInt(FAULTS.size()));
      int n = 1 + r.nextInt(maxTokens);
      directive = fault.contains("%d") ? String.format(fault, n) : fault;
      if (fault.startsWith("eos-after")) {
        expected = n;
      }
    }
    int disconnect = r.nextInt(10) == 0 ? r.nextInt(150) : -1;
    String words = " chaos request " + i + " with a few words of prompt";
    String prompt = (directive == null ? "" : "[[sim:" + directive + "]]") + words;
    return new ChaosRequest("chaos-" + i, chat, stream, maxTokens, prompt, directive, expected, disconnect);
  }

  String path() {
    return chat ? "/v1/chat/completions" : "/v1/completions";
  }

  String body() {
    String quoted = RouterClient.JSON.getNodeFactory().textNode(prompt).toString();
    String input = chat ? "\"messages\":[{\"role\":\"user\",\"content\":" + quoted + "}]" : "\"prompt\":" + quoted;
    return "{\"model\":\"" + RoutedFleet.MODEL + "\"," + input + ",\"max_tokens\":" + maxTokens
        + ",\"stream\":" + stream + "}";
  }

  /** The oracle: the text the simulator generates for this prompt (the chat key is the content). */
  List<String> oracleTokens() {
    return SimEngine.expectedTokens(0, prompt, maxTokens);
  }

  @Override
  public String toString() {
    return clientRid + " " + path() + " stream=" + stream + " max_tokens=" + maxTokens
        + (directive == null ? "" : " [[sim:" + directive + "]]")
        + (disconnectAfterMillis < 0 ? "" : " disconnect@" + disconnectAfterMillis + "ms");
  }
}

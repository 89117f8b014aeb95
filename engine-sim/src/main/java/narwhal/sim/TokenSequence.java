package narwhal.sim;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The deterministic token stream for one prompt: short words with a leading space, picked from a
 * fixed vocabulary by a SplitMix64 generator seeded from the engine seed and a stable fingerprint
 * of the prompt key.
 *
 * <p>The output depends only on (seed, prompt key), never on which engine runs the request, so a
 * decode leg regenerates from the start exactly what any other engine would. Both the hash (Guava's
 * FarmHash fingerprint, frozen by contract) and the generator are fixed algorithms, so the tokens
 * are stable across JVMs and releases. Not thread-safe.
 */
final class TokenSequence {
  private static final String[] VOCABULARY = {
    " alpha", " bravo", " charlie", " delta", " echo", " foxtrot", " golf", " hotel",
    " india", " juliet", " kilo", " lima", " mike", " november", " oscar", " papa",
    " quebec", " romeo", " sierra", " tango", " uniform", " victor", " whiskey", " xray",
    " yankee", " zulu", " narwhal", " orca", " beluga", " kelp", " reef", " tide"
  };

  /** Each vocabulary word JSON-escaped as UTF-8 (without quotes), so streaming never re-encodes. */
  private static final Map<String, byte[]> QUOTED_VOCABULARY = quoteVocabulary();

  private long state;

  TokenSequence(long seed, String promptKey) {
    long promptHash =
        Hashing.farmHashFingerprint64().hashString(promptKey, StandardCharsets.UTF_8).asLong();
    this.state = seed ^ promptHash;
  }

  String next() {
    state += 0x9E3779B97F4A7C15L;
    long z = state;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z = z ^ (z >>> 31);
    return VOCABULARY[(int) Long.remainderUnsigned(z, VOCABULARY.length)];
  }

  /** {@code text} JSON-escaped as UTF-8, without the surrounding quotes. */
  static byte[] quotedJson(String text) {
    byte[] quoted = QUOTED_VOCABULARY.get(text);
    return quoted != null ? quoted : JsonStringEncoder.getInstance().quoteAsUTF8(text);
  }

  private static Map<String, byte[]> quoteVocabulary() {
    Map<String, byte[]> quoted = new HashMap<>();
    for (String word : VOCABULARY) {
      quoted.put(word, JsonStringEncoder.getInstance().quoteAsUTF8(word));
    }
    return Map.copyOf(quoted);
  }

  static List<String> first(long seed, String promptKey, int n) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be >= 0, got " + n);
    }
    TokenSequence sequence = new TokenSequence(seed, promptKey);
    List<String> tokens = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      tokens.add(sequence.next());
    }
    return List.copyOf(tokens);
  }
}

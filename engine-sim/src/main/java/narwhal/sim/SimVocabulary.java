package narwhal.sim;

import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;

/**
 * The simulator's token ids: each whitespace-separated word of a prompt is one token (as its
 * counts have always been), and its id is a stable hash of the word into a vocabulary of {@value
 * #SIZE} ids. A generated token (" alpha") is the word without its leading space, so a
 * conversation's next turn, which quotes the reply, tokenizes it to the ids the engine generated.
 * Both the tokenize route and the prefix cache use these ids, so a router that hashes the ids the
 * route returns keys the same blocks the engine caches. A token-id prompt's ids are its own.
 */
final class SimVocabulary {

  static final int SIZE = 128_000;

  private SimVocabulary() {}

  static int wordId(String word) {
    int h = Hashing.murmur3_32_fixed().hashString(word.strip(), StandardCharsets.UTF_8).asInt();
    return Math.floorMod(h, SIZE);
  }

  /** The ids of {@code text}'s whitespace-separated words (at least one: an empty prompt is one token). */
  static int[] ids(String text) {
    int count = RequestParser.countWords(text);
    int[] out = new int[count];
    int n = 0;
    int i = 0;
    while (i < text.length() && n < count) {
      while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
        i++;
      }
      int start = i;
      while (i < text.length() && !Character.isWhitespace(text.charAt(i))) {
        i++;
      }
      if (i > start) {
        out[n++] = wordId(text.substring(start, i));
      }
    }
    // An all-space prompt still counts one token: the empty word's id.
    while (n < count) {
      out[n++] = wordId("");
    }
    return out;
  }
}

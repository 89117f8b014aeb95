package narwhal.core.journal;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** The bytes of one journal row: what makes any string a valid JSON line in valid UTF-8. */
final class JournalLines {

  private JournalLines() {}

  /** One line: compact JSON, lone surrogates escaped, then a newline; always valid UTF-8. */
  static byte[] encode(ObjectMapper mapper, Map<String, Object> row) throws IOException {
    String json = escapeLoneSurrogates(mapper.writeValueAsString(row));
    byte[] text = json.getBytes(StandardCharsets.UTF_8);
    byte[] line = new byte[text.length + 1];
    System.arraycopy(text, 0, line, 0, text.length);
    line[text.length] = '\n';
    return line;
  }

  /**
   * Replaces each surrogate that is not half of a high-low pair with its {@code \\uXXXX} escape.
   * Jackson writes such a character raw, and only inside a JSON string (keys and values; the
   * rest of its output is ASCII), where the six-character escape means the same code unit: a
   * reader gets back exactly the string the row held, and the UTF-8 encoder has nothing it cannot
   * encode.
   */
  static String escapeLoneSurrogates(String s) {
    StringBuilder out = null;
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (!Character.isSurrogate(c)) {
        if (out != null) {
          out.append(c);
        }
        continue;
      }
      if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        if (out != null) {
          out.append(c).append(s.charAt(i + 1));
        }
        i++;
        continue;
      }
      if (out == null) {
        out = new StringBuilder(n + 16).append(s, 0, i);
      }
      out.append(String.format("\\u%04x", (int) c));
    }
    return out == null ? s : out.toString();
  }
}

package narwhal.server.logs;

/**
 * Escapes what could break a log line: CR, LF and every other control character (C0, DEL, C1),
 * and the Unicode line and paragraph separators, which some viewers break lines on. A log message
 * may carry bytes a client or an engine chose (grpc-java quotes an HTTP/1 request line sent to the
 * gRPC port, with any bare LF in it); escaped here, in the encoders, such bytes can never start a
 * line of their own, whatever the call site wrote (CWE-117).
 */
final class ControlCharacters {

  private ControlCharacters() {}

  /** {@code text} with each such character written as {@code \n}, {@code \r}, {@code \t} or {@code \\uXXXX}. */
  static String escape(String text) {
    int first = firstToEscape(text);
    if (first < 0) {
      return text; // the common case: nothing to do, nothing allocated
    }
    StringBuilder sb = new StringBuilder(text.length() + 16).append(text, 0, first);
    for (int i = first; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!needsEscape(c)) {
        sb.append(c);
      } else if (c == '\n') {
        sb.append("\\n");
      } else if (c == '\r') {
        sb.append("\\r");
      } else if (c == '\t') {
        sb.append("\\t");
      } else {
        sb.append("\\u").append(String.format("%04x", (int) c));
      }
    }
    return sb.toString();
  }

  static boolean needsEscape(char c) {
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
  }

  private static int firstToEscape(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (needsEscape(text.charAt(i))) {
        return i;
      }
    }
    return -1;
  }
}

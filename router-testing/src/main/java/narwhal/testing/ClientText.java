package narwhal.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The rule every client-facing error text is held to (the "never leak" rule): it names the engine
 * by its iid and nothing internal — no loopback address, no {@code :port}, no URL, no exception or
 * Java class name. One rule for the adapter conformance kit and the socket tests alike.
 */
public final class ClientText {

  private static final List<String> INTERNAL =
      List.of("127.0.0.1", "localhost", "http://", "https://", "Exception", "io.netty", "java.");
  private static final Pattern PORT = Pattern.compile(":\\d{2,5}\\b");

  private ClientText() {}

  /** What {@code text} breaks of the rule for engine {@code iid}; empty when it keeps it. */
  public static List<String> leaks(String text, String iid) {
    List<String> found = new ArrayList<>();
    if (!text.contains(iid)) {
      found.add("does not name engine " + iid);
    }
    for (String internal : INTERNAL) {
      if (text.contains(internal)) {
        found.add("contains '" + internal + "'");
      }
    }
    if (PORT.matcher(text).find()) {
      found.add("contains a :port");
    }
    return found;
  }
}

package narwhal.server.logs;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.List;
import narwhal.core.journal.PlainDecimals;
import org.slf4j.event.KeyValuePair;

/**
 * {@code %pairs} in the text log format: an event's key-value pairs (e.g. a request's journal
 * fields) as {@code " key=value"}, a value quoted only when it is empty or holds a space or a
 * quote, so the common line stays short and still splits on spaces. Nothing for an event without pairs.
 * Control characters in a value are escaped ({@link ControlCharacters}): a value may hold what a
 * client sent (its {@code X-Request-Id}), and must not start a line of its own.
 */
public final class KeyValuesConverter extends ClassicConverter {

  @Override
  public String convert(ILoggingEvent event) {
    List<KeyValuePair> pairs = event.getKeyValuePairs();
    if (pairs == null || pairs.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    for (KeyValuePair kv : pairs) {
      // Numbers as the journal spells them (0.000123, never 1.23E-4), so the two read alike.
      String text = kv.value instanceof Double d && Double.isFinite(d)
          ? PlainDecimals.format(d) : ControlCharacters.escape(String.valueOf(kv.value));
      sb.append(' ').append(kv.key).append('=');
      if (text.isEmpty() || text.indexOf(' ') >= 0 || text.indexOf('"') >= 0) {
        sb.append('"').append(text.replace("\"", "\\\"")).append('"');
      } else {
        sb.append(text);
      }
    }
    return sb.toString();
  }
}

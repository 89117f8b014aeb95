package narwhal.server.logs;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Set;
import narwhal.core.journal.PlainDecimals;
import org.slf4j.event.KeyValuePair;

/**
 * The JSON log format ({@code NARWHAL_LOG_FORMAT=json}): one JSON object per line with {@code ts}
 * (ISO-8601 with the zone's offset, milliseconds), {@code level}, {@code logger}, {@code thread},
 * {@code msg}, each of the event's key-value pairs as a field of its own (a request's journal
 * fields: numbers and booleans stay JSON numbers and booleans), and {@code exception} (the stack
 * trace) when there is one. A pair named like one of the fixed fields is left out rather than
 * writing a key twice. Logback's own JsonEncoder nests pairs in a list and timestamps in epoch
 * milliseconds, which log tools do not index as fields; hence this small encoder.
 *
 * <p>Every string is escaped as JSON requires (CR, LF and the other C0 controls), and beyond that
 * DEL, the C1 controls and U+2028/U+2029 ({@link LineSafeEscapes}): whatever a message quotes, an
 * event is exactly one line that parses as one object.
 */
public final class JsonLogEncoder extends EncoderBase<ILoggingEvent> {

  private static final Set<String> FIXED = Set.of("ts", "level", "logger", "thread", "msg", "exception");
  private static final byte[] NO_BYTES = new byte[0];
  /** Always three fraction digits (ISO_OFFSET_DATE_TIME drops trailing zeros): fixed width sorts. */
  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");

  private final JsonFactory json = new JsonFactory().setCharacterEscapes(new LineSafeEscapes());
  private DateTimeFormatter timestamps = TIMESTAMP.withZone(ZoneId.systemDefault());

  /** Overrides the zone timestamps are written in (tests; the process's zone otherwise). */
  public void setZone(String zone) {
    timestamps = TIMESTAMP.withZone(ZoneId.of(zone));
  }

  @Override
  public byte[] headerBytes() {
    return NO_BYTES;
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = json.createGenerator(out)) {
      g.writeStartObject();
      // Milliseconds, as the text format: a fixed width sorts and reads the same everywhere.
      g.writeStringField("ts", timestamps.format(Instant.ofEpochMilli(event.getTimeStamp())));
      g.writeStringField("level", event.getLevel().toString());
      g.writeStringField("logger", event.getLoggerName());
      g.writeStringField("thread", event.getThreadName());
      g.writeStringField("msg", event.getFormattedMessage());
      List<KeyValuePair> pairs = event.getKeyValuePairs();
      if (pairs != null) {
        for (KeyValuePair kv : pairs) {
          if (kv.key != null && !FIXED.contains(kv.key)) {
            g.writeFieldName(kv.key);
            writeValue(g, kv.value);
          }
        }
      }
      IThrowableProxy thrown = event.getThrowableProxy();
      if (thrown != null) {
        g.writeStringField("exception", ThrowableProxyUtil.asString(thrown));
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    out.write('\n');
    return out.toByteArray();
  }

  private static void writeValue(JsonGenerator g, Object value) throws IOException {
    if (value == null) {
      g.writeNull();
    } else if (value instanceof Boolean b) {
      g.writeBoolean(b);
    } else if (value instanceof Integer || value instanceof Long || value instanceof Short) {
      g.writeNumber(((Number) value).longValue());
    } else if (value instanceof Double d && Double.isFinite(d)) {
      g.writeNumber(PlainDecimals.format(d)); // as the journal spells it: 0.000123, never 1.23E-4
    } else if (value instanceof Float f && Float.isFinite(f)) {
      g.writeNumber(f);
    } else {
      g.writeString(String.valueOf(value));
    }
  }

  /** JSON's own escapes plus DEL, the C1 controls and the Unicode line separators, as {@code \\uXXXX}. */
  private static final class LineSafeEscapes extends CharacterEscapes {

    private static final long serialVersionUID = 1L;
    private final int[] ascii = standardAsciiEscapesForJSON();

    LineSafeEscapes() {
      ascii[0x7f] = ESCAPE_STANDARD;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      return ControlCharacters.needsEscape((char) ch)
          ? new SerializedString(String.format("\\u%04x", ch)) : null;
    }
  }

  @Override
  public byte[] footerBytes() {
    return NO_BYTES;
  }
}

package narwhal.server.logs;

import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.pattern.ThrowableHandlingConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Context;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.pattern.Converter;
import ch.qos.logback.core.pattern.DynamicConverter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The text log format ({@code NARWHAL_LOG_FORMAT=text}): a pattern as Logback's own encoder takes
 * one, in which the message ({@code %msg}, {@code %m}, {@code %message}), the stack trace ({@code
 * %ex} and its spellings, appended when a pattern names none, as Logback does) and the key-value pairs
 * ({@code %pairs}) always escape control characters: the guarantee is the encoder's, so no
 * pattern and no call site can let a CR or LF that a client sent start a log line of its own.
 */
public final class TextLogEncoder extends LayoutWrappingEncoder<ILoggingEvent> {

  private String pattern = "%msg%n";

  /** The layout pattern, as for Logback's {@code PatternLayoutEncoder}. */
  public void setPattern(String pattern) {
    this.pattern = pattern;
  }

  public String getPattern() {
    return pattern;
  }

  @Override
  public void start() {
    PatternLayout layout = new PatternLayout();
    layout.setContext(getContext());
    layout.setPattern(pattern);
    Map<String, Supplier<DynamicConverter>> converters = layout.getInstanceConverterMap();
    for (String word : List.of("m", "msg", "message")) {
      converters.put(word, EscapedMessageConverter::new);
    }
    for (String word : List.of("ex", "exception", "throwable", "xEx", "xException", "xThrowable", "rEx",
        "rootException")) {
      converters.put(word, EscapedThrowableConverter::new);
    }
    converters.put("pairs", KeyValuesConverter::new);
    // A pattern naming no stack trace gets one appended, as Logback's own layout does, but the escaping one.
    layout.setPostCompileProcessor(TextLogEncoder::ensureEscapedThrowable);
    layout.start();
    setLayout(layout);
    setCharset(StandardCharsets.UTF_8);
    super.start();
  }

  private static void ensureEscapedThrowable(Context context, Converter<ILoggingEvent> head) {
    Converter<ILoggingEvent> tail = head;
    for (Converter<ILoggingEvent> c = head; c != null; c = c.getNext()) {
      if (c instanceof ThrowableHandlingConverter) {
        return;
      }
      tail = c;
    }
    EscapedThrowableConverter stackTrace = new EscapedThrowableConverter();
    stackTrace.setContext(context);
    stackTrace.start();
    tail.setNext(stackTrace);
  }
}

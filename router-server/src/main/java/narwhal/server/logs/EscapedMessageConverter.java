package narwhal.server.logs;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/** {@code %msg} in the text format: the formatted message, its control characters escaped. */
public final class EscapedMessageConverter extends MessageConverter {

  @Override
  public String convert(ILoggingEvent event) {
    return ControlCharacters.escape(super.convert(event));
  }
}

package narwhal.server.logs;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream whose every line becomes one log event. Under {@code NARWHAL_LOG_FORMAT=json} the
 * commands' stderr reports (preflight tables, configuration errors) go through it, so that stderr
 * holds nothing but JSON objects and a log collector never meets a plain line.
 */
public final class LoggedLines extends OutputStream {

  /** The logger the report lines are written as. */
  public static final String LOGGER = "narwhal.report";

  private final Logger log;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();

  private LoggedLines(Logger log) {
    this.log = log;
  }

  /** A print stream that logs each line it is given, at INFO, as {@link #LOGGER}. */
  public static PrintStream printStream() {
    return new PrintStream(new LoggedLines(LoggerFactory.getLogger(LOGGER)), true, StandardCharsets.UTF_8);
  }

  @Override
  public synchronized void write(int b) {
    if (b == '\n') {
      emit();
    } else {
      line.write(b);
    }
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) {
    for (int i = off; i < off + len; i++) {
      write(b[i]);
    }
  }

  @Override
  public synchronized void close() {
    if (line.size() > 0) {
      emit();
    }
  }

  private void emit() {
    String text = line.toString(StandardCharsets.UTF_8);
    line.reset();
    // A CRLF writer leaves its CR behind: the event's message is the line's text only.
    log.info(text.endsWith("\r") ? text.substring(0, text.length() - 1) : text);
  }
}

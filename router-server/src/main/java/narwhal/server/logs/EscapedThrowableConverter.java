package narwhal.server.logs;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;

/**
 * {@code %ex} in the text format: the stack trace, one frame a line as usual, but each exception's
 * message (its first line, and each {@code Caused by:}) with its control characters escaped. An
 * exception's message may quote what a client sent (grpc-java's {@code Http2Exception: Unexpected
 * HTTP/1.x request: ...}); the frames are the JVM's own.
 */
public final class EscapedThrowableConverter extends ThrowableProxyConverter {

  @Override
  protected String throwableProxyToString(IThrowableProxy tp) {
    return super.throwableProxyToString(Escaped.of(tp));
  }

  /** A throwable as logged, with its message and every cause's and suppressed one's escaped. */
  private record Escaped(IThrowableProxy tp) implements IThrowableProxy {

    static IThrowableProxy of(IThrowableProxy tp) {
      return tp == null || tp instanceof Escaped ? tp : new Escaped(tp);
    }

    @Override
    public String getMessage() {
      String message = tp.getMessage();
      return message == null ? null : ControlCharacters.escape(message);
    }

    @Override
    public String getClassName() {
      return tp.getClassName();
    }

    @Override
    public StackTraceElementProxy[] getStackTraceElementProxyArray() {
      return tp.getStackTraceElementProxyArray();
    }

    @Override
    public int getCommonFrames() {
      return tp.getCommonFrames();
    }

    @Override
    public IThrowableProxy getCause() {
      return of(tp.getCause());
    }

    @Override
    public IThrowableProxy[] getSuppressed() {
      IThrowableProxy[] suppressed = tp.getSuppressed();
      if (suppressed == null) {
        return null;
      }
      IThrowableProxy[] escaped = new IThrowableProxy[suppressed.length];
      for (int i = 0; i < suppressed.length; i++) {
        escaped[i] = of(suppressed[i]);
      }
      return escaped;
    }

    @Override
    public boolean isCyclic() {
      return tp.isCyclic();
    }
  }
}

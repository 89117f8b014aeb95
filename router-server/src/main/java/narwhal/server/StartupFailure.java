package narwhal.server;

import java.io.IOException;
import java.net.BindException;

/**
 * The router could not start for a reason the operator must fix (a port already taken): the
 * commands print its message alone, with no stack trace, and exit non-zero, after everything
 * already started has been closed.
 */
final class StartupFailure extends RuntimeException {

  private StartupFailure(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * What listening for {@code what} on {@code host:port} failed with, as the operator should read
   * it, when it is an I/O failure (a port taken, an address not this machine's: NIO reports a
   * {@link BindException}, the native epoll transport an {@link IOException} of its own); {@code
   * failure} itself otherwise, so a programming error keeps its stack trace.
   */
  static RuntimeException listen(String what, String host, int port, Exception failure) {
    IOException io = null;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof IOException e) {
        io = e; // the innermost one names the system's reason
      }
    }
    if (io != null) {
      return new StartupFailure("cannot listen for " + what + " on " + host + ":" + port + ": " + io.getMessage()
          + " (another process may hold the port, or the address is not this machine's)", failure);
    }
    return failure instanceof RuntimeException runtime ? runtime : new IllegalStateException(failure);
  }
}

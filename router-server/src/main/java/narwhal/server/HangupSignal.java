package narwhal.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SIGHUP for {@code narwhal serve}: reopen the journal, logrotate's move-then-signal convention.
 * Without a handler the JVM's default for SIGHUP ends the process, so a rotation would stop the
 * router. {@code sun.misc.Signal} (module jdk.unsupported) is the JDK's only way to handle a
 * signal; it is installed by {@code serve} alone, never by tests or embedders.
 */
final class HangupSignal {

  private static final Logger log = LoggerFactory.getLogger(HangupSignal.class);

  private HangupSignal() {}

  /** Runs {@code action} on each SIGHUP; false (and a warning) where SIGHUP cannot be handled. */
  @SuppressWarnings("restriction")
  static boolean onHangup(Runnable action) {
    sun.misc.SignalHandler previous;
    try {
      previous = sun.misc.Signal.handle(new sun.misc.Signal("HUP"), signal -> {
        // The JVM's signal thread: the action must not block (the journal only flags the writer).
        try {
          action.run();
        } catch (RuntimeException e) {
          log.error("SIGHUP handling failed", e);
        }
      });
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      // No SIGHUP here (Windows), or the JVM keeps it (-Xrs).
      log.warn("SIGHUP cannot be handled here ({}); the journal will not be reopened on SIGHUP (the platform has "
          + "none, or the JVM runs with -Xrs)", e.getMessage());
      return false;
    }
    if (previous == sun.misc.SignalHandler.SIG_IGN) {
      // Ignored when the process started (nohup): HotSpot leaves an ignored SIGHUP ignored and
      // reports the old disposition instead of failing, so without this check a logrotate
      // rotation would go unnoticed and every later row would land in the rotated file.
      log.warn("SIGHUP cannot be handled here (it was ignored when the router started, as under nohup); the journal "
          + "will not be reopened on SIGHUP: start the router without nohup (a service manager does) to rotate the "
          + "journal by signal");
      return false;
    }
    return true;
  }
}

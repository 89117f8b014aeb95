package narwhal.netty.tls;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import narwhal.config.PemFiles.PemException;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the certificate and key files every {@code serving.tls.reload_check_s} and installs a
 * changed pair in the {@link ReloadingKeyManager}. A change is a change of the files' bytes (a
 * renewal that keeps the modification time, or a symlink swapped under a mounted secret, counts).
 *
 * <p>A pair that does not load (a file half written, a key not yet matching its new certificate)
 * leaves the served certificate as it is and is logged at WARN once for that content: the next
 * change is tried again, and a broken pair that stays broken does not repeat in the log.
 *
 * <p>Reads files, so its scheduler must not be an event loop doing socket I/O. Confined to that
 * scheduler.
 */
final class CertificateReloader {

  private static final Logger log = LoggerFactory.getLogger(CertificateReloader.class);

  private final Path certChain;
  private final Path privateKey;
  private final ReloadingKeyManager keys;
  private final Scheduler scheduler;
  private final long periodNanos;
  private @Nullable String lastRefused;
  private int refusals;
  private Timer timer = Timer.NONE;
  private boolean stopped;

  CertificateReloader(Path certChain, Path privateKey, ReloadingKeyManager keys, Scheduler scheduler,
      long periodNanos) {
    this.certChain = certChain;
    this.privateKey = privateKey;
    this.keys = keys;
    this.scheduler = scheduler;
    this.periodNanos = periodNanos;
  }

  void start() {
    scheduler.runInLoop(this::scheduleNext);
  }

  void stop() {
    scheduler.runInLoop(() -> {
      stopped = true;
      timer.cancel();
    });
  }

  /** One check, now: reloads when the files changed. Runs on the scheduler. */
  void check() {
    ServerIdentity.FileContents files;
    try {
      files = ServerIdentity.FileContents.read(certChain, privateKey);
    } catch (PemException e) {
      refuse("unreadable:" + e.getMessage(), e.getMessage());
      return;
    }
    if (files.digest().equals(keys.identity().digest()) || files.digest().equals(lastRefused)) {
      return;
    }
    try {
      ServerIdentity next = ServerIdentity.load(certChain, privateKey, files);
      keys.install(next);
      lastRefused = null;
      log.info("TLS certificate reloaded from {}: {}, valid until {}; new connections present it, open ones keep "
          + "theirs", certChain, next.leaf().getSubjectX500Principal().getName(), next.leaf().getNotAfter().toInstant());
    } catch (PemException e) {
      refuse(files.digest(), e.getMessage());
    }
  }

  private void refuse(String what, String problem) {
    if (what.equals(lastRefused)) {
      return;
    }
    lastRefused = what;
    refusals++;
    log.warn("TLS certificate files changed but cannot be loaded, still serving the previous certificate: {}",
        problem);
  }

  /** How many changes could not be loaded (each logged once). */
  int refusals() {
    return refusals;
  }

  private void scheduleNext() {
    if (stopped) {
      return;
    }
    timer = scheduler.schedule(() -> {
      if (stopped) {
        return;
      }
      try {
        check();
      } catch (RuntimeException e) {
        log.warn("TLS certificate check failed; trying again in {} s", periodNanos / 1e9, e);
      }
      scheduleNext();
    }, periodNanos, TimeUnit.NANOSECONDS);
  }
}

package narwhal.server;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.profile.GenerationSource;
import narwhal.core.profile.ProfileBinder;
import narwhal.core.profile.ProfileBook;
import narwhal.core.profile.ProfileStatus;
import narwhal.core.profile.ProfilesDocument;
import narwhal.core.profile.ProfilesFile;
import narwhal.core.profile.ProfilesFileException;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The profiles a serving router prices with: {@code profiles.path} read at start into the router's
 * {@link ProfileBook}, each row then kept bound to its engine's process generation by a {@link
 * ProfileBinder} (on the breaker's loop, so readmissions reach it in order). A missing file is
 * fine: every engine runs without a profile. A file that cannot be used stops the start.
 */
final class ServingProfiles implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RouterServer.class);
  /** Beyond the generation reads' own timeout (engine.health_timeout_s), before serving starts anyway. */
  private static final long SLACK_MILLIS = 1000;

  private final @Nullable ProfileBinder binder;

  private ServingProfiles(@Nullable ProfileBinder binder) {
    this.binder = binder;
  }

  /**
   * The profiles file of {@code config}, or null when there is none.
   *
   * @throws IllegalArgumentException naming every problem, when the file exists and cannot be used
   */
  static @Nullable ProfilesDocument read(FleetConfig config) {
    Path path = Path.of(config.profiles().path());
    try {
      return ProfilesFile.readIfExists(path);
    } catch (ProfilesFileException e) {
      // "invalid profiles file runs/profiles.json (2 errors):", then one line per problem.
      throw new IllegalArgumentException(e.getMessage().lines().findFirst().orElse("invalid profiles file") + "\n  "
          + String.join("\n  ", e.errors()) + "\nfix the file, or re-run narwhal profile --fleet FILE to write it anew");
    }
  }

  /**
   * Installs {@code doc}'s rows in {@code book} and binds them: waits (this is the start, on the
   * caller's thread) until every engine's generation has been read, or {@code
   * engine.health_timeout_s} and a second more have passed.
   */
  static ServingProfiles start(FleetConfig config, @Nullable ProfilesDocument doc, ProfileBook book,
      GenerationSource generations, Scheduler loop, ReadmissionRecheck readmissions) {
    Path path = Path.of(config.profiles().path());
    if (doc == null) {
      log.info("narwhal: no profiles file at {}: predictive admission runs unpriced for engines without a profile "
          + "(narwhal profile --fleet FILE measures them)", path);
      Map<String, ProfileStatus> none = new LinkedHashMap<>();
      for (EngineSpec e : config.engines()) {
        none.put(e.iid(), ProfileStatus.none("no profiles file at " + path));
      }
      book.install(none);
      return new ServingProfiles(null);
    }
    log.info("narwhal: {} engine profiles from {}", doc.rows().size(), path);
    ProfileBinder binder = new ProfileBinder(config.engines(), doc, book, generations, loop, recheckEveryNanos(config));
    readmissions.attach(binder);
    long waitMillis = Math.round(config.engine().healthTimeoutS() * 1000) + SLACK_MILLIS;
    try {
      binder.start().get(waitMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      log.warn("narwhal: engine generations not all read within {} ms; serving with the rows as they stand",
          waitMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new ServingProfiles(binder);
  }

  /**
   * Every liveness sweep's period ({@code recovery.liveness_every} monitor intervals): an engine that
   * restarted between two sweeps is never ejected, and only its generation tells.
   */
  static long recheckEveryNanos(FleetConfig config) {
    int every = config.recovery().livenessEvery();
    return every <= 0 ? 0 : Math.round(every * config.controller().monitorIntervalS() * 1e9);
  }

  @Override
  public void close() {
    if (binder != null) {
      binder.close();
    }
  }
}

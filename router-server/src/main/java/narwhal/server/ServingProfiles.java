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

  private volatile @Nullable ProfileBinder binder;
  /** What a binder made later (a profiles document arriving from the cluster) needs. */
  private final @Nullable Later later;

  private record Later(FleetConfig config, ProfileBook book, GenerationSource generations, Scheduler loop,
      ReadmissionRecheck readmissions) {}

  private ServingProfiles(@Nullable ProfileBinder binder, @Nullable Later later) {
    this.binder = binder;
    this.later = later;
  }

  /**
   * Installs a profiles document shared by the replicas (from etcd): it replaces the rows the
   * router prices with, bound to the engines' generations as a file's are.
   */
  void install(ProfilesDocument doc) {
    ProfileBinder b = binder;
    if (b != null) {
      b.replaceRows(doc);
      return;
    }
    Later l = later;
    if (l == null) {
      return;
    }
    synchronized (this) {
      if (binder == null) {
        ProfileBinder made = new ProfileBinder(l.config().engines(), doc, l.book(), l.generations(), l.loop(),
            recheckEveryNanos(l.config()));
        l.readmissions().attach(made);
        binder = made;
        made.start();
        return;
      }
    }
    binder.replaceRows(doc);
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
      return new ServingProfiles(null, new Later(config, book, generations, loop, readmissions));
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
    return new ServingProfiles(binder, null);
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
    ProfileBinder b = binder;
    if (b != null) {
      b.close();
    }
  }
}

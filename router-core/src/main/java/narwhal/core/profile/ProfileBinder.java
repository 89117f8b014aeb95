package narwhal.core.profile;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineSpec;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each engine's profile bound to the process it runs: reads every engine's process generation
 * at start, again for an engine the breaker readmits ({@link #recheck}), and for every engine each
 * {@code recheckEveryNanos} (an engine that restarts between two liveness sweeps is never ejected,
 * so only its generation shows the restart). After each reading it installs {@link
 * ProfileAssignment}'s verdict in the {@link ProfileBook}, and logs every engine whose source
 * changed.
 *
 * <p>A reading that finds no generation (a document without the field, an attestation that did not
 * answer) does not replace a generation read before: the last generation seen stays in force until
 * another is read. All state is confined to {@code loop}; {@link #recheck} may be called from any
 * thread.
 */
public final class ProfileBinder implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ProfileBinder.class);

  private final List<EngineSpec> engines;
  private final List<String> iids;
  private Map<String, ProfileRow> rows;
  private final ProfileBook book;
  private final GenerationSource source;
  private final Scheduler loop;
  private final long recheckEveryNanos;
  private final Map<String, EngineGeneration> generations = new LinkedHashMap<>();
  private Map<String, ProfileStatus> installed = Map.of();
  private Timer timer = Timer.NONE;
  private boolean closed;

  /**
   * @param recheckEveryNanos how often every engine's generation is read again; 0 for never
   */
  public ProfileBinder(List<EngineSpec> engines, ProfilesDocument rows, ProfileBook book, GenerationSource source,
      Scheduler loop, long recheckEveryNanos) {
    this.engines = List.copyOf(engines);
    this.iids = engines.stream().map(EngineSpec::iid).toList();
    this.rows = rows.byIid();
    this.book = book;
    this.source = source;
    this.loop = loop;
    this.recheckEveryNanos = recheckEveryNanos;
  }

  /**
   * Installs the rows as they stand (every generation unread), reads every engine's generation and
   * installs the verdict; the future completes once it is installed. Then rechecks periodically.
   */
  public CompletableFuture<Map<String, ProfileStatus>> start() {
    CompletableFuture<Map<String, ProfileStatus>> done = new CompletableFuture<>();
    loop.runInLoop(() -> {
      install(false);
      readAll().whenComplete((ignored, error) -> loop.runInLoop(() -> {
        install(true);
        scheduleRecheck();
        done.complete(installed);
      }));
    });
    return done;
  }

  /**
   * Replaces the profile rows (a new {@code narwhal profile} run, shared by router replicas) and
   * installs the verdict for the generations already read.
   */
  public void replaceRows(ProfilesDocument doc) {
    loop.runInLoop(() -> {
      rows = doc.byIid();
      install(true);
    });
  }

  /** Reads engine {@code iid}'s generation again (a readmitted engine may have restarted). */
  public void recheck(String iid) {
    loop.runInLoop(() -> {
      for (EngineSpec e : engines) {
        if (e.iid().equals(iid) && !closed) {
          read(e).whenComplete((ignored, error) -> loop.runInLoop(() -> install(true)));
        }
      }
    });
  }

  @Override
  public void close() {
    loop.runInLoop(() -> {
      closed = true;
      timer.cancel();
    });
  }

  private void scheduleRecheck() {
    if (closed || recheckEveryNanos <= 0) {
      return;
    }
    timer = loop.schedule(() -> {
      if (!closed) {
        readAll().whenComplete((ignored, error) -> loop.runInLoop(() -> {
          install(true);
          scheduleRecheck();
        }));
      }
    }, recheckEveryNanos, TimeUnit.NANOSECONDS);
  }

  private CompletableFuture<Void> readAll() {
    List<CompletableFuture<Void>> reads = new ArrayList<>();
    for (EngineSpec e : engines) {
      reads.add(read(e));
    }
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new));
  }

  private CompletableFuture<Void> read(EngineSpec engine) {
    return source.current(engine, loop).handle((generation, error) -> {
      loop.runInLoop(() -> {
        EngineGeneration g = generation != null ? generation
            : EngineGeneration.unknown("generation read failed: " + error);
        EngineGeneration before = generations.get(engine.iid());
        if (g.isKnown() || before == null || !before.isKnown()) {
          generations.put(engine.iid(), g);
        }
      });
      return null;
    });
  }

  private void install(boolean logChanges) {
    if (closed) {
      return;
    }
    Map<String, ProfileStatus> next = ProfileAssignment.assign(iids, rows, generations);
    if (logChanges) {
      next.forEach((iid, status) -> {
        ProfileStatus was = installed.get(iid);
        if (was == null || was.source() != status.source() || !java.util.Objects.equals(was.reason(), status.reason())) {
          log.info("engine {} profile: {}{}", iid, status.source().wireName(),
              status.reason() == null ? "" : " (" + status.reason() + ")");
        }
      });
    }
    if (logChanges) {
      // The install before any reading is provisional: the first reading logs every engine.
      installed = next;
    }
    book.install(next);
  }
}
